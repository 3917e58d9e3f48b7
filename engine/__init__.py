"""Pure combat mathematics: one subpackage per ruleset, no I/O, no web, no cache.

Every ruleset computes exact distributions by enumeration and combinatorics. Results carry
`fractions.Fraction` values when the caller asks for exact answers and floats otherwise.
"""

REVISION = 4
"""The engines' implementation revision, bumped whenever a fix changes a number they return for
an input whose canonical key (and so whose spec version) stays the same. The service salts its
shared cache keys with it, so that no replica serves what an older revision computed.

2 (2026-11-30): OPTIMAL's exact comparisons in kt2024 fights with Feel No Pain or Relics.
3 (2026-12-01): kt2024 shooting's float answers summed in another order (issue 17's new
shapes): the last bits of some floats differ (at most 8.6e-14 absolute over 2,000 random
scenarios), and of some float fights' (F4 in one home renumbers moments: at most 3.6e-15);
exact answers are the same Fractions.
4 (2026-12-01): kt2024 Saintly Relics over two or more rounds summed in closed form (issue
17): the last bits of those float answers differ (at most 2.8e-14 absolute on expected damage,
2.2e-16 on a probability, 23 of 600 scenarios); exact answers are the same Fractions.
"""
