"""Every worked example of kt2013-examples.json through the registry, exact and float-only."""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import load_examples

from schema import registry

EXAMPLES = load_examples("kt2013")


def with_exact(scenario: dict, exact: bool) -> dict:
    return {**scenario, "options": {"exact": exact}}


def is_distribution(expected: dict) -> bool:
    return "exact" not in expected


def close(x: float, exact: str) -> bool:
    value = Fraction(exact)
    return abs(Fraction(x) - value) <= Fraction(1, 10**12) * max(1, abs(value))


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_exact_values(example: dict) -> None:
    got = registry.run(with_exact(example["scenario"], True))
    want = example["expected"]
    names = set(want) | {f"{k}Exact" for k, v in want.items() if not is_distribution(v)}
    assert set(got) == names
    for name, expected in want.items():
        if is_distribution(expected):
            entries = got[name]
            assert [e["value"] for e in entries] == sorted(int(v) for v in expected)
            assert {str(e["value"]): e["exact"] for e in entries} == {
                v: p["exact"] for v, p in expected.items()
            }
            assert all(e["probability"] == float(Fraction(e["exact"])) for e in entries)
            assert {str(e["value"]): e["probability"] for e in entries} == {
                v: p["float"] for v, p in expected.items()
            }
            assert sum(Fraction(e["exact"]) for e in entries) == 1
        else:
            assert got[f"{name}Exact"] == expected["exact"], name
            assert got[name] == float(Fraction(expected["exact"])) == expected["float"], name


@pytest.mark.parametrize("example", EXAMPLES, ids=[e["name"] for e in EXAMPLES])
def test_float_only_values(example: dict) -> None:
    got = registry.run(with_exact(example["scenario"], False))
    want = example["expected"]
    assert set(got) == set(want)
    for name, expected in want.items():
        if is_distribution(expected):
            entries = got[name]
            assert all(set(e) == {"value", "probability"} for e in entries)
            assert {str(e["value"]) for e in entries} == set(expected)
            for e in entries:
                assert close(e["probability"], expected[str(e["value"])]["exact"])
        else:
            assert close(got[name], expected["exact"]), name
