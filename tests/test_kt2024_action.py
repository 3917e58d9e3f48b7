"""The action's stored shapes (`damage.through`): exact pair weights as int64 while their
denominator allows, the largest raw damage and instances Feel No Pain reads, R5's ignorable
pairs; each checked against what the action would otherwise compute."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from engine.kt2024 import Attacker, Defender, damage, precision
from engine.kt2024.attack import attack_dice
from engine.kt2024.defence import collected


def matchup(a: Attacker, d: Defender) -> damage.Matchup:
    dice = collected(a, d, 0), collected(a, d, 1)
    return damage.Matchup(
        attack_dice(a), a.obscured, a.devastating, d, dice, a.saturate, a.curse_of_rot
    )


SHOTS = [
    (Attacker(attacks=4), Defender(feel_no_pain=5)),
    (Attacker(attacks=5, piercing_crits=1), Defender(feel_no_pain=4)),
    (Attacker(attacks=6, devastating=2), Defender(saintly_relics="ONE_D6", feel_no_pain=5)),
    (Attacker(attacks=4, curse_of_rot=True), Defender(saintly_relics="TWO_D6")),
    (Attacker(attacks=20), Defender(defence_dice=5, feel_no_pain=6)),
]


def fractions(w: damage.Weights) -> list[Fraction]:
    return [Fraction(n, w.den) for n in w.num.tolist()]


@pytest.mark.parametrize(("a", "d"), SHOTS)
def test_exact_pair_weights_are_int64_only_within_int64(a: Attacker, d: Defender) -> None:
    m = matchup(a, d)
    for (hits, saves), grid in zip(damage.groups(m, True), damage.through(m, True), strict=True):
        expected = [x * y for x in fractions(hits.weights) for y in fractions(saves.weights)]
        assert fractions(grid.weights) == expected
        within = grid.weights.den <= precision.NATIVE
        assert grid.weights.num.dtype == (np.int64 if within else object)


def test_pair_weights_beyond_int64_are_python_ints() -> None:
    m = matchup(Attacker(attacks=20), Defender(defence_dice=5))
    ((hits, saves),) = damage.groups(m, True)
    wide = hits._replace(weights=damage.Weights(hits.weights.num, 2**70))
    w = damage.pair_weights(wide, saves, True)
    assert w.num.dtype == object and all(type(n) is int for n in w.num.tolist())
    assert w.num.tolist() == [x * y for x in hits.weights.num.tolist()
                              for y in saves.weights.num.tolist()]  # fmt: skip


def test_concatenate_widens_int64_beyond_int64() -> None:
    raw = np.array([1, 2])
    narrow = damage.Outcomes(raw, None, damage.Weights(np.array([2**62, 2**62]), 2**63), None)
    other = damage.Outcomes(raw, None, damage.Weights(np.array([1, 2], dtype=object), 3), None)
    both = damage.concatenate([narrow, other], True)
    assert both.weights.den == 3 * 2**63
    assert both.weights.num.tolist() == [3 * 2**62, 3 * 2**62, 2**63, 2**64]


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize(("a", "d"), SHOTS)
def test_kept_tops_are_the_pairs_largest(a: Attacker, d: Defender, exact: bool) -> None:
    for grid in damage.through(matchup(a, d), exact):
        if d.feel_no_pain is None:  # read by Feel No Pain only
            assert grid.top is None
            assert grid.ignorable is None or grid.ignorable.top is None
            continue
        assert grid.top == (int(grid.raw.max()), int(grid.instances.max()))
        if grid.ignorable is not None:
            r = grid.ignorable
            assert r.top == (int(r.raw.max(initial=0)), int(r.instances.max(initial=0)))


@pytest.mark.parametrize(("a", "d"), [s for s in SHOTS if s[1].saintly_relics != "NONE"])
def test_ignorable_pairs_are_the_groups_with_an_instance(a: Attacker, d: Defender) -> None:
    for grid in damage.through(matchup(a, d), True):
        (first, first_change), (second, second_change) = grid.relic_groups
        r = grid.ignorable
        assert r.most_tries == int((first + second).max())
        rows = [(raw + c1, k - 1) for raw, k, h1, c1 in
                zip(grid.raw.tolist(), grid.instances.tolist(), first.tolist(),
                    first_change.tolist(), strict=True) if h1]  # fmt: skip
        rows += [(raw + c2, k - 1) for raw, k, h2, c2 in
                 zip(grid.raw.tolist(), grid.instances.tolist(), second.tolist(),
                     second_change.tolist(), strict=True) if h2]  # fmt: skip
        assert list(zip(r.raw.tolist(), r.instances.tolist(), strict=True)) == rows


@pytest.mark.parametrize(("size", "top"), [(1, 0), (7, 3), (512, 20), (513, 3), (9, 21), (40, 25)])
def test_thinning_targets_are_each_damage_reduced_by_each_amount(size: int, top: int) -> None:
    damage.thinning.cache_clear()
    targets = damage.thinning(5, size, top, False).targets
    assert targets.shape == (size, top + 1)
    assert targets.tolist() == [[d + top - r for r in range(top + 1)] for d in range(size)]
