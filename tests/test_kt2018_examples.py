"""Every worked example of kt2018-examples.json, exact and float-only (kt2018.md §1 items 4–7)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from conftest import load_examples

from schema import registry

EXAMPLES = load_examples("kt2018")


def _value(key: str) -> int | str:
    return int(key) if key.isdigit() else key


def _as_api(expected: dict[str, Any], exact: bool) -> dict[str, Any]:
    """The test-data layout rewritten into the API layout of kt2024.md §10."""
    out: dict[str, Any] = {}
    for name, value in expected.items():
        if "exact" in value:  # a probability or an expectation
            out[name] = value["float"]
            if exact:
                out[name + "Exact"] = value["exact"]
            continue
        entries = []
        for key, prob in value.items():  # listed ascending, "outOfAction" last
            entry: dict[str, Any] = {"value": _value(key), "probability": prob["float"]}
            if exact:
                entry["exact"] = prob["exact"]
            entries.append(entry)
        out[name] = entries
    return out


def _close(got: Any, want: Any) -> bool:
    if isinstance(want, float):
        return isinstance(got, float) and abs(got - want) <= 1e-9
    if isinstance(want, dict):
        return got.keys() == want.keys() and all(_close(got[k], want[k]) for k in want)
    if isinstance(want, list):
        return len(got) == len(want) and all(_close(g, w) for g, w in zip(got, want, strict=True))
    return got == want


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_example_exact(example: dict[str, Any]) -> None:
    got = registry.run({**example["scenario"], "options": {"exact": True}})
    want = _as_api(example["expected"], exact=True)
    assert set(got) == set(want)  # §5: no other keys
    for name, value in want.items():
        if name.endswith("Exact"):
            assert got[name] == value, name
            assert got[name[: -len("Exact")]] == float(Fraction(value)), name
        elif isinstance(value, list):
            assert [(e["value"], e["exact"]) for e in got[name]] == [
                (e["value"], e["exact"]) for e in value
            ], name
            for entry in got[name]:
                assert entry["probability"] == float(Fraction(entry["exact"]))
            assert sum(Fraction(e["exact"]) for e in got[name]) == 1


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_example_float_only(example: dict[str, Any]) -> None:
    """Without `options.exact` there are no exact members and floats are within 1e-9."""
    got = registry.run(example["scenario"])
    assert _close(got, _as_api(example["expected"], exact=False))
