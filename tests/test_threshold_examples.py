"""Every worked example of threshold-examples.json, through the registry, exact and float."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from conftest import load_examples

from schema import registry

EXAMPLES = load_examples("threshold")


def api_shape(expected: dict[str, Any]) -> dict[str, Any]:
    """The examples' test-data layout -> the API shape with exact output (kt2018.md §1.7)."""
    out: dict[str, Any] = {}
    for name, value in expected.items():
        if isinstance(value, list):
            out[name] = [api_shape(item) for item in value]
        elif set(value) == {"exact", "float"}:
            out[name] = value["float"]
            out[name + "Exact"] = value["exact"]
        else:
            out[name] = [
                {"value": int(key), "probability": p["float"], "exact": p["exact"]}
                for key, p in sorted(value.items(), key=lambda item: int(item[0]))
            ]
    return out


def without_exact(shape: Any) -> Any:
    """The float-only answer: the same members minus every `...Exact` and `"exact"`."""
    if isinstance(shape, list):
        return [without_exact(item) for item in shape]
    if isinstance(shape, dict):
        return {
            k: without_exact(v)
            for k, v in shape.items()
            if k != "exact" and not k.endswith("Exact")
        }
    return shape


def test_examples_cover_every_mode() -> None:
    assert {e["scenario"]["mode"] for e in EXAMPLES} == {"attack", "deadlyDemise", "heal"}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_example_exact(example: dict[str, Any]) -> None:
    envelope = {**example["scenario"], "options": {"exact": True}}
    assert registry.run(envelope) == api_shape(example["expected"])


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_example_float_only(example: dict[str, Any]) -> None:
    answer = registry.run(example["scenario"])
    assert answer == without_exact(api_shape(example["expected"]))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_example_distributions_sum_to_one(example: dict[str, Any]) -> None:
    answer = registry.run({**example["scenario"], "options": {"exact": True}})
    outputs = [*answer.get("units", []), answer]
    for output in outputs:
        for value in output.values():
            if (
                isinstance(value, list)
                and value
                and isinstance(value[0], dict)
                and "value" in value[0]
            ):
                assert sum(Fraction(entry["exact"]) for entry in value) == 1
