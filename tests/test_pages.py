"""The pages a person opens, in a real browser: Debian's Chromium driven by Playwright, against
a live `killmath serve`.

Each page must render without a console error or an uncaught exception, and no request may
leave loopback (any other address is aborted and fails the test: the pages must work without
internet). From `/docs`, "Try it out" → "Execute" on /v1/shoot answers, and GraphiQL runs a
query; both answers are the REST API's numbers. The browser is `browser_harness`'s (skipped
without Chromium, failed under CI=true). Screenshots of every page go to the test's tmp_path.
The matchup explorer (`/explore`) has its own, `test_explore.py`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_harness import Browsing
from service_harness import Server, rest, serving

from service import pages

SHOT = {"attacker": {"attacks": 4, "hit": 3}, "defender": {"save": 4}}
KEY = "pages-test-key-0123456789abcdef"


@pytest.fixture(scope="module")
def locked() -> Iterator[Server]:
    """Access control on, introspection (and so GraphiQL) off: the prod settings."""
    with serving(api_keys=KEY, graphql_introspection="false", rate_limit=0) as running:
        yield running


def test_landing_page_links_everything(browsing: Browsing, url: str, tmp_path: Path) -> None:
    page = browsing.open(url + "/")
    assert "killmath" in page.locator("h1").inner_text()
    hrefs = page.eval_on_selector_all("a", "links => links.map(a => a.href)")
    for path in (
        "/explore",
        "/docs",
        "/graphql",
        "/openapi.json",
        "/healthz",
        "/readyz",
        "/metrics",
    ):
        assert url + path in hrefs, path
    sections = [h for h in hrefs if h.startswith(url + "/readme#")]
    assert url + "/readme#access-control" in sections
    for href in hrefs:
        if href.startswith(url) and "#" not in href:
            assert httpx.get(href, headers={"accept": "text/html"}).status_code == 200, href
    rulesets = page.locator("table.rulesets").inner_text()
    assert "kt2024" in rulesets and "shoot" in rulesets
    browsing.check(page, tmp_path / "landing.png")


def test_readme_page_has_anchored_sections(browsing: Browsing, url: str, tmp_path: Path) -> None:
    page = browsing.open(url + "/readme#access-control")
    assert page.locator("h2#access-control").inner_text() == "Access control"
    assert page.locator("table").count() >= 1  # the settings table is rendered as a table
    browsing.check(page, tmp_path / "readme.png")


def _execute_shoot(page: Any, body: dict) -> dict:
    """In Swagger UI: open POST /v1/shoot, Try it out, put `body`, Execute; the answer."""
    operation = page.locator(".opblock-post", has=page.locator('[data-path="/v1/shoot"]'))
    operation.locator(".opblock-summary").click()
    operation.get_by_role("button", name="Try it out").click()
    editor = operation.locator("textarea.body-param__text")
    editor.fill(json.dumps(body))
    operation.get_by_role("button", name="Execute").click()
    live = operation.locator(".live-responses-table .response")
    live.locator(".response-col_status").wait_for()
    status = live.locator(".response-col_status").inner_text().strip()
    text = live.locator(".response-col_description pre.microlight").first.inner_text()
    return {"status": status, "body": json.loads(text)}


def test_docs_try_it_out_answers(browsing: Browsing, url: str, tmp_path: Path) -> None:
    page = browsing.open(url + "/docs")
    page.locator('[data-path="/v1/shoot"]').first.wait_for()
    page.screenshot(path=str(tmp_path / "docs-top.png"))
    answer = _execute_shoot(page, SHOT)
    assert answer["status"] == "200"
    expected = rest(url, "/v1/shoot", SHOT)
    assert answer["body"]["expectedDamage"] == expected["expectedDamage"]
    assert answer["body"]["canonicalKey"] == expected["canonicalKey"]
    browsing.check(page, tmp_path / "docs.png")


def test_graphiql_runs_a_query(browsing: Browsing, url: str, tmp_path: Path) -> None:
    page = browsing.open(url + "/graphql")
    page.locator(".graphiql-container").wait_for()
    page.locator(".graphiql-execute-button").click()
    result = page.locator(".result-window")
    result.get_by_text("expectedDamage").wait_for()
    shown = json.loads(result.locator(".CodeMirror").evaluate("e => e.CodeMirror.getValue()"))
    expected = rest(url, "/v1/shoot", SHOT)
    assert shown["data"]["shoot"]["expectedDamage"] == expected["expectedDamage"]
    assert shown["data"]["shoot"]["canonicalKey"] == expected["canonicalKey"]
    browsing.check(page, tmp_path / "graphiql.png")


def test_docs_with_a_key_authorize_then_execute(
    browsing: Browsing, locked: Server, tmp_path: Path
) -> None:
    """Access control on: the page loads without a key; Try it out without one is 401,
    after Authorize it answers."""
    page = browsing.open(locked.url + "/docs")
    page.locator('[data-path="/v1/shoot"]').first.wait_for()
    assert "API key" in page.locator(".notice").inner_text()
    assert _execute_shoot(page, SHOT)["status"] == "401"
    page.locator("button.authorize").first.click()
    dialog = page.locator(".auth-container")
    dialog.locator("input").fill(KEY)
    dialog.locator("button.authorize").click()
    dialog.locator("button.btn-done").click()
    operation = page.locator(".opblock-post", has=page.locator('[data-path="/v1/shoot"]'))
    operation.get_by_role("button", name="Execute").click()
    live = operation.locator(".live-responses-table .response .response-col_status")
    page.wait_for_function(
        "e => e.innerText.trim() === '200'", arg=live.element_handle(), timeout=30_000
    )
    # the browser logs the refused call (401) as a console error; nothing else may be there
    assert all("401" in error for error in browsing.errors), browsing.errors
    browsing.errors.clear()
    browsing.check(page, tmp_path / "docs-authorized.png")


def test_graphiql_with_a_key_in_its_headers(browsing: Browsing, tmp_path: Path) -> None:
    """Access control on, introspection on: GraphiQL loads without a key, its Headers tab
    holds the header to complete; with the key filled in, the query answers."""
    with serving(api_keys=KEY, rate_limit=0) as keyed:
        page = browsing.open(keyed.url + "/graphql")
        page.locator(".graphiql-container").wait_for()
        headers = page.locator(".graphiql-editor-tool .CodeMirror").last
        placeholder = json.loads(headers.evaluate("e => e.CodeMirror.getValue()"))
        assert placeholder == {"Authorization": "Bearer <your API key>"}
        headers.evaluate(
            "(e, key) => e.CodeMirror.setValue(JSON.stringify({Authorization: 'Bearer ' + key}))",
            KEY,
        )
        page.locator(".graphiql-execute-button").click()
        result = page.locator(".result-window")
        result.get_by_text("expectedDamage").wait_for()
        shown = json.loads(result.locator(".CodeMirror").evaluate("e => e.CodeMirror.getValue()"))
        expected = httpx.post(
            keyed.url + "/v1/shoot", json=SHOT, headers={"authorization": f"Bearer {KEY}"}
        ).json()
        assert shown["data"]["shoot"]["expectedDamage"] == expected["expectedDamage"]
        # the schema's introspection, sent before the key was there, was refused (401)
        assert all("401" in error for error in browsing.errors), browsing.errors
        browsing.errors.clear()
        browsing.check(page, tmp_path / "graphiql-keyed.png")


def test_pages_public_api_not_with_keys(locked: Server) -> None:
    """With keys: pages and assets public, the API still 401, GraphiQL gone with
    introspection (a browser's GET /graphql is then 404), the landing page says both."""
    for path in (
        "/",
        "/docs",
        "/readme",
        "/explore",
        "/favicon.ico",
        "/static/favicon.svg",
        "/static/explore.js",
        "/static/docs.js",
        f"/{pages.vendored('graphiql')}/graphiql.min.js",
    ):
        assert httpx.get(locked.url + path).status_code == 200, path
    landing = httpx.get(locked.url + "/").text
    assert "requires an API key" in landing and 'href="graphql"' not in landing
    ide = httpx.get(locked.url + "/graphql", headers={"accept": "text/html"})
    assert ide.status_code == 404
    assert httpx.post(locked.url + "/v1/shoot", json=SHOT).status_code == 401
    # a GET that carries a document is the API, not the page: it needs the key
    query = httpx.get(
        locked.url + "/graphql?query={rulesets{name}}", headers={"accept": "text/html"}
    )
    assert query.status_code == 401


def test_asset_cache_headers(url: str) -> None:
    """Vendored files (versioned paths) are immutable; the service's own revalidate (304)."""
    vendored = httpx.get(f"{url}/{pages.vendored('swagger-ui-dist')}/swagger-ui-bundle.js")
    assert vendored.status_code == 200
    assert vendored.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert vendored.headers["content-type"].startswith("text/javascript")
    own = httpx.get(url + "/static/graphiql.js")
    assert own.headers["cache-control"] == "no-cache"
    again = httpx.get(url + "/static/graphiql.js", headers={"if-none-match": own.headers["etag"]})
    assert again.status_code == 304
    for path in ("/", "/docs", "/graphql"):
        page = httpx.get(url + path, headers={"accept": "text/html"})
        assert page.status_code == 200 and page.headers["cache-control"] == "no-cache", path
    assert httpx.get(url + "/static/nothing.js").status_code == 404


def test_every_pinned_asset_is_installed() -> None:
    """setup.py vendored every file the pins name (an install without them has blank pages)."""
    assert pages.missing_assets() == []


def test_pages_without_their_assets_say_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An install that skipped the vendoring answers 503 naming what is missing, not a blank
    page; with the files back the pages answer again."""
    monkeypatch.setattr(pages, "VENDOR", tmp_path)
    refused = pages._unavailable()
    assert refused is not None and refused.status_code == 503
    assert (
        f"graphiql@{pages.pins()['graphiql']['version']}/graphiql.min.js".encode() in refused.body
    )
    assert set(pages.missing_assets()) == {
        f"{name}@{pin['version']}/{file}"
        for name, pin in pages.pins().items()
        for file in pin["files"]
    }
    monkeypatch.undo()
    assert pages._unavailable() is None
