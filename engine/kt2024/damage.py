"""§7 R1–R9: one shooting action, from retained dice to a distribution of damage.

Every (attack outcome, defence outcome) pair is handled at once as flat arrays: the saves table
of `allocation` gives the hits that get through (R2–R3), Saintly Relics split each pair into at
most three branches (R5), Durable and Curse of Rot adjust the raw damage (R6–R7), and Feel No
Pain subtracts a binomial from it, one trial per damage instance (R8).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache

import numpy as np

from . import precision as pr
from .allocation import durable_applies, resolve_saves
from .attack import attack_dice, retained
from .defence import collected, saves
from .precision import Weights
from .scenario import AttackDice, Attacker, Defender

RELIC_IGNORE = {"ONE_D6": Fraction(1, 6), "TWO_D6": Fraction(11, 36)}
"""R5: chance that one relic try ignores the instance — a 6 on 1D6, or on either of 2D6."""


def feel_no_pain_chance(threshold: int) -> Fraction:
    """R8: an instance is reduced by 1 when its FNP die shows `threshold` or more."""
    return Fraction(7 - threshold, 6)


@dataclass(frozen=True)
class Outcomes:
    """Flat arrays, one entry per outcome: attack crits, hit crits and normals that got through
    the saves, cursed defence dice, and the outcome's weight."""

    crits: np.ndarray
    hit_crits: np.ndarray
    hit_normals: np.ndarray
    cursed: np.ndarray
    weights: Weights

    def where(
        self, mask: np.ndarray, factor: np.ndarray, den: int, **changes: np.ndarray
    ) -> Outcomes:
        """The outcomes selected by `mask`, weights times `factor / den`, with columns changed."""
        cols = {
            "crits": self.crits,
            "hit_crits": self.hit_crits,
            "hit_normals": self.hit_normals,
            "cursed": self.cursed,
        } | changes
        picked = {name: col[mask] for name, col in cols.items()}
        num = (self.weights.num * factor)[mask]
        return Outcomes(**picked, weights=Weights(num, self.weights.den * den))


@dataclass(frozen=True)
class Table:
    """A memoised distribution as integer columns (one per outcome member) and weights."""

    columns: tuple[np.ndarray, ...]
    weights: Weights


def table(dist: dict[tuple[int, ...], Fraction], width: int, exact: bool) -> Table:
    cols = np.array(list(dist), dtype=np.int64).reshape(-1, width)
    return Table(tuple(cols[:, i] for i in range(width)), pr.weights(list(dist.values()), exact))


@lru_cache(maxsize=4096)
def attack_table(d: AttackDice, ob: bool, devastating: int, exact: bool) -> Table:
    """§5 outcomes (c, n) of a shooting attack; its own dice are never cursed."""
    dist = retained(d, obscured=ob, cursed=False, devastating=devastating)
    return table({(c, n): p for (c, n, _), p in dist.items()}, 2, exact)


@lru_cache(maxsize=4096)
def saves_table(d: Defender, dice: int, saturate: bool, cursed: bool, exact: bool) -> Table:
    """§6 outcomes (cs, ns, K) of `dice` collected defence dice."""
    return table(saves(d, dice, saturate, cursed), 3, exact)


def saved(a: Attacker, d: Defender, exact: bool) -> Outcomes:
    """§5, §6 and R2–R3: every pair of attack and defence outcome, after the saves.

    The defence dice collected depend on the attack only through "is there a crit" (Piercing
    Crits), so the attack outcomes split into two groups at most.
    """
    attack = attack_table(attack_dice(a), a.obscured, a.devastating, exact)
    c, n = attack.columns
    has_crit = c >= 1
    groups = []
    for mask, dice in ((~has_crit, collected(a, d, 0)), (has_crit, collected(a, d, 1))):
        if mask.any():
            pool = saves_table(d, dice, a.saturate, a.curse_of_rot, exact)
            groups.append((c[mask], n[mask], attack.weights.num[mask], pool))
    den = attack.weights.den * pr.common(pool.weights for *_, pool in groups)
    parts: list[list[np.ndarray]] = [[] for _ in range(6)]
    for gc, gn, gw, pool in groups:
        cs, ns, k = pool.columns
        per_attack, per_defence = len(gc), len(cs)
        scale = den // (attack.weights.den * pool.weights.den)
        w = np.multiply.outer(gw, pool.weights.num).ravel()
        for part, col in zip(
            parts,
            (
                np.repeat(gc, per_defence),
                np.repeat(gn, per_defence),
                np.tile(cs, per_attack),
                np.tile(ns, per_attack),
                np.tile(k, per_attack),
                w * scale if scale != 1 else w,
            ),
            strict=True,
        ):
            part.append(col)
    c, n, cs, ns, k, num = (np.concatenate(part) for part in parts)
    through_c, through_n = resolve_saves(
        a.critical_damage, a.normal_damage, d.durable, d.just_a_scratch
    )
    return Outcomes(c, through_c[c, n, cs, ns], through_n[c, n, cs, ns], k, Weights(num, den))


