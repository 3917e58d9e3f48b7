"""§11 canonical form of a fight (CF1–CF3) and its cache key.

Every rule rewrites a field that cannot change any output, so equivalent fights share one key:
CF1 clamps each fighter's attack dice as CS2 does; CF2 drops a Durable the opponent's crits
can never trigger (its critical damage is below 4); CF3 drops a Curse of Rot with nothing to
curse (the opponent rolls no dice). `options` stay as given, so `exact` is part of the key.
"""

from __future__ import annotations

from dataclasses import replace

from .allocation import durable_applies
from .attack import auto_retained
from .canonical import canonical_attack_dice, key
from .fighter import Fight, Fighter


def _against(me: Fighter, opponent: Fighter) -> Fighter:
    me = canonical_attack_dice(me)  # CF1
    if not durable_applies(me.durable, opponent.critical_damage):  # CF2
        me = replace(me, durable=False)
    if auto_retained(opponent)[2] == 0:  # CF3
        me = replace(me, curse_of_rot=False)
    return me


def canonical_fight(fight: Fight) -> Fight:
    """Apply CF1–CF3 to both fighters until nothing changes."""
    while True:
        a, b = fight.fighter_a, fight.fighter_b
        nxt = replace(fight, fighter_a=_against(a, b), fighter_b=_against(b, a))
        if nxt == fight:
            return fight
        fight = nxt


def fight_key(fight: Fight) -> str:
    """`kt2024-v2:fight:` + the canonical fight as sorted, whitespace-free JSON."""
    return key("fight", canonical_fight(fight))
