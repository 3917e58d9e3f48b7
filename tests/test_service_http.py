"""HTTP for mobile and bulk clients (issue 19), against real uvicorn servers: compression,
cache validators (ETag, 304, Cache-Control, Cache-Status, the engine revision), compact
answers, cost-based rate limits with their RateLimit fields, GraphQL's `extensions.cost`,
and metrics that count every worker.
"""

from __future__ import annotations

import gzip
import math
import time
from collections.abc import Iterator
from contextlib import ExitStack

import brotli
import httpx
import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families
from service_harness import cache_tier, free_port, graphql, owned_redis, serving

from engine import REVISION
from service import costs
from service import grid as grids
from service.compute import prepare, prepare_each
from service.validators import cache_status, etag

SHOOT = {"attacker": {"attacks": 4, "hit": 3, "lethal": 5}, "defender": {"save": 3, "wounds": 8}}
FIGHT = {"fighterA": {"attacks": 4, "strategy": "MAX_DAMAGE"}, "fighterB": {"wounds": 9}}
GRID = {
    "attackers": [{"attacks": a, "hit": 3} for a in (3, 4, 5, 6)],
    "defenders": [{"save": s, "wounds": 10} for s in (2, 3, 4, 5, 6)],
    "situations": [{"name": "open"}, {"name": "cover", "defender": {"coverSaves": 1}}],
}  # 40 cells, about 30 KB of JSON
BATCH = [{"mode": "shoot", **SHOOT}, {"mode": "fight", **FIGHT}, {"mode": "shoot", "x": 1}]
IDENTITY = {"accept-encoding": "identity"}


def price(envelope: dict, mode: str | None = None) -> int:
    """The tokens the service charges for one envelope (its cost model, `service.costs`):
    the estimate is the scenario's alone, so this process's equals the server's."""
    return costs.of_job(prepare(envelope, mode)).tokens


def grid_price(body: dict) -> int:
    return costs.of_jobs(grids.prepare_cells(grids.parse(body, 10_000)), "attackers").tokens


def computed(server) -> float:
    """Scenarios the engine has computed so far (the compute histogram's count)."""
    total = 0.0
    for family in text_string_to_metric_families(httpx.get(server.url + "/metrics").text):
        for sample in family.samples:
            if sample.name == "killmath_engine_compute_seconds_count":
                total += sample.value
    return total


# ------------------------------------------------------------------- compression


def test_large_answers_are_compressed_in_the_coding_asked(server):
    plain = httpx.post(server.url + "/v1/grid", json=GRID, headers=IDENTITY)
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
    assert len(plain.content) > 20_000
    for coding, decode in (("gzip", gzip.decompress), ("br", brotli.decompress)):
        with httpx.Client() as client:
            # a raw stream: the bytes as they came over the wire, before httpx decodes them
            request = client.build_request(
                "POST", server.url + "/v1/grid", json=GRID, headers={"accept-encoding": coding}
            )
            response = client.send(request, stream=True)
            wire = b"".join(response.iter_raw())
        assert response.headers["content-encoding"] == coding
        assert "Accept-Encoding" in response.headers["vary"]
        assert len(wire) * 5 < len(plain.content)
        assert decode(wire) == plain.content
        # another representation: its strong ETag differs, by the coding's suffix
        assert response.headers["etag"] == plain.headers["etag"][:-1] + f'-{coding}"'


def test_csv_is_compressed_and_small_answers_are_not(server):
    csv = httpx.post(
        server.url + "/v1/grid",
        json=GRID,
        headers={"accept": "text/csv", "accept-encoding": "gzip"},
    )
    assert csv.headers["content-type"].startswith("text/csv")
    assert csv.headers["content-encoding"] == "gzip"
    small = httpx.post(
        server.url + "/v1/shoot",
        json=SHOOT,
        headers={"accept-encoding": "gzip", "prefer": "return=minimal"},
    )
    assert len(small.content) < 1024  # under KILLMATH_COMPRESS_MIN_BYTES: it would only grow
    assert "content-encoding" not in small.headers


def test_compression_can_be_turned_off():
    with serving(compress_min_bytes=0) as server:
        response = httpx.post(server.url + "/v1/grid", json=GRID)
        assert "content-encoding" not in response.headers


# ------------------------------------------------------------------- cache validators


