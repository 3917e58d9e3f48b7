"""§7 R1–R9: one shooting action, from retained dice to a distribution of damage.

What depends only on dice stats is memoised: `attack_pool` / `defence_pool` hold the §5 and
§6 outcomes as count columns and weights. An action is then a handful of array operations
over every (attack, defence) outcome pair that occurs: R2 Just a Scratch and R3 allocation in
closed form, R4 and R6 the raw damage of what gets through (`allocation`'s tables, built at
import), R1 Devastating and R7 Curse of Rot adding their instances, R5 Saintly Relics as
weighted branches, and Feel No Pain (R8) subtracting a binomial, one trial per damage
instance. No memo is kept per damage profile.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from . import precision as pr
from .allocation import hit_cells, raw_damage, resolve_saves, save_cells, survivors_of
from .attack import attack_dice, kept_counts
from .defence import collected, saves
from .dice import Kept
from .precision import Weights
from .scenario import MOST_ATTACKS, AttackDice, Attacker, Defender, SaintlyRelics

RELIC_IGNORE = {"ONE_D6": Fraction(1, 6), "TWO_D6": Fraction(11, 36)}
"""R5: chance that one relic try ignores the instance — a 6 on 1D6, or on either of 2D6."""


@lru_cache(maxsize=256)
def relic_misses(relics: SaintlyRelics, top: int, exact: bool) -> Weights:
    """R5: P(no relic try ignores any of h instances) for h = 0..top, over one denominator;
    memoised on the rule's name, not on its chance's `Fraction` (do not modify)."""
    return pr.powers(1 - RELIC_IGNORE[relics], top, exact)


def feel_no_pain_faces(threshold: int) -> int:
    """R8, S9: the faces of an FNP die that reduce an instance by 1: `threshold` or more."""
    return 7 - threshold


def feel_no_pain_chance(threshold: int) -> Fraction:
    """R8: an instance is reduced by 1 when its FNP die shows `threshold` or more."""
    return Fraction(feel_no_pain_faces(threshold), 6)


class Pool(NamedTuple):
    """Outcomes of one side as flat arrays: the two counts this side brings to the allocation
    ((c, n) or (cs, ns)); `added`, the damage instances it adds on its own (one per crit with
    Devastating, one 1-damage instance per curse), None when it adds none; `cells`, the
    allocation's cells of its two counts (`allocation.hit_cells` or `save_cells`), read by
    every action the pool takes part in, so found once when it is built."""

    crits: np.ndarray
    normals: np.ndarray
    added: np.ndarray | None
    weights: Weights
    cells: np.ndarray

    def where(self, mask: np.ndarray) -> Pool:
        added = None if self.added is None else self.added[mask]
        num = Weights(self.weights.num[mask], self.weights.den)
        return Pool(self.crits[mask], self.normals[mask], added, num, self.cells[mask])


def weights(kept: Kept, exact: bool) -> Weights:
    """A side's weights: its roll's, when the roll has them (`dice.roll`), else counted."""
    return kept.chances[exact] if kept.chances else pr.counted(kept.ways, kept.den, exact)


@lru_cache(maxsize=4096)
def attack_pool(d: AttackDice, ob: bool, devastating: int, exact: bool) -> Pool:
    """§5 outcomes of a shooting attack; R1 adds one Devastating instance per crit."""
    kept = kept_counts(d, ob, False, devastating)
    c, n, cells = kept.crits, kept.normals, kept.cells
    if cells is None:  # no table gave them (`dice.Kept.cells`)
        cells = hit_cells(c, n)
    return Pool(c, n, c if devastating else None, weights(kept, exact), cells)


@lru_cache(maxsize=4096)
def defence_pool(d: Defender, dice: int, saturate: bool, cursed: bool, exact: bool) -> Pool:
    """§6 outcomes of `dice` collected defence dice; R7 adds one 1-damage instance per curse."""
    kept = saves(d, dice, saturate, cursed)
    cs, ns, cells = kept.crits, kept.normals, kept.cells
    if cells is None:  # no table gave them (`dice.Kept.cells`)
        cells = save_cells(cs, ns)
    return Pool(cs, ns, kept.cursed if cursed else None, weights(kept, exact), cells)


class Outcomes(NamedTuple):
    """Outcome pairs of an action: raw damage, damage instances and weight, before Feel No
    Pain; `top`, when Feel No Pain will spread them, their largest raw damage and instances
    (`tops`)."""

    raw: np.ndarray
    instances: np.ndarray | None
    weights: Weights
    top: tuple[int, int] | None


def concatenate(parts: Sequence[Outcomes | Through], exact: bool) -> Outcomes | Through:
    """The pairs of several parts as one, in order (a single part as it is)."""
    if len(parts) == 1:
        return parts[0]
    num, den = pr.over_common([p.weights for p in parts], exact)
    counted = parts[0].instances is not None
    tops = [p.top for p in parts]
    return Outcomes(
        np.concatenate([p.raw for p in parts]),
        np.concatenate([p.instances for p in parts]) if counted else None,
        Weights(np.concatenate(num), den),
        (max(t[0] for t in tops), max(t[1] for t in tops)) if tops[0] else None,
    )


class Matchup(NamedTuple):
    """What the pairs of an action depend on: the reduced attack dice with Obscured and
    Devastating, the defender, the defence dice collected without and with a crit (D1),
    Saturate and Curse of Rot."""

    attack: AttackDice
    obscured: bool
    devastating: int
    defender: Defender
    dice: tuple[int, int]
    saturate: bool
    cursed: bool


def groups(m: Matchup, exact: bool) -> list[tuple[Pool, Pool]]:
    """The attack outcomes and the defence outcomes they meet (`dice`: the defence dice
    collected without and with a crit).

    The defence dice collected depend on the attack only when Piercing Crits changes them;
    otherwise the whole attack pool meets one defence pool.
    """
    whole, (plain, pierced) = attack_pool(m.attack, m.obscured, m.devastating, exact), m.dice
    d, saturate, cursed = m.defender, m.saturate, m.cursed
    if plain == pierced:
        return [(whole, defence_pool(d, plain, saturate, cursed, exact))]
    crit = whole.crits >= 1  # Piercing Crits (D1): pools with and without a crit collect apart
    return [
        (whole.where(~crit), defence_pool(d, plain, saturate, cursed, exact)),
        (whole.where(crit), defence_pool(d, pierced, saturate, cursed, exact)),
    ]


class Through(NamedTuple):
    """R1–R7 on the counts of one group's outcome pairs, flat (attack-major): raw damage
    and, when Feel No Pain or relics will count them, damage instances; with relics live, each
    relic group's instances and the change of raw damage when one of its instances is ignored
    (R5). Exact weights are int64 while their denominator is within `pr.NATIVE` (`pr.native`: what
    every action sums or multiplies them as), and `top` is as `Outcomes`': built once, read
    by every action on the pairs."""

    raw: np.ndarray
    instances: np.ndarray | None
    relic_groups: tuple[tuple[np.ndarray, np.ndarray], ...]
    weights: Weights
    top: tuple[int, int] | None
    ignorable: Ignorable | None


class Ignorable(NamedTuple):
    """R5's shape of one group's pairs, which no relic chance changes (`relic_branches`):
    the tries before each chance, `tries` (0, first group's instances, both groups'), their
    largest, `most_tries`, and the ignoring branch's pairs as rows of one grid (first group,
    then second), the pairs whose group has an instance, `live`, their raw damage and
    instances once that instance is ignored, and their `top` (see `Outcomes`)."""

    tries: np.ndarray
    most_tries: int
    live: np.ndarray
    raw: np.ndarray
    instances: np.ndarray
    top: tuple[int, int] | None


EACH_GROUP = np.ones((2, 1), dtype=np.int64)
"""One instance less, in each relic group's row (R5: the ignored one)."""


