"""The matchup explorer (`/explore`) in a real browser (`browser_harness`: Debian's Chromium,
loopback only, console errors fail) against a live `killmath serve` of the bundled catalog.

The page must load clean, offer the served kill teams by name, show one numeric `data-cell`
per operative pair of two chosen teams — the numbers of the API's own team matchup, unrounded
in the cell's data — open a cell's distribution as an SVG chart of at least 200 px (another
weapon, more rounds), revalidate with ETags (a question asked again is a 304), show an API
error as a readable message, work with API keys (a key field, nothing asked before a key),
and never scroll sideways at 390 × 844. Screenshots go to the test's tmp_path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from browser_harness import Browsing, profile
from service_harness import serving

KEY = "explore-test-key-0123456789abcdef"
ATTACKERS, DEFENDERS = "kasrkin", "kommandos"
NUMBERS = re.compile(r"^(?:<?>?\d+(?:\.\d+)?%)\s+(?:\d+\.\d+) dmg$")
PROGRESS_SEEN = """() => {
  window.progressSeen = false;
  new MutationObserver(() => {
    if (!document.getElementById('progress').hidden) window.progressSeen = true;
  }).observe(document.getElementById('progress'), {attributes: true});
}"""


@pytest.fixture
def phone(chromium: Any) -> Iterator[Browsing]:
    with profile(chromium, width=390, height=844) as browser:
        yield browser


def _teams(url: str, headers: dict[str, str] | None = None) -> dict[str, dict]:
    answer = httpx.get(url + "/v1/kill-teams", headers=headers).json()
    return {team["id"]: team for team in answer["killTeams"]}


def _pairs(url: str) -> int:
    teams = _teams(url)
    return len(teams[ATTACKERS]["operativeIds"]) * len(teams[DEFENDERS]["operativeIds"])


def _open(browsing: Browsing, url: str) -> Any:
    page = browsing.open(url + "/explore")
    page.wait_for_function("!document.getElementById('defender').disabled")
    return page


def _choose(page: Any, cells: int) -> None:
    page.select_option("#attacker", ATTACKERS)
    page.select_option("#defender", DEFENDERS)
    page.wait_for_function(
        "n => document.querySelectorAll('[data-cell] button').length === n", arg=cells
    )


def _damage(value: float) -> str:
    """Expected damage as the page writes it."""
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def _chart_width(page: Any) -> float:
    """The width of the chart's SVG once drawn (at least 200 px, or the wait fails)."""
    width = "() => { const s = document.querySelector('[data-chart] svg');"
    width += " return s ? s.getBoundingClientRect().width : 0; }"
    page.wait_for_function(f"({width})() >= 200")
    return page.evaluate(width)


def _sideways(page: Any) -> int:
    """How far the page scrolls sideways (0: never)."""
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def test_loads_clean_and_offers_the_served_teams(
    browsing: Browsing, url: str, tmp_path: Path
) -> None:
    refused: list[str] = []
    browsing.context.on(
        "response", lambda r: r.status >= 400 and refused.append(f"{r.status} {r.url}")
    )
    page = _open(browsing, url)
    offered = page.eval_on_selector_all("#attacker option", "os => os.map(o => o.textContent)")
    for team in _teams(url).values():
        assert any(text.startswith(team["name"]) for text in offered), team["name"]
    assert page.locator("label[for=attacker]").inner_text() == "Attacking kill team"
    assert page.locator("label[for=defender]").inner_text() == "Defending kill team"
    icon = page.locator("link[rel=icon]").first.get_attribute("href")
    assert httpx.get(f"{url}/{icon}").headers["content-type"].startswith("image/svg+xml")
    api = [r for r in browsing.requests if "/v1/" in r]
    assert [r.removeprefix(url) for r in api] == ["/v1/kill-teams"]
    assert refused == []  # no 404 either (the favicon is served)
    browsing.check(page, tmp_path / "explore-loaded.png")