def test_one_input_is_the_same_bytes_and_tag_on_every_call(server):
    body = {"attacker": {"attacks": 5, "hit": 4}, "defender": {"save": 4}}
    first = httpx.post(server.url + "/v1/shoot", json=body, headers=IDENTITY)
    second = httpx.post(server.url + "/v1/shoot", json=body, headers=IDENTITY)
    assert (cache_tier(first), cache_tier(second)) == (None, "lru")
    assert first.headers["cache-status"] == "killmath-lru; fwd=miss"
    assert second.headers["cache-status"] == "killmath-lru; hit"
    assert first.content == second.content
    assert "cached" not in first.json()
    tag = first.headers["etag"]
    assert tag == second.headers["etag"] == etag("shoot", [first.json()["canonicalKey"]], "full")
    assert tag.startswith(f'"{REVISION}-') and not tag.startswith("W/")
    assert first.headers["cache-control"] == "public, max-age=86400, immutable"
    assert first.headers["killmath-engine-revision"] == str(REVISION)


def test_if_none_match_is_a_304_without_any_work(server):
    response = httpx.post(server.url + "/v1/fight", json=FIGHT, headers=IDENTITY)
    tag = response.headers["etag"]
    before = computed(server)
    gzipped = f'{tag[:-1]}-gzip"'
    # the 304 names the tag the client holds (a coding's suffix included)
    for sent, held in (
        (tag, tag),
        (f"W/{tag}", f"W/{tag}"),
        (f'"other", {gzipped}', gzipped),
        ("*", tag),
    ):
        revalidated = httpx.post(
            server.url + "/v1/fight", json=FIGHT, headers={"if-none-match": sent}
        )
        assert revalidated.status_code == 304, sent
        assert revalidated.content == b""
        assert revalidated.headers["etag"] == held
        assert revalidated.headers["cache-control"] == response.headers["cache-control"]
    other = httpx.post(
        server.url + "/v1/fight",
        json={**FIGHT, "options": {"rounds": 2}},
        headers={"if-none-match": tag},
    )
    assert other.status_code == 200 and other.headers["etag"] != tag
    assert computed(server) == before + 1  # only the new fight was computed
    stale = httpx.post(
        server.url + "/v1/fight", json=FIGHT, headers={"if-none-match": f'"{REVISION - 1}-0"'}
    )
    assert stale.status_code == 200


def test_equivalent_inputs_share_their_tag(server):
    spelled = {
        "attacker": {"hit": 3, "attacks": 4, "lethal": 5},
        "defender": {"wounds": 8, "save": 3},
    }
    a = httpx.post(server.url + "/v1/shoot", json=SHOOT)
    b = httpx.post(
        server.url + "/v1/shoot", json=spelled, headers={"if-none-match": a.headers["etag"]}
    )
    assert b.status_code == 304


def test_prefer_minimal_drops_the_canonical_key(server):
    full = httpx.post(server.url + "/v1/shoot", json=SHOOT)
    minimal = httpx.post(server.url + "/v1/shoot", json=SHOOT, headers={"prefer": "return=minimal"})
    assert minimal.headers["preference-applied"] == "return=minimal"
    assert "preference-applied" not in full.headers
    assert "Prefer" in minimal.headers["vary"]
    body = full.json()
    key = body.pop("canonicalKey")
    assert minimal.json() == body
    assert len(minimal.content) < len(full.content) - len(key)
    assert minimal.headers["etag"] != full.headers["etag"]  # another representation
    again = httpx.post(
        server.url + "/v1/shoot",
        json=SHOOT,
        headers={"prefer": "return=minimal", "if-none-match": minimal.headers["etag"]},
    )
    assert again.status_code == 304


