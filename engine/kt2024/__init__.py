"""Kill Team 2024, the primary ruleset (spec `kt2024.md`).

Pipeline of a shooting attack, one module per stage, in rule order:
`dice` (§3–§4 roll, Curse of Rot, re-rolls) → `attack` (§5 retention: Punishing ... Obscured) →
`defence` (§6 Piercing, cover, saves) → `allocation` (§7 R2 Just a Scratch, R3 saves) →
`damage` (§7 R1, R4–R9: Devastating, Relics, Durable, curse, Feel No Pain) → `shoot` (§8 rounds).
`canonical` holds the §11 canonical form and cache keys.
"""

from .scenario import Attacker, Defender, Shoot, ShootOptions
from .shoot import ShootResult, shoot

__all__ = ["Attacker", "Defender", "Shoot", "ShootOptions", "ShootResult", "shoot"]
