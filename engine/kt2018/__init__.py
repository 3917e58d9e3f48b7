"""Warhammer 40,000: Kill Team (2018) — one attacking model against one target (kt2018.md).

One module per stage of the attack sequence: `hit`, `wound`, `save`, `damage` (wounds lost and
the Injury roll it may trigger, with `injury`), then the modes built from them: `attacks`
(shooting and fight), `mortal` (mortal wounds), `psybolt`, `morale` (Nerve tests and break
checks). `state` holds the target's condition as an exact distribution and its outputs (§5);
`canonical` gives the cache key. Everything is exact (`Fraction`).
"""
