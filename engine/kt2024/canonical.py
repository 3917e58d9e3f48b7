"""§11 canonical form: equivalent scenarios collapse to one value, hence one cache key.

Each rule rewrites fields that cannot change any output into a fixed value. The rules run in
order and the list repeats until nothing changes. The key is `"kt2024-v2:<mode>:"` + the
canonical object as JSON (camelCase members, keys sorted at every level, no whitespace).
"""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass, replace
from typing import Any, TypeVar

from .attack import auto_retained
from .scenario import AttackDice, Attacker, Defender, Shoot, camel

ENGINE_VERSION = "kt2024-v2"

D = TypeVar("D", bound=AttackDice)


def canonical_attack_dice(d: D) -> D:
    """CS2 (and CF1 for fighters): clamp auto-retained dice; drop roll rules when none roll."""
    auto_crits = min(d.auto_crits, d.attacks)
    d = replace(
        d,
        auto_crits=auto_crits,
        accurate=min(d.accurate, d.attacks - auto_crits),
        lethal=max(d.lethal, d.hit),
    )
    rolled = auto_retained(d)[2]
    if rolled == 0:
        d = replace(
            d,
            hit=3,
            lethal=6,
            reroll="NONE",
            punishing=False,
            purity_seal=False,
            close_assault=False,
            rending=False,
            mystic_scry=False,
        )
    return replace(
        d,
        fails_to_norms=min(d.fails_to_norms, rolled),
        norms_to_crits=min(d.norms_to_crits, rolled),
    )


def _no_attacks(s: Shoot) -> Shoot:
    """CS1: with no attack dice only the defence dice (and so only Curse of Rot) can matter."""
    a, d = s.attacker, s.defender
    if a.attacks != 0:
        return s
    if not a.curse_of_rot:
        return replace(s, attacker=Attacker(attacks=0), defender=Defender())
    cover = (0, 0) if a.saturate else (d.cover_saves, d.cover_crit_saves)
    invulnerable = d.invulnerable_save
    return replace(
        s,
        attacker=Attacker(
            attacks=0, curse_of_rot=True, piercing=0 if invulnerable is not None else a.piercing
        ),
        defender=Defender(
            defence_dice=d.defence_dice,
            wounds=d.wounds,
            cover_saves=cover[0],
            cover_crit_saves=cover[1],
            feel_no_pain=d.feel_no_pain,
            invulnerable_save=None if invulnerable is None else 6,
        ),
    )


def _obscured(a: Attacker) -> Attacker:
    """CS3: under Obscured crits become normals, so nothing that needs a crit can matter."""
    if not a.obscured:
        return a
    return replace(
        a,
        rending=False,
        punishing=False,
        severe=False,
        norms_to_crits=0,
        devastating=0,
        piercing_crits=0,
        critical_damage=0,
        elite_extreme=False,
        elite_moderate=a.elite_moderate or a.elite_extreme,
        accurate=a.accurate + a.auto_crits,
        auto_crits=0,
        lethal=a.lethal if a.reroll == "CRIT_FISH" else 6,
    )


def _piercing(a: Attacker, d: Defender) -> Attacker:
    """CS4: Piercing beyond the defence dice, or under an invulnerable save, is moot."""
    pierce = min(a.piercing, d.defence_dice)
    pierce_crits = min(a.piercing_crits, d.defence_dice)
    if pierce_crits <= pierce:
        pierce_crits = 0
    if d.invulnerable_save is not None:
        pierce = pierce_crits = 0
    return replace(a, piercing=pierce, piercing_crits=pierce_crits)


def _cover(a: Attacker, d: Defender) -> tuple[Attacker, Defender]:
    """CS5: Saturate removes cover; cover is capped by the defence dice."""
    if a.saturate:
        a, d = replace(a, saturate=False), replace(d, cover_saves=0, cover_crit_saves=0)
    cover_crits = min(d.cover_crit_saves, d.defence_dice)
    return a, replace(
        d,
        cover_crit_saves=cover_crits,
        cover_saves=min(d.cover_saves, d.defence_dice - cover_crits),
    )


def _saves(a: Attacker, d: Defender) -> tuple[Attacker, Defender]:
    """CS6–CS7: Durable needs 4+ crit damage; save thresholds and rolled-dice rules."""
    if a.critical_damage <= 3:
        d = replace(d, durable=False)
    if d.invulnerable_save is not None:
        d = replace(d, crit_save=max(d.crit_save, d.invulnerable_save), save=3)
    else:
        d = replace(d, crit_save=max(d.crit_save, d.save))
    rolled = d.defence_dice - d.cover_crit_saves - d.cover_saves
    d = replace(
        d,
        fails_to_norms=min(d.fails_to_norms, rolled),
        norms_to_crits=min(d.norms_to_crits, rolled),
    )
    if rolled == 0:
        d = replace(
            d,
            reroll="NONE",
            indomitus=False,
            crit_save=6,
            save=3,
            invulnerable_save=None if d.invulnerable_save is None else 6,
        )
        a = replace(a, curse_of_rot=False)
    return a, d


def _pass(s: Shoot) -> Shoot:
    s = _no_attacks(s)
    a, d = s.attacker, s.defender
    a = _obscured(canonical_attack_dice(a))
    a = _piercing(a, d)
    a, d = _cover(a, d)
    a, d = _saves(a, d)
    return replace(s, attacker=a, defender=d)


def canonical_shoot(s: Shoot) -> Shoot:
    """Apply CS1–CS7 until nothing changes."""
    while True:
        nxt = _pass(s)
        if nxt == s:
            return nxt  # (equality ignores the defender's wounds; CS1 may reset them)
        s = nxt


def as_json(value: Any) -> Any:
    """A scenario dataclass as plain JSON data with the API's camelCase member names."""
    if is_dataclass(value):
        return {camel(f.name): as_json(getattr(value, f.name)) for f in fields(value)}
    return value


def key(mode: str, scenario: Any) -> str:
    """`<engine version>:<mode>:` + canonical JSON (sorted keys, no whitespace)."""
    body = json.dumps(as_json(scenario), sort_keys=True, separators=(",", ":"))
    return f"{ENGINE_VERSION}:{mode}:{body}"


def shoot_key(s: Shoot) -> str:
    return key("shoot", canonical_shoot(s))


__all__ = ["ENGINE_VERSION", "canonical_attack_dice", "canonical_shoot", "key", "shoot_key"]
