"""The warm shot's shapes: scenario hashes kept once (`scenario.hashed_once`) and the action's
Feel No Pain and relic branches, checked against what they replace."""

from __future__ import annotations

import pickle
from dataclasses import fields, replace
from fractions import Fraction
from math import comb

import pytest

from engine.kt2024 import damage
from engine.kt2024.scenario import AttackDice, Attacker, Defender


def field_hash(value: object) -> int:
    """The hash a frozen dataclass generates: its compared fields as one tuple."""
    return hash(tuple(getattr(value, f.name) for f in fields(value) if f.compare))


@pytest.mark.parametrize(
    "value",
    [
        AttackDice(),
        Attacker(attacks=7, devastating=2, reroll="CEASELESS"),
        Defender(feel_no_pain=5, saintly_relics="TWO_D6", invulnerable_save=4),
    ],
)
def test_kept_hash_is_the_dataclass_hash(value: object) -> None:
    assert hash(value) == field_hash(value)
    assert hash(value) == field_hash(value)  # the kept one, read back


def test_wounds_take_no_part_in_equality_or_hashing() -> None:
    a, b = Defender(wounds=3), Defender(wounds=18)
    assert a == b and hash(a) == hash(b)
    assert hash(Defender(save=4)) != hash(Defender(save=3))


def test_equal_values_built_apart_hash_alike() -> None:
    a = Attacker(attacks=5)
    hash(a)
    b = replace(Attacker(), attacks=5)
    assert b._kept_hash is None  # a new value keeps no hash until asked
    assert a == b and hash(a) == hash(b)
    assert replace(a, attacks=6) != a and hash(replace(a, attacks=6)) != hash(a)


def test_a_subclass_value_hashes_its_own_fields() -> None:
    """An attacker's hash covers its own fields, not only AttackDice's."""
    a = Attacker(devastating=1)
    assert hash(a) == field_hash(a) != hash(replace(a, devastating=2))


def test_kept_hash_stays_out_of_pickles() -> None:
    a = Attacker(attacks=9)
    hash(a)
    assert a._kept_hash is not None
    back = pickle.loads(pickle.dumps(a))
    assert back == a and back._kept_hash is None and hash(back) == hash(a)


SHOTS = [
    (Attacker(), Defender(feel_no_pain=5, saintly_relics="ONE_D6")),
    (Attacker(attacks=6, devastating=2, piercing_crits=1), Defender(feel_no_pain=4)),
    (Attacker(curse_of_rot=True, hit=2), Defender(saintly_relics="TWO_D6", durable=True)),
    (Attacker(attacks=5, critical_damage=3, normal_damage=4), Defender(saintly_relics="ONE_D6")),
    # beyond int64 and pr.SAFE: the relic and Feel No Pain products as Python ints
    (
        Attacker(attacks=10, reroll="CEASELESS"),
        Defender(defence_dice=4, saintly_relics="TWO_D6", feel_no_pain=4),
    ),
]


def pairs(o: object) -> dict[tuple[int, int], Fraction]:
    """An action's outcome pairs as (damage, instances) -> chance, summed."""
    out: dict[tuple[int, int], Fraction] = {}
    rows = zip(o.raw.tolist(), o.instances.tolist(), o.weights.num.tolist(), strict=True)
    for raw, instances, num in rows:
        out[raw, instances] = out.get((raw, instances), 0) + Fraction(num, o.weights.den)
    return {k: v for k, v in out.items() if v}


@pytest.mark.parametrize(("a", "d"), SHOTS)
def test_feel_no_pain_thins_each_instance(a: Attacker, d: Defender) -> None:
    """R8: each of k instances loses 1 damage with chance p, independently."""
    threshold = d.feel_no_pain or 5
    p = damage.feel_no_pain_chance(threshold)
    for o in damage.outcomes(a, d, None, True):
        expected: dict[int, Fraction] = {}
        for (raw, k), chance in pairs(o).items():
            for r in range(k + 1):
                term = chance * comb(k, r) * p**r * (1 - p) ** (k - r)
                expected[raw - r] = expected.get(raw - r, 0) + term
        got = damage.feel_no_pain(o, threshold, True)
        assert all(type(n) is int for n in got.num.tolist())  # never int64 numerators
        assert {v: Fraction(n, got.den) for v, n in enumerate(got.num.tolist()) if n} == {
            v: c for v, c in expected.items() if c
        }


@pytest.mark.parametrize(("a", "d"), [s for s in SHOTS if s[1].saintly_relics != "NONE"])
def test_relic_branches_try_the_first_group_first(a: Attacker, d: Defender) -> None:
    """R5: tries go through the first group's instances, then the second's, until one
    ignores; the ignoring branch lowers the damage by that group's change."""
    relics = d.saintly_relics
    q = 1 - damage.RELIC_IGNORE[relics]
    none: dict[tuple[int, int], Fraction] = {}
    ignored: dict[tuple[int, int], Fraction] = {}
    for grid in damage.outcomes(a, d, None, True):
        (first, first_change), (second, second_change) = grid.relic_groups
        rows = zip(grid.raw.tolist(), grid.instances.tolist(), grid.weights.num.tolist(),
                   first.tolist(), first_change.tolist(), second.tolist(),
                   second_change.tolist(), strict=True)  # fmt: skip
        for raw, k, num, h1, c1, h2, c2 in rows:
            w = Fraction(num, grid.weights.den)
            none[raw, k] = none.get((raw, k), 0) + w * q ** (h1 + h2)
            for key, chance in (
                ((raw + c1, k - 1), 1 - q**h1),
                ((raw + c2, k - 1), q**h1 - q ** (h1 + h2)),
            ):
                if chance:
                    ignored[key] = ignored.get(key, 0) + w * chance
    got_none, got_ignored = damage.outcomes(a, d, relics, True)
    assert pairs(got_none) == {k: v for k, v in none.items() if v}
    assert pairs(got_ignored) == {k: v for k, v in ignored.items() if v}
    assert got_ignored.instances.min(initial=0) >= 0


@pytest.mark.parametrize(("a", "d"), SHOTS)
def test_without_feel_no_pain_the_pairs_are_summed_by_damage(a: Attacker, d: Defender) -> None:
    for o in damage.outcomes(a, d, None, True):
        expected: dict[int, Fraction] = {}
        for (raw, _), chance in pairs(o).items():
            expected[raw] = expected.get(raw, 0) + chance
        got = damage.feel_no_pain(o, None, True)
        assert all(type(n) is int for n in got.num.tolist())
        assert {v: Fraction(n, got.den) for v, n in enumerate(got.num.tolist()) if n} == expected