def saintly_relics(
    a: Attacker, o: Outcomes, relic: Fraction, exact: bool
) -> tuple[Outcomes, Outcomes]:
    """R5: (outcomes with no instance ignored, outcomes with one hit instance ignored).

    Hit instances are tried in order of damage, crits first on equal damage; the first success
    ignores its instance and stops the tries. Zero-damage hits are not instances.
    """
    crit_instances = o.hit_crits if a.critical_damage > 0 else np.zeros_like(o.hit_crits)
    normal_instances = o.hit_normals if a.normal_damage > 0 else np.zeros_like(o.hit_normals)
    crits_first = a.critical_damage >= a.normal_damage
    first, second = (
        (crit_instances, normal_instances) if crits_first else (normal_instances, crit_instances)
    )
    miss = pr.powers(1 - relic, int((first + second).max(initial=0)), exact)
    none = miss.num[first + second]
    in_first = miss.num[0] - miss.num[first]
    in_second = miss.num[first] - miss.num[first + second]
    minus_crit = {"hit_crits": o.hit_crits - 1}
    minus_normal = {"hit_normals": o.hit_normals - 1}
    first_change, second_change = (
        (minus_crit, minus_normal) if crits_first else (minus_normal, minus_crit)
    )
    kept = o.where(none != 0, none, miss.den)
    ignored_first = o.where(in_first != 0, in_first, miss.den, **first_change)
    ignored_second = o.where(in_second != 0, in_second, miss.den, **second_change)
    return kept, concatenate(ignored_first, ignored_second)


def concatenate(x: Outcomes, y: Outcomes) -> Outcomes:
    den = pr.common((x.weights, y.weights))
    return Outcomes(
        np.concatenate((x.crits, y.crits)),
        np.concatenate((x.hit_crits, y.hit_crits)),
        np.concatenate((x.hit_normals, y.hit_normals)),
        np.concatenate((x.cursed, y.cursed)),
        Weights(np.concatenate((x.weights.rescaled(den), y.weights.rescaled(den))), den),
    )


def accumulate(index: np.ndarray, num: np.ndarray, size: int, exact: bool) -> np.ndarray:
    """Sum `num` into bins `index` (exact ints stay ints)."""
    if not exact:
        return np.bincount(index, weights=num, minlength=size)
    out = pr.zeros(size, exact)
    np.add.at(out, index, num)
    return out


def damage(a: Attacker, d: Defender, o: Outcomes, exact: bool) -> Weights:
    """R1, R4, R6–R9: the distribution of the action's damage, indexed by damage."""
    cd, nd, dev = a.critical_damage, a.normal_damage, a.devastating
    durable = (o.hit_crits >= 1) & durable_applies(d.durable, cd)
    raw = o.crits * dev + o.hit_crits * cd + o.hit_normals * nd - durable + o.cursed
    size = int(raw.max(initial=0)) + 1
    if d.feel_no_pain is None:
        return Weights(accumulate(raw, o.weights.num, size, exact), o.weights.den)
    instances = (
        (o.crits if dev > 0 else 0)
        + (o.hit_crits if cd > 0 else 0)
        + (o.hit_normals if nd > 0 else 0)
        + o.cursed
    )
    top = int(instances.max(initial=0))
    grid = accumulate(raw * (top + 1) + instances, o.weights.num, size * (top + 1), exact)
    cells = np.flatnonzero(grid)
    raws, counts = np.divmod(cells, top + 1)
    fnp = pr.binomials(feel_no_pain_chance(d.feel_no_pain), top, exact)
    spread = grid[cells][:, None] * fnp.num[counts, :]
    saved_points = np.arange(top + 1)
    valid = saved_points[None, :] <= counts[:, None]
    target = raws[:, None] - saved_points[None, :]
    out = accumulate(target[valid], spread[valid], size, exact)
    return Weights(out, o.weights.den * fnp.den)


@lru_cache(maxsize=2048)
def action(a: Attacker, d: Defender, relics: bool, exact: bool) -> tuple[Weights, ...]:
    """Damage of one action: `(dist,)`, or `(no relic used, relic used)` when relics are live.

    Memoised on the inputs (the defender's wounds do not matter here: callers pass wounds 0).
    """
    outcomes = saved(a, d, exact)
    if not relics or d.saintly_relics == "NONE":
        return (damage(a, d, outcomes, exact),)
    kept, ignored = saintly_relics(a, outcomes, RELIC_IGNORE[d.saintly_relics], exact)
    return damage(a, d, kept, exact), damage(a, d, ignored, exact)


def action_for(a: Attacker, d: Defender, relics: bool, exact: bool) -> tuple[Weights, ...]:
    """`action` keyed without the defender's wounds, so kill thresholds share one memo entry."""
    return action(a, replace(d, wounds=1), relics, exact)
