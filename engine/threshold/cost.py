"""The estimated CPU of a threshold computation (`engine.cost`): a fixed part, a part per die
its stages convolve and per wound or hit point tracked (`engine.cost.dice_terms`), the
constants fitted by `benchmarks/calibrate_costs.py`. Every mode of the ruleset shares them."""

from __future__ import annotations

from typing import Any

from engine.cost import Work, of_dice

CONSTANTS = {"base": 0.149, "dice": 0.000337, "pool": 0.00154, "both": 1.22e-06}
"""ms per unit of each term."""


def estimate(scenario: Any) -> Work:
    return of_dice(CONSTANTS, getattr(scenario, "scenario", scenario))