def ignorable(grid: Through) -> Ignorable:
    """`Ignorable` of a group's pairs (built once, with them)."""
    (first, first_change), (second, second_change) = grid.relic_groups
    both = first + second
    size = len(both)
    tries = np.concatenate((np.zeros(size, np.intp), first, both))
    live = (tries[size:] > tries[: 2 * size]).nonzero()[0]  # the group has an instance
    change = np.concatenate((first_change, second_change)).reshape(2, size)
    raw = (grid.raw + change).ravel().take(live)
    instances = (grid.instances - EACH_GROUP).ravel().take(live)
    top = tops(raw, instances) if grid.top else None
    return Ignorable(tries, most(both), live, raw, instances, top)


@lru_cache(maxsize=2048)
def through(m: Matchup, exact: bool) -> tuple[Through, ...]:
    """Every group's pairs with what gets through the saves, and their weights.

    Each step works on the grid of (attack, defence) outcome pairs, a row per attack outcome:
    `resolve_saves` makes the grids, and what one side adds on its own (R1, R7) is a column or
    a row broadcast over them. Memoised like the per-damage-profile tables it replaces: the
    key holds the dice, the damage profile and the defender, and an entry is a few arrays of
    the pairs that occur (kilobytes; as many entries as `action` keeps, so a batch that fits
    one fits the other).
    """
    d = m.defender
    profile = (m.attack.critical_damage, m.attack.normal_damage, d.durable)
    return tuple(
        [pairs(hits, saves_pool, m, profile, exact) for hits, saves_pool in groups(m, exact)]
    )


