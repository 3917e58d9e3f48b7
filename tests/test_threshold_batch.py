"""`killmath batch` with `"ruleset": "threshold"` lines (service.cli.main.run_batch)."""

from __future__ import annotations

import json

from conftest import batch, load_examples

EXAMPLES = load_examples("threshold")


def expected_exact(expected: dict) -> dict:
    """Test-data layout -> {name: "p/q"} for scalars, {name: {"v": "p/q"}} for distributions."""
    out: dict = {}
    for name, value in expected.items():
        if isinstance(value, list):
            out[name] = [expected_exact(item) for item in value]
        elif set(value) == {"exact", "float"}:
            out[name] = value["exact"]
        else:
            out[name] = {key: p["exact"] for key, p in value.items()}
    return out


def answer_exact(answer: dict) -> dict:
    """The same view of an exact API answer."""
    out: dict = {}
    for name, value in answer.items():
        if name.endswith("Exact"):
            out[name.removesuffix("Exact")] = value
        elif name == "units":
            out[name] = [answer_exact(unit) for unit in value]
        elif isinstance(value, list):
            out[name] = {str(entry["value"]): entry["exact"] for entry in value}
    return out


def test_every_example_as_a_batch_line_in_order() -> None:
    lines = [json.dumps({**e["scenario"], "options": {"exact": True}}) for e in EXAMPLES]
    ok, results = batch(lines)
    assert ok
    assert [answer_exact(r) for r in results] == [expected_exact(e["expected"]) for e in EXAMPLES]


def test_bad_lines_get_errors_and_the_batch_goes_on() -> None:
    heal = {"ruleset": "threshold", "mode": "heal", "hpPerModel": 6, "currentHP": 4, "amount": 1}
    lines = [
        json.dumps(heal),
        "",
        json.dumps({**heal, "amount": "7d6"}),
        json.dumps({**heal, "mode": "charge"}),
        "{not json",
        json.dumps({**heal, "currentHP": 5}),
    ]
    ok, results = batch(lines)
    assert not ok
    assert len(results) == 5
    assert [r["hpAfter"][0]["value"] for r in (results[0], results[4])] == [5, 6]
    assert results[1]["error"] == {
        "code": "LIMIT_EXCEEDED",
        "field": "amount",
        "message": results[1]["error"]["message"],
        "limit": 6,
    }
    assert (results[2]["error"]["code"], results[2]["error"]["field"]) == ("INVALID_INPUT", "mode")
    assert results[3]["error"]["code"] == "INVALID_INPUT"
    assert "Exact" not in json.dumps(results[0])
