"""`killmath batch` lines with `"ruleset": "kt2018"` (service.cli.main.run_batch)."""

from __future__ import annotations

import json

from conftest import batch, load_examples

EXAMPLES = load_examples("kt2018")


def test_every_mode_through_the_batch_in_order() -> None:
    """One line per worked example (all six modes), answered in input order, exactly."""
    lines = [json.dumps({**e["scenario"], "options": {"exact": True}}) for e in EXAMPLES]
    ok, results = batch([*lines, "   "])
    assert ok
    assert len(results) == len(EXAMPLES)
    for example, result in zip(EXAMPLES, results, strict=True):
        for name, value in example["expected"].items():
            if "exact" in value:
                assert result[name + "Exact"] == value["exact"], (example["name"], name)
            else:
                assert [e["exact"] for e in result[name]] == [v["exact"] for v in value.values()]


def test_bad_lines_report_errors_and_the_batch_goes_on() -> None:
    nerve = {"ruleset": "kt2018", "mode": "nerveTest", "leadership": 7}
    too_many = {
        "ruleset": "kt2018",
        "mode": "mortalWounds",
        "amount": "4D6",
        "source": "other",
        "target": {"wounds": 2},
    }
    ok, results = batch([json.dumps(nerve), json.dumps(too_many), "{", json.dumps(nerve)])
    assert not ok
    assert results[0] == results[3] == {"pShaken": 0.0, "pPass": 1.0}
    error = {
        "code": "LIMIT_EXCEEDED",
        "field": "amount",
        "message": results[1]["error"]["message"],
        "limit": 20,
    }
    assert results[1] == {"error": error, "errors": [error]}
    assert results[2]["error"]["code"] == "INVALID_INPUT"