def test_batch_and_grid_tags_come_from_their_cells(server):
    batch = httpx.post(server.url + "/v1/batch", json=BATCH)
    assert batch.status_code == 200
    assert batch.headers["cache-status"].startswith("killmath-lru; ")
    same = httpx.post(
        server.url + "/v1/batch", json=BATCH, headers={"if-none-match": batch.headers["etag"]}
    )
    assert same.status_code == 304
    reordered = httpx.post(
        server.url + "/v1/batch", json=BATCH[::-1], headers={"if-none-match": batch.headers["etag"]}
    )
    assert reordered.status_code == 200  # the same cells in another order: another answer

    grid = {
        **GRID,
        "attackers": [{"attacks": 7, "hit": 2}, {"attacks": 8, "hit": 5}],
    }  # 20 new cells
    cold = httpx.post(server.url + "/v1/grid", json=grid, headers=IDENTITY)
    warm = httpx.post(server.url + "/v1/grid", json=grid, headers=IDENTITY)
    assert "cachedCells" not in cold.json()
    assert cold.content == warm.content
    assert cold.headers["cache-status"] == 'killmath-lru; fwd=miss; detail="0/20"'
    assert warm.headers["cache-status"] == 'killmath-lru; hit; detail="20/20"'
    assert cold.headers["etag"] == warm.headers["etag"]
    csv = httpx.post(server.url + "/v1/grid", json=grid, headers={"accept": "text/csv"})
    assert csv.headers["etag"] != cold.headers["etag"]  # CSV is another representation
    thresholds = httpx.post(server.url + "/v1/grid", json={**grid, "atLeast": [1, 2]})
    assert thresholds.headers["etag"] != cold.headers["etag"]
    revalidated = httpx.post(
        server.url + "/v1/grid", json=grid, headers={"if-none-match": cold.headers["etag"]}
    )
    assert revalidated.status_code == 304


def test_errors_carry_no_validators(server):
    bad = httpx.post(server.url + "/v1/shoot", json={"attacker": {"attacks": 99}})
    assert bad.status_code == 422
    assert "etag" not in bad.headers and "cache-control" not in bad.headers
    assert bad.headers["killmath-engine-revision"] == str(REVISION)


def test_catalog_reads_revalidate_on_the_catalog_version_and_their_url(server):
    """A catalog read's tag digests the catalog version and its URL: each read revalidates
    with its own tag, never with another read's (another body: issue 34, finding 7)."""
    teams = httpx.get(server.url + "/v1/kill-teams")
    tag = teams.headers["etag"]
    assert tag == etag("catalog", [teams.json()["catalogVersion"]], "/v1/kill-teams", "")
    assert teams.headers["cache-control"] == "public, max-age=300"
    paths = (
        "/v1/kill-teams",
        "/v1/operatives?killTeam=kasrkin",
        "/v1/operatives?killTeam=kommandos",
        "/v1/operatives/kasrkin.gunner",
    )
    tags = {path: httpx.get(server.url + path).headers["etag"] for path in paths}
    assert len(set(tags.values())) == len(paths)
    for path in paths:
        for held, other in tags.items():
            answer = httpx.get(server.url + path, headers={"if-none-match": other})
            assert answer.status_code == (304 if held == path else 200), (path, held)
    missing = httpx.get(server.url + "/v1/operatives/nobody")
    assert missing.status_code == 404 and "etag" not in missing.headers


@pytest.mark.parametrize("held", ["*", "tag"])
def test_a_refused_catalog_read_is_refused_whatever_if_none_match_says(server, held):
    """schemathesis found `If-None-Match: *` answered 304 to a page size over its maximum."""
    tag = httpx.get(server.url + "/v1/kill-teams").headers["etag"]
    headers = {"if-none-match": tag if held == "tag" else "*"}
    too_big = httpx.get(server.url + "/v1/operatives?first=1334271", headers=headers)
    assert too_big.status_code == 422 and "etag" not in too_big.headers
    missing = httpx.get(server.url + "/v1/operatives/nobody", headers=headers)
    assert missing.status_code == 404


def test_rulesets_name_the_engine_revision(server):
    answer = httpx.get(server.url + "/v1/rulesets")
    assert answer.json()["engineRevision"] == REVISION
    assert answer.headers["killmath-engine-revision"] == str(REVISION)


def test_cache_status_members():
    assert cache_status(["lru"], redis=True, bulk=False) == "killmath-lru; hit"
    assert cache_status(["redis"], redis=True, bulk=False) == (
        "killmath-redis; hit, killmath-lru; fwd=miss"
    )
    assert cache_status([None], redis=False, bulk=False) == "killmath-lru; fwd=miss"
    assert cache_status(["lru", "redis", None, "redis"], redis=True, bulk=True) == (
        'killmath-redis; fwd=miss; detail="2/3", killmath-lru; fwd=miss; detail="1/4"'
    )


