"""Parsing bounded (issue 34, findings 2 and 11): one cap on weapon-rule text, checked before
the parser sees it, a parser linear in its text, big bodies prepared off the loop, error
replies within 64 KiB, the GraphQL token limit before parsing and one introspection root.

Behaviour, not timing: what the parser is called with, how many steps it takes, the
refusal's code, field and limit, and the size of the reply.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from graphql import GraphQLError
from starlette.testclient import TestClient
from strawberry.types import ExecutionResult

import schema.weapon_rules as weapon_rules
from engine.errors import InputError
from schema.errors import REPLY_BYTES, error_body, gathered
from schema.limits import MAX_RULES_TEXT
from service import compute
from service.app import create_app
from service.graphql import http as graphql_http
from service.graphql import uploads
from service.settings import Settings

TOO_LONG = "Hot, " * (MAX_RULES_TEXT // 5) + "X"  # one character over the cap, all known
AT_CAP = ("Hot, " * (MAX_RULES_TEXT // 5))[:MAX_RULES_TEXT]
DEFENDER = {"save": 4, "wounds": 8}
DATA = Path(__file__).parent.parent / "schema" / "catalog" / "data"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(Settings(redis_url=None, log_level="WARNING"))) as c:
        yield c


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the rule parser is handed, through whichever door."""
    seen: list[str] = []
    original = weapon_rules._parse

    def spy(text: Any, report: bool) -> weapon_rules.ParsedRules:
        seen.append(text if isinstance(text, str) else ", ".join(text))
        return original(text, report)

    monkeypatch.setattr(weapon_rules, "_parse", spy)
    return seen


def refused_at(response: Any, field: str) -> None:
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert (error["code"], error["field"], error["limit"]) == ("LIMIT_EXCEEDED", field, 2000)


# ------------------------------------------------------------------ the parser is linear


def _identify_calls(monkeypatch: pytest.MonkeyPatch, text: str) -> int:
    calls = 0
    original = weapon_rules._identify

    def counted(item: str) -> tuple[str, str] | None:
        nonlocal calls
        calls += 1
        return original(item)

    monkeypatch.setattr(weapon_rules, "_identify", counted)
    weapon_rules.parse_rules(text)
    monkeypatch.setattr(weapon_rules, "_identify", original)
    return calls


@pytest.mark.parametrize(
    "unit",
    ["Lethal 5+ Blah ", "Hot Hot ", "Piercing 1 Lethal 5+ Zap ", "a 1 ", "Lethl 5+, Zap, "],
)
def test_the_parser_takes_steps_in_proportion_to_its_text(monkeypatch, unit):
    """Words run together were tried at every cut, each half parsed with its own hints:
    12 words took 4.6 s, doubling with each word. Now each word costs a bounded number of
    rule look-ups, so ten times the text takes ten times the steps (give or take)."""
    small = _identify_calls(monkeypatch, unit * 20)
    large = _identify_calls(monkeypatch, unit * 200)
    assert large <= 11 * small + 10


def test_run_together_rules_are_still_reported():
    parsed = weapon_rules.parse_rules("Lethal 5+ Piercing 1")
    assert parsed.unknown == ("Lethal 5+ Piercing 1",)
    assert "two rules without a separator" in parsed.malformed[0].message
    splash = weapon_rules.parse_rules('Hot 1" Devastating 2')
    assert "two rules without a separator" in splash.malformed[0].message


def test_closing_quotes_are_read_as_before():
    """One walk back over trailing quotes (a run of them was quadratic)."""
    assert weapon_rules.split_rules('"Range 8", Hot"') == ['Range 8"', "Hot"]
    assert weapon_rules.split_rules("Hot" + "'" * 10_000) == ["Hot"]
    assert weapon_rules.split_rules('Range 8 " "') == ['Range 8 "']


def test_no_effect_rules_listed_once_each_in_order():
    parsed = weapon_rules.parse_rules('Hot, Range 8", Hot, Heavy, Range 8"')
    assert parsed.no_numeric_effect == ("Hot", 'Range 8"', "Heavy")


# ------------------------------------------------------------------ one cap, before parsing


def test_the_cap_fits_every_real_profile():
    """2,000 characters is far above any datacard's rules: the longest WR of the bundled
    catalog is 103 characters, of the BSData Kill Team catalogs 91."""
    texts: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            texts.extend(v for k, v in value.items() if k == "WR" and isinstance(v, str))
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for path in DATA.rglob("*.json"):
        walk(orjson.loads(path.read_bytes()))
    assert texts and max(map(len, texts)) < MAX_RULES_TEXT // 10


