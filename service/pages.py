"""The pages a person opens in a browser: `/` (what this is, with links to everything else),
`/explore` (the matchup explorer: one kill team against another as a heatmap, a cell as a
chart, drawn from the public API alone, `static/explore.js`), `/docs` (the API reference:
Swagger UI over `/openapi.json`, "Try it out" included), `/readme` (the README, rendered),
GraphiQL at `/graphql` (rendered here, served by routes_graphql), `/static/` for their
scripts and styles, and the favicon (`static/favicon.svg`, linked by every page; `/favicon.ico`
for what browsers ask of a page without a link, such as a JSON answer opened in a tab).

Every asset comes from the service itself: the npm packages pinned in `static/vendor.json`
are vendored when the package is built (setup.py), so the pages work without internet and
never load a script from elsewhere. Page links are relative, so the pages also work behind
a proxy that mounts the service under a path prefix.

Caching: vendored files live under versioned paths (`vendor/<name>@<version>/`), a new pin
being a new URL, so they are `immutable` for a year; the service's own files and the pages
revalidate every time (`no-cache`, answered 304 from the ETag when unchanged).

Access: with `KILLMATH_API_KEYS` the pages and their assets stay public (service.auth): they
are static and carry no data, and a person cannot send a key before a page has loaded. Every
API call a page makes needs the key like any other (Authorize in `/docs`, the Headers tab in
GraphiQL, prefilled with the header to fill in, the key field of `/explore`); no page stores
it beyond the tab's memory.
"""

from __future__ import annotations

import html
import importlib.metadata
import itertools
import json
import logging
import re
from functools import cache
from pathlib import Path
from string import Template
from typing import Any

from markdown_it import MarkdownIt
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from schema import registry
from service.settings import Settings

HERE = Path(__file__).resolve().parent
STATIC = HERE / "static"
VENDOR = STATIC / "vendor"
TEMPLATES = HERE / "templates"

PACKAGE_STATIC = "service/static/"
"""Where the README links the pictures it shows (a path in the repository, for GitHub)."""
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"

GRAPHIQL_QUERY = """# A kt2024 shooting attack: 4 attacks hitting on 3+ against a 4+ save.
{
  shoot(input: {attacker: {attacks: 4, hit: 3}, defender: {save: 4}}) {
    expectedDamage
    killProbability
    damageDistribution { value probability }
    canonicalKey
  }
}
"""
KEY_HEADERS = '{"Authorization": "Bearer <your API key>"}'
EXPLORE_KEY_NOTICE = (
    '<p class="notice">This server requires an API key. This page is public; the API calls '
    "it makes need the key: enter it below (it stays in this tab's memory).</p>"
)

log = logging.getLogger("killmath.pages")


@cache
def pins() -> dict[str, dict[str, Any]]:
    """The vendored npm packages by name (`static/vendor.json`)."""
    return json.loads((STATIC / "vendor.json").read_text())["packages"]


def vendored(name: str) -> str:
    """The relative URL of a vendored package's directory."""
    return f"static/vendor/{name}@{pins()[name]['version']}"


def missing_assets() -> list[str]:
    """The pinned files not on disk (a build that skipped setup.py's vendoring)."""
    return [
        f"{name}@{pin['version']}/{file}"
        for name, pin in pins().items()
        for file in pin["files"]
        if not (VENDOR / f"{name}@{pin['version']}" / file).is_file()
    ]


@cache
def template(name: str) -> Template:
    return Template((TEMPLATES / name).read_text())


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).strip().replace(" ", "-")


@cache
def readme() -> tuple[str, list[tuple[str, str]]] | None:
    """The README (the installed package's long description) as HTML, with an anchor on
    every heading, and its sections (`##`) as (title, anchor); None when not installed."""
    try:
        text = importlib.metadata.metadata("killmath").get_payload()
    except importlib.metadata.PackageNotFoundError:
        return None
    if not text or not text.strip():
        return None
    markdown = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = markdown.parse(text)
    sections = []
    for token in tokens:  # the README's pictures are package files, served under static/
        for child in token.children or ():
            source = child.attrGet("src") if child.type == "image" else None
            if isinstance(source, str) and source.startswith(PACKAGE_STATIC):
                child.attrSet("src", "static/" + source.removeprefix(PACKAGE_STATIC))
    for opening, inline in itertools.pairwise(tokens):
        if opening.type == "heading_open":
            anchor = slug(inline.content)
            opening.attrSet("id", anchor)
            if opening.tag == "h2":
                sections.append((inline.content, anchor))
    return markdown.renderer.render(tokens, markdown.options, {}), sections


def _notice(settings: Settings) -> str:
    if not settings.api_keys:
        return ""
    return (
        '<p class="notice">This server requires an API key: send '
        "<code>Authorization: Bearer &lt;key&gt;</code>. These pages are public; their API "
        "calls need the key (<b>Authorize</b> in the API reference, the <b>Headers</b> tab "
        "in GraphiQL).</p>"
    )