def test_two_teams_give_one_cell_per_pair_with_the_apis_numbers(
    browsing: Browsing, url: str, tmp_path: Path
) -> None:
    page = _open(browsing, url)
    page.evaluate(PROGRESS_SEEN)
    pairs = _pairs(url)
    _choose(page, pairs)
    assert page.evaluate("window.progressSeen") is True  # shown while it computed
    cells = page.locator("[data-cell]")
    assert cells.count() == pairs
    answer = httpx.post(
        url + "/v1/team-matchup",
        json={
            "attackers": {"killTeamId": ATTACKERS},
            "defenders": {"killTeamId": DEFENDERS},
            "situations": [{"name": "open"}],
            "options": {"unknownRules": "IGNORE"},
        },
    ).json()
    best = {f"{row['attacker']}|{row['defender']}": row for row in answer["best"]}
    shown = cells.evaluate_all(
        "cs => cs.map(c => [c.dataset.cell, c.dataset.kill, c.dataset.damage, c.innerText])"
    )
    assert {cell for cell, *_ in shown} == set(best)
    for cell, kill, damage, text in shown:
        assert float(kill) == best[cell]["killProbability"], cell
        assert float(damage) == best[cell]["expectedDamage"], cell
        first_lines = " ".join(text.split("\n")[:2])
        assert NUMBERS.match(first_lines), (cell, text)
    status = page.locator("#status").inner_text()
    assert f"{len(answer['cells'])} cells" in status
    assert re.search(r"KB (zstd|br|gzip)", status), status  # compressed on the wire
    browsing.check(page, tmp_path / "explore-matrix.png")

    # cover changes the cells; back in the open the page revalidates what it holds: a 304
    page.check("#cover")
    page.wait_for_function("document.getElementById('result-title').innerText.includes('cover')")
    covered = cells.first.get_attribute("data-damage")
    assert float(covered) < float(shown[0][2])
    page.uncheck("#cover")
    page.wait_for_function("document.getElementById('status').innerText.includes('304')")
    assert cells.first.get_attribute("data-damage") == shown[0][2]

    # expected damage as the headline and the colour; kill chance still in the text
    page.check("input[name=metric][value=damage]")
    assert "wounds" in page.locator("#legend").inner_text()
    assert re.match(r"^\d+\.\d+\s+\d", cells.first.inner_text())
    browsing.check(page, tmp_path / "explore-damage.png")


def test_a_cell_opens_its_distribution(browsing: Browsing, url: str, tmp_path: Path) -> None:
    page = _open(browsing, url)
    _choose(page, _pairs(url))
    cell = page.locator("[data-cell]").first
    attacker, defender = cell.get_attribute("data-cell").split("|")
    damage, weapon = cell.get_attribute("data-damage"), cell.get_attribute("data-weapon")
    cell.locator("button").click()
    chart = page.locator("[data-chart]")
    svg = chart.locator("svg")
    assert _chart_width(page) >= 200
    assert svg.locator("rect").count() >= 2
    shot = {
        "attacker": {"operativeId": attacker, "weaponProfileId": weapon},
        "defender": {"operativeId": defender},
        "options": {"unknownRules": "IGNORE", "rounds": 1},
    }
    single = httpx.post(url + "/v1/shoot", json=shot).json()
    assert single["expectedDamage"] == float(damage)  # the chart's shoot is the cell's
    facts = chart.locator("#chart-facts").inner_text()
    assert f"{_damage(single['expectedDamage'])} expected damage" in facts
    assert "Rules:" in facts and "Profile:" in facts
    assert "expected" in svg.locator(".expected text").text_content()
    browsing.check(page, tmp_path / "explore-chart.png")

    # another of the attacker's weapons, three rounds: the kill chance by round
    options = chart.locator("#chart-weapon option").evaluate_all("os => os.map(o => o.value)")
    assert weapon in options and len(options) >= 2
    other = next(o for o in options if o != weapon)
    page.select_option("#chart-weapon", other)
    page.fill("#chart-rounds", "3")
    page.locator("#chart-rounds").dispatch_event("change")
    page.wait_for_function("document.querySelectorAll('.by-round li').length === 3")
    shot = {**shot, "attacker": {**shot["attacker"], "weaponProfileId": other}}
    rounds = httpx.post(
        url + "/v1/shoot", json={**shot, "options": {**shot["options"], "rounds": 3}}
    )
    by_round = rounds.json()["killProbabilityByRound"]
    listed = page.locator(".by-round li").all_inner_texts()
    assert len(listed) == len(by_round) == 3
    assert all(text.startswith(f"by round {i + 1}: ") for i, text in enumerate(listed))
    browsing.check(page, tmp_path / "explore-chart-rounds.png")

    # the open chart follows the matrix into cover: the same pair, weapon and rounds
    page.check("#cover")
    page.wait_for_function("document.getElementById('chart-title').innerText.includes('cover')")
    covered = {**shot, "defender": {**shot["defender"], "coverSaves": 1}}
    covered["options"] = {**shot["options"], "rounds": 3}
    expected = httpx.post(url + "/v1/shoot", json=covered).json()["expectedDamage"]
    page.wait_for_function(
        "t => document.getElementById('chart-facts').innerText.includes(t)",
        arg=f"{_damage(expected)} expected damage",
    )


def test_melee_cells_and_a_fight_chart(browsing: Browsing, url: str, tmp_path: Path) -> None:
    page = _open(browsing, url)
    pairs = _pairs(url)
    _choose(page, pairs)
    page.check("input[name=mode][value=fight]")
    page.wait_for_function("document.getElementById('result-title').innerText.includes('fighting')")
    assert page.locator("#cover").is_disabled()  # situations are shooting overrides
    assert page.locator("[data-cell] button").count() == pairs
    page.locator("[data-cell] button").first.click()
    page.locator("[data-chart] svg").wait_for()
    assert page.locator("#chart-answer-row").is_visible()  # the defender's weapon too
    assert "damage taken back" in page.locator("#chart-facts").inner_text()
    browsing.check(page, tmp_path / "explore-fight.png")