@pytest.mark.parametrize("mode", ["shoot", "fight"])
def test_rest_single_refuses_long_rules_unparsed(client, parsed, mode):
    role = "attacker" if mode == "shoot" else "fighterA"
    body = {role: {"attacks": 4, "weaponRules": TOO_LONG}}
    if mode == "shoot":
        body["defender"] = DEFENDER
    refused_at(client.post(f"/v1/{mode}", json=body), f"{role}.weaponRules")
    assert all(len(text) <= MAX_RULES_TEXT for text in parsed)


def test_rules_at_the_cap_are_accepted(client):
    body = {"attacker": {"attacks": 4, "weaponRules": AT_CAP}, "defender": DEFENDER}
    assert client.post("/v1/shoot", json=body).status_code == 200


def test_grid_names_the_profile_with_long_rules(client, parsed):
    body = {
        "attackers": [{"attacks": 4}, {"attacks": 4, "weaponRules": TOO_LONG}],
        "defenders": [DEFENDER],
        "situations": [{}, {"attacker": {"weaponRules": TOO_LONG}}],
    }
    response = client.post("/v1/grid", json=body)
    refused_at(response, response.json()["error"]["field"])
    fields = {e["field"] for e in response.json()["errors"]}
    assert fields == {"attackers.1.weaponRules", "situations.1.attacker.weaponRules"}
    assert all(len(text) <= MAX_RULES_TEXT for text in parsed)


def test_batch_line_refused_in_place(client, parsed):
    lines = [
        {"mode": "shoot", "attacker": {"attacks": 4}, "defender": DEFENDER},
        {"mode": "shoot", "attacker": {"attacks": 4, "weaponRules": TOO_LONG}},
    ]
    answer = client.post("/v1/batch", json=lines).json()
    error = answer[1]["error"]
    assert (error["code"], error["field"], error["limit"]) == (
        "LIMIT_EXCEEDED",
        "attacker.weaponRules",
        MAX_RULES_TEXT,
    )
    assert all(len(text) <= MAX_RULES_TEXT for text in parsed)


def test_team_matchup_refuses_long_rules(client, parsed):
    body = {
        "attackers": {"operativeIds": ["kasrkin.gunner"]},
        "defenders": {"operativeIds": ["kommandos.boy"]},
        "situations": [{"attacker": {"weaponRules": TOO_LONG}}],
    }
    response = client.post("/v1/team-matchup", json=body)
    assert response.status_code == 422, response.text
    error = response.json()["error"]
    assert (error["code"], error["limit"]) == ("LIMIT_EXCEEDED", MAX_RULES_TEXT)
    assert error["field"].endswith("weaponRules")
    assert all(len(text) <= MAX_RULES_TEXT for text in parsed)


def test_weapon_rules_endpoint_uses_the_same_cap(client, parsed):
    refused_at(client.get("/v1/weapon-rules", params={"text": TOO_LONG}), "text")
    assert parsed == []


def _graphql(client: TestClient, query: str, **variables: Any) -> dict[str, Any]:
    response = client.post("/graphql", json={"query": query, "variables": variables})
    return response.json()


def test_graphql_inputs_and_weapon_rules_use_the_same_cap(client, parsed):
    shoot = (
        "query($r: String!) { shoot(input: {attacker: {attacks: 4, weaponRules: $r}}) { cached } }"
    )
    error = _graphql(client, shoot, r=TOO_LONG)["errors"][0]["extensions"]
    assert (error["code"], error["field"], error["limit"]) == (
        "LIMIT_EXCEEDED",
        "attacker.weaponRules",
        MAX_RULES_TEXT,
    )
    rules = "query($t: String!) { weaponRules(text: $t) { unknown } }"
    error = _graphql(client, rules, t=TOO_LONG)["errors"][0]["extensions"]
    assert (error["code"], error["field"], error["limit"]) == ("LIMIT_EXCEEDED", "text", 2000)
    assert all(len(text) <= MAX_RULES_TEXT for text in parsed)


# ------------------------------------------------------------------ big bodies off the loop