def test_redis_tier_in_cache_status(redis_url):
    with serving(redis_url=redis_url) as first, redis.Redis.from_url(redis_url) as client:
        cold = httpx.post(first.url + "/v1/grid", json=GRID)
        assert cold.headers["cache-status"] == (
            'killmath-redis; fwd=miss; detail="0/40", killmath-lru; fwd=miss; detail="0/40"'
        )
        # the first server writes its answers to Redis after it has sent them: wait until
        # all 40 have landed (a loaded machine takes longer than any fixed pause)
        deadline = time.monotonic() + 30
        while client.dbsize() < 40 and time.monotonic() < deadline:
            time.sleep(0.02)
    with serving(redis_url=redis_url) as second:
        warm = httpx.post(second.url + "/v1/grid", json=GRID)
        assert warm.headers["cache-status"] == (
            'killmath-redis; hit; detail="40/40", killmath-lru; fwd=miss; detail="0/40"'
        )
        assert warm.content == cold.content


# ------------------------------------------------------------------- cost-based limits

KEY = "cost-" + "k" * 24
AUTH = {"Authorization": f"Bearer {KEY}"}
BURST = 1000


def bucket(response: httpx.Response) -> dict[str, int]:
    """The RateLimit field's parameters (`"tokens";r=…;t=…`)."""
    name, *params = response.headers["ratelimit"].split(";")
    assert name == '"tokens"'
    return {k: int(v) for k, v in (p.split("=") for p in params)}


@pytest.fixture(params=["process", "redis"])
def metered(request) -> Iterator:
    """A server with one key and a bucket that refills a token per 100 s: in this process,
    or in Redis (the Lua script)."""
    settings = {"api_keys": KEY, "rate_limit": 0.01, "rate_limit_burst": BURST}
    with ExitStack() as stack:
        if request.param == "redis":
            settings["redis_url"] = stack.enter_context(owned_redis())
        yield stack.enter_context(serving(**settings))


def test_requests_are_charged_by_their_work(metered):
    url = metered.url
    first = httpx.post(url + "/v1/shoot", json=SHOOT, headers=AUTH)
    assert first.headers["ratelimit-policy"] == f'"tokens";q={BURST};w={BURST * 100}'
    left = bucket(first)["r"]
    assert left == BURST - price(SHOOT, "shoot")
    batch = costs.of_jobs(prepare_each(BATCH)).tokens
    apart = price(SHOOT, "shoot") + price(FIGHT, "fight")
    assert apart >= batch >= apart - math.ceil(costs.REQUEST_MS) - 1  # one fixed part, not two
    steps = [
        (httpx.post(url + "/v1/fight", json=FIGHT, headers=AUTH), price(FIGHT, "fight")),
        (httpx.post(url + "/v1/grid", json=GRID, headers=AUTH), grid_price(GRID)),
        (httpx.post(url + "/v1/batch", json=BATCH, headers=AUTH), batch),
        (httpx.get(url + "/v1/kill-teams", headers=AUTH), costs.REQUEST),
        (httpx.post(url + "/v1/shoot", json={"attacker": {"attacks": 99}}, headers=AUTH), 1),
    ]
    for response, cost in steps:
        assert bucket(response)["r"] == left - cost, response.request.url
        left -= cost
    # a 304 costs nothing, and still says where the bucket stands
    tag = first.headers["etag"]
    revalidated = httpx.post(url + "/v1/shoot", json=SHOOT, headers={**AUTH, "if-none-match": tag})
    assert revalidated.status_code == 304
    assert bucket(revalidated)["r"] == left
    spent = BURST - left  # t: seconds until full, less the little refilled meanwhile
    assert spent * 100 - 100 <= bucket(revalidated)["t"] <= spent * 100


def test_graphql_reports_its_cost_and_the_budget_left(metered):
    url = metered.url
    query = (
        "query($i: Kt2024FightInput!) { a: fight(input: $i) { canonicalKey } "
        "b: shoot(input: {attacker: {attacks: 4}}) { cached } }"
    )
    before = bucket(httpx.get(url + "/v1/rulesets", headers=AUTH))["r"]
    reply = httpx.post(
        url + "/graphql", json={"query": query, "variables": {"i": FIGHT}}, headers=AUTH
    )
    cost = reply.json()["extensions"]["cost"]
    charged = price(FIGHT, "fight") + price({"attacker": {"attacks": 4}}, "shoot")
    assert cost == {
        "charged": charged,
        "remaining": before - charged,
        "limit": BURST,
        "restoreRate": 0.01,
    }
    assert bucket(reply)["r"] == cost["remaining"]


