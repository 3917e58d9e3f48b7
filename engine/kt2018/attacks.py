"""Modes `shooting` and `fight`: the attack sequence of §3, weapon by weapon."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

from engine.kt2018 import damage, hit, save, wound
from engine.kt2018.scenario import Combat, Weapon
from engine.kt2018.state import Condition, Distribution, Outcome, start

# During one weapon a condition also records whether this weapon already made an Injury roll,
# after which its remaining attacks are discarded (§3 step 4, §9 item 3).
Step = tuple[Condition, bool]
Key = TypeVar("Key", bound=Hashable)


@dataclass(frozen=True)
class CombatResult:
    """§5: the target's outcome plus E[resolved attacks whose save failed]."""

    outcome: Outcome
    expected_unsaved_wounds: Fraction


def evaluate(combat: Combat, exact: bool = True) -> CombatResult:
    """Exact (`Fraction`) results, or floats when `exact` is false (§1 item 4: 1e-9 suffices)."""
    conditions = start(combat.target)
    unsaved: Fraction | float = 0
    for weapon in combat.weapons:
        conditions, expected = fire(combat, weapon, conditions, exact)
        unsaved += expected
    return CombatResult(Outcome.of(combat.target, conditions), unsaved)


def number_of_attacks(combat: Combat, weapon: Weapon) -> dict[int, Fraction]:
    """Roll `attacks` once; Rapid Fire within half range doubles the value rolled (§9 item 4)."""
    rolled = weapon.attacks.distribution()
    doubled = combat.phase == "shooting" and weapon.type == "rapidFire" and not combat.long_range
    return {2 * n: p for n, p in rolled.items()} if doubled else rolled


def unsaved_probability(combat: Combat, weapon: Weapon) -> Fraction:
    """P(one attack hits, wounds and is not saved): the three rolls are independent."""
    return (
        hit.probability(combat, weapon)
        * wound.probability(weapon.strength, combat.armour.toughness, combat.attacker.reroll_wounds)
        * save.fails(combat.armour, weapon.ap)
    )


def fire(
    combat: Combat, weapon: Weapon, conditions: Distribution, exact: bool = True
) -> tuple[Distribution, Fraction | float]:
    """Resolve one weapon's attacks one at a time; returns the new conditions and E[unsaved].

    The attack count N is random, so the state after exactly i attacks is mixed in with
    weight P(N = i). Attacks against a model out of action, or after this weapon's Injury
    roll, change nothing and are not counted as resolved.

    Exact arithmetic keeps integer numerators over one running denominator instead of
    Fractions: every attack's outcomes share the denominator `scale`, so an attack is a
    multiplication of integers and no gcd is taken over the up to 160 attacks of a request.
    Float arithmetic is the same loop with `scale` 1.0.
    """
    counts = number_of_attacks(combat, weapon)
    q = unsaved_probability(combat, weapon)
    amount = weapon.damage.distribution()
    cover = combat.target.cover(combat.phase)
    max_flesh = combat.target.max_flesh_wounds
    # A common multiple of every outcome's denominator: P(unsaved) × P(Damage) × P(Injury),
    # the Injury roll being at most max(Damage) dice.
    scale = (
        q.denominator * math.lcm(*(p.denominator for p in amount.values())) * 6 ** max(amount)
        if exact
        else 1.0
    )

    def weigh(p: Fraction) -> int | float:
        return p.numerator * (scale // p.denominator) if exact else float(p)

    transitions: dict[Condition, list[tuple[Step, int | float]]] = {}

    def attack(condition: Condition) -> list[tuple[Step, int | float]]:
        """Where one attack takes a condition that can be attacked (memoised per weapon)."""
        if condition not in transitions:
            outcomes = [((condition, False), weigh(1 - q))]
            for hurt, r in damage.suffer(condition, amount, max_flesh, cover, mortal=False):
                outcomes.append(((hurt, damage.injured(condition, hurt)), weigh(q * r)))
            transitions[condition] = outcomes
        return transitions[condition]

    weights, denominator = _numerators(conditions, exact)
    count_weights, count_denominator = _numerators(counts, exact)
    current: dict[Step, int | float] = {(c, False): w for c, w in weights.items()}
    top = max(counts)
    lift = [scale**k for k in range(top + 1)]  # states after i attacks are lifted by top − i
    # final[c] / (denominator · scale^top · count_denominator) = P(c after this weapon)
    final: defaultdict[Condition, int | float] = defaultdict(int)
    still_attacking = count_denominator  # P(N ≥ i) · count_denominator
    expected_unsaved: Fraction | float = 0
    for i in range(1, top + 1):
        active = sum(w for (c, stopped), w in current.items() if not (stopped or c.out_of_action))
        expected_unsaved += (
            _ratio(still_attacking, count_denominator, exact)
            * (q if exact else float(q))
            * _ratio(active, denominator * lift[i - 1], exact)
        )
        after: defaultdict[Step, int | float] = defaultdict(int)
        for (condition, stopped), w in current.items():
            if stopped or condition.out_of_action:
                after[(condition, stopped)] += w * scale
                continue
            for step, r in attack(condition):
                after[step] += w * r
        current = after
        ends_here = count_weights.get(i, 0)
        if ends_here:
            for (c, _), w in current.items():
                final[c] += ends_here * lift[top - i] * w
        still_attacking -= ends_here
    total = denominator * lift[top] * count_denominator
    return {c: _ratio(w, total, exact) for c, w in final.items() if w}, expected_unsaved


def _numerators(
    probabilities: Mapping[Key, Fraction], exact: bool
) -> tuple[dict[Key, int | float], int | float]:
    """Probabilities as numerators over one common denominator (floats over 1.0)."""
    if not exact:
        return {k: float(p) for k, p in probabilities.items()}, 1.0
    common = math.lcm(*(p.denominator for p in probabilities.values()))
    return {k: p.numerator * (common // p.denominator) for k, p in probabilities.items()}, common


def _ratio(numerator: int | float, denominator: int | float, exact: bool) -> Fraction | float:
    return Fraction(numerator, denominator) if exact else numerator / denominator
