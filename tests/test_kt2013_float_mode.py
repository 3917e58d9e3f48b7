"""kt2013 float-only answers (computed in floats) against exact ones (kt2024.md §10 tolerance)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from kt2013_requests import requests

from schema import registry

LARGE = [1, 3, 8, 20, "D3", "D6+2", "2D6", "3D6+2"]
CHECK = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def close(x: float, exact: str) -> bool:
    value = Fraction(exact)
    return abs(Fraction(x) - value) <= Fraction(1, 10**12) * max(1, abs(value))


def compare(req: dict) -> None:
    exact = registry.run({**req, "options": {"exact": True}})
    approx = registry.run({**req, "options": {"exact": False}})
    assert set(approx) == {name for name in exact if not name.endswith("Exact")}
    for name, value in approx.items():
        if isinstance(value, list):
            # the same entries: an entry is there iff its exact probability is positive
            assert [e["value"] for e in value] == [e["value"] for e in exact[name]]
            for got, want in zip(value, exact[name], strict=True):
                assert close(got["probability"], want["exact"]), name
        else:
            assert close(value, exact[f"{name}Exact"]), name


@CHECK
@given(requests(vehicle=False, attacks=LARGE, most_wounds=10))
def test_model_targets_float_mode_is_close(req: dict) -> None:
    compare(req)


@CHECK
@given(requests(vehicle=True, attacks=LARGE, most_wounds=9))
def test_vehicle_targets_float_mode_is_close(req: dict) -> None:
    compare(req)
