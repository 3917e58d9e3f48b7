"""Kill Team 2013 (Warhammer 40,000 6th edition specialist rules), kt2013.md.

One model attacks one model with one weapon profile, shooting or in a fight. Each module is
one stage of the spec's sequences, so a rule change touches one file:

- `to_hit` (§3.1–3.3), `to_wound` (§3.4), `saves` (§3.5, §4.3), `instant_death` (§3.6),
  `removal` (§3.7 and the non-vehicle outputs of §6);
- `armour` (§4.2 armour penetration) and `hull_points` (§4.4 and the vehicle outputs of §6);
- `special_rules` (§5: the derived facts several stages share, such as "Sniper is active");
- `resolve` picks the sequence for the target; `canonical` gives the cache key.

Everything is exact (`fractions.Fraction`); the request layer turns results into floats.
"""

from engine.kt2013.canonical import ENGINE_VERSION, cache_key, canonical
from engine.kt2013.resolve import evaluate

__all__ = ["ENGINE_VERSION", "cache_key", "canonical", "evaluate"]
