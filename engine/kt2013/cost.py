"""The estimated CPU of a kt2013 computation (`engine.cost`): a fixed part and a part per die
its stages convolve (`engine.cost.dice`), the constants fitted by
`benchmarks/calibrate_costs.py`. Every mode of the ruleset shares them."""

from __future__ import annotations

from typing import Any

from engine.cost import Work, of_dice

CONSTANTS = {"base": 0.2, "dice": 0.01}
"""ms per unit of each term."""


def estimate(scenario: Any) -> Work:
    return of_dice(CONSTANTS, getattr(scenario, "scenario", scenario))
