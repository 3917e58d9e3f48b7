"""Mode `mortalWounds` (§7): wounds with no wound roll and no save of any kind."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from engine.kt2018 import damage
from engine.kt2018.scenario import MortalWounds
from engine.kt2018.state import Condition, Distribution, Outcome, gather, start


def evaluate(request: MortalWounds) -> Outcome:
    target = request.target
    final = apply(
        start(target),
        request.amount.distribution(),
        target.max_flesh_wounds,
        target.cover(request.source),
    )
    return Outcome.of(target, final)


def apply(
    conditions: Distribution, amount: Mapping[int, Fraction], max_flesh: int, cover: int
) -> Distribution:
    """Suffer `amount` mortal wounds one at a time.

    Taking them one by one until the last wound goes is the same as removing min(amount,
    wounds) at once: the Injury roll (one die) comes at 0 wounds and discards the rest.
    """
    weighted: list[tuple[Condition, Fraction]] = []
    for condition, p in conditions.items():
        if condition.out_of_action:
            weighted.append((condition, p))
            continue
        for after, q in damage.suffer(condition, amount, max_flesh, cover, mortal=True):
            weighted.append((after, p * q))
    return gather(weighted)
