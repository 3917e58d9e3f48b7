"""The values of kt2024.md §10's output shape, shared by every ruleset, the CLI and the APIs.

Engines return probabilities as `Fraction` (exact mode) or `float`. Here they become plain
floats, with `<name>Exact` / `"exact"` siblings holding "p/q" when exact output was asked for.
`float(Fraction)` is correctly rounded, so each float is the nearest double of its rational.
The members themselves are declared by the answer models (`schema.answers`), which every
renderer builds its answer through.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from math import gcd
from typing import Any

Number = Fraction | float
Value = int | str


def ratio(x: Number) -> str:
    """'p/q' in lowest terms ('0/1', '1/1')."""
    f = Fraction(x)
    return f"{f.numerator}/{f.denominator}"


def exact_members(exact: bool, **values: Number | Iterable[Number]) -> dict[str, Any]:
    """Keyword arguments of an answer model (`schema.answers`): each `name=value` as a float
    (or a list of floats), plus `name_exact` in "p/q" when exact output is on."""
    members: dict[str, Any] = {}
    for name, value in values.items():
        if isinstance(value, Fraction | float | int):
            members[name] = float(value)
            if exact:
                members[name + "_exact"] = ratio(value)
        else:
            value = list(value)
            members[name] = [float(v) for v in value]
            if exact:
                members[name + "_exact"] = [ratio(v) for v in value]
    return members


def _order(value: Value) -> tuple[int, int | str]:
    """Integers ascending, string values (such as "outOfAction") after every integer."""
    return (1, value) if isinstance(value, str) else (0, value)


def distribution(dist: Mapping[Value, Number], exact: bool) -> list[dict[str, Any]]:
    """`[{"value", "probability", "exact"?}]` ascending, zero-probability entries left out.

    Values are written as the engines give them: array-backed engines key their
    distributions by Python ints (`.tolist()`), which every JSON encoder takes. Integer
    values alone (most distributions) sort as they are, without the key of `_order`.
    """
    ordered = sorted(dist) if set(map(type, dist)) <= {int} else sorted(dist, key=_order)
    if exact:
        return [
            {"value": value, "probability": float(p), "exact": ratio(p)}
            for value in ordered
            if (p := dist[value]) != 0
        ]
    return [
        {"value": value, "probability": float(p)} for value in ordered if (p := dist[value]) != 0
    ]


def weighted(
    values: Sequence[int], numerators: Sequence[int] | Sequence[float], den: int, exact: bool
) -> list[dict[str, Any]]:
    """`distribution` of ascending values whose probabilities, none zero, are `numerators`
    over `den` (floats over 1 in float mode), as an engine computed them. An int divided by an
    int is correctly rounded, the double `float(Fraction(n, den))` gives, and "p/q" in lowest
    terms needs one gcd: no `Fraction` is built per value."""
    if not exact:
        return [{"value": v, "probability": p} for v, p in zip(values, numerators, strict=True)]
    out = []
    for value, n in zip(values, numerators, strict=True):
        common = gcd(n, den)
        out.append(
            {"value": value, "probability": n / den, "exact": f"{n // common}/{den // common}"}
        )
    return out
