"""HP lost to one Damage roll (threshold.md §2 step 3): the threshold bands or Direct Damage."""

from __future__ import annotations

from engine.threshold.dice import DiceExpr
from engine.threshold.odds import Odds
from engine.threshold.scenario import DamageType, Target

Hit = tuple[int, bool]
"""What one resolved Damage roll does: (HP loss L, Devastating Wounds triggered)."""

MISS: Hit = (0, False)


def band(damage: int, target: Target, centrepiece: bool) -> Hit:
    """The `normal` table, top row first; even Damage ≤ 0 costs 1 HP (§5.4)."""
    if damage >= 2 * target.major_threshold:
        return (4 if centrepiece else 3, True)
    if damage >= target.major_threshold:
        return (3, False)
    if damage >= target.minor_threshold:
        return (2, False)
    return (1, False)


def hits(damage: DiceExpr, damage_type: DamageType, target: Target, centrepiece: bool) -> Odds[Hit]:
    """The distribution of one successful attack's Hit, not capped by the target's HP.

    Direct Damage bypasses the thresholds: it costs its value (never below 0) and can never
    trigger Devastating Wounds.
    """
    rolled = Odds(damage.counts(), damage.outcomes)
    if damage_type == "direct":
        return rolled.group(lambda value: (max(value, 0), False))
    return rolled.group(lambda value: band(value, target, centrepiece))


def attempts(successes: int, rolls: int, hit: Odds[Hit]) -> Odds[Hit]:
    """One attempt: `successes` of `rolls` equally likely skill outcomes resolve `hit`.

    A failed attempt is a MISS: it changes nothing, exactly like a 0-HP Direct Damage hit.
    """
    weights = {outcome: successes * weight for outcome, weight in hit.weights.items()}
    weights[MISS] = weights.get(MISS, 0) + (rolls - successes) * hit.total
    return Odds(weights, rolls * hit.total)
