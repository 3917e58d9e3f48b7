"""The numeric helpers of both precisions agree with the obvious definitions."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from engine.kt2024 import precision as pr
from engine.kt2024.precision import Weights

big = st.lists(st.integers(0, 10**80), min_size=1, max_size=40)


def packed(x: list[int]) -> pr.Packed:
    return pr.lift(np.array(x, dtype=object), max(sum(x), 1), True)


@given(big, big, st.integers(1, 5))
def test_packed_exact_products_equal_numpy(x: list[int], y: list[int], k: int) -> None:
    a, b = np.array(x, dtype=object), np.array(y, dtype=object)
    assert pr.lower(pr.times(packed(x), packed(y))).tolist() == np.convolve(a, b).tolist()
    total = pr.plus(pr.scaled(packed(x), k), packed(y))
    assert pr.lower(total).tolist() == pr.plus(a * k, b).tolist()
    assert pr.head(total, 3) == pr.plus(a * k, b)[:3].tolist()


@given(big, st.integers(1, 5), st.integers(1, 60))
def test_packed_power_and_cut_equal_numpy(x: list[int], n: int, below: int) -> None:
    a, expected = np.array(x, dtype=object), np.ones(1, dtype=object)
    for _ in range(n):
        expected = np.convolve(expected, a)
    power = pr.power(packed(x), n)
    assert pr.lower(power).tolist() == expected.tolist()
    assert pr.lower(pr.cut(power, below)).tolist() == expected[:below].tolist()


floats = st.lists(st.floats(0, 1), min_size=1, max_size=60)


@given(floats, floats)
def test_float_products_are_numpys_convolution_bit_for_bit(x: list[float], y: list[float]) -> None:
    a, b = np.array(x), np.array(y)
    assert pr.times(a, b).tobytes() == np.convolve(a, b).tobytes()


@given(big, st.integers(1, 10**30))
def test_reduced_keeps_every_ratio(x: list[int], den: int) -> None:
    w = Weights(np.array(x, dtype=object), den)
    r = w.reduced()
    assert all(p * r.den == q * w.den for p, q in zip(w.num.tolist(), r.num.tolist(), strict=True))
