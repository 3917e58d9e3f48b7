"""Modes `shooting` and `fight`: the attack sequence of §3, weapon by weapon."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from engine.kt2018 import damage, hit, save, wound
from engine.kt2018.scenario import Combat, Weapon
from engine.kt2018.state import Condition, Distribution, Outcome, gather, start

# During one weapon a condition also records whether this weapon already made an Injury roll,
# after which its remaining attacks are discarded (§3 step 4, §9 item 3).
Step = tuple[Condition, bool]


@dataclass(frozen=True)
class CombatResult:
    """§5: the target's outcome plus E[resolved attacks whose save failed]."""

    outcome: Outcome
    expected_unsaved_wounds: Fraction


def evaluate(combat: Combat) -> CombatResult:
    conditions = start(combat.target)
    unsaved = Fraction(0)
    for weapon in combat.weapons:
        conditions, expected = fire(combat, weapon, conditions)
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


def fire(combat: Combat, weapon: Weapon, conditions: Distribution) -> tuple[Distribution, Fraction]:
    """Resolve one weapon's attacks one at a time; returns the new conditions and E[unsaved].

    The attack count N is random, so the state after exactly i attacks is mixed in with
    weight P(N = i). Attacks against a model out of action, or after this weapon's Injury
    roll, change nothing and are not counted as resolved.
    """
    counts = number_of_attacks(combat, weapon)
    q = unsaved_probability(combat, weapon)
    amount = weapon.damage.distribution()
    cover = combat.target.cover(combat.phase)
    max_flesh = combat.target.max_flesh_wounds

    current: dict[Step, Fraction] = {(c, False): p for c, p in conditions.items()}
    final: defaultdict[Condition, Fraction] = defaultdict(Fraction)
    still_attacking = Fraction(1)  # P(N ≥ i)
    expected_unsaved = Fraction(0)
    for i in range(1, max(counts) + 1):
        active = sum(p for (c, stopped), p in current.items() if not (stopped or c.out_of_action))
        if not active or not q:
            break
        expected_unsaved += still_attacking * q * active
        current = _attack(current, q, amount, max_flesh, cover)
        ends_here = counts.get(i, Fraction(0))
        for (c, _), p in current.items():
            final[c] += ends_here * p
        still_attacking -= ends_here
    # Whatever is left no longer changes: every further attack is discarded or misses.
    for (c, _), p in current.items():
        final[c] += still_attacking * p
    return gather(final.items()), expected_unsaved


def _attack(
    current: dict[Step, Fraction],
    q: Fraction,
    amount: dict[int, Fraction],
    max_flesh: int,
    cover: int,
) -> dict[Step, Fraction]:
    """One more attack against every condition that can still be attacked."""
    after: defaultdict[Step, Fraction] = defaultdict(Fraction)
    for (condition, stopped), p in current.items():
        if stopped or condition.out_of_action:
            after[(condition, stopped)] += p
            continue
        after[(condition, False)] += p * (1 - q)
        for hurt, r in damage.suffer(condition, amount, max_flesh, cover, mortal=False):
            after[(hurt, damage.injured(condition, hurt))] += p * q * r
    return dict(after)