def _page(title: str, name: str, head: str = "", kind: str = "", **fields: str) -> HTMLResponse:
    """The page `templates/<name>` filled with `fields`, inside the common layout."""
    body = template(name).substitute(fields)
    document = template("layout.html").substitute(title=title, head=head, kind=kind, body=body)
    return HTMLResponse(document, headers={"cache-control": REVALIDATE})


def _stylesheet(href: str) -> str:
    return f'<link rel="stylesheet" href="{href}">\n'


def _unavailable() -> Response | None:
    """503 when the vendored assets are missing: a page without them would be blank."""
    missing = missing_assets()
    if not missing:
        return None
    return PlainTextResponse(
        "the pages' assets are not installed (missing "
        + ", ".join(missing)
        + "): reinstall killmath with npm available",
        status_code=503,
    )


async def index(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    graphiql = (
        '<li><a href="graphql">GraphiQL</a> — write and run GraphQL queries in the browser</li>'
        if settings.graphql_introspection
        else "<li>GraphiQL — off on this server (introspection is disabled); "
        "use schema.graphql</li>"
    )
    rows = "\n".join(
        f"<tr><td>{html.escape(name)}</td><td>{html.escape(', '.join(modes))}</td></tr>"
        for name, modes in registry.rulesets().items()
    )
    document = readme()
    sections = "\n".join(
        f'<li><a href="readme#{anchor}">{html.escape(title)}</a></li>'
        for title, anchor in (document[1] if document else [])
    )
    version = html.escape(importlib.metadata.version("killmath"))
    return _page(
        f"killmath {version}",
        "index.html",
        version=version,
        access=_notice(settings),
        graphiql=graphiql,
        rulesets=rows,
        origin=html.escape(str(request.base_url).rstrip("/")),
        sections=sections,
    )


async def docs(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    link = '<a href="graphql">GraphiQL</a>' if settings.graphql_introspection else ""
    swagger = vendored("swagger-ui-dist")
    return _unavailable() or _page(
        "killmath API reference",
        "docs.html",
        head=f'<link rel="icon" href="{swagger}/favicon-32x32.png">\n'
        + _stylesheet(f"{swagger}/swagger-ui.css"),
        swagger=swagger,
        access=_notice(settings),
        graphiql_link=link,
    )


async def explore(request: Request) -> Response:
    """The matchup explorer: a static page whose script calls the public API; it is told
    only whether the API wants a key (it then asks for one before its first call)."""
    settings: Settings = request.app.state.settings
    return _page(
        "killmath matchup explorer",
        "explore.html",
        head=_stylesheet("static/explore.css"),
        access=EXPLORE_KEY_NOTICE if settings.api_keys else "",
        keys="required" if settings.api_keys else "",
    )


async def favicon(request: Request) -> Response:
    """`/favicon.ico`: a browser's guess for a page that links no icon (the ICO holds one
    32-pixel PNG of `static/favicon.svg`)."""
    return Response(
        (STATIC / "favicon.ico").read_bytes(),
        media_type="image/vnd.microsoft.icon",
        headers={"cache-control": "public, max-age=86400"},
    )


async def readme_page(request: Request) -> Response:
    document = readme()
    if document is None:
        return PlainTextResponse("the README is not installed", status_code=404)
    return _page("killmath README", "readme.html", body=document[0])


def graphiql(request: Request) -> Response:
    """GraphiQL's page (strawberry calls it for a browser's GET /graphql), configured by a
    JSON block rather than inline script."""
    settings: Settings = request.app.state.settings
    config = {
        "defaultQuery": GRAPHIQL_QUERY,
        "defaultHeaders": KEY_HEADERS if settings.api_keys else "",
    }
    graphiql = vendored("graphiql")
    return _unavailable() or _page(
        "killmath GraphiQL",
        "graphiql.html",
        head=_stylesheet(f"{graphiql}/graphiql.min.css"),
        kind="ide",
        graphiql=graphiql,
        react=vendored("react"),
        react_dom=vendored("react-dom"),
        # `<` escaped: the JSON sits inside a <script> element
        config=json.dumps(config).replace("<", "\\u003c"),
    )


class Assets(StaticFiles):
    """Starlette's static files, with the cache policy above."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code in (200, 304):
            immutable = path.startswith("vendor/") and path != "vendor/vendor.json"
            response.headers["cache-control"] = IMMUTABLE if immutable else REVALIDATE
        return response


def startup(state: Any) -> None:
    """Say once, at start, when the pages cannot work."""
    if missing := missing_assets():
        log.error(
            "pages' assets missing: /docs and GraphiQL answer 503", extra={"missing": missing}
        )
    readme()


routes = [
    Route("/", index, methods=["GET"]),
    Route("/docs", docs, methods=["GET"]),
    Route("/explore", explore, methods=["GET"]),
    Route("/readme", readme_page, methods=["GET"]),
    Route("/favicon.ico", favicon, methods=["GET"]),
    Mount("/static", app=Assets(directory=STATIC), name="static"),
]
