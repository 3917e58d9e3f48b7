"""The hostile requests of tests/test_service_abuse.py and how each must be refused (issue 8).

Shared with benchmarks/bench_abuse.py, which times the refusals: the tests check what is
refused and how, never how fast.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import orjson
from service_errors import ErrorShape

MiB = 1_048_576


@dataclass(frozen=True)
class Attack:
    """One hostile request: its path and raw body (`{n}` in it is the try's number)."""

    path: str
    body: bytes
    method: str = "POST"

    def send(self, client: httpx.Client, n: int = 0) -> httpx.Response:
        """The response to try `n`. A GraphQL document is made new for each try (a comment
        with the try's number), so the server's parser and validation caches never answer
        for it: each try costs what a new document costs."""
        response = client.request(
            self.method,
            self.path,
            content=self.body.replace(b"{n}", str(n).encode()),
            headers={"content-type": "application/json"},
        )
        response.read()
        return response


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
RULE_TEXT = ", ".join(f"Lethl {i}+" for i in range(10_000))  # ~100 KB of misspelt rules
HEAVY_FIGHT = {  # issue 34's: 9.1 s of CPU and a 1.1 GB peak at 332adde
    "fighterA": {"attacks": 8, "wounds": 30, "reroll": "CEASELESS_AND_BALANCED",
                 "strategy": "OPTIMAL", "feelNoPain": 5},
    "fighterB": {"attacks": 8, "wounds": 29, "feelNoPain": 5, "strategy": "OPTIMAL"},
    "options": {"exact": True, "rounds": 5},
}  # fmt: skip
ALIASES = "{ " + " ".join(f"a{i}: rulesets {{ name }}" for i in range(1000)) + " }"
MELTAGUN = {"weaponProfileId": "kasrkin.gunner.meltagun"}
BOY = {"operativeId": "kommandos.boy"}
GRID_QUERY = """
query($a: [Kt2024ShootAttackerInput!]!, $d: [Kt2024ShootDefenderInput!]!) {
  matchupGrid(attackers: $a, defenders: $d) { cachedCells }
}"""
MATCHUPS_QUERY = "query($i: [MatchupInput!]!) { matchups(inputs: $i) { __typename } }"


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


def heavy_fight_refused(response: httpx.Response, errors: ErrorShape) -> None:
    """Refused before it runs, by its cost or its memory (whichever is lower: 422 either
    way, naming a field of the fight and the limit)."""
    assert response.status_code == 422, response.text[:500]
    body = response.json()
    assert not errors.body_problems(body), body
    assert body["error"]["code"] == "LIMIT_EXCEEDED" and body["error"]["limit"], body
    assert body["error"]["field"].startswith(("fighterA", "fighterB", "options")), body


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
    # issue 34: rule text, the cost ceiling and memory, introspection, big documents
    "shoot with 100 KB of rule text": (
        rest("/v1/shoot", {"attacker": {"weaponRules": RULE_TEXT}}),
        rest_refusal(422, "LIMIT_EXCEEDED", "attacker.weaponRules", 2000),
    ),
    "grid cell with 100 KB of rule text": (
        rest("/v1/grid", {"attackers": [{"weaponRules": RULE_TEXT}], "defenders": [{}]}),
        rest_refusal(422, "LIMIT_EXCEEDED", "attackers.0.weaponRules", 2000),
    ),
    "graphql weaponRules of 100 KB": (
        graphql("query($t: String!) { weaponRules(text: $t) { unknown } }", {"t": RULE_TEXT}),
        graphql_limit("text", 2000),
    ),
    "the heavy OPTIMAL exact fight": (rest("/v1/fight", HEAVY_FIGHT), heavy_fight_refused),
    "49 aliased __schema": (
        graphql(
            "{ " + " ".join(f"s{i}: __schema {{ types {{ name }} }}" for i in range(49)) + " }"
        ),
        graphql_refusal("__schema"),
    ),
}


def _list_arguments() -> dict[str, Attack]:
    cases = [
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
    ]
    return {name: graphql(query, variables) for name, query, variables in cases}


# GraphQL documents whose list arguments are refused before they are coerced (graphql-core
# and strawberry spent about 100 µs per input object on the event loop before any resolver
# could refuse: 300 KB of `[{}, ...]` blocked the server 1.7-3.5 s)
LIST_ARGUMENTS = _list_arguments()
