"""Team matchups under issue 19's HTTP rules, against real uvicorn servers: a strong ETag from
the engine revision and the cells' keys, `If-None-Match` answered 304 without any work or
cost, `Cache-Control`, `Cache-Status` instead of a `cachedCells` member, a cost of one token
by the estimates of its shots and fights (`service.costs`), and the RateLimit fields (REST and GraphQL alike).
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from service_harness import serving
from test_service_http import AUTH, BURST, IDENTITY, KEY, bucket, computed

from engine import REVISION
from service import costs
from service import team_matchup as teams
from service.validators import ANSWER_CACHE_CONTROL

RANGED = {
    "attackers": {"operativeIds": ["kasrkin.sergeant", "kasrkin.gunner"]},
    "defenders": {"operativeIds": ["kommandos.boss-nob", "kommandos.boy"]},
    "situations": [{"name": "open"}, {"name": "cover", "defender": {"coverSaves": 1}}],
}
MELEE = {**RANGED, "melee": {"strategy": "STRIKE"}}
PATH = "/v1/team-matchup"


def post(url: str, body: dict, **headers: str) -> httpx.Response:
    return httpx.post(url + PATH, json=body, headers={**IDENTITY, **headers}, timeout=60)


def cells(answer: dict) -> tuple[int, int]:
    """(ranged cells, melee cells) of a team matchup answer."""
    return len(answer["cells"]), len(answer.get("melee", {}).get("cells", []))


def test_one_input_is_the_same_bytes_and_tag_on_every_call(server):
    first, second = post(server.url, MELEE), post(server.url, MELEE)
    assert first.status_code == second.status_code == 200
    assert first.content == second.content
    assert "cachedCells" not in first.json()
    total = sum(cells(first.json()))
    assert first.headers["cache-status"] == f'killmath-lru; fwd=miss; detail="0/{total}"'
    assert second.headers["cache-status"] == f'killmath-lru; hit; detail="{total}/{total}"'
    tag = first.headers["etag"]
    assert tag == second.headers["etag"]
    assert tag.startswith(f'"{REVISION}-') and not tag.startswith("W/")
    assert first.headers["cache-control"] == ANSWER_CACHE_CONTROL
    assert "Accept" in first.headers["vary"]


def test_the_tag_changes_with_whatever_changes_the_body(server):
    """Cells' keys (options, strategies), the situations' names, the representation, and
    the rules a cell leaves out: each makes another body, so another tag."""
    tag = post(server.url, MELEE).headers["etag"]
    others = [
        post(server.url, {**MELEE, "options": {"exact": True}}),
        post(server.url, {**MELEE, "melee": {"strategy": "PARRY"}}),
        post(server.url, {**MELEE, "situations": [{"name": "o"}, *MELEE["situations"][1:]]}),
        post(server.url, RANGED),
        post(server.url, {**MELEE, "options": {"unknownRules": "REFUSE"}}),
        post(server.url, MELEE, accept="text/csv"),
    ]
    tags = [o.headers["etag"] for o in others]
    assert all(o.status_code == 200 for o in others)
    assert len({tag, *tags}) == len(others) + 1
    assert "ignoredRules" not in others[4].json()["cells"][0]
    assert "ignoredRules" in post(server.url, MELEE).json()["cells"][0]
    assert others[5].headers["content-type"].startswith("text/csv")
    again = post(server.url, MELEE, accept="text/csv")
    assert again.content == others[5].content and again.headers["etag"] == tags[5]


def test_if_none_match_is_a_304_without_any_work(server):
    body = {**MELEE, "options": {"rounds": 3}}  # cells of their own in this module
    answered = post(server.url, body)
    tag = answered.headers["etag"]
    before = computed(server)
    for sent, held in (
        (tag, tag),
        (f"W/{tag}", f"W/{tag}"),
        (f'"x", {tag[:-1]}-gzip"', f'{tag[:-1]}-gzip"'),
    ):
        revalidated = post(server.url, body, **{"if-none-match": sent})
        assert revalidated.status_code == 304, sent
        assert revalidated.content == b""
        assert revalidated.headers["etag"] == held
        assert revalidated.headers["cache-control"] == ANSWER_CACHE_CONTROL
    assert computed(server) == before
    # the tag of another representation, or of other cells, does not match
    assert post(server.url, body, accept="text/csv", **{"if-none-match": tag}).status_code == 200
    stale = post(server.url, body, **{"if-none-match": f'"{REVISION - 1}-0"'})
    assert stale.status_code == 200 and stale.content == answered.content


def test_prefer_minimal_drops_the_cells_canonical_keys(server):
    """As `/v1/shoot`: the answer without its cells' `canonicalKey` (ranged and melee), said
    by `Preference-Applied`, its own ETag (a 304 to it), `Vary: Prefer`; CSV, which has no
    keys, ignores it."""
    full = post(server.url, MELEE)
    minimal = post(server.url, MELEE, prefer="return=minimal")
    assert minimal.status_code == 200
    assert minimal.headers["preference-applied"] == "return=minimal"
    assert "preference-applied" not in full.headers
    assert "Prefer" in minimal.headers["vary"] and "Prefer" in full.headers["vary"]
    expected = full.json()
    for row in (*expected["cells"], *expected["melee"]["cells"]):
        del row["canonicalKey"]
    assert minimal.json() == expected
    assert minimal.headers["etag"] != full.headers["etag"]  # another representation
    again = post(
        server.url, MELEE, prefer="return=minimal", **{"if-none-match": minimal.headers["etag"]}
    )
    assert again.status_code == 304 and again.headers["etag"] == minimal.headers["etag"]
    assert post(server.url, MELEE, **{"if-none-match": minimal.headers["etag"]}).status_code == 200
    csv, csv_minimal = (
        post(server.url, MELEE, accept="text/csv", **h) for h in ({}, {"prefer": "return=minimal"})
    )
    assert "preference-applied" not in csv_minimal.headers
    assert csv_minimal.content == csv.content and csv_minimal.headers["etag"] == csv.headers["etag"]


def test_a_compressed_answer_revalidates(server):
    gzipped = httpx.post(server.url + PATH, json=MELEE, headers={"accept-encoding": "gzip"})
    assert gzipped.headers["content-encoding"] == "gzip"
    tag = gzipped.headers["etag"]
    assert tag.endswith('-gzip"')
    again = httpx.post(
        server.url + PATH, json=MELEE, headers={"accept-encoding": "gzip", "if-none-match": tag}
    )
    assert again.status_code == 304 and again.headers["etag"] == tag


def price(body: dict) -> int:
    """The tokens a team matchup is charged: the sum over its cells (`service.costs`)."""
    return costs.of_jobs(teams.prepare_cells(teams.parse(body, 10_000)), "attackers").tokens


@pytest.fixture(scope="module")
def metered() -> Iterator:
    with serving(api_keys=KEY, rate_limit=0.01, rate_limit_burst=BURST) as server:
        yield server


def test_charged_by_cells_and_a_304_costs_nothing(metered):
    url = metered.url
    left = bucket(httpx.get(url + "/v1/rulesets", headers=AUTH))["r"]
    ranged = post(url, RANGED, **AUTH)
    shots, _ = cells(ranged.json())
    assert shots == 13 * 2 * 2  # the sergeant has 5 ranged profiles, the gunner 8
    assert bucket(ranged)["r"] == left - price(RANGED)
    left -= price(RANGED)
    melee = post(url, MELEE, **AUTH)
    shots, fights = cells(melee.json())
    assert fights > 0
    assert price(MELEE) > price(RANGED)  # the same shots, and fights
    assert bucket(melee)["r"] == left - price(MELEE)
    left -= price(MELEE)
    revalidated = post(url, MELEE, **{**AUTH, "if-none-match": melee.headers["etag"]})
    assert revalidated.status_code == 304
    assert bucket(revalidated)["r"] == left
    assert revalidated.headers["ratelimit-policy"] == f'"tokens";q={BURST};w={BURST * 100}'
    # an answer from the cache costs what it asks for, as for every route
    assert bucket(post(url, MELEE, **AUTH))["r"] == left - price(MELEE)


def test_graphql_team_matchup_is_charged_by_cells(metered):
    query = """query($a: TeamSideInput!, $d: TeamSideInput!, $m: TeamMeleeInput) {
      teamMatchup(attackers: $a, defenders: $d, melee: $m) {
        cachedCells cells { canonicalKey } melee { cells { canonicalKey } } } }"""
    variables = {"a": MELEE["attackers"], "d": MELEE["defenders"], "m": {"strategy": "PARRY"}}
    reply = httpx.post(
        metered.url + "/graphql", json={"query": query, "variables": variables}, headers=AUTH
    )
    answer = reply.json()
    assert "errors" not in answer, answer
    found = answer["data"]["teamMatchup"]
    shots, fights = len(found["cells"]), len(found["melee"]["cells"])
    assert 0 <= found["cachedCells"] <= shots + fights
    body = {
        "attackers": MELEE["attackers"],
        "defenders": MELEE["defenders"],
        "melee": variables["m"],
    }
    assert answer["extensions"]["cost"]["charged"] == price(body)
