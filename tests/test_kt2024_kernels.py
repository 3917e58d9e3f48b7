"""The exact arithmetic of the compiled fight loops against Python's integers.

OPTIMAL's exact comparisons and exact mode's masses rest on two small pieces of `kernels`:
`mulmod` (a product modulo a prime below 2**31, its quotient estimated in floats) and
`exact_sign` (the sign of an integer from its residues modulo 2**64 and some primes, by
Garner's mixed-radix digits).
"""

from __future__ import annotations

from math import prod

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.kt2024 import kernels
from engine.kt2024.flat import garner
from engine.kt2024.primes import PRIMES


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(PRIMES[:8] + PRIMES[-2:]), st.data())
def test_mulmod_is_the_product_modulo_the_prime(p: int, data: st.DataObject) -> None:
    residue = st.integers(0, p - 1) | st.sampled_from([0, 1, p - 1, p - 2])
    a, b = data.draw(residue), data.draw(residue)
    assert kernels.mulmod(a, b, p, 1.0 / p) == a * b % p


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 5), st.data())
def test_exact_sign_recovers_the_sign_of_a_small_enough_integer(
    k: int, data: st.DataObject
) -> None:
    primes = PRIMES[:k] if data.draw(st.booleans()) else PRIMES[-k:] if k else ()
    half_range = (2**64 * prod(primes) - 1) // 2
    edges = [0, 1, -1, 2**63, -(2**63), 2**64, -(2**64), half_range, -half_range]
    n = data.draw(
        st.integers(-half_range, half_range)
        | st.sampled_from([e for e in edges if abs(e) <= half_range])
    )
    residues = np.array([n % p for p in primes], dtype=np.int64)
    column = np.array(primes, dtype=np.int64)
    sign = kernels.exact_sign(np.uint64(n % 2**64), residues, column, garner(primes))
    assert sign == (n > 0) - (n < 0)
