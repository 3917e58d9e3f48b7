"""§7 R1–R9: one shooting action, from retained dice to a distribution of damage.

Everything that depends only on counts is tabulated once and memoised:
- `attack_pool` / `defence_pool`: the §5 and §6 outcomes as index arrays and weights;
- `hit_tables`: for every (c, n, cs, ns), the damage of the hits that get through the saves
  (R2 Just a Scratch, R3 allocation, R4 instances, R6 Durable), their number, and the same
  after Saintly Relics ignore the first instance of either relic group (R5).
An action is then a handful of array operations: every (attack, defence) outcome pair indexes
the tables, Devastating (R1) and Curse of Rot (R7) add their instances, and Feel No Pain (R8)
subtracts a binomial, one trial per damage instance.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from . import precision as pr
from .allocation import MAX_HITS, MAX_SAVES, durable_applies, resolve_saves
from .attack import attack_dice, retained_counts
from .defence import collected, saves
from .precision import Weights
from .scenario import AttackDice, Attacker, Defender

RELIC_IGNORE = {"ONE_D6": Fraction(1, 6), "TWO_D6": Fraction(11, 36)}
"""R5: chance that one relic try ignores the instance — a 6 on 1D6, or on either of 2D6."""

SAVE_CELLS = (MAX_SAVES + 1) ** 2  # (cs, ns) cells per (c, n) in the flat tables


def feel_no_pain_chance(threshold: int) -> Fraction:
    """R8: an instance is reduced by 1 when its FNP die shows `threshold` or more."""
    return Fraction(7 - threshold, 6)


@dataclass(frozen=True)
class Pool:
    """Outcomes of one side as flat arrays. `columns` has three rows: the index into the hit
    tables contributed by this side, the raw damage and the damage instances it adds on its own
    (Devastating or curse); one row-wise broadcast combines two sides."""

    columns: np.ndarray
    weights: Weights

    def where(self, mask: np.ndarray) -> Pool:
        return Pool(self.columns[:, mask], Weights(self.weights.num[mask], self.weights.den))


def _pool(
    counts: tuple[dict[tuple[int, ...], int], int], exact: bool
) -> tuple[np.ndarray, Weights]:
    dist, den = counts
    rows = np.array(list(dist), dtype=np.int64).reshape(len(dist), -1)
    return rows, pr.counted(list(dist.values()), den, exact)


@lru_cache(maxsize=4096)
def attack_pool(d: AttackDice, ob: bool, devastating: int, exact: bool) -> tuple[Pool, Pool, Pool]:
    """§5 outcomes of a shooting attack: (all, no crit, at least one crit).

    The split is what Piercing Crits needs (D1); R1 adds one Devastating instance per crit.
    """
    rows, w = _pool(retained_counts(d, ob, False, devastating), exact)
    c, n = rows[:, 0], rows[:, 1]
    columns = np.stack(
        [(c * (MAX_HITS + 1) + n) * SAVE_CELLS, c * devastating, c * (devastating > 0)]
    )
    pool = Pool(columns, w)
    return pool, pool.where(c == 0), pool.where(c >= 1)


@lru_cache(maxsize=4096)
def defence_pool(d: Defender, dice: int, saturate: bool, cursed: bool, exact: bool) -> Pool:
    """§6 outcomes of `dice` collected defence dice; R7 adds one 1-damage instance per curse."""
    rows, w = _pool(saves(d, dice, saturate, cursed), exact)
    cs, ns, k = rows[:, 0], rows[:, 1], rows[:, 2]
    return Pool(np.stack([cs * (MAX_SAVES + 1) + ns, k, k]), w)


@dataclass(frozen=True)
class HitTables:
    """Flat tables over (c, n, cs, ns) for one damage profile (R2–R6)."""

    raw_instances: np.ndarray  # rows: damage of the hits that get through (Durable applied),
    #                            and their number of instances with damage > 0
    first: np.ndarray  # instances in the first relic group (crits if CD ≥ ND, else normals)
    second: np.ndarray  # instances in the second relic group
    raw_first: np.ndarray  # damage when a first-group instance is ignored
    raw_second: np.ndarray  # damage when a second-group instance is ignored


def _flat(table: np.ndarray) -> np.ndarray:
    """A table over (c, n, cs, ns ≤ saves) laid out flat over every save count (§12), so the
    cells of the pools index it whatever the number of defence dice."""
    full = np.zeros((MAX_HITS + 1, MAX_HITS + 1, MAX_SAVES + 1, MAX_SAVES + 1), table.dtype)
    full[:, :, : table.shape[2], : table.shape[3]] = table
    return full.ravel()


@lru_cache(maxsize=128)
def hit_tables(
    critical_damage: int, normal_damage: int, durable: bool, jas: str, saves: int
) -> HitTables:
    """R2–R6 for every count (saves up to `saves` defence dice): instances are ordered by
    damage, crits first on equal damage."""
    crits, normals = resolve_saves(critical_damage, normal_damage, durable, jas, saves)
    dur = durable_applies(durable, critical_damage)

    def raw(c: np.ndarray, n: np.ndarray) -> np.ndarray:
        return c * critical_damage + n * normal_damage - (dur & (c >= 1))

    crit_instances = crits if critical_damage > 0 else np.zeros_like(crits)
    normal_instances = normals if normal_damage > 0 else np.zeros_like(normals)
    if critical_damage >= normal_damage:
        first, second = crit_instances, normal_instances
        raw_first, raw_second = raw(crits - 1, normals), raw(crits, normals - 1)
    else:
        first, second = normal_instances, crit_instances
        raw_first, raw_second = raw(crits, normals - 1), raw(crits - 1, normals)
    first, second, raw_first, raw_second = map(_flat, (first, second, raw_first, raw_second))
    return HitTables(
        np.stack([_flat(raw(crits, normals)), first + second]), first, second, raw_first, raw_second
    )


@dataclass(frozen=True)
class Outcomes:
    """Every (attack, defence) outcome pair of an action: raw damage, damage instances and
    weight, before Feel No Pain."""

    raw: np.ndarray
    instances: np.ndarray
    weights: Weights

    def scaled(self, factor: np.ndarray, den: int) -> Outcomes:
        """Weights times `factor / den`, pairs of zero weight dropped (R5 relic branches)."""
        live = factor != 0
        return Outcomes(
            self.raw[live],
            self.instances[live],
            Weights((self.weights.num * factor)[live], self.weights.den * den),
        )


def concatenate(parts: list[Outcomes]) -> Outcomes:
    den = pr.common(p.weights for p in parts)
    return Outcomes(
        np.concatenate([p.raw for p in parts]),
        np.concatenate([p.instances for p in parts]),
        Weights(np.concatenate([p.weights.rescaled(den) for p in parts]), den),
    )


def pairs(a: Attacker, d: Defender, exact: bool) -> tuple[np.ndarray, Outcomes]:
    """Every (attack, defence) outcome pair: its hit-table cell, and the raw damage, instances
    and weight that Devastating and the curse contribute on their own.

    The defence dice collected depend on the attack only when Piercing Crits changes them;
    otherwise the whole attack pool meets one defence pool.
    """
    whole, no_crit, crit = attack_pool(attack_dice(a), a.obscured, a.devastating, exact)
    dice = collected(a, d, 0), collected(a, d, 1)
    groups = [(whole, dice[0])] if dice[0] == dice[1] else [(no_crit, dice[0]), (crit, dice[1])]
    cells, parts = [], []
    for pool, collected_dice in groups:
        saves_pool = defence_pool(d, collected_dice, a.saturate, a.curse_of_rot, exact)
        cell, raw, instances = (pool.columns[:, :, None] + saves_pool.columns[:, None, :]).reshape(
            3, -1
        )
        num = np.multiply.outer(pool.weights.num, saves_pool.weights.num).ravel()
        cells.append(cell)
        parts.append(
            Outcomes(raw, instances, Weights(num, pool.weights.den * saves_pool.weights.den))
        )
    if len(parts) == 1:
        return cells[0], parts[0]
    return np.concatenate(cells), concatenate(parts)


def outcomes(a: Attacker, d: Defender, relic: Fraction | None, exact: bool) -> tuple[Outcomes, ...]:
    """R1–R7 for every outcome pair: `(all,)`, or `(no relic used, relic used)` with relics."""
    saves = max(collected(a, d, 0), collected(a, d, 1))  # cs + ns ≤ the dice collected
    tables = hit_tables(a.critical_damage, a.normal_damage, d.durable, d.just_a_scratch, saves)
    cell, base = pairs(a, d, exact)
    hit_raw, hit_instances = tables.raw_instances[:, cell]
    saved = Outcomes(base.raw + hit_raw, base.instances + hit_instances, base.weights)
    if relic is None:
        return (saved,)
    first, second = tables.first[cell], tables.second[cell]
    miss = pr.powers(1 - relic, int((first + second).max(initial=0)), exact)
    kept = saved.scaled(miss.num[first + second], miss.den)
    ignored = [
        Outcomes(saved.raw + extra_raw, saved.instances - 1, saved.weights).scaled(factor, miss.den)
        for extra_raw, factor in (
            (tables.raw_first[cell] - hit_raw, miss.num[0] - miss.num[first]),
            (tables.raw_second[cell] - hit_raw, miss.num[first] - miss.num[first + second]),
        )
    ]
    return kept, concatenate(ignored)


def accumulate(index: np.ndarray, num: np.ndarray, size: int, exact: bool) -> np.ndarray:
    """Sum `num` into bins `index` (exact ints stay ints)."""
    if not exact:
        return np.bincount(index, weights=num, minlength=size)
    out = pr.zeros(size, exact)
    np.add.at(out, index, num)
    return out


def feel_no_pain(o: Outcomes, threshold: int | None, exact: bool) -> Weights:
    """R8–R9: the distribution of the action's damage (index = damage)."""
    size = int(o.raw.max(initial=0)) + 1
    if threshold is None:
        return Weights(accumulate(o.raw, o.weights.num, size, exact), o.weights.den)
    top = int(o.instances.max(initial=0))
    grid = accumulate(o.raw * (top + 1) + o.instances, o.weights.num, size * (top + 1), exact)
    cells = np.flatnonzero(grid)
    raws, counts = np.divmod(cells, top + 1)
    fnp = pr.binomials(feel_no_pain_chance(threshold), top, exact)
    reduced = np.arange(top + 1)
    valid = reduced[None, :] <= counts[:, None]
    spread = grid[cells][:, None] * fnp.num[counts, :]
    target = raws[:, None] - reduced[None, :]
    out = accumulate(target[valid], spread[valid], size, exact)
    return Weights(out, o.weights.den * fnp.den)


@lru_cache(maxsize=2048)
def action(a: Attacker, d: Defender, relics: bool, exact: bool) -> tuple[Weights, ...]:
    """Damage of one action: `(dist,)`, or `(no relic used, relic used)` when relics are live."""
    relic = RELIC_IGNORE[d.saintly_relics] if relics and d.saintly_relics != "NONE" else None
    return tuple(
        feel_no_pain(o, d.feel_no_pain, exact).reduced() for o in outcomes(a, d, relic, exact)
    )
