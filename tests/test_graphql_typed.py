"""Every answer over GraphQL is typed and says exactly what REST and the CLI say.

Each worked example of kt2018, kt2013 and threshold (tests/spec) is asked over GraphQL with
every member of its answer type selected, as a single query and all together in one
`matchups`, in exact mode, and the answer, read back into JSON (`tests/graphql_typed.py`),
equals the batch line of the same envelope — the numbers to the last bit, the exact
fractions, the canonical key. And the schema holds no JSON scalar at all.
"""

from __future__ import annotations

import json

import httpx
import pytest
from graphql import GraphQLScalarType, get_named_type
from graphql_typed import (
    SCHEMA,
    SERVICE_MEMBERS,
    as_rest,
    query_of,
    selection,
    variables,
    without_nulls,
)
from service_harness import REPO, serving

from service.graphql.rulesets import query_name

RULESETS = ("kt2018", "kt2013", "threshold")
EXAMPLES = [
    example
    for ruleset in RULESETS
    for example in json.loads((REPO / "tests" / "spec" / f"{ruleset}-examples.json").read_text())
]


def _envelope(example: dict) -> dict:
    scenario = dict(example["scenario"])
    scenario["options"] = {**scenario.get("options", {}), "exact": True}
    return scenario


@pytest.fixture(scope="module")
def served():
    with serving() as server:
        envelopes = [_envelope(e) for e in EXAMPLES]
        lines = httpx.post(server.url + "/v1/batch", json=envelopes).json()
        yield server.url, envelopes, lines


def test_no_json_scalar_anywhere():
    scalars = {t.name for t in SCHEMA.type_map.values() if isinstance(t, GraphQLScalarType)}
    assert scalars == {"Int", "Float", "String", "Boolean", "Dice"}
    assert SCHEMA.type_map["Dice"].specified_by_url == "/graphql/scalars/Dice"


def test_enum_values_are_screaming_snake_in_every_ruleset():
    for kind in SCHEMA.type_map.values():
        if kind.name.startswith("__") or not hasattr(kind, "values"):
            continue
        for name in kind.values:
            assert name == name.upper(), (kind.name, name)


@pytest.mark.parametrize("index", range(len(EXAMPLES)), ids=[e["name"] for e in EXAMPLES])
def test_each_example_over_graphql_equals_the_batch_line(served, index):
    url, envelopes, lines = served
    envelope = envelopes[index]
    assert "error" not in lines[index], lines[index]
    field = query_name(envelope["ruleset"], envelope["mode"])
    document, input_name = query_of(field)
    body = {k: v for k, v in envelope.items() if k not in ("ruleset", "mode")}
    given = variables(body, SCHEMA.type_map[input_name])
    response = httpx.post(url + "/graphql", json={"query": document, "variables": {"i": given}})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert "errors" not in answer, answer
    result = answer["data"][field]
    assert set(SERVICE_MEMBERS) <= set(result)
    assert result["canonicalKey"].startswith(envelope["ruleset"] + "-")
    typed = as_rest({k: v for k, v in result.items() if k not in SERVICE_MEMBERS})
    assert typed == without_nulls(lines[index])


def test_all_examples_in_one_matchups_equal_the_batch_lines(served):
    url, envelopes, lines = served
    matchups = SCHEMA.query_type.fields["matchups"]
    member = get_named_type(matchups.args["inputs"].type)
    inputs = []
    for envelope in envelopes:
        name = query_name(envelope["ruleset"], envelope["mode"])
        body = {k: v for k, v in envelope.items() if k not in ("ruleset", "mode")}
        inputs.append({name: variables(body, member.fields[name].type)})
    document = (
        "query($m: [MatchupInput!]!) { matchups(inputs: $m) " + selection(matchups.type) + " }"
    )
    response = httpx.post(url + "/graphql", json={"query": document, "variables": {"m": inputs}})
    answer = response.json()
    assert "errors" not in answer, answer
    results = answer["data"]["matchups"]
    assert len(results) == len(lines)
    for result, line in zip(results, lines, strict=True):
        assert isinstance(result["cached"], bool)
        typed = as_rest({k: v for k, v in result.items() if k not in SERVICE_MEMBERS})
        assert typed == without_nulls(line)
