"""Abuse (issue 8): hostile requests against one real `killmath serve` with its default limits.

Each payload must be refused with a 4xx (or, where GraphQL answers a document it will not run,
a GraphQL error) naming what was refused, within 100 ms measured at the client; the server's
memory must not grow by more than a few tens of MB across all of them; and a client that
asks ordinary questions meanwhile (`/healthz`, a small `/v1/shoot`) must get every answer.

The 100 ms bound is the issue's own, so this file holds the suite's only timed assertions.
Each refusal is timed as the best of a few tries on a warm keep-alive connection: the bound
is about the server's work, and the machine is shared with other test runs.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
import pytest
from service_errors import ErrorShape
from service_harness import Server

MiB = 1_048_576
REFUSED_WITHIN = 0.100  # seconds
TRIES = 3
MAX_RSS_GROWTH = 40 * MiB

SMALL_SHOOT = {"attacker": {"attacks": 4, "hit": 3}, "defender": {"save": 4}}


@dataclass(frozen=True)
class Attack:
    """One hostile request: its path and raw body (`{n}` in it is each try's number)."""

    path: str
    body: bytes
    method: str = "POST"

    def send(self, client: httpx.Client) -> tuple[httpx.Response, float]:
        """The response and the fastest of TRIES round trips. A GraphQL document is made
        new for each try (a comment with the try's number), so the server's parser and
        validation caches never answer for it: each try costs what a new document costs."""
        best = float("inf")
        for n in range(TRIES):
            started = time.perf_counter()
            response = client.request(
                self.method,
                self.path,
                content=self.body.replace(b"{n}", str(n).encode()),
                headers={"content-type": "application/json"},
            )
            response.read()
            best = min(best, time.perf_counter() - started)
        return response, best


def graphql(query: str, variables: dict[str, Any] | None = None) -> Attack:
    fresh = query + "\n# try {n}"
    return Attack("/graphql", orjson.dumps({"query": fresh, "variables": variables or {}}))


def rest(path: str, body: Any) -> Attack:
    return Attack(path, body if isinstance(body, bytes) else orjson.dumps(body))


def nested(depth: int, field: str = "x") -> str:
    """A selection set `depth` fields deep (unknown fields below the real ones)."""
    inner = "id"
    for _ in range(depth - 4):
        inner = f"{field} {{ {inner} }}"
    return f"{{ killTeams {{ operatives {{ weapons {{ profiles {{ {inner} }} }} }} }} }}"


def depth_of(query: str) -> int:
    depth = deepest = 0
    for char in query:
        depth += (char == "{") - (char == "}")
        deepest = max(deepest, depth)
    return deepest - 1  # the operation's own braces


DEEP_ARRAY = b"[" * 100_000 + b"]" * 100_000
ALIASES = "{ " + " ".join(f"a{i}: rulesets {{ name }}" for i in range(1000)) + " }"
MELTAGUN = {"weaponProfileId": "kasrkin.gunner.meltagun"}
BOY = {"operativeId": "kommandos.boy"}
GRID_QUERY = """
query($a: [Kt2024ShootAttackerInput!]!, $d: [Kt2024ShootDefenderInput!]!) {
  matchupGrid(attackers: $a, defenders: $d) { cachedCells }
}"""
MATCHUPS_QUERY = "query($i: [MatchupInput!]!) { matchups(inputs: $i) { __typename } }"


@pytest.fixture(scope="module")
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as keep_alive:
        yield keep_alive


@pytest.fixture(scope="module")
def errors(client: httpx.Client) -> ErrorShape:
    return ErrorShape(client.get("/openapi.json").json())


def memory(server: Server) -> dict[str, int]:
    """The server process's resident set now and at its peak, in bytes."""
    found = {}
    with open(f"/proc/{server.process.pid}/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "VmHWM"):
                found[name] = int(value.split()[0]) * 1024
    return found


class Bystander:
    """An ordinary client asking `/healthz` and a small shoot in a loop on its own thread."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.answers: list[tuple[float, str, int]] = []  # (when, path, status)
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Bystander:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        with httpx.Client(base_url=self.url, timeout=10) as client:
            while not self._stop.is_set():
                for path, body in (("/healthz", None), ("/v1/shoot", SMALL_SHOOT)):
                    try:
                        if body is None:
                            response = client.get(path)
                        else:
                            response = client.post(path, json=body)
                        self.answers.append((time.perf_counter(), path, response.status_code))
                    except httpx.HTTPError as exc:
                        self.failures.append(f"{path}: {exc!r}")
                time.sleep(0.005)


def rest_refusal(
    status: int, code: str, field: str, limit: int | None = None
) -> Callable[[httpx.Response, ErrorShape], None]:
    def check(response: httpx.Response, errors: ErrorShape) -> None:
        assert response.status_code == status, response.text[:500]
        body = response.json()
        assert not errors.body_problems(body), body
        error = body["error"]
        assert (error["code"], error["field"]) == (code, field), error
        assert error.get("limit") == limit, error

    return check


def graphql_refusal(message: str) -> Callable[[httpx.Response, ErrorShape], None]:
    """A document refused before it runs: no data, and an error saying why."""

    def check(response: httpx.Response, errors: ErrorShape) -> None:
        assert response.status_code in (200, 400), response.text[:500]
        answer = response.json()
        assert answer.get("data") is None, answer
        messages = [e["message"] for e in answer["errors"]]
        assert any(message in m for m in messages), messages

    return check


def graphql_limit(field: str, limit: int) -> Callable[[httpx.Response, ErrorShape], None]:
    """A resolver refused its input: the §12 members in `extensions`."""

    def check(response: httpx.Response, errors: ErrorShape) -> None:
        assert response.status_code == 200, response.text[:500]
        (error,) = response.json()["errors"]
        assert not errors.members_problems(error["extensions"]), error
        extensions = error["extensions"]
        assert (extensions["code"], extensions["field"]) == ("LIMIT_EXCEEDED", field), error
        assert extensions["limit"] == limit, error

    return check


def graphql_http_refusal(
    status: int, code: str, field: str, limit: int | None = None
) -> Callable[[httpx.Response, ErrorShape], None]:
    """A request refused before GraphQL: a GraphQL response, the §12 members in `extensions`."""

    def check(response: httpx.Response, errors: ErrorShape) -> None:
        assert response.status_code == status, response.text[:500]
        (error,) = response.json()["errors"]
        assert not errors.members_problems(error["extensions"]), error
        assert (error["extensions"]["code"], error["extensions"]["field"]) == (code, field)
        assert error["extensions"].get("limit") == limit, error

    return check


unparsable_graphql_request = graphql_http_refusal(400, "INVALID_INPUT", "")
GRAPHQL_BODY_TOO_LARGE = graphql_http_refusal(413, "LIMIT_EXCEEDED", "", MiB)
BODY_TOO_LARGE = rest_refusal(413, "LIMIT_EXCEEDED", "", MiB)
NOT_JSON = rest_refusal(400, "INVALID_INPUT", "")

# name -> (request, how it must be refused)
ATTACKS: dict[str, tuple[Attack, Callable[[httpx.Response, ErrorShape], None]]] = {
    "graphql depth 50": (
        graphql(nested(50)),
        graphql_refusal("exceeds maximum operation depth of 12"),
    ),
    "graphql 1000 aliases": (graphql(ALIASES), graphql_refusal("1000 aliases found")),
    # 5 KB whose validation compared every pair of the fields: 0.85 s before the bound
    "graphql 300 copies of one field": (
        graphql("{ " + "rulesets { name } " * 300 + "}"),
        graphql_refusal("Validation aborted"),
    ),
    "graphql 2 MB document": (
        graphql("{ " + "rulesets { name } " * 120_000 + "}"),
        GRAPHQL_BODY_TOO_LARGE,
    ),
    "graphql document of 100,000 nested lists": (
        graphql("{ shoot(input: " + "[" * 100_000 + "]" * 100_000 + ") { cached } }"),
        graphql_refusal("nested too deeply"),
    ),
    "graphql deeply nested JSON body": (
        rest("/graphql", b'{"query": ' + DEEP_ARRAY + b"}"),
        unparsable_graphql_request,
    ),
    "batch of 100,000 envelopes": (
        rest("/v1/batch", [{"mode": "shoot"}] * 100_000),
        BODY_TOO_LARGE,
    ),
    "batch of 1,001 envelopes": (
        rest("/v1/batch", [{"mode": "shoot"}] * 1001),
        rest_refusal(422, "LIMIT_EXCEEDED", "", 1000),
    ),
    "graphql 100,000 matchups": (
        graphql(MATCHUPS_QUERY, {"i": [{"shoot": {}}] * 100_000}),
        GRAPHQL_BODY_TOO_LARGE,
    ),
    "graphql 1,001 matchups": (
        graphql(MATCHUPS_QUERY, {"i": [{"shoot": {}}] * 1001}),
        graphql_limit("inputs", 1000),
    ),
    "shoot attacks 1000000000": (
        rest("/v1/shoot", {"attacker": {"attacks": 1_000_000_000}}),
        rest_refusal(422, "LIMIT_EXCEEDED", "attacker.attacks", 20),
    ),
    "fight attacks 1000000000": (
        rest("/v1/fight", {"fighterA": {"attacks": 1_000_000_000}}),
        rest_refusal(422, "LIMIT_EXCEEDED", "fighterA.attacks", 8),
    ),
    "graphql shoot attacks 1000000000": (
        graphql("{ shoot(input: {attacker: {attacks: 1000000000}}) { cached } }"),
        graphql_limit("attacker.attacks", 20),
    ),
    "shoot deeply nested JSON body": (rest("/v1/shoot", DEEP_ARRAY), NOT_JSON),
    "batch deeply nested JSON body": (rest("/v1/batch", DEEP_ARRAY), NOT_JSON),
    "grid deeply nested JSON body": (rest("/v1/grid", DEEP_ARRAY), NOT_JSON),
    "grid of 1000 x 1000 catalog profiles": (
        rest("/v1/grid", {"attackers": [MELTAGUN] * 1000, "defenders": [BOY] * 1000}),
        rest_refusal(422, "LIMIT_EXCEEDED", "attackers", 10_000),
    ),
    "grid of 1000 x 1000 x 1000 inline profiles": (
        rest(
            "/v1/grid",
            {
                "attackers": [{"attacks": 4}] * 1000,
                "defenders": [{"save": 3}] * 1000,
                "situations": [{}] * 1000,
            },
        ),
        rest_refusal(422, "LIMIT_EXCEEDED", "attackers", 10_000),
    ),
    "graphql grid of 1000 x 1000": (
        graphql(GRID_QUERY, {"a": [MELTAGUN] * 1000, "d": [BOY] * 1000}),
        graphql_limit("attackers", 10_000),
    ),
}


def test_the_documents_are_what_they_claim() -> None:
    """The payloads' sizes and shapes, so each attack tests the limit it is named after."""
    assert depth_of(nested(50)) == 50
    assert len(ATTACKS["graphql 2 MB document"][0].body) > 2 * 10**6
    assert len(ATTACKS["batch of 100,000 envelopes"][0].body) > MiB
    assert len(ATTACKS["batch of 1,001 envelopes"][0].body) < MiB
    assert len(ATTACKS["graphql 1,001 matchups"][0].body) < MiB
    assert len(ATTACKS["graphql document of 100,000 nested lists"][0].body) < MiB
    assert len(DEEP_ARRAY) < MiB


def test_every_abuse_is_refused_fast_without_memory_growth_or_starving_others(
    server: Server, client: httpx.Client, errors: ErrorShape
) -> None:
    # warm-up: the connection, and the code paths of ordinary requests
    assert client.get("/healthz").status_code == 200
    assert client.post("/v1/shoot", json=SMALL_SHOOT).status_code == 200
    assert client.post("/graphql", json={"query": "{ rulesets { name } }"}).status_code == 200
    before = memory(server)
    timings = {}
    with Bystander(server.url) as bystander:
        time.sleep(0.05)  # the bystander is under way before the first attack
        started = time.perf_counter()
        for name, (attack, refused) in ATTACKS.items():
            response, elapsed = attack.send(client)
            refused(response, errors)
            timings[name] = elapsed
        finished = time.perf_counter()
    after = memory(server)
    meanwhile = [a for a in bystander.answers if started <= a[0] <= finished]
    print("\n".join(f"{name}: {1000 * t:.1f} ms" for name, t in timings.items()))
    print(f"server RSS {before['VmRSS'] / MiB:.0f} -> {after['VmRSS'] / MiB:.0f} MiB, "
          f"peak {before['VmHWM'] / MiB:.0f} -> {after['VmHWM'] / MiB:.0f} MiB; "
          f"{len(meanwhile)} bystander answers during the attacks")  # fmt: skip
    slow = {name: t for name, t in timings.items() if t >= REFUSED_WITHIN}
    assert not slow, f"refused in 100 ms or more: {slow}"
    assert after["VmHWM"] - before["VmHWM"] < MAX_RSS_GROWTH, (before, after)
    assert not bystander.failures, bystander.failures
    assert len(meanwhile) >= 5, (started, finished, bystander.answers)
    assert all(status == 200 for _, _, status in bystander.answers), bystander.answers


def test_a_streamed_body_is_cut_off_at_the_limit(server: Server, client: httpx.Client) -> None:
    """Without Content-Length the body is counted as it arrives (2 MB in 64 KiB chunks)."""

    def chunks() -> Iterator[bytes]:
        for _ in range(32):
            yield b" " * 65536

    before = memory(server)
    response = client.post("/v1/batch", content=chunks())
    assert response.status_code == 413
    assert response.json()["error"]["limit"] == MiB
    assert memory(server)["VmHWM"] - before["VmHWM"] < MAX_RSS_GROWTH


# Regressions: each was a 500 (or, over GraphQL, a resolver fault without the §12 members)
# found by the fuzzers or while building the attacks above.


def test_a_ruleset_that_is_not_a_string_is_invalid_input(client: httpx.Client) -> None:
    """`references.expand` looked the ruleset up in a set: an object is unhashable."""
    response = client.post("/v1/shoot", json={"ruleset": {}, "attacker": {"weaponRules": "x"}})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "ruleset"
    (line,) = client.post("/v1/batch", json=[{"ruleset": [], "mode": "shoot"}]).json()
    assert line["error"]["field"] == "ruleset"


DEEP_VALUE = "[" * 300 + "]" * 300  # orjson reads 1024 levels, but writes only 254


def test_envelopes_nested_deeper_than_orjson_writes_are_invalid_input(
    client: httpx.Client,
) -> None:
    body = ('[{"mode": "shoot", "attacker": {"x": ' + DEEP_VALUE + "}}]").encode()
    response = client.post("/v1/batch", content=body)
    assert response.status_code == 200
    assert response.json()[0]["error"]["code"] == "INVALID_INPUT"
    body = ('{"attackers": [{"x": ' + DEEP_VALUE + '}], "defenders": [{}]}').encode()
    response = client.post("/v1/grid", content=body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "INVALID_INPUT"
    # GraphQL inputs are typed: such a value is a request error (no data), never a 5xx
    inputs = [{"shoot": {"attacker": {"x": orjson.loads(DEEP_VALUE)}}}]
    response = client.post("/graphql", json={"query": MATCHUPS_QUERY, "variables": {"i": inputs}})
    assert response.status_code < 500 and "data" not in response.json()
    assert response.json()["errors"]


def test_graphql_json_integers_beyond_64_bits_are_invalid_input(
    client: httpx.Client, errors: ErrorShape
) -> None:
    """Integers beyond 64 bits (orjson writes 64) are refused as input, never a 5xx."""
    big = 10**30
    query = f"{{ kt2018Shooting(input: {{weapons: [{{attacks: {big}}}]}}) {{ cached }} }}"
    (error,) = client.post("/graphql", json={"query": query}).json()["errors"]
    assert not errors.members_problems(error["extensions"]), error
    assert error["extensions"]["code"] == "INVALID_INPUT"
    # a typed Int beyond 32 bits is a request error (no data), never a 5xx
    query = (
        f"{{ matchups(inputs: [{{shoot: {{attacker: {{attacks: {big}}}}}}}]) {{ __typename }} }}"
    )
    response = client.post("/graphql", json={"query": query})
    assert response.status_code < 500 and "data" not in response.json()
    assert response.json()["errors"]


@pytest.mark.parametrize(
    ("name", "query", "variables"),
    [
        (
            "one list of 100,000",
            "query($w: [Kt2018ShootingWeaponsInput!]) { kt2018Shooting(input: {weapons: $w}) "
            "{ cached } }",
            {"w": [{}] * 100_000},
        ),
        (
            "a variable of 300 used by 40 aliases",
            "query($i: Kt2018ShootingInput!) { "
            + " ".join(f"a{n}: kt2018Shooting(input: $i) {{ cached }}" for n in range(40))
            + " }",
            {"i": {"weapons": [{}] * 300}},
        ),
        (
            "literal lists of 200 x 200 in an inline fragment",
            "{ ... on Query { matchupGrid(attackers: ["
            + ", ".join(["{}"] * 200)
            + "], defenders: ["
            + ", ".join(["{}"] * 200)
            + "]) { cachedCells } } }",
            {},
        ),
        (
            "grid lists behind a fragment",
            "query($a: [Kt2024ShootAttackerInput!]!) { ...G } "
            "fragment G on Query { matchupGrid(attackers: $a, defenders: [{}]) { cachedCells } }",
            {"a": [{}] * 100_000},
        ),
    ],
)
def test_graphql_list_arguments_are_counted_before_they_are_coerced(
    client: httpx.Client, errors: ErrorShape, name: str, query: str, variables: dict
) -> None:
    """graphql-core and strawberry spent about 100 µs per input object on the event loop
    before any resolver could refuse: 300 KB of `[{}, ...]` blocked the server 1.7-3.5 s."""
    response, elapsed = graphql(query, variables).send(client)
    (error,) = response.json()["errors"]
    assert not errors.members_problems(error["extensions"]), error
    assert error["extensions"]["code"] == "LIMIT_EXCEEDED"
    assert elapsed < REFUSED_WITHIN, f"{name}: {elapsed:.3f} s"


def test_graphql_bulk_limits_leave_legitimate_requests_alone(client: httpx.Client) -> None:
    """At the limits (a default variable, situations left out) the request runs."""
    query = (
        "query($a: [Kt2024ShootAttackerInput!]! = [{attacks: 1}]) "
        "{ matchupGrid(attackers: $a, defenders: [{}, {}]) { cachedCells } }"
    )
    answer = client.post("/graphql", json={"query": query}).json()
    assert "errors" not in answer, answer
    query = "query($i: [MatchupInput!]!) { matchups(inputs: $i) { __typename } }"
    answer = client.post(
        "/graphql", json={"query": query, "variables": {"i": [{"shoot": {}}] * 1000}}
    ).json()
    assert len(answer["data"]["matchups"]) == 1000


def test_array_backed_fight_answers_are_plain_json(client: httpx.Client) -> None:
    """The fight engine's wounds grid keyed distributions by NumPy integers, which orjson
    refuses: every multi-sequence heuristic fight answered 500 (found by the REST fuzzer)."""
    body = {"fighterA": {}, "fighterB": {}, "options": {"firstToAct": "A", "rounds": 2}}
    response = client.post("/v1/fight", json=body)
    assert response.status_code == 200, response.text
    values = [e["value"] for e in response.json()["fighterA"]["remainingWoundsDistribution"]]
    assert values == sorted(values) and all(isinstance(v, int) for v in values)


def test_big_distinct_documents_are_not_kept(server: Server, client: httpx.Client) -> None:
    """strawberry's parser and validation caches kept every document whatever its size: each
    distinct 430 KB document grew the server by 45 MB (about 4 MB for these 40 KB ones)."""
    fields = "rulesets { name } " * 2200

    def send(n: int) -> None:
        answer = client.post("/graphql", json={"query": f"{{ {fields} n{n}: catalogVersion }}"})
        assert answer.json()["errors"][0]["message"] == "Validation aborted."

    send(0)  # the allocator's high-water mark for one such document
    before = memory(server)["VmRSS"]
    for n in range(1, 11):
        send(n)
    assert memory(server)["VmRSS"] - before < 15 * MiB
