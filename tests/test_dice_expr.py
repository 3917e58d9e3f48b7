"""DiceExpr grammar (kt2018.md §1.1): parsing, canonical form, exact distribution, maxima."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.dice_expr import DiceExpr
from engine.errors import InputError


@pytest.mark.parametrize(
    ("raw", "canonical", "low", "high"),
    [
        (2, "2", 2, 2),
        ("2", "2", 2, 2),
        (" 7 ", "7", 7, 7),
        ("D3", "D3", 1, 3),
        ("d6", "D6", 1, 6),
        ("1D6+0", "D6", 1, 6),
        ("2D6", "2D6", 2, 12),
        ("D3+1", "D3+1", 2, 4),
        ("4d3+6", "4D3+6", 10, 18),
        ("  2D3+2\t", "2D3+2", 4, 8),
    ],
)
def test_parse_canonical_form_and_range(raw: object, canonical: str, low: int, high: int) -> None:
    expr = DiceExpr.parse(raw, "f")
    assert str(expr) == canonical
    assert (expr.minimum, expr.maximum) == (low, high)
    assert DiceExpr.parse(str(expr), "f") == expr


@pytest.mark.parametrize(
    "raw",
    [
        0,
        -1,
        "0",
        "",
        " ",
        "D4",
        "D",
        "5D6",
        "0D6",
        "D6+7",
        "D6-1",
        "D 6",
        "D6 +1",
        "2 D6",
        "D6+",
        "x",
        2.0,
        1.5,
        True,
        None,
        [2],
        {"d": 6},
        "D6" + " " * 50 + "1",
    ],
)
def test_parse_rejects_with_invalid_input_naming_the_field(raw: object) -> None:
    with pytest.raises(InputError) as info:
        DiceExpr.parse(raw, "weapons.0.damage")
    assert info.value.code == "INVALID_INPUT"
    assert info.value.field == "weapons.0.damage"


def test_within_is_a_limit_by_default() -> None:
    expr = DiceExpr.parse("2D6+1", "f")
    assert expr.within(13, "f") is expr
    with pytest.raises(InputError) as info:
        expr.within(12, "weapons.1.damage")
    assert (info.value.code, info.value.field, info.value.limit) == (
        "LIMIT_EXCEEDED",
        "weapons.1.damage",
        12,
    )
    with pytest.raises(InputError) as info:
        DiceExpr.fixed(21).within(20, "amount", "INVALID_INPUT")
    assert (info.value.code, info.value.limit) == ("INVALID_INPUT", None)


def _by_d6_faces(expr: DiceExpr) -> dict[int, Fraction]:
    """Roll every D6 face of every die; a D3 reads a D6 halved, rounded up (§1 item 1)."""
    if expr.dice == 0:
        return {expr.bonus: Fraction(1)}
    read = (lambda f: (f + 1) // 2) if expr.sides == 3 else (lambda f: f)
    totals = Counter(
        sum(read(f) for f in faces) + expr.bonus
        for faces in itertools.product(range(1, 7), repeat=expr.dice)
    )
    return {v: Fraction(n, 6**expr.dice) for v, n in sorted(totals.items())}


@given(st.integers(1, 4), st.sampled_from([3, 6]), st.integers(0, 6), st.booleans())
def test_distribution_matches_rolling_every_face(k: int, sides: int, m: int, lower: bool) -> None:
    text = f"{k}{'d' if lower else 'D'}{sides}+{m}"
    expr = DiceExpr.parse(text, "f")
    dist = expr.distribution()
    assert dist == _by_d6_faces(expr)
    assert list(dist) == sorted(dist)
    assert sum(dist.values()) == 1
    assert (min(dist), max(dist)) == (expr.minimum, expr.maximum)


@given(st.integers(1, 10**6))
def test_fixed_values(n: int) -> None:
    expr = DiceExpr.parse(n, "f")
    assert expr == DiceExpr.parse(str(n), "f") == DiceExpr.fixed(n)
    assert expr.distribution() == {n: Fraction(1)}
    assert str(expr) == str(n)
