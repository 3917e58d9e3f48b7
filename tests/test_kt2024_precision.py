"""The numeric helpers of both precisions agree with the obvious definitions."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from engine.kt2024.precision import Weights, convolve

big = st.lists(st.integers(0, 10**80), min_size=1, max_size=40)


@given(big, big)
def test_packed_exact_convolution_equals_numpy(x: list[int], y: list[int]) -> None:
    a, b = np.array(x, dtype=object), np.array(y, dtype=object)
    assert convolve(a, b).tolist() == np.convolve(a, b).tolist()


@given(big, st.integers(1, 10**30))
def test_reduced_keeps_every_ratio(x: list[int], den: int) -> None:
    w = Weights(np.array(x, dtype=object), den)
    r = w.reduced()
    assert all(p * r.den == q * w.den for p, q in zip(w.num.tolist(), r.num.tolist(), strict=True))