def test_a_big_body_is_prepared_in_the_pool(client, monkeypatch):
    threads: list[str] = []
    original = compute.prepare_raw

    def spy(raw: bytes, mode: str | None = None) -> compute.Job:
        threads.append(threading.current_thread().name)
        return original(raw, mode)

    monkeypatch.setattr(compute, "prepare_raw", spy)
    small = {"attacker": {"attacks": 4}, "defender": DEFENDER}
    big = {**small, "attacker": {"attacks": 4, "weaponRules": AT_CAP}, "name": "x" * 9000}
    client.post("/v1/shoot", json=small)
    client.post("/v1/shoot", json=big)  # refused (name is no member), but read in the pool
    assert not threads[0].startswith("killmath-engine")
    assert threads[1].startswith("killmath-engine")


# ------------------------------------------------------------------ error replies ≤ 64 KiB


def test_an_error_body_lists_the_first_problems_and_counts_the_rest():
    many = gathered(
        [InputError("INVALID_INPUT", f"attackers.{i}.x", "y" * 5000) for i in range(1000)]
    )
    body = error_body(many)
    assert len(orjson.dumps(body)) <= REPLY_BYTES
    listed = len(body["errors"])
    assert 10 < listed < 1000 and body["omitted"] == 1000 - listed
    assert [e["field"] for e in body["errors"]] == [f"attackers.{i}.x" for i in range(listed)]
    assert body["error"] == body["errors"][0]
    assert "more characters" in body["error"]["message"]
    assert "omitted" not in error_body(InputError("INVALID_INPUT", "a", "b"))


UNKNOWN = ", ".join(f"Zap{i}" for i in range(300))[:1990]  # just under the cap, all unknown


def test_a_grid_of_bad_profiles_refused_within_64_kib(client):
    """The 880 KB of unknown rules answered a 14.3 MB refusal; the same shape now answers
    the first problems within 64 KiB and the count of the rest."""
    body = {"attackers": [{"attacks": 4, "weaponRules": f"{i} {UNKNOWN}"} for i in range(400)],
            "defenders": [DEFENDER]}  # fmt: skip
    response = client.post("/v1/grid", json=body)
    assert response.status_code == 400
    assert len(response.content) <= REPLY_BYTES
    answer = response.json()
    assert answer["omitted"] == 400 - len(answer["errors"]) > 0
    assert answer["errors"][0]["field"] == "attackers.0.weaponRules"


def test_graphql_errors_within_64_kib_with_a_final_count():
    """Field errors in place (a nullable field each) are listed within 64 KiB, then one
    final error counts the rest (`extensions.omitted`)."""
    errors = [
        GraphQLError("m" * 5000, path=[f"a{i}"], extensions={"code": "INVALID_INPUT"})
        for i in range(1000)
    ]
    status, body = graphql_http.response(
        ExecutionResult(data={}, errors=errors), "application/json"
    )
    assert status == 200 and len(orjson.dumps(body)) <= REPLY_BYTES
    *listed, last = body["errors"]
    assert [e["path"] for e in listed] == [[f"a{i}"] for i in range(len(listed))]
    assert last["extensions"] == {"omitted": 1000 - len(listed)} and len(listed) > 10
    assert "more characters" in listed[0]["message"]


# ------------------------------------------------------------------ GraphQL: tokens, introspection


def test_a_big_import_document_is_refused_by_its_tokens_before_it_is_parsed(client, monkeypatch):
    calls: list[dict[str, Any]] = []
    original = uploads.parse

    def spy(source: str, **options: Any) -> Any:
        calls.append(options)
        return original(source, **options)

    monkeypatch.setattr(uploads, "parse", spy)
    aliases = " ".join(f"a{i}: __typename" for i in range(40_000))
    query = '{ importProfiles(content: "") { format } ' + aliases + " }"
    body = orjson.dumps({"query": query, "variables": {"pad": "x" * 400_000}})
    assert len(body) > 1_048_576
    response = client.post("/graphql", content=body, headers={"content-type": "application/json"})
    error = response.json()["errors"][0]
    assert "more than 20000 tokens" in error["message"]
    assert error["extensions"]["code"] == "GRAPHQL_PARSE_FAILED"
    assert calls == [{"max_tokens": 20_000}]  # once, under the limit; never by strawberry


def test_one_introspection_root_per_document(client):
    two = "{ a: __schema { queryType { name } } b: __schema { queryType { name } } }"
    error = _graphql(client, two)["errors"][0]
    assert "one introspection field" in error["message"]
    assert error["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
    mixed = '{ __schema { queryType { name } } __type(name: "Query") { name } }'
    assert "one introspection field" in _graphql(client, mixed)["errors"][0]["message"]
    one = _graphql(client, '{ __type(name: "Query") { name } __typename }')
    assert one["data"] == {"__type": {"name": "Query"}, "__typename": "Query"}
