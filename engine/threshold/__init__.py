"""Ruleset `threshold`: a d12 damage-threshold system (threshold.md).

One HP pool per unit; an attack that beats the DC costs 1, 2 or 3 HP (4 for a Centrepiece's
Devastating Wounds) depending on which Damage threshold it reaches. Modes: `attack`,
`deadlyDemise`, `heal`. Everything is exact: integer face counts, Fractions at the end.
"""

from __future__ import annotations

ENGINE_VERSION = "threshold-v1"