def pairs(
    hits: Pool, saves_pool: Pool, m: Matchup, profile: tuple[int, int, bool], exact: bool
) -> Through:
    """`Through` of one group: R2–R3 on every pair (`resolve_saves`), R4 and R6 in their raw
    damage, R1 and R7 adding theirs, and the instances only for the rules that count them."""
    d = m.defender
    codes, raw = resolve_saves(
        (hits.crits, hits.normals), (saves_pool.crits, saves_pool.normals), profile,
        d.just_a_scratch, (hits.cells, saves_pool.cells),
    )  # fmt: skip
    relics = d.saintly_relics != "NONE"
    instances, relic_groups = None, ()
    if d.feel_no_pain is not None or relics:  # only R8 and R5 count the hits through
        crits, normals = survivors_of(codes)
        instances = instances_of(crits, normals, profile, hits.added, saves_pool.added)
        if relics:
            relic_groups = relic_changes(crits, normals, raw, profile)
    if m.devastating:
        raw = raw + (hits.added * m.devastating)[:, None]  # R1
    if m.cursed:
        raw = raw + saves_pool.added  # R7: one damage a cursed defence die
    raw = raw.ravel()
    top = tops(raw, instances) if d.feel_no_pain is not None else None
    grid = Through(raw, instances, relic_groups, pair_weights(hits, saves_pool, exact), top, None)
    return grid._replace(ignorable=ignorable(grid)) if relics else grid


def instances_of(
    crits: np.ndarray,
    normals: np.ndarray,
    profile: tuple[int, int, bool],
    devastating: np.ndarray | None,
    curses: np.ndarray | None,
) -> np.ndarray:
    """R4's damage instances of every pair, flat: one a crit and one a normal through (none
    where that damage is 0), R1's Devastating instances of the hits (a column), R7's curses of
    the saves (a row)."""
    cd, nd, _ = profile
    if cd > 0 and nd > 0:
        grid = crits + normals
    else:
        grid = crits if cd > 0 else normals if nd > 0 else np.zeros_like(crits)
    if devastating is not None:
        grid = grid + devastating[:, None]
    if curses is not None:
        grid = grid + curses
    return grid.ravel()


def relic_changes(
    crits: np.ndarray, normals: np.ndarray, raw: np.ndarray, profile: tuple[int, int, bool]
) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
    """R5's two relic groups of every pair, flat: each group's instances and the change of raw
    damage when one of them is ignored; the first is the higher-damage one, crits on a tie."""
    cd, nd, _ = profile
    ignore_crit = (crits if cd > 0 else np.zeros_like(crits),
                   raw_damage(crits - 1, normals, profile) - raw)  # fmt: skip
    ignore_normal = (normals if nd > 0 else np.zeros_like(normals),
                     raw_damage(crits, normals - 1, profile) - raw)  # fmt: skip
    first, second = (ignore_normal, ignore_crit) if cd < nd else (ignore_crit, ignore_normal)
    return tuple((group.ravel(), change.ravel()) for group, change in (first, second))


def pair_weights(hits: Pool, saves_pool: Pool, exact: bool) -> Weights:
    """The weight of every (attack, defence) pair, attack-major: a column times a row, the
    outer product. Exact ones as int64 products while their denominator is within `pr.NATIVE`
    (no product can then overflow), else as Python ints."""
    hw, sw = hits.weights, saves_pool.weights
    den = hw.den * sw.den
    column, row = pr.native(hw.num, den, exact)[:, None], pr.native(sw.num, den, exact)
    return Weights((column * row).ravel(), den)


def tops(raw: np.ndarray, instances: np.ndarray) -> tuple[int, int]:
    """The largest raw damage and instance count of some pairs (R8's table's size)."""
    return most(raw), most(instances)


