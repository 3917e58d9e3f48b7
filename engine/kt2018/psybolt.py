"""Mode `psybolt` (§6): Psychic test, Perils of the Warp, Deny the Witch, mortal wounds."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from engine.dice_expr import DiceExpr
from engine.kt2018 import mortal
from engine.kt2018.scenario import Psybolt
from engine.kt2018.state import Outcome, gather, start

WARP_CHARGE = 5
D3 = DiceExpr(1, 3, 0)
FACES = range(1, 7)


@dataclass(frozen=True)
class PsyboltResult:
    """The target's outcome (§5 keys but `expectedUnsavedWounds`) and the psyker's fate."""

    outcome: Outcome
    p_perils: Fraction
    p_psyker_out_of_action: Fraction
    p_psyker_flesh_wound: Fraction
    p_manifested: Fraction
    p_denied: Fraction
    p_resolved: Fraction


def denied(total: int) -> Fraction:
    """P(a Deny the Witch 2D6 roll beats the Psychic test total)."""
    return Fraction(sum(1 for a in FACES for b in FACES if a + b > total), 36)


def evaluate(request: Psybolt) -> PsyboltResult:
    """Enumerate the 36 Psychic test rolls; Perils and the target's wounds hang off each.

    Perils is D3 mortal wounds on the psyker with no obscured modifier (§9 item 7); only if
    it survives can the power go on. The target takes 1 mortal wound, or D3 on 11+.
    """
    psyker = request.psyker
    perils = mortal.apply(start(psyker), D3.distribution(), psyker.max_flesh_wounds, cover=0)
    perils_kills = sum((p for c, p in perils.items() if c.out_of_action), Fraction(0))
    perils_flesh = sum(
        (p for c, p in perils.items() if not c.out_of_action and c.flesh > psyker.flesh_wounds),
        Fraction(0),
    )

    chance = Fraction(1, 36)
    p_perils = p_psyker_out = p_psyker_flesh = p_manifested = p_denied = Fraction(0)
    resolved: defaultdict[DiceExpr, Fraction] = defaultdict(Fraction)
    for a in FACES:
        for b in FACES:
            total = a + b
            survives = Fraction(1)
            if a == b and a in (1, 6):
                p_perils += chance
                p_psyker_out += chance * perils_kills
                p_psyker_flesh += chance * perils_flesh
                survives = 1 - perils_kills
            if total < WARP_CHARGE:
                continue
            manifested = chance * survives
            refused = denied(total) if request.deny_the_witch else Fraction(0)
            p_manifested += manifested
            p_denied += manifested * refused
            amount = DiceExpr.fixed(1) if total <= 10 else D3
            resolved[amount] += manifested * (1 - refused)

    target = request.target
    untouched = start(target)
    weighted = [(c, p * (1 - sum(resolved.values()))) for c, p in untouched.items()]
    for amount, weight in resolved.items():
        hit = mortal.apply(
            untouched, amount.distribution(), target.max_flesh_wounds, target.cover("psychic")
        )
        weighted.extend((c, p * weight) for c, p in hit.items())
    return PsyboltResult(
        outcome=Outcome.of(target, gather(weighted)),
        p_perils=p_perils,
        p_psyker_out_of_action=p_psyker_out,
        p_psyker_flesh_wound=p_psyker_flesh,
        p_manifested=p_manifested,
        p_denied=p_denied,
        p_resolved=p_manifested - p_denied,
    )
