"""ThDiceExpr (threshold.md §1.1): grammar, limits, exact distributions, canonical spelling."""

from __future__ import annotations

from collections import Counter
from itertools import product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from engine.threshold.dice import DIE_SIZES, MAX_DICE, parse_dice


@pytest.mark.parametrize(
    ("text", "dice", "constant"),
    [
        ("2d12+3", (12, 12), 3),
        ("d12", (12,), 0),
        ("1d6-1", (6,), -1),
        (" 2 D 6 + 1 ", (6, 6), 1),
        ("d4+d20", (20, 4), 0),
        ("3-5", (), -2),
        ("0", (), 0),
        (4, (), 4),
        (-50, (), -50),
        (100, (), 100),
        ("d2+100-100+100", (2,), 100),
    ],
)
def test_parse(text: object, dice: tuple[int, ...], constant: int) -> None:
    expr = parse_dice(text, "damage")
    assert (expr.dice, expr.constant) == (dice, constant)


@pytest.mark.parametrize(
    ("value", "code", "limit"),
    [
        ("7d6", "LIMIT_EXCEEDED", MAX_DICE),
        ("3d6+3d4+d2", "LIMIT_EXCEEDED", MAX_DICE),
        ("d6+d6+d6+d6+d6+d6+d6", "LIMIT_EXCEEDED", MAX_DICE),
        ("999999999999999999999d6", "LIMIT_EXCEEDED", MAX_DICE),
        ("d6+101", "LIMIT_EXCEEDED", 100),
        (101, "LIMIT_EXCEEDED", 100),
        ("0d6", "INVALID_INPUT", None),
        ("d5", "INVALID_INPUT", None),
        ("d0", "INVALID_INPUT", None),
        ("2d12-d6", "INVALID_INPUT", None),
        ("-d6", "INVALID_INPUT", None),
        ("-3", "INVALID_INPUT", None),
        ("+3", "INVALID_INPUT", None),
        ("d6+", "INVALID_INPUT", None),
        ("d6++1", "INVALID_INPUT", None),
        ("2d", "INVALID_INPUT", None),
        ("d", "INVALID_INPUT", None),
        ("", "INVALID_INPUT", None),
        ("   ", "INVALID_INPUT", None),
        ("2x6", "INVALID_INPUT", None),
        ("d6*2", "INVALID_INPUT", None),
        ("d٦", "INVALID_INPUT", None),
        ("1.5", "INVALID_INPUT", None),
        (-51, "INVALID_INPUT", None),
        (True, "INVALID_INPUT", None),
        (2.0, "INVALID_INPUT", None),
        (None, "INVALID_INPUT", None),
        (["d6"], "INVALID_INPUT", None),
    ],
)
def test_rejected(value: object, code: str, limit: int | None) -> None:
    with pytest.raises(InputError) as caught:
        parse_dice(value, "attack.damage")
    assert (caught.value.code, caught.value.field, caught.value.limit) == (
        code,
        "attack.damage",
        limit,
    )


terms = st.lists(
    st.tuples(st.integers(1, 2), st.sampled_from(DIE_SIZES)), min_size=0, max_size=3
).filter(lambda ts: sum(n for n, _ in ts) <= 4)


@settings(max_examples=60, deadline=None)
@given(terms, st.lists(st.integers(-20, 20), max_size=3), st.randoms())
def test_counts_match_faces_and_canonical_round_trips(
    dice_terms: list[tuple[int, int]], constants: list[int], rng
) -> None:
    sizes = [size for n, size in dice_terms for _ in range(n)]
    spelled = [
        f"{n if n > 1 else rng.choice(['', '1'])}{rng.choice('dD')}{m}" for n, m in dice_terms
    ]
    spelled += [f"{abs(c)}" for c in constants]
    signs = ["+"] * len(dice_terms) + ["-" if c < 0 else "+" for c in constants]
    if not spelled or signs[0] == "-":
        spelled.insert(0, "0")
        signs.insert(0, "+")
    text = spelled[0] + "".join(f" {s} {t}" for s, t in zip(signs[1:], spelled[1:], strict=True))
    expr = parse_dice(text, "amount")

    faces = Counter(
        sum(roll) + sum(constants) for roll in product(*(range(1, s + 1) for s in sizes))
    )
    assert expr.counts() == dict(faces)
    assert expr.outcomes == sum(faces.values())
    assert (expr.minimum, expr.maximum) == (min(faces), max(faces))
    # The canonical spelling is valid input for the same expression (constants permitting).
    canonical = expr.canonical()
    if isinstance(canonical, str) or -50 <= canonical <= 100:
        assert parse_dice(canonical, "amount") == expr


def test_canonical_spelling() -> None:
    assert parse_dice("D6 + 1d12 - 1 + d6", "f").canonical() == "d12+2d6-1"
    assert parse_dice("d6+d6+1-1", "f").canonical() == "2d6"
    assert parse_dice("5", "f").canonical() == 5
    assert parse_dice(5, "f") == parse_dice("2+3", "f")
