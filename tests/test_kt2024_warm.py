"""The warm shot's shapes: scenario hashes kept once (`scenario.hashed_once`) and the action's
Feel No Pain and relic branches, checked against what they replace."""

from __future__ import annotations

import pickle
from dataclasses import fields, replace

import pytest

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
    assert b._hash is None  # a new value keeps no hash until asked
    assert a == b and hash(a) == hash(b)
    assert replace(a, attacks=6) != a and hash(replace(a, attacks=6)) != hash(a)


def test_a_subclass_value_hashes_its_own_fields() -> None:
    """An attacker's hash covers its own fields, not only AttackDice's."""
    a = Attacker(devastating=1)
    assert hash(a) == field_hash(a) != hash(replace(a, devastating=2))


def test_kept_hash_stays_out_of_pickles() -> None:
    a = Attacker(attacks=9)
    hash(a)
    assert a._hash is not None
    back = pickle.loads(pickle.dumps(a))
    assert back == a and back._hash is None and hash(back) == hash(a)
