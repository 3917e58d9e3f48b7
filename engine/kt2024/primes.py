"""The primes exact fight arithmetic works modulo: the largest below 2**31, so that a residue
times a residue fits a signed 64-bit integer."""

from __future__ import annotations


def is_prime(n: int) -> bool:
    """Miller–Rabin with bases 2, 3, 5 and 7: deterministic below 3,215,031,751."""
    if n < 2 or n % 2 == 0:
        return n == 2
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for base in (2, 3, 5, 7):
        x = pow(base, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def largest_below(bound: int, count: int) -> tuple[int, ...]:
    found: list[int] = []
    n = bound - 1
    while len(found) < count:
        if is_prime(n):
            found.append(n)
        n -= 1
    return tuple(found)


PRIMES = largest_below(2**31, 192)
"""192 primes: their product exceeds 6**2200, beyond any numerator of a §12 fight."""