def test_a_request_the_bucket_cannot_pay_is_refused_before_any_work():
    big = {**GRID, "attackers": GRID["attackers"][:2]}  # 20 cells
    cost = grid_price(big)
    # GraphQL's grids: 30 distinct cells (more than will be left), and 1 (a cell twice)
    attacks, saves = range(1, 7), range(2, 7)
    wide = (
        f"[{', '.join(f'{{attacks: {a}}}' for a in attacks)}], "
        f"defenders: [{', '.join(f'{{save: {s}}}' for s in saves)}]"
    )
    wide_cost = grid_price(
        {"attackers": [{"attacks": a} for a in attacks], "defenders": [{"save": s} for s in saves]}
    )
    small_cost = grid_price({"attackers": [{}, {}], "defenders": [{}]})
    assert wide_cost > cost - 1 >= small_cost
    with serving(api_keys=KEY, rate_limit=0.01, rate_limit_burst=2 * cost - 1) as server:
        assert httpx.post(server.url + "/v1/grid", json=big, headers=AUTH).status_code == 200
        before = computed(server)
        refused = httpx.post(server.url + "/v1/grid", json={**big, "atLeast": [3]}, headers=AUTH)
        assert refused.status_code == 429
        assert refused.json()["error"]["code"] == "RATE_LIMITED"
        assert int(refused.headers["retry-after"]) >= 1
        assert bucket(refused)["r"] == cost - 1
        assert computed(server) == before
        # a request above the bucket's depth costs the whole bucket (here: never enough now)
        grid = httpx.post(server.url + "/v1/grid", json=GRID, headers=AUTH)
        assert grid.status_code == 429
        # GraphQL: a document refused everything it asked is a 429 too (more than is left)
        refused = graphql_with(
            server.url, f"{{ matchupGrid(attackers: {wide}) {{ cachedCells }} }}"
        )
        # in GraphQL's error shape, as every refusal on /graphql is (GraphQL over HTTP)
        assert refused.status_code == 429
        assert refused.json()["errors"][0]["extensions"]["code"] == "RATE_LIMITED"
        grid2 = "{ matchupGrid(attackers: [{}, {}], defenders: [{}]) { cachedCells } }"
        paid = graphql_with(server.url, grid2)
        assert paid.status_code == 200
        assert paid.json()["extensions"]["cost"]["remaining"] == cost - 1 - small_cost


def graphql_with(url: str, query: str) -> httpx.Response:
    return httpx.post(url + "/graphql", json={"query": query}, headers=AUTH)


# ------------------------------------------------------------------- metrics


def samples(text: str, name: str) -> list:
    return [s for f in text_string_to_metric_families(text) for s in f.samples if s.name == name]


def test_several_workers_count_every_request_and_report_their_processes():
    metrics_port = free_port()
    with serving(workers=2, metrics_port=metrics_port) as server:
        assert httpx.get(server.url + "/metrics").status_code == 404  # on its own port only
        scrape = f"http://127.0.0.1:{metrics_port}/metrics"

        def healthz() -> float:
            counts = samples(httpx.get(scrape).text, "killmath_http_requests_total")
            return sum(s.value for s in counts if s.labels["route"] == "/healthz")

        before = healthz()
        for _ in range(200):  # a new connection each: the workers share them out
            assert httpx.get(server.url + "/healthz").status_code == 200
        assert healthz() - before == 200  # every worker's, whichever way they were shared
        text = httpx.get(scrape).text
        rss = samples(text, "process_resident_memory_bytes")
        # both workers, and the supervisor that serves the metrics port
        assert len({s.labels["pid"] for s in rss}) == 3 and all(s.value > 10e6 for s in rss)
        assert samples(text, "killmath_gc_collections_total")


def test_graphql_errors_are_counted_by_code(server):
    graphql(server.url, "{ shoot(input: {attacker: {attacks: 99}}) { cached } }")
    graphql(server.url, "{ nosuchfield }")
    text = httpx.get(server.url + "/metrics").text
    codes = {s.labels["code"]: s.value for s in samples(text, "killmath_graphql_errors_total")}
    assert codes["LIMIT_EXCEEDED"] >= 1 and codes["GRAPHQL_VALIDATION_FAILED"] >= 1
