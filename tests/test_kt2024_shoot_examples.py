"""Every shoot example of kt2024-examples.json, exact and in float mode."""

from __future__ import annotations

from fractions import Fraction

import pytest
from conftest import load_examples

from schema import registry

SHOOT = [e for e in load_examples("kt2024") if e["kind"] == "shoot"]


def with_exact(scenario: dict, exact: bool) -> dict:
    options = {**scenario.get("options", {}), "exact": exact}
    return {**scenario, "options": options}


def exact_dist(entries: list[dict]) -> dict[str, str]:
    return {str(e["value"]): e["exact"] for e in entries}


@pytest.mark.parametrize("example", SHOOT, ids=[e["name"] for e in SHOOT])
def test_exact_values(example: dict) -> None:
    got = registry.run(with_exact(example["scenario"], True), "shoot")
    want = example["expected"]
    assert exact_dist(got["damageDistribution"]) == want["damageDistribution"]["exact"]
    assert got["expectedDamageExact"] == want["expectedDamage"]["exact"]
    assert got["killProbabilityExact"] == want["killProbability"]["exact"]
    assert got["killProbabilityByRoundExact"] == want["killProbabilityByRound"]["exact"]
    # floats beside exact values are the nearest doubles
    assert got["expectedDamage"] == float(Fraction(want["expectedDamage"]["exact"]))
    assert sum(Fraction(e["exact"]) for e in got["damageDistribution"]) == 1


def close(x: float, exact: str) -> bool:
    value = Fraction(exact)
    return abs(Fraction(x) - value) <= Fraction(1, 10**12) * max(1, abs(value))


@pytest.mark.parametrize("example", SHOOT, ids=[e["name"] for e in SHOOT])
def test_float_mode(example: dict) -> None:
    got = registry.run(with_exact(example["scenario"], False), "shoot")
    want = example["expected"]
    assert "expectedDamageExact" not in got
    dist = {str(e["value"]): e["probability"] for e in got["damageDistribution"]}
    assert dist.keys() == want["damageDistribution"]["exact"].keys()
    for value, exact in want["damageDistribution"]["exact"].items():
        assert close(dist[value], exact)
    assert close(got["expectedDamage"], want["expectedDamage"]["exact"])
    for x, exact in zip(
        got["killProbabilityByRound"], want["killProbabilityByRound"]["exact"], strict=True
    ):
        assert close(x, exact)
