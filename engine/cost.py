"""What a computation costs, estimated before it runs: the shared unit and its helpers.

A token is one millisecond of one core's CPU time. Each ruleset's `cost` module estimates, from
the canonical scenario alone (its dice, rounds, wounds, strategies), the milliseconds its
evaluation takes, as a sum of terms in the engine's own quantities with constants fitted by
`benchmarks/calibrate_costs.py`. The service charges that estimate to the rate limiter before
any work and refuses an estimate above its ceiling, so every term says which quantity drives
it: the one a client should reduce.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import Any

MS_PER_TOKEN = 1.0
"""The unit: one token is this many milliseconds of CPU."""


@dataclass(frozen=True)
class Work:
    """An estimated computation: its milliseconds and the quantity that contributes most
    (an engine name such as "rounds", "attacks" or "strategy"; "" for the fixed part)."""

    ms: float
    driver: str = ""

    @property
    def tokens(self) -> int:
        """Whole tokens, at least one: a computation is never free."""
        return max(1, math.ceil(self.ms / MS_PER_TOKEN))


def of_terms(terms: dict[str, float]) -> Work:
    """The sum of named terms (ms), driven by the largest."""
    driver = max(terms, key=lambda name: terms[name])
    return Work(sum(terms.values()), driver)


def linear(constants: dict[str, float], features: dict[str, float]) -> Work:
    """The terms constants[name] · features[name] (a name the constants lack weighs 0)."""
    return of_terms({name: constants.get(name, 0.0) * x for name, x in features.items()})


_MODULES = {
    "kt2024": "engine.kt2024.cost",
    "kt2018": "engine.kt2018.cost",
    "kt2013": "engine.kt2013.cost",
    "threshold": "engine.threshold.cost",
}


def estimator(ruleset: str, mode: str) -> Callable[[Any], Work] | None:
    """The estimate of a ruleset's mode: its cost module's function of that name, else the
    module's `estimate` (one for every mode); None for a ruleset no module prices."""
    module = _MODULES.get(ruleset)
    if module is None:
        return None
    found = import_module(module)
    return getattr(found, mode, None) or getattr(found, "estimate", None)


def estimate(ruleset: str, mode: str, scenario: Any) -> Work:
    """The scenario's estimated work; a mode no module prices costs one token."""
    found = estimator(ruleset, mode)
    return Work(MS_PER_TOKEN) if found is None else found(scenario)


def _expression(value: Any) -> bool:
    """A dice expression of any ruleset (`engine.dice_expr`, `engine.threshold.dice`): a
    value with the range of a roll."""
    return hasattr(value, "maximum") and hasattr(value, "minimum")


def dice(value: Any) -> int:
    """The dice a scenario of a few dice stages rolls, as its engine convolves them: per
    dataclass, the product of its dice expressions' largest values (a weapon's attacks times
    its damage) and of an `attacks` count, summed over the scenario's parts (weapons, attacks,
    models). What kt2018's, kt2013's and threshold's estimates scale with."""
    if isinstance(value, (tuple, list)):
        return sum(dice(item) for item in value)
    if not hasattr(value, "__dataclass_fields__") or _expression(value):
        return 0
    own, rolls, parts = 1, False, 0
    for name in value.__dataclass_fields__:
        item = getattr(value, name)
        if _expression(item):
            own *= max(1, item.maximum) * max(1, _count(item))
            rolls = True
        elif name == "attacks" and isinstance(item, int):
            own *= max(1, item)
            rolls = True
        else:
            parts += dice(item)
    return (own if rolls else 0) + parts


def _count(expression: Any) -> int:
    """How many dice an expression rolls (an int, or kt2018's and threshold's tuple of sizes)."""
    count = expression.dice
    return len(count) if isinstance(count, tuple) else int(count)


POOLS = frozenset({"wounds", "current_hp", "hp_per_model"})
"""The fields that size what the dice are rolled against: the damage states tracked."""


def pool(value: Any) -> int:
    """The wounds or hit points a scenario's parts track (`POOLS`), summed over its parts
    (the units of a Deadly Demise), the largest within one."""
    if isinstance(value, (tuple, list)):
        return sum(pool(item) for item in value)
    if not hasattr(value, "__dataclass_fields__") or _expression(value):
        return 0
    found = 0
    for name in value.__dataclass_fields__:
        item = getattr(value, name)
        if name in POOLS and isinstance(item, int):
            found = max(found, item)
        else:
            found = max(found, pool(item))
    return found


def dice_terms(scenario: Any) -> dict[str, float]:
    """A few-stage ruleset's terms: a fixed part, one per die (`dice`), and one per die and
    wound or hit point tracked (`pool`): the distributions the dice are convolved into."""
    rolled, tracked = float(dice(scenario)), float(pool(scenario))
    return {"base": 1.0, "dice": rolled, "pool": tracked, "both": rolled * tracked}


def of_dice(constants: dict[str, float], scenario: Any) -> Work:
    """A few-stage ruleset's estimate (`dice_terms`)."""
    found = linear(constants, dice_terms(scenario))
    return Work(found.ms, {"base": "", "pool": "wounds"}.get(found.driver, "dice"))
