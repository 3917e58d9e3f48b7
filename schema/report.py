"""The output shape of kt2024.md §10, shared by every ruleset, the CLI and the APIs.

Engines return probabilities as `Fraction` (exact mode) or `float`. Here they become plain
floats, with `<name>Exact` / `"exact"` siblings holding "p/q" when exact output was asked for.
`float(Fraction)` is correctly rounded, so each float is the nearest double of its rational.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

Number = Fraction | float
Value = int | str


def ratio(x: Number) -> str:
    """'p/q' in lowest terms ('0/1', '1/1')."""
    f = Fraction(x)
    return f"{f.numerator}/{f.denominator}"


def put_scalar(out: dict[str, Any], name: str, value: Number, exact: bool) -> None:
    """Set `out[name]` to a float, plus `out[name + 'Exact']` when exact output is on."""
    out[name] = float(value)
    if exact:
        out[name + "Exact"] = ratio(value)


def put_list(out: dict[str, Any], name: str, values: Iterable[Number], exact: bool) -> None:
    """A list of probabilities, plus a sibling list of 'p/q' strings when exact output is on."""
    values = list(values)
    out[name] = [float(v) for v in values]
    if exact:
        out[name + "Exact"] = [ratio(v) for v in values]


def _order(value: Value) -> tuple[int, int | str]:
    """Integers ascending, string values (such as "outOfAction") after every integer."""
    return (1, value) if isinstance(value, str) else (0, value)


def distribution(dist: Mapping[Value, Number], exact: bool) -> list[dict[str, Any]]:
    """`[{"value", "probability", "exact"?}]` ascending, zero-probability entries left out.

    Values are written as the engines give them: array-backed engines key their
    distributions by Python ints (`.tolist()`), which every JSON encoder takes.
    """
    entries = []
    for value in sorted(dist, key=_order):
        p = dist[value]
        if p == 0:
            continue
        entry: dict[str, Any] = {"value": value, "probability": float(p)}
        if exact:
            entry["exact"] = ratio(p)
        entries.append(entry)
    return entries