def outcomes(
    a: Attacker, d: Defender, relics: SaintlyRelics | None, exact: bool
) -> tuple[Outcomes | Through, ...]:
    """R1–R7 for every outcome pair: `(all,)`, or `(no relic used, relic used)` with relics."""
    dice = collected(a, d, 0), collected(a, d, 1)
    m = Matchup(attack_dice(a), a.obscured, a.devastating, d, dice, a.saturate, a.curse_of_rot)
    grids = through(m, exact)
    if relics is None:
        return (concatenate(grids, exact),)
    branches = [relic_branches(grid, relics, exact) for grid in grids]
    return concatenate([b[0] for b in branches], exact), concatenate(
        [b[1] for b in branches], exact
    )


def relic_branches(grid: Through, relics: SaintlyRelics, exact: bool) -> tuple[Outcomes, Outcomes]:
    """R5 on one group's pairs: (no try ignores an instance, one instance ignored).

    The tries go through the first relic group's instances, then the second's, until one
    ignores: with m(h) = P(no ignore in h tries), the first group's instance is ignored with
    chance m(0) − m(first), the second's with m(first) − m(first + second), and none with
    m(first + second), never zero. The ignoring branch holds both groups' pairs as the rows of
    one grid (first group, then second), read row by row: pairs whose group has no instance
    (chance zero: m falls with every try) are dropped, so no instance count goes below zero:
    all that is the pairs' shape, found once with them (`Ignorable`). Exact numerators are
    multiplied as int64 while the product's denominator allows (`pr.native`), and stay so: every
    later step takes int64 numerators as `through`'s (`pr.native`).
    """
    r = grid.ignorable
    miss = relic_misses(relics, r.most_tries, exact)
    size, den = len(grid.raw), grid.weights.den * miss.den
    num, misses = pr.native(grid.weights.num, den, exact), pr.native(miss.num, den, exact)
    before = misses.take(r.tries)  # the chances are differences of neighbours
    chance = (before[: 2 * size] - before[size:]).reshape(2, size)
    num_ignored = (num * chance).ravel().take(r.live)
    ignored = Outcomes(r.raw, r.instances, Weights(num_ignored, den), r.top)
    kept = Weights(num * before[2 * size :], den)
    return Outcomes(grid.raw, grid.instances, kept, grid.top), ignored


def most(counts: np.ndarray) -> int:
    """The largest of some counts (0 for none), by the ufunc's own reduction: `ndarray.max`
    goes through a Python wrapper first."""
    return int(np.maximum.reduce(counts, initial=0))


def accumulate(index: np.ndarray, num: np.ndarray, ints: bool, size: int = 0) -> np.ndarray:
    """Sum `num` into bins `index`: `size` bins, or up to the largest index. By `bincount`
    (float64 sums), or with `ints` as integers of `num`'s dtype (int64, or Python ints)."""
    if not ints:
        return np.bincount(index, num, size)
    out = np.zeros(max(size, int(index.max(initial=-1)) + 1), num.dtype)
    np.add.at(out, index, num)
    return out


class Thinning(NamedTuple):
    """R8 for grids of damages 0..size−1 and up to `top` instances: `fnp`, row k, column r,
    P(k instances lose r damage) (zero for r > k), `floats` its numerators as floats (exact
    ones read only while within `pr.SAFE`), and `targets`, row d, the bin of damage d reduced
    by r = 0..top, d + top − r (never negative)."""

    fnp: Weights
    floats: np.ndarray
    targets: np.ndarray


FEEL_NO_PAIN_TABULATED = MOST_ATTACKS
"""The most instances whose float Feel No Pain chances are tabulated at import (R8's
thresholds 4+ to 6+, about 0.2 ms): every pool's hits, so a cold float action with Feel No
Pain builds no binomials (about 15 µs for 8 instances)."""
_FEEL_NO_PAIN_FLOATS = {
    threshold: pr.binomials.__wrapped__(
        feel_no_pain_chance(threshold), FEEL_NO_PAIN_TABULATED, False
    ).num
    for threshold in range(4, 7)
}
"""P(k instances lose r damage) as floats, row k, column r: a float is the nearest double of
its probability whatever the table's size, so a smaller table is this one's corner."""
for _table in _FEEL_NO_PAIN_FLOATS.values():
    _table.flags.writeable = False  # shared by every action


def _chances(threshold: int, top: int, exact: bool) -> Weights:
    """R8's binomials for up to `top` instances: float ones read from the table built at
    import when it holds them."""
    table = None if exact or top > FEEL_NO_PAIN_TABULATED else _FEEL_NO_PAIN_FLOATS.get(threshold)
    if table is None:
        return pr.binomials(feel_no_pain_chance(threshold), top, exact)
    return Weights(table[: top + 1, : top + 1], 1)


