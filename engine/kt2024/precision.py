"""Two precisions, one code path: probabilities as numerators over a common denominator.

Float mode keeps float64 numerators over the denominator 1. Exact mode keeps Python-int
numerators (numpy object arrays) over an integer denominator: every chance event of this
ruleset has a power-of-6 denominator, so sums and products stay integers and no slow
`Fraction` arithmetic happens on arrays. Only the final answer becomes `Fraction`s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import repeat
from math import comb, gcd, lcm
from typing import NamedTuple

import numpy as np


class Weights(NamedTuple):
    """Numerators `num` over the denominator `den` (1 in float mode)."""

    num: np.ndarray
    den: int

    def reduced(self) -> Weights:
        """Exact numerators and denominator divided by their common factor: smaller integers
        make every later product (rounds are convolutions) cheaper. Floats are left alone."""
        if self.num.dtype != object:
            return self
        common = gcd(self.den, *self.num.tolist())
        return Weights(self.num // common, self.den // common) if common > 1 else self

    def rescaled(self, den: int) -> np.ndarray:
        """The numerators over `den`, a multiple of this denominator."""
        return self.num * (den // self.den) if den != self.den else self.num


def zeros(size: int | tuple[int, ...], exact: bool) -> np.ndarray:
    if exact:
        out = np.empty(size, dtype=object)
        out.fill(0)
        return out
    return np.zeros(size)


def counted(ways: Sequence[int] | np.ndarray, den: int, exact: bool) -> Weights:
    """Counts of equally likely face sequences over `den`, reduced by their common factor (or
    as floats, one division over the whole array: an int64 count or a Python int below 2**53
    converts exactly, beyond within one rounding)."""
    ways = np.asarray(ways)
    if not exact:
        floats = ways / float(den) if ways.dtype != object else (ways / den).astype(float)
        return Weights(floats, 1)
    values = ways.tolist()
    common = gcd(den, *values)
    num = np.empty(len(values), dtype=object)
    num[:] = [w // common for w in values] if common > 1 else values
    return Weights(num, den // common)


def common(parts: Iterable[Weights]) -> int:
    """The least common denominator of several weight arrays."""
    return lcm(*(w.den for w in parts))


@lru_cache(maxsize=256)
def powers(base: Fraction, top: int, exact: bool) -> Weights:
    """base**h for h = 0..top, over one denominator (memoised: do not modify)."""
    if not exact:
        return Weights(float(base) ** np.arange(top + 1), 1)
    num = np.empty(top + 1, dtype=object)
    num[:] = [base.numerator**h * base.denominator ** (top - h) for h in range(top + 1)]
    return Weights(num, base.denominator**top)


@lru_cache(maxsize=64)
def binomials(p: Fraction, top: int, exact: bool) -> Weights:
    """Row k, column i: P(Binomial(k, p) = i), for k, i = 0..top, over one denominator.

    Memoised and shared: callers must not modify the table.
    """
    a, b, base = p.numerator, p.denominator - p.numerator, p.denominator
    table = zeros((top + 1, top + 1), exact)
    den = base**top
    for k in range(top + 1):
        for i in range(k + 1):
            ways = comb(k, i) * a**i * b ** (k - i) * base ** (top - k)  # term · den, an int
            table[k, i] = ways if exact else ways / den  # int / int rounds as float(term)
    return Weights(table, den if exact else 1)


def values(w: Weights, exact: bool) -> list[Fraction] | list[float]:
    """The probabilities themselves: Fractions in exact mode, floats otherwise."""
    if exact:
        return [Fraction(int(x), w.den) for x in w.num]
    return (w.num / w.den).tolist()


def value(num: object, den: int, exact: bool) -> Fraction | float:
    """One numerator as a probability (or expectation)."""
    return Fraction(int(num), den) if exact else float(num) / den


def convolve(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The distribution of a sum of two independent amounts (numerator arrays).

    Exact numerators are non-negative Python ints, for which numpy's object convolution makes
    len(x)·len(y) big-int products. Packing each array into one integer (Kronecker
    substitution) turns it into a single big-int product, which CPython does far faster.
    """
    if x.dtype != object:
        return np.convolve(x, y)
    width = (max(x.max(), 1).bit_length() + max(y.max(), 1).bit_length()) + min(
        len(x), len(y)
    ).bit_length()
    size = (width + 7) // 8
    product = _pack(x, size) * _pack(y, size)
    raw = product.to_bytes(size * (len(x) + len(y) - 1), "little")
    out = np.empty(len(x) + len(y) - 1, dtype=object)
    slots = (raw[i : i + size] for i in range(0, len(raw), size))
    out[:] = list(map(int.from_bytes, slots, repeat("little")))
    return out


def _pack(values: np.ndarray, size: int) -> int:
    """Python ints as one integer, `size` bytes a slot (`map` over the C methods, no frame
    a value)."""
    ints = values.tolist()
    return int.from_bytes(
        b"".join(map(int.to_bytes, ints, repeat(size), repeat("little"))), "little"
    )


def slot_words(bound: int) -> int:
    """The 64-bit words of a slot that holds any integer from 0 to `bound`, with a sign bit to
    spare: a one-word slot reads as an int64."""
    return bound.bit_length() // 64 + 1


def unpack(packed: int, slots: int, words: int) -> np.ndarray:
    """The `slots` values of an integer packing non-negative integers in slots of `words`
    64-bit words each, lowest first: int64 for one-word slots, Python ints (an object array)
    beyond, read in one pass rather than one `int.from_bytes` each."""
    raw = packed.to_bytes(slots * words * 8, "little")
    if words == 1:
        return np.frombuffer(raw, dtype="<i8")
    parts = np.frombuffer(raw, dtype="<u8").reshape(slots, words).astype(object)
    return sum(parts[:, w] << (64 * w) for w in range(words))
