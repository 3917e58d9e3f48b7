"""The estimated CPU of a kt2018 computation (`engine.cost`): a fixed part, a part per die
its stages convolve and per wound or hit point tracked (`engine.cost.dice_terms`), the
constants fitted by `benchmarks/calibrate_costs.py`. Every mode of the ruleset shares them."""

from __future__ import annotations

from typing import Any

from engine.cost import Work, of_dice

CONSTANTS = {"base": 0.29, "dice": 0.00193, "pool": 0.0, "both": 0.0}
"""ms per unit of each term."""


def estimate(scenario: Any) -> Work:
    return of_dice(CONSTANTS, getattr(scenario, "scenario", scenario))
