"""§5 attack-dice pipeline: which attack dice are retained, as crits or normals.

The steps A4–A12 run in the order of the spec on counts. A normal success is ROLLED (`nr`) or
LOCKED (`nl`): retain-worded promotions (Rending, NormsToCrits, Mystic Scry) only take ROLLED
normals, change-worded ones (Severe, Elite) take any normal, LOCKED first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache

from .dice import roll_counts
from .scenario import AttackDice

Retained = tuple[int, int, int]
"""(c, n, K): retained critical successes, retained normal successes, cursed dice."""


@dataclass(frozen=True)
class Pool:
    """Counts between steps: crits, ROLLED normals, LOCKED normals, fails, Severe triggered."""

    c: int
    nr: int
    nl: int
    f: int
    severe: bool = False

    def fail_to_normal(self) -> Pool:
        return replace(self, f=self.f - 1, nl=self.nl + 1)

    def rolled_to_crit(self) -> Pool:
        return replace(self, nr=self.nr - 1, c=self.c + 1)

    def any_normal_to_crit(self) -> Pool:
        """Change-worded promotion: a LOCKED normal if there is one, else a ROLLED one."""
        if self.nl:
            return replace(self, nl=self.nl - 1, c=self.c + 1)
        return self.rolled_to_crit()


def punishing(d: AttackDice, p: Pool, ob: bool) -> Pool:
    """A4: a crit lets one fail be retained as a normal (LOCKED); not while obscured."""
    return p.fail_to_normal() if d.punishing and not ob and p.c >= 1 and p.f >= 1 else p


def purity_seal(d: AttackDice, p: Pool) -> Pool:
    """A5: two fails become one LOCKED normal (one discarded, the other retained)."""
    return replace(p, f=p.f - 2, nl=p.nl + 1) if d.purity_seal and p.f >= 2 else p


def close_assault(d: AttackDice, p: Pool) -> Pool:
    """A6: with ≥2 successes, one fail is retained as a normal."""
    if d.close_assault and p.c + p.nr + p.nl >= 2 and p.f >= 1:
        return p.fail_to_normal()
    return p


def fails_to_norms(d: AttackDice, p: Pool) -> Pool:
    """A7: up to x fails retained as LOCKED normals."""
    m = min(d.fails_to_norms, p.f)
    return replace(p, f=p.f - m, nl=p.nl + m)


def severe(d: AttackDice, p: Pool) -> Pool:
    """A8: no crit ⇒ one normal (LOCKED first) becomes a crit; blocks Punishing and Rending."""
    if d.severe and p.c == 0 and p.nr + p.nl >= 1:
        return replace(p.any_normal_to_crit(), severe=True)
    return p


def norms_to_crits(d: AttackDice, p: Pool) -> Pool:
    """A9: up to x ROLLED normals retained as crits."""
    m = min(d.norms_to_crits, p.nr)
    return replace(p, nr=p.nr - m, c=p.c + m)


def rending(d: AttackDice, p: Pool, ob: bool) -> Pool:
    """A10: a crit promotes one ROLLED normal; not while obscured or after Severe."""
    if d.rending and not ob and not p.severe and p.c >= 1 and p.nr >= 1:
        return p.rolled_to_crit()
    return p


def elite(d: AttackDice, p: Pool) -> Pool:
    """A11: Kasrkin elite — a fail → normal (moderate) or crit (extreme); else a normal → crit."""
    if not (d.elite_moderate or d.elite_extreme):
        return p
    if p.f >= 1:
        if d.elite_moderate:
            return p.fail_to_normal()
        return replace(p, f=p.f - 1, c=p.c + 1)
    return p.any_normal_to_crit() if p.nr + p.nl >= 1 else p


def obscured(p: Pool, ob: bool) -> tuple[int, int]:
    """A12: under Obscured every crit is retained as a normal and one success is discarded."""
    n = p.nr + p.nl
    return (0, max(0, n + p.c - 1)) if ob else (p.c, n)


def finish(d: AttackDice, p: Pool, ob: bool) -> tuple[int, int]:
    """A10–A12, the steps after Mystic Scry."""
    return obscured(elite(d, rending(d, p, ob)), ob)


def mystic_scry(d: AttackDice, p: Pool, ob: bool, devastating: int) -> Pool:
    """A9a: normal→crit (X) or fail→LOCKED normal (Y), whichever scores more raw damage.

    Each option is scored after A10–A12 as c′·(CD + Devastating) + n′·ND; ties take X.
    """
    if not d.mystic_scry:
        return p
    x = p.rolled_to_crit() if p.nr >= 1 else None
    y = p.fail_to_normal() if p.f >= 1 else None
    if x is None or y is None:
        return x or y or p

    def raw(option: Pool) -> int:
        c, n = finish(d, option, ob)
        return c * (d.critical_damage + devastating) + n * d.normal_damage

    return y if raw(y) > raw(x) else x


def auto_retained(d: AttackDice) -> tuple[int, int, int]:
    """A1: (auto crits, Accurate normals, rolled dice); Accurate is always used in full."""
    auto_crits = min(d.auto_crits, d.attacks)
    accurate = min(d.accurate, d.attacks - auto_crits)
    return auto_crits, accurate, d.attacks - auto_crits - accurate


def retain(
    d: AttackDice, crits: int, normals: int, fails: int, ob: bool, devastating: int
) -> tuple[int, int]:
    """A3–A12 on the rolled counts: the retained (crits, normals) of one attack."""
    auto_crits, accurate, _ = auto_retained(d)
    p = Pool(c=crits + auto_crits, nr=normals, nl=accurate, f=fails)
    p = punishing(d, p, ob)
    p = purity_seal(d, p)
    p = close_assault(d, p)
    p = fails_to_norms(d, p)
    p = severe(d, p)
    p = norms_to_crits(d, p)
    p = mystic_scry(d, p, ob, devastating)
    return finish(d, p, ob)


@lru_cache(maxsize=4096)
def attack_dice(d: AttackDice) -> AttackDice:
    """`d` reduced to the fields of §5, so other fields (wounds, piercing, ...) never split a memo.

    `d` may be any object with the AttackDice attributes (a shooting attacker or a fighter).
    Curse of Rot is dropped: it curses the *opponent's* dice, passed to `retained` as `cursed`.
    """
    fields = {name: getattr(d, name) for name in AttackDice.__dataclass_fields__}
    fields["curse_of_rot"] = False
    return AttackDice(**fields)


@lru_cache(maxsize=4096)
def retained_counts(
    d: AttackDice, ob: bool, cursed: bool, devastating: int
) -> tuple[dict[Retained, int], int]:
    """(c, n, K) of one attack (§4 + §5) as face sequences over one denominator; `d` is
    already reduced by `attack_dice`, so the memo is keyed on the dice fields alone."""
    rolled = auto_retained(d)[2]
    counts, den = roll_counts(rolled, d.hit, d.lethal, d.reroll, cursed)
    result: dict[Retained, int] = {}
    for (cr, nr, fr, k), ways in counts.items():
        c, n = retain(d, cr, nr, fr, ob, devastating)
        result[(c, n, k)] = result.get((c, n, k), 0) + ways
    return result, den


def retained(
    d: AttackDice, *, obscured: bool, cursed: bool, devastating: int = 0
) -> dict[Retained, Fraction]:
    """Exact distribution of (c, n, K) for one attack (§4 + §5), memoised on the dice fields."""
    counts, den = retained_counts(attack_dice(d), obscured, cursed, devastating)
    return {key: Fraction(ways, den) for key, ways in counts.items()}
