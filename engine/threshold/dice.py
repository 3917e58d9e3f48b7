"""Dice expressions of the threshold ruleset (`ThDiceExpr`, threshold.md §1.1).

Its own grammar, not kt2018's `DiceExpr`: a sum and difference of dice and constants such as
"2d12+3" or "1d6-1", or a plain JSON integer. Parsing is the validation, so the errors name
the request field the expression came from.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from math import prod

from engine.errors import InputError

DIE_SIZES = (2, 3, 4, 6, 8, 10, 12, 20)
MAX_DICE = 6
MAX_CONSTANT = 100
MIN_NUMBER = -50

_DICE_TERM = re.compile(r"([0-9]*)[dD]([0-9]+)")
_CONSTANT_TERM = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class DiceExpr:
    """Value = the sum of one roll of each die in `dice` (sizes, largest first) + `constant`."""

    dice: tuple[int, ...]
    constant: int

    @property
    def minimum(self) -> int:
        return len(self.dice) + self.constant

    @property
    def maximum(self) -> int:
        return sum(self.dice) + self.constant

    @property
    def outcomes(self) -> int:
        """How many equally likely face combinations there are."""
        return prod(self.dice)

    def counts(self) -> dict[int, int]:
        """value -> number of face combinations giving it (they sum to `outcomes`)."""
        counts = {self.constant: 1}
        for size in self.dice:
            rolled: dict[int, int] = {}
            for value, count in counts.items():
                for face in range(1, size + 1):
                    rolled[value + face] = rolled.get(value + face, 0) + count
            counts = rolled
        return counts

    def canonical(self) -> int | str:
        """One spelling per expression: equal dice merged, largest first, constants summed.

        "D6 + 1d12 - 1 + d6" -> "d12+2d6-1"; a dice-free expression is its integer.
        """
        if not self.dice:
            return self.constant
        terms = [
            f"{count if count > 1 else ''}d{size}"
            for size, count in sorted(Counter(self.dice).items(), reverse=True)
        ]
        text = "+".join(terms)
        if self.constant:
            text += f"{self.constant:+d}"
        return text


def parse_dice(value: object, field: str) -> DiceExpr:
    """A JSON integer (−50..100) or an expression string; InputError at `field` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise InputError("INVALID_INPUT", field, "must be an integer or a dice expression string")
    if isinstance(value, int):
        if value < MIN_NUMBER:
            raise InputError("INVALID_INPUT", field, f"must be at least {MIN_NUMBER}")
        _check_constant(value, field)
        return DiceExpr((), value)
    return _parse_text(value, field)


def _parse_text(text: str, field: str) -> DiceExpr:
    # Splitting on the signs keeps them as separate items: "2d12-1" -> ["2d12", "-", "1"].
    parts = re.split(r"([+-])", text.replace(" ", ""))
    dice: list[int] = []
    constant = 0
    for index in range(0, len(parts), 2):
        sign = -1 if index and parts[index - 1] == "-" else 1
        term = parts[index]
        if match := _DICE_TERM.fullmatch(term):
            if sign < 0:
                raise InputError("INVALID_INPUT", field, "a dice term may not be subtracted")
            dice.extend(_dice_term(match, field))
            if len(dice) > MAX_DICE:
                raise InputError(
                    "LIMIT_EXCEEDED", field, f"at most {MAX_DICE} dice in total", MAX_DICE
                )
        elif _CONSTANT_TERM.fullmatch(term):
            constant += sign * _check_constant(_digits(term), field)
        else:
            raise InputError(
                "INVALID_INPUT", field, f"not a dice expression like '2d12+3': {text!r}"
            )
    return DiceExpr(tuple(sorted(dice, reverse=True)), constant)


def _dice_term(match: re.Match[str], field: str) -> list[int]:
    count = _digits(match[1]) if match[1] else 1
    size = _digits(match[2])
    if count < 1:
        raise InputError("INVALID_INPUT", field, "a dice term needs at least one die")
    if count > MAX_DICE:
        raise InputError("LIMIT_EXCEEDED", field, f"at most {MAX_DICE} dice in total", MAX_DICE)
    if size not in DIE_SIZES:
        raise InputError(
            "INVALID_INPUT", field, "dice must be one of " + ", ".join(f"d{s}" for s in DIE_SIZES)
        )
    return [size] * count


def _digits(text: str) -> int:
    """Digits as an int; absurdly long ones become a value above every bound, not a crash."""
    stripped = text.lstrip("0")
    return int(stripped or "0") if len(stripped) <= 6 else 10**6


def _check_constant(value: int, field: str) -> int:
    if value > MAX_CONSTANT:
        raise InputError(
            "LIMIT_EXCEEDED", field, f"constants must be at most {MAX_CONSTANT}", MAX_CONSTANT
        )
    return value