TARGETS_TABULATED = 512
"""The damages whose Feel No Pain targets are views of one table built at import (`_TARGETS`,
512 × 21 integers): every action of up to 20 hits of up to 25 damage."""


def _bins(size: int, top: int) -> np.ndarray:
    """Row d, column j: d + j, the bin of damage d reduced by top − j (`thinning`'s targets
    are its first `size` rows, columns from `top` down)."""
    return np.add.outer(np.arange(size), np.arange(top + 1))


_TARGETS = _bins(TARGETS_TABULATED, FEEL_NO_PAIN_TABULATED)
_TARGETS.flags.writeable = False


@lru_cache(maxsize=256)
def thinning(threshold: int, size: int, top: int, exact: bool) -> Thinning:
    """`Thinning`, memoised on small integers, not on the chance's `Fraction`: a spread
    reads its rows (`take`) rather than building them a cell at a time (`targets` is
    size·(top + 1) integers: kilobytes, a view of `_TARGETS` when it holds them)."""
    fnp = _chances(threshold, top, exact)
    floats = fnp.num.astype(float) if exact else fnp.num
    held = size <= TARGETS_TABULATED and top <= FEEL_NO_PAIN_TABULATED
    bins = _TARGETS if held else _bins(size, top)
    return Thinning(fnp, floats, bins[:size, top::-1])


def addends(weights: Weights, exact: bool) -> tuple[np.ndarray, bool]:
    """Numerators as they are summed, and whether as integers rather than by `bincount`.
    Floats as they are. Exact numerators are probabilities over `den`: every sum of them, and
    every product with a chance over a denominator that `den` includes, stays within it. So
    they are int64 while `den` is within `pr.NATIVE` (`pr.native`: a cheaper conversion than to
    floats); within `pr.SAFE` `bincount` adds them as float64, which holds them exactly;
    beyond it they are summed as integers."""
    return pr.native(weights.num, weights.den, exact), exact and weights.den > pr.SAFE


def exact_sums(out: np.ndarray, exact: bool, ints: bool) -> np.ndarray:
    """Sums of `addends` as the action's numerators: exact ones as Python ints, read back from
    the float64 sums that hold them (`pr.integers`) or from int64."""
    if not exact:
        return out
    return pr.exact_ints(out, exact) if ints else pr.integers(out)


def feel_no_pain(o: Outcomes | Through, threshold: int | None, exact: bool) -> Weights:
    """R8–R9: the distribution of the action's damage (index = damage).

    Pairs are first summed by (damage, instances), then each such cell is spread over every
    reduction 0..top at once: reductions beyond a cell's instances have chance zero, and adding
    a zero changes no sum (floats keep their bits), so no mask is built. Exact numerators are
    summed as floats while that is exact, else as int64 while that fits (`addends`)."""
    if threshold is None:
        num, ints = addends(o.weights, exact)
        return Weights(exact_sums(accumulate(o.raw, num, ints, 1), exact, ints), o.weights.den)
    largest, top = o.top or tops(o.raw, o.instances)  # kept by `through` for its defender's R8
    size = largest + 1
    t = thinning(threshold, size, top, exact)
    den = o.weights.den * t.fnp.den
    num, ints = addends(Weights(o.weights.num, den), exact)
    grid = accumulate(o.raw * (top + 1) + o.instances, num, ints, size * (top + 1))
    cells = grid.nonzero()[0]
    raws, counts = np.divmod(cells, top + 1)
    chances = pr.native(t.fnp.num, den, exact) if ints else t.floats
    spread = grid.take(cells)[:, None] * chances.take(counts, 0)
    target = t.targets.take(raws, 0)
    out = accumulate(target.ravel(), spread.ravel(), ints, size + top)[top:]
    return Weights(exact_sums(out, exact, ints), den)


@lru_cache(maxsize=2048)
def action(a: Attacker, d: Defender, relics: bool, exact: bool) -> tuple[Weights, ...]:
    """Damage of one action: `(dist,)`, or `(no relic used, relic used)` when relics are live."""
    live = d.saintly_relics if relics and d.saintly_relics != "NONE" else None
    return tuple(
        [feel_no_pain(o, d.feel_no_pain, exact).reduced() for o in outcomes(a, d, live, exact)]
    )
