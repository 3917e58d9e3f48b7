"""Two precisions, one code path: probabilities as numerators over a common denominator.

Float mode keeps float64 numerators over the denominator 1. Exact mode keeps Python-int
numerators (numpy object arrays) over an integer denominator: every chance event of this
ruleset has a power-of-6 denominator, so sums and products stay integers and no slow
`Fraction` arithmetic happens on arrays. Only the answer's scalars become `Fraction`s.

Shooting's arrays are `Weights`. The fight writes the same exact form per chance: `Odds`
(a, d), the numerator a over 6**d, the denominator kept as its exponent so that products add
exponents and no gcd is ever needed. Its compiled loops (`kernels`) carry those numerators
modulo primes (`residues`: native int64 arithmetic, `kernels.mulmod`), from which
`numerators` recovers them whole, and OPTIMAL's comparisons also modulo 2**64 (`scales`),
whose signs `kernels.exact_sign` recovers (`garner`); float mode carries `floats`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import cache, lru_cache
from math import comb, gcd, lcm, prod
from operator import mul
from typing import Any, NamedTuple

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


SAFE = 2**53
"""Every integer from 0 to SAFE is a float64 exactly, and so is a sum or product of such
integers that stays within it: exact numerators so bounded can be computed as floats."""


def integers(x: np.ndarray) -> np.ndarray:
    """Floats holding integers within `SAFE` as exact numerators (Python ints)."""
    return x.astype(np.int64).astype(object)


NATIVE = 2**63 - 1
"""The largest int64: exact numerators over a denominator within it are multiplied natively."""


def native(num: np.ndarray, den: int, exact: bool) -> np.ndarray:
    """Exact numerators as int64 when every product they take part in is a probability over a
    denominator `den` within `NATIVE` (numpy's int64 products: no Python int a product),
    else as Python ints; floats as they are."""
    if not exact:
        return num
    return num.astype(np.int64, copy=False) if den <= NATIVE else exact_ints(num, exact)


def exact_ints(num: np.ndarray, exact: bool) -> np.ndarray:
    """Exact numerators back as Python ints (what every later step of an exact action takes)."""
    return num.astype(object) if exact and num.dtype != object else num


def zeros(size: int | tuple[int, ...], exact: bool) -> np.ndarray:
    if exact:
        out = np.empty(size, dtype=object)
        out.fill(0)
        return out
    return np.zeros(size)


def counted(ways: Sequence[int] | np.ndarray, den: int, exact: bool) -> Weights:
    """Counts of equally likely face sequences over `den`, reduced by their common factor (or
    as floats, one division over the whole array: an int64 count or a Python int below 2**53
    converts exactly, beyond within one rounding). Int64 counts are reduced by numpy's gcd and
    floor division, each exact, and only then made Python ints."""
    ways = np.asarray(ways)
    if not exact:
        floats = ways / float(den) if ways.dtype != object else (ways / den).astype(float)
        return Weights(floats, 1)
    if ways.dtype == np.int64:
        common = gcd(den, int(np.gcd.reduce(ways)))
        return Weights((ways // common if common > 1 else ways).astype(object), den // common)
    values = ways.tolist()
    common = gcd(den, *values)
    num = np.empty(len(values), dtype=object)
    num[:] = [w // common for w in values] if common > 1 else values
    return Weights(num, den // common)


def common(parts: Iterable[Weights]) -> int:
    """The least common denominator of several weight arrays."""
    return lcm(*(w.den for w in parts))


def over_common(parts: Sequence[Weights], exact: bool) -> tuple[list[np.ndarray], int]:
    """The numerators of several weight arrays over their least common denominator, and it:
    exact int64 numerators widened first where it is beyond int64 (`native`); floats, all over
    1, as they are."""
    if not exact:
        return [w.num for w in parts], 1
    den = common(parts)
    return [Weights(native(w.num, den, exact), w.den).rescaled(den) for w in parts], den


def powers(base: Fraction, top: int, exact: bool) -> Weights:
    """base**h for h = 0..top, over one denominator."""
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


def value(num: object, den: int, exact: bool) -> Fraction | float:
    """One numerator as a probability (or expectation)."""
    return Fraction(int(num), den) if exact else float(num) / den


class Packed(NamedTuple):
    """Exact numerators (non-negative) as one integer, `size` bytes a slot, lowest first
    (Kronecker substitution), their sum at most `bound`. The product of two is then one big-int
    product, far faster than numpy's len(x)·len(y) object products, as long as the slots hold
    the product's bound; their sum is one addition. The integer is GMP's (`gmpy2.mpz`, `_big`):
    its products of thousands of bytes are 7 to 14 times faster than CPython's Karatsuba, and no
    slower at a few bytes. Numerators are unpacked only where read (`head`, `lower`), as Python
    ints; `below` sums some without unpacking them."""

    value: Any  # gmpy2.mpz
    slots: int
    size: int
    bound: int


Numerators = np.ndarray | Packed
"""A distribution being combined: an array (floats, or exact ints that are not multiplied),
or exact numerators packed."""


@cache
def _big() -> Any:
    """gmpy2, imported when the first distribution is packed: its ~4 ms are paid by exact
    multi-round shoots only, not by every start of the service or the command line."""
    import gmpy2

    return gmpy2


def _size(bound: int) -> int:
    """The bytes of a slot that holds any integer from 0 to `bound`."""
    return (bound.bit_length() + 7) // 8


def lift(num: np.ndarray, den: int, packed: bool, room: int = 0) -> Numerators:
    """Numerators over `den` as they are combined: packed (exact ones), or as they are. Packed
    slots hold integers up to `room` (or `den`, if more): given the largest bound their
    products will reach, the products need no widening (`_widened`). A hint, not a promise:
    every product still checks that its slots hold its bound."""
    if not packed:
        return num
    size = _size(max(den, room))
    return Packed(_pack(num, size), len(num), size, den)


def _widened(x: Packed, size: int) -> Packed:
    """The same numerators in slots of `size` bytes (x's or more): numpy moves the bytes, no
    numerator is unpacked."""
    if size <= x.size:
        return x
    raw = np.frombuffer(x.value.to_bytes(x.slots * x.size, "little"), dtype=np.uint8)
    out = np.zeros((x.slots, size), dtype=np.uint8)
    out[:, : x.size] = raw.reshape(x.slots, x.size)
    return Packed(_big().mpz.from_bytes(out.data, "little"), x.slots, size, x.bound)


def times(x: Numerators, y: Numerators) -> Numerators:
    """The distribution of a sum of two independent amounts. Floats: numpy's convolution is
    the correlation of the longer by the shorter reversed, the same C loop on the same operands
    (so the same bits) that `np.convolve` calls after its Python wrapper's conversions."""
    if not isinstance(x, Packed):
        if len(x) < len(y):
            x, y = y, x
        return np.correlate(x, y[::-1], "full")  # np.convolve's product, past its wrapper
    size = max(x.size, y.size, _size(x.bound * y.bound))
    wide = _widened(x, size).value
    # a square multiplies one integer by itself, which GMP squares (about 20 % faster)
    product = wide * wide if y == x else wide * _widened(y, size).value
    return Packed(product, x.slots + y.slots - 1, size, x.bound * y.bound)


def power(x: Numerators, n: int) -> Numerators:
    """x times itself n times (n ≥ 1), by squaring: x⁴ as (x²)², where successive products
    would make x³·x, a larger product."""
    out = None
    while True:
        if n & 1:
            out = x if out is None else times(out, x)
        n >>= 1
        if not n:
            return out
        x = times(x, x)


def plus(x: Numerators, y: Numerators) -> Numerators:
    """The sum of two weighted distributions (of different lengths)."""
    if isinstance(x, Packed):
        size = max(x.size, y.size, _size(x.bound + y.bound))
        total = _widened(x, size).value + _widened(y, size).value
        return Packed(total, max(x.slots, y.slots), size, x.bound + y.bound)
    if len(x) < len(y):
        x, y = y, x
    out = x.copy()
    out[: len(y)] += y
    return out


def scaled(x: Numerators, k: int) -> Numerators:
    """Every weight times `k`."""
    if not isinstance(x, Packed):
        return x * k
    size = max(x.size, _size(x.bound * k))
    return Packed(_widened(x, size).value * k, x.slots, size, x.bound * k)


def cut(x: Numerators, count: int | None) -> Numerators:
    """The amounts below `count` only (all of them for None)."""
    if count is None:
        return x
    if not isinstance(x, Packed):
        return x[:count]
    if count >= x.slots:
        return x
    # the low bits, by GMP (an `&` would first build the mask as an integer of as many bytes)
    return Packed(_big().f_mod_2exp(x.value, 8 * x.size * count), count, x.size, x.bound)


def head(x: Numerators, count: int) -> list[int] | list[float]:
    """The weights of the amounts below `count`, as Python numbers."""
    if not isinstance(x, Packed):
        return x[:count].tolist()
    return _unpacked(cut(x, count))


def below(x: Numerators, count: int) -> int:
    """The exact weight of the amounts below `count`, summed. Packed, by casting out (B − 1)s,
    B = 256**size a slot's base: B ≡ 1 modulo B − 1, so the packed integer is congruent to the
    sum of its slots, and that sum, at most `bound`, is at most B − 1: one GMP remainder gives
    it, nothing unpacked (a remainder of 0 is a sum of 0 or, if any slot is not 0, of B − 1)."""
    if not isinstance(x, Packed):
        return sum(head(x, count))
    low = cut(x, count).value
    largest = (1 << (8 * x.size)) - 1
    total = int(low % largest)
    return largest if total == 0 and low else total


def lower(x: Numerators) -> np.ndarray:
    """The numerator array: exact ones unpacked into Python ints."""
    if not isinstance(x, Packed):
        return x
    return np.array(_unpacked(x), dtype=object)


def _unpacked(x: Packed) -> list[int]:
    """The numerators as Python ints: numpy cuts the bytes into slots, slots of 8 bytes or
    fewer widened to uint64s that `tolist` reads, wider ones as `size`-byte voids (read back as
    `bytes`) that `map` reads as ints, no frame a slot. Those are cut from the big-endian bytes
    (the highest slot first, reversed by a view): each slot is then in `int.from_bytes`'
    default order, and `map` passes it no argument."""
    if x.size <= 8:
        raw = x.value.to_bytes(x.size * x.slots, "little")
        words = np.zeros((x.slots, 8), dtype=np.uint8)
        words[:, : x.size] = np.frombuffer(raw, dtype=np.uint8).reshape(x.slots, x.size)
        return words.view("<u8").ravel().tolist()
    raw = x.value.to_bytes(x.size * x.slots, "big")
    slots = np.frombuffer(raw, dtype=np.dtype((np.void, x.size)))[::-1].tolist()
    return list(map(int.from_bytes, slots))


def _pack(values: np.ndarray, size: int) -> Any:
    """Python ints as one GMP integer, `size` bytes a slot, lowest first: GMP's own packing
    (`gmpy2.pack`, 1.5 to 2 times as fast as joining each int's bytes)."""
    return _big().pack(values.tolist(), 8 * size)


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


# ---- the fight's chances: a / 6**d, as floats, and modulo primes ------------------------

Odds = tuple[int, int]
"""(a, d): the probability a / 6**d, one chance in the exact form of `Weights` (a numerator
over a power-of-6 denominator, kept as its exponent so that products add exponents). It is
not a second representation: every fight chance is made from shooting's (`odds_of` of the
same `Fraction`s, `sequence.opening` from `attack.retained`'s and `binomials`), and the
fight's loops carry it in each precision's lanes: float mode `floats` (as `Weights` over 1),
exact mode the numerators modulo primes (`residues`), recovered whole by `numerators`."""

_POWERS = [6**k for k in range(400)]


def power6(k: int) -> int:
    return _POWERS[k] if k < len(_POWERS) else 6**k


def odds_of(p: Fraction) -> Odds:
    """A probability whose denominator divides a power of 6, as (a, d) with the least such d."""
    d = 0
    while power6(d) % p.denominator:
        d += 1
    return (p.numerator * (power6(d) // p.denominator), d)


def floats(odds: list[Odds]) -> np.ndarray:
    """a / 6**d as floats, per odds."""
    return np.array([a / power6(d) for a, d in odds])


def _largest_below(bound: int, count: int) -> tuple[int, ...]:
    """The `count` largest primes below `bound`, largest first: a sieve of the 32·`count`
    numbers below it by every prime up to √`bound` (near 2**31 one number in 21 is prime, so
    the window holds them with room to spare)."""
    root = int(bound**0.5) + 1
    small = np.ones(root, dtype=bool)
    small[:2] = False
    for p in range(2, int(root**0.5) + 1):
        if small[p]:
            small[p * p :: p] = False
    low = bound - 32 * count
    window = np.ones(32 * count, dtype=bool)
    for p in np.flatnonzero(small).tolist():
        window[-low % p :: p] = False
    return tuple((low + np.flatnonzero(window)[::-1][:count]).tolist())


PRIMES = _largest_below(2**31, 192)
"""The primes exact numerators are carried modulo: the largest below 2**31, so that a residue
times a residue fits a signed 64-bit integer. 192 of them: their product exceeds 6**2200,
beyond any numerator of a §12 fight."""

WORD = 2**64
"""OPTIMAL's first modulus: numerators modulo 2**64 are native, wrapping uint64 arithmetic,
and they alone tell close values apart in every fight whose values stay over 6**32 or less."""


def residues(odds: list[Odds], primes: tuple[int, ...]) -> np.ndarray:
    """a / 6**d modulo each prime (columns), per odds (rows)."""
    return np.array(
        [[a % p * pow(6, -d, p) % p for p in primes] for a, d in odds], dtype=np.int64
    ).reshape(len(odds), len(primes))


def scales(numbers: list[int], primes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Integers modulo 2**64 (uint64) and modulo each prime (columns)."""
    word = np.array([n % WORD for n in numbers], dtype=np.uint64)
    rest = np.array([[n % p for p in primes] for n in numbers], dtype=np.int64)
    return word, rest.reshape(len(numbers), len(primes))


def powers6(primes: tuple[int, ...], most: int) -> tuple[np.ndarray, np.ndarray]:
    """6**e modulo 2**64 and modulo each prime (columns) for e = 0 … `most` (rows)."""
    return scales([power6(e) for e in range(most + 1)], primes)


def numerators(rows: np.ndarray, primes: tuple[int, ...], exponent: int) -> list[int]:
    """Per row of residues r (one per prime): the integer in [0, M) congruent to r·6**exponent
    modulo each prime (Chinese remainder theorem, its weights computed once for all rows)."""
    modulus = prod(primes)
    weights = [
        pow(6, exponent, p) * (modulus // p) * pow(modulus // p, -1, p) % modulus for p in primes
    ]
    return [sum(map(mul, row, weights)) % modulus for row in rows.tolist()]


class Garner(NamedTuple):
    """What `kernels.exact_sign` needs to tell the sign of an integer n, |n| < M / 2, from n
    modulo 2**64 and modulo `primes` (M their product): n's mixed-radix digits (Garner's
    algorithm, the word the lowest digit) are compared with those of (M − 1) / 2."""

    inverse_word: np.ndarray
    """2**64's inverse modulo each prime."""
    inverses: np.ndarray
    """p_i⁻¹ modulo p_j (i < j)."""
    half_word: np.uint64
    """(M − 1) / 2's lowest digit (modulo 2**64) …"""
    half: np.ndarray
    """… and its digits for the primes."""


def garner(primes: tuple[int, ...]) -> Garner:
    """`Garner` for the moduli 2**64 and `primes`."""
    k = len(primes)
    inverses = np.zeros((k, k), dtype=np.int64)
    for i in range(k):
        for j in range(i + 1, k):
            inverses[i, j] = pow(primes[i], -1, primes[j])
    word = np.array([pow(WORD, -1, p) for p in primes], dtype=np.int64)
    half, digits = divmod((WORD * prod(primes) - 1) // 2, WORD)
    digits = [digits]
    for p in primes:
        half, digit = divmod(half, p)
        digits.append(digit)
    return Garner(word, inverses, np.uint64(digits[0]), np.array(digits[1:], dtype=np.int64))
