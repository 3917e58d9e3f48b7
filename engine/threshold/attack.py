"""Mode `attack` (threshold.md §2): 1–10 identical attacks against one unit."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product

from engine.threshold.hp_loss import attempts, hits
from engine.threshold.scenario import Attack, AttackScenario
from engine.threshold.sequence import Aftermath, aftermath, resolve

D12 = range(1, 13)


@dataclass(frozen=True)
class AttackResult:
    p_success: Fraction
    hp_loss_per_successful_attack: dict[int, Fraction]
    p_devastating_per_successful_attack: Fraction
    aftermath: Aftermath


def skill_roll(attack: Attack) -> tuple[int, int]:
    """(successful outcomes, equally likely outcomes) of one skill roll.

    Success iff the kept d12 + skillBonus ≥ DC (§5.1–5.2: no automatic 1s or 12s). Without a DC
    there is no roll: one outcome, a success. Enumerating the ≤ 144 faces is cheaper than
    being clever.
    """
    if attack.dc is None:
        return 1, 1
    if attack.skill_roll_mode == "normal":
        kept = [(face,) for face in D12]
    else:
        keep = max if attack.skill_roll_mode == "advantage" else min
        kept = [(keep(pair),) for pair in product(D12, repeat=2)]
    successes = sum(1 for (face,) in kept if face + attack.skill_bonus >= attack.dc)
    return successes, len(kept)


def evaluate_attack(scenario: AttackScenario) -> AttackResult:
    attack, target = scenario.attack, scenario.target
    successes, rolls = skill_roll(attack)
    hit = hits(attack.damage, attack.damage_type, target, attack.centrepiece)
    final = resolve(target.current_hp, attack.attacks, attempts(successes, rolls, hit))
    return AttackResult(
        p_success=Fraction(successes, rolls),
        hp_loss_per_successful_attack=hit.group(lambda h: h[0]).fractions(),
        p_devastating_per_successful_attack=hit.probability(lambda h: h[1]),
        aftermath=aftermath(target, final),
    )
