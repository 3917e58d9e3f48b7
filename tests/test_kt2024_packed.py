"""Packed exact distributions (`precision.Packed`: GMP integers, Kronecker substitution) combine
exactly as plain integer convolution does, whatever their slots' sizes: one byte or many,
8 bytes or fewer (unpacked as uint64s) or more, given room (`lift`'s hint) or widened on
demand, operands of different sizes mixed. What leaves them is Python ints."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from engine.kt2024 import precision as pr

# numerators of up to 1, 2, 8, 9 and 40 bytes: every slot size class, each side of 8 bytes
TOPS = [2**8 - 1, 2**16 - 1, 2**64 - 1, 2**72 - 1, 2**320 - 1]


@st.composite
def distributions(draw: st.DrawFn) -> tuple[list[int], int, int]:
    """Non-negative numerators, their denominator (at least their sum), and a room hint."""
    top = draw(st.sampled_from(TOPS))
    num = draw(st.lists(st.integers(0, top), min_size=1, max_size=30))
    den = max(sum(num), 1) + draw(st.integers(0, top))
    room = draw(st.sampled_from([0, den, den**2, den**4 * 25]))
    return num, den, room


def packed(d: tuple[list[int], int, int]) -> pr.Packed:
    num, den, room = d
    return pr.lift(np.array(num, dtype=object), den, True, room)


def convolve(x: list[int], y: list[int]) -> list[int]:
    """The plain definition: out[i + j] += x[i]·y[j]."""
    out = [0] * (len(x) + len(y) - 1)
    for i, a in enumerate(x):
        for j, b in enumerate(y):
            out[i + j] += a * b
    return out


def add(x: list[int], y: list[int]) -> list[int]:
    longer, shorter = (x, y) if len(x) >= len(y) else (y, x)
    return [a + (shorter[i] if i < len(shorter) else 0) for i, a in enumerate(longer)]


def ints(x: pr.Packed) -> list[int]:
    """The numerators read back, checked to be Python ints (the answers' contract)."""
    out = pr.lower(x).tolist()
    assert all(type(v) is int for v in out)
    return out


@given(distributions(), distributions(), st.integers(1, 6))
def test_products_sums_and_scalings_equal_plain_arithmetic(a, b, k: int) -> None:
    x, y = a[0], b[0]
    assert ints(packed(a)) == x
    assert ints(pr.times(packed(a), packed(b))) == convolve(x, y)
    square = packed(a)
    assert ints(pr.times(square, square)) == convolve(x, x)
    assert ints(pr.scaled(packed(a), k)) == [k * v for v in x]
    assert ints(pr.plus(pr.scaled(packed(a), k), packed(b))) == add([k * v for v in x], y)


@given(distributions(), st.integers(1, 4), st.integers(1, 130))
def test_powers_cuts_and_sums_below_equal_plain_arithmetic(a, n: int, count: int) -> None:
    expected = [1]
    for _ in range(n):
        expected = convolve(expected, a[0])
    power = pr.power(packed(a), n)
    assert ints(power) == expected
    assert ints(pr.cut(power, count)) == expected[:count]
    assert pr.head(power, count) == expected[:count]
    below = pr.below(power, count)
    assert type(below) is int
    assert below == sum(expected[:count])


@given(st.integers(1, 40), st.integers(1, 12))
def test_a_sum_below_that_fills_its_slot(size: int, count: int) -> None:
    """`below`'s remainder modulo 256**size − 1 is 0 for a sum of exactly that: it is told
    apart from a sum of 0."""
    largest = 256**size - 1
    num = [largest // count] * (count - 1) + [largest - (largest // count) * (count - 1)]
    x = pr.lift(np.array([*num, 0], dtype=object), largest, True)
    assert x.size == size
    assert pr.below(x, count) == largest
    assert pr.below(pr.lift(np.array([0] * count + [1], dtype=object), 1, True), count) == 0


def test_arrays_sum_below_as_their_head() -> None:
    x = np.array([3, 4, 5], dtype=object)
    assert pr.below(x, 2) == 7
    assert type(pr.below(x, 2)) is int


def test_gmpy2_is_imported_only_by_a_packed_distribution() -> None:
    """Start-up (the command line, the service, float and one-round answers) never pays for
    gmpy2; an exact answer over several rounds imports it."""
    script = (
        "import sys\n"
        "from engine.kt2024 import Attacker, Defender, Shoot, ShootOptions, shoot\n"
        "a, d = Attacker(attacks=4, hit=3), Defender()\n"
        "shoot(Shoot(a, d, ShootOptions(rounds=3)))\n"
        "shoot(Shoot(a, d, ShootOptions(rounds=1, exact=True)))\n"
        "print('gmpy2' in sys.modules)\n"
        "shoot(Shoot(a, d, ShootOptions(rounds=2, exact=True)))\n"
        "print('gmpy2' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "True"]