def test_phone_never_scrolls_sideways(phone: Browsing, url: str, tmp_path: Path) -> None:
    page = _open(phone, url)
    assert _sideways(page) == 0
    _choose(page, _pairs(url))
    assert _sideways(page) == 0
    box = page.locator("#matrix-box")
    assert box.evaluate("b => b.scrollWidth > b.clientWidth")  # it scrolls in its own box
    page.screenshot(path=str(tmp_path / "explore-phone.png"), full_page=True)
    page.locator("[data-cell] button").first.click()
    assert 200 <= _chart_width(page) <= 390
    assert _sideways(page) == 0
    phone.check(page, tmp_path / "explore-phone-chart.png")


def test_an_api_error_is_a_readable_message(browsing: Browsing, tmp_path: Path) -> None:
    with serving(max_grid_cells=10) as small:
        page = _open(browsing, small.url)
        page.select_option("#attacker", ATTACKERS)
        page.select_option("#defender", DEFENDERS)
        error = page.locator("#error")
        error.wait_for()
        text = error.inner_text()
        assert "LIMIT_EXCEEDED" in text and "at most 10" in text and "HTTP 422" in text
        assert page.locator("[data-cell]").count() == 0
        # the browser logs the refused call; nothing else may be there
        assert all("422" in e for e in browsing.errors), browsing.errors
        browsing.errors.clear()
        browsing.check(page, tmp_path / "explore-error.png")


def test_with_keys_a_key_field_then_the_api(browsing: Browsing, tmp_path: Path) -> None:
    with serving(api_keys=KEY, rate_limit=0) as locked:
        assert httpx.get(locked.url + "/explore").status_code == 200  # the page is public
        assert httpx.get(locked.url + "/favicon.ico").status_code == 200
        page = browsing.open(locked.url + "/explore")
        assert "API key" in page.locator(".notice").inner_text()
        assert page.locator("#api-key").is_visible()
        assert page.locator("label[for=api-key]").inner_text() == "API key"
        assert not [r for r in browsing.requests if "/v1/" in r]  # nothing asked without one
        page.fill("#api-key", "not-the-key")
        page.click("#key-use")
        error = page.locator("#error")
        error.wait_for()
        assert "needs an API key" in error.inner_text()
        page.fill("#api-key", KEY)
        page.click("#key-use")
        page.wait_for_function("!document.getElementById('defender').disabled")
        assert page.locator("#error").is_hidden()
        headers = {"authorization": f"Bearer {KEY}"}
        teams = _teams(locked.url, headers)
        pairs = len(teams[ATTACKERS]["operativeIds"]) * len(teams[DEFENDERS]["operativeIds"])
        _choose(page, pairs)
        assert all("401" in e for e in browsing.errors), browsing.errors
        browsing.errors.clear()
        browsing.check(page, tmp_path / "explore-keyed.png")


def test_favicon_is_served(url: str) -> None:
    """Every page links static/favicon.svg; /favicon.ico answers a browser's guess."""
    ico = httpx.get(url + "/favicon.ico")
    assert ico.status_code == 200 and ico.headers["content-type"] == "image/vnd.microsoft.icon"
    assert ico.content[:4] == b"\x00\x00\x01\x00"  # an ICO, holding a PNG
    assert b"PNG" in ico.content[:64]
    svg = httpx.get(url + "/static/favicon.svg")
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    for path in ("/", "/explore", "/readme"):
        assert 'rel="icon" href="static/favicon.svg"' in httpx.get(url + path).text, path


def test_a_timeout_is_asked_again(browsing: Browsing, url: str, tmp_path: Path) -> None:
    """A TIMEOUT (the budget ran out; the server goes on computing into its cache) is asked
    again after a pause, saying so; the answer then shows as usual. The first answer is the
    API's TIMEOUT body, given by the browser (a real one depends on the machine's speed)."""
    page = _open(browsing, url)
    refused: list[str] = []

    def once(route: Any) -> None:
        if refused:
            route.fallback()
            return
        refused.append(route.request.url)
        body = {"code": "TIMEOUT", "field": "", "message": "exceeded the time budget of 10 s"}
        route.fulfill(status=503, json={"error": body, "errors": [body]})

    page.route("**/v1/team-matchup", once)
    page.evaluate(
        """() => { window.notes = [];
        new MutationObserver(() => window.notes.push(document.getElementById('progress-text')
          .textContent)).observe(document.getElementById('progress-text'), {childList: true}); }"""
    )
    _choose(page, _pairs(url))
    assert len(refused) == 1
    assert any("asking again" in note for note in page.evaluate("window.notes"))
    assert page.locator("#error").is_hidden()
    assert all("503" in e for e in browsing.errors), browsing.errors
    browsing.errors.clear()
    browsing.check(page, tmp_path / "explore-retried.png")
