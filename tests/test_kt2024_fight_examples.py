"""Every fight example of kt2024-examples.json, exact and in float mode, through the API path."""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import load_examples

from schema import registry

FIGHT = [e for e in load_examples("kt2024") if e["kind"] == "fight"]
SIDES = ("fighterA", "fighterB")
DISTRIBUTIONS = ("remainingWoundsDistribution", "damageDealtDistribution")
SCALARS = ("incapacitatedProbability", "expectedDamageDealt")


def with_exact(scenario: dict, exact: bool) -> dict:
    return {**scenario, "options": {**scenario.get("options", {}), "exact": exact}}


def close(x: float, exact: str) -> bool:
    value = Fraction(exact)
    return abs(Fraction(x) - value) <= Fraction(1, 10**12) * max(1, abs(value))


@pytest.mark.parametrize("example", FIGHT, ids=[e["name"][:3] for e in FIGHT])
def test_exact_values(example: dict) -> None:
    got = registry.run(with_exact(example["scenario"], True), "fight")
    assert list(got) == list(SIDES)
    for side in SIDES:
        want, mine = example["expected"][side], got[side]
        for name in DISTRIBUTIONS:
            entries = mine[name]
            assert {str(e["value"]): e["exact"] for e in entries} == want[name]["exact"]
            assert [e["value"] for e in entries] == sorted(e["value"] for e in entries)
            assert sum(Fraction(e["exact"]) for e in entries) == 1
            for e in entries:  # each float is the nearest double of its exact value
                assert e["probability"] == float(Fraction(e["exact"]))
        for name in SCALARS:
            assert mine[name + "Exact"] == want[name]["exact"]
            assert mine[name] == float(Fraction(want[name]["exact"]))


@pytest.mark.parametrize("example", FIGHT, ids=[e["name"][:3] for e in FIGHT])
def test_float_mode(example: dict) -> None:
    got = registry.run(with_exact(example["scenario"], False), "fight")
    for side in SIDES:
        want, mine = example["expected"][side], got[side]
        for name in DISTRIBUTIONS:
            dist = {str(e["value"]): e["probability"] for e in mine[name]}
            assert all("exact" not in e for e in mine[name])
            assert dist.keys() == want[name]["exact"].keys()
            for value, exact in want[name]["exact"].items():
                assert close(dist[value], exact)
        for name in SCALARS:
            assert name + "Exact" not in mine
            assert close(mine[name], want[name]["exact"])
