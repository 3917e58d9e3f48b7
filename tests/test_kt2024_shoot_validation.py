"""§12 validation of shoot requests: error codes, dotted field paths and limits."""

from __future__ import annotations

import pytest

from engine.errors import InputError
from schema import registry


def error(body: object) -> InputError:
    with pytest.raises(InputError) as info:
        registry.resolve(body, "shoot")
    return info.value


@pytest.mark.parametrize(
    ("body", "field", "limit"),
    [
        ({"attacker": {"attacks": 21}}, "attacker.attacks", 20),
        ({"attacker": {"accurate": 21}}, "attacker.accurate", 20),
        ({"attacker": {"criticalDamage": 21}}, "attacker.criticalDamage", 20),
        ({"attacker": {"devastating": 11}}, "attacker.devastating", 10),
        ({"attacker": {"piercing": 10}}, "attacker.piercing", 9),
        ({"defender": {"defenceDice": 10}}, "defender.defenceDice", 9),
        ({"defender": {"wounds": 51}}, "defender.wounds", 50),
        ({"defender": {"coverSaves": 10}}, "defender.coverSaves", 9),
        ({"options": {"rounds": 11}}, "options.rounds", 10),
    ],
)
def test_limits(body: dict, field: str, limit: int) -> None:
    e = error(body)
    assert (e.code, e.field, e.limit) == ("LIMIT_EXCEEDED", field, limit)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"attacker": {"hit": 7}}, "attacker.hit"),
        ({"attacker": {"hit": 1}}, "attacker.hit"),
        ({"attacker": {"lethal": 1}}, "attacker.lethal"),
        ({"attacker": {"attacks": -1}}, "attacker.attacks"),
        ({"attacker": {"attacks": 2.0}}, "attacker.attacks"),
        ({"attacker": {"attacks": "4"}}, "attacker.attacks"),
        ({"attacker": {"attacks": True}}, "attacker.attacks"),
        ({"attacker": {"attacks": None}}, "attacker.attacks"),
        ({"attacker": {"rending": 1}}, "attacker.rending"),
        ({"attacker": {"reroll": "ceaseless"}}, "attacker.reroll"),
        ({"attacker": {"bogus": 1}}, "attacker.bogus"),
        ({"bogus": {}}, "bogus"),
        ({"attacker": {"eliteModerate": True, "eliteExtreme": True}}, "attacker.eliteExtreme"),
        ({"defender": {"feelNoPain": 3}}, "defender.feelNoPain"),
        ({"defender": {"invulnerableSave": 7}}, "defender.invulnerableSave"),
        ({"defender": {"wounds": 0}}, "defender.wounds"),
        ({"defender": {"justAScratch": "BOTH"}}, "defender.justAScratch"),
        ({"options": {"rounds": 0}}, "options.rounds"),
        ({"options": {"exact": "yes"}}, "options.exact"),
        ({"attacker": []}, "attacker"),
    ],
)
def test_invalid_input(body: dict, field: str) -> None:
    e = error(body)
    assert (e.code, e.field, e.limit) == ("INVALID_INPUT", field, None)
    assert e.message


def test_values_merely_capped_by_another_field_are_valid() -> None:
    registry.resolve(
        {"attacker": {"attacks": 2, "accurate": 20}, "defender": {"coverSaves": 9}}, "shoot"
    )


def test_nullable_fields_accept_null() -> None:
    registry.resolve({"defender": {"feelNoPain": None, "invulnerableSave": None}}, "shoot")


@pytest.mark.parametrize("body", [[], "x", 3, None])
def test_non_object_bodies(body: object) -> None:
    assert error(body).code == "INVALID_INPUT"
