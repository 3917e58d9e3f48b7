"""Dice expressions (`DiceExpr`, kt2018.md §1.1): a fixed integer or `[k]D3|D6[+m]`.

Shared by the 2018 and 2013 rulesets for numbers of attacks, Damage and mortal wound amounts.
An expression is an immutable value: parse it once from the request, then ask for its exact
distribution, its range and its canonical string (equal expressions give equal strings, so
`"2"`, `2`, `"d6"`, `"1D6+0"` and `" D6 "` key a cache alike).

    >>> expr = DiceExpr.parse("D3+1", "weapons.0.damage")
    >>> str(expr), expr.minimum, expr.maximum
    ('D3+1', 2, 4)
    >>> expr.within(12, "weapons.0.damage") is expr
    True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from engine.errors import ErrorCode, InputError

__all__ = ["DiceExpr"]

MAX_DICE = 4
MAX_BONUS = 6
# Longer input cannot be a valid expression of any sensible size; refusing it up front keeps
# `int()` away from pathological digit strings.
MAX_TEXT = 40

_DICE = re.compile(r"(\d*)[dD]([36])(?:\+(\d+))?")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """The sum of `dice` dice with `sides` faces each, plus `bonus`.

    A fixed integer n is `dice=0, sides=0, bonus=n`. A D3 is a D6 halved rounded up, which is
    exactly a uniform 1..3, so it is modelled as a three-sided die.
    """

    dice: int
    sides: int
    bonus: int

    @classmethod
    def fixed(cls, value: int) -> DiceExpr:
        """A constant (e.g. the default Damage of 1)."""
        return cls(0, 0, value)

    @classmethod
    def parse(cls, raw: object, field: str) -> DiceExpr:
        """Read a JSON number or string; INVALID_INPUT naming `field` when it is not one.

        Accepted: a positive integer (JSON number or digit string), or `[k]D3|D6[+m]` with
        k in 1..4, m in 0..6, 'd' for 'D'; surrounding spaces are ignored, inner ones are not.
        """
        if isinstance(raw, bool) or not isinstance(raw, int | str):
            raise InputError(
                "INVALID_INPUT", field, "must be an integer or a dice expression like 'D3+1'"
            )
        if isinstance(raw, int):
            return cls._positive(raw, field)
        text = raw.strip()
        if len(text) > MAX_TEXT:
            raise InputError("INVALID_INPUT", field, "dice expression is too long")
        if _DIGITS.fullmatch(text):
            return cls._positive(int(text), field)
        match = _DICE.fullmatch(text)
        if match is None:
            raise InputError("INVALID_INPUT", field, f"{raw!r} is not an integer or '[k]D3|D6[+m]'")
        dice = int(match[1]) if match[1] else 1
        bonus = int(match[3]) if match[3] is not None else 0
        if not 1 <= dice <= MAX_DICE:
            raise InputError("INVALID_INPUT", field, f"number of dice must be 1..{MAX_DICE}")
        if bonus > MAX_BONUS:
            raise InputError("INVALID_INPUT", field, f"added value must be 0..{MAX_BONUS}")
        return cls(dice, int(match[2]), bonus)

    @classmethod
    def _positive(cls, value: int, field: str) -> DiceExpr:
        if value < 1:
            raise InputError("INVALID_INPUT", field, "must be at least 1")
        return cls.fixed(value)

    @property
    def minimum(self) -> int:
        return self.dice + self.bonus

    @property
    def maximum(self) -> int:
        return self.dice * self.sides + self.bonus

    def within(self, maximum: int, field: str, code: ErrorCode = "LIMIT_EXCEEDED") -> DiceExpr:
        """`self` if it can never exceed `maximum`, else an InputError naming `field`.

        kt2018 states every such maximum as a limit (§11), hence LIMIT_EXCEEDED by default
        with `limit` set; pass INVALID_INPUT for a bound that is a rule instead.
        """
        if self.maximum <= maximum:
            return self
        limit = maximum if code == "LIMIT_EXCEEDED" else None
        raise InputError(code, field, f"{self} can reach {self.maximum}; at most {maximum}", limit)

    def distribution(self) -> dict[int, Fraction]:
        """Exact P(value) for every reachable value, ascending; the probabilities sum to 1."""
        return dict(_distribution(self.dice, self.sides, self.bonus))

    def __str__(self) -> str:
        """Canonical form: '3', 'D6', '2D3+1' (k=1 and m=0 are left out)."""
        if self.dice == 0:
            return str(self.bonus)
        count = str(self.dice) if self.dice > 1 else ""
        plus = f"+{self.bonus}" if self.bonus else ""
        return f"{count}D{self.sides}{plus}"


@cache
def _distribution(dice: int, sides: int, bonus: int) -> tuple[tuple[int, Fraction], ...]:
    """Convolve `dice` uniform dice by counting ways; exact and tiny (at most 4 dice)."""
    ways = {bonus: 1}
    for _ in range(dice):
        rolled: dict[int, int] = {}
        for total, n in ways.items():
            for face in range(1, sides + 1):
                rolled[total + face] = rolled.get(total + face, 0) + n
        ways = rolled
    outcomes = sides**dice
    return tuple((v, Fraction(ways[v], outcomes)) for v in sorted(ways))
