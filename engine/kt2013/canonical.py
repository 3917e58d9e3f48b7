"""Canonical form and cache key of a kt2013 attack.

Equivalent requests must share one cache key, so fields that cannot change any output in the
situation (§2.5: "accepted and ignored") are reset to their defaults, and inputs that only act
through a derived value are replaced by that value (Snap Shots → BS 1, cover + Stealth +
Shrouded → one cover save). Every rewrite leaves every output unchanged; the tests check this
against the engine on random attacks. `options.exact` stays in the key: exact and float-only
answers are cached apart.
"""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass, replace
from typing import Any

from engine.dice_expr import DiceExpr
from engine.kt2013.instant_death import causes_instant_death
from engine.kt2013.scenario import AUTO, Attack, Attacker, Model, Vehicle, Weapon
from engine.kt2013.special_rules import cover_save
from engine.kt2013.to_hit import hit_roll

ENGINE_VERSION = "kt2013-v1"


def _attacker(attack: Attack) -> Attacker:
    a, target = attack.attacker, attack.target
    vehicle = isinstance(target, Vehicle)
    return Attacker(
        ballistic_skill=(1 if a.snap_shots else a.ballistic_skill) if attack.shooting else None,
        weapon_skill=None if attack.shooting or vehicle else a.weapon_skill,
        preferred_enemy=a.preferred_enemy and (not vehicle or hit_roll(attack) is not None),
        monster_hunter=a.monster_hunter and not vehicle and target.monstrous_creature,
        tank_hunter=a.tank_hunter and vehicle,
        tank_hunter_reroll_glancing=a.tank_hunter_reroll_glancing and a.tank_hunter and vehicle,
        sniper=a.sniper and attack.shooting and not vehicle and not attack.weapon.sniper,
    )


def _weapon(attack: Attack) -> Weapon:
    w, target = attack.weapon, attack.target
    common = {
        "attacks": w.attacks,
        "master_crafted": w.master_crafted and hit_roll(attack) is not None,
        "sniper": w.sniper,
    }
    if isinstance(target, Vehicle):
        if w.haywire:
            return Weapon(strength=None, haywire=True, **common | {"sniper": False})
        if w.sniper:
            return Weapon(strength=None, **common)
        return Weapon(strength=w.strength, rending=w.rending, **common)
    return Weapon(
        strength=w.strength,
        ap=None if target.save is None else w.ap,
        rending=w.rending and not w.sniper,
        fleshbane=w.fleshbane,
        poisoned=w.poisoned,
        shred=w.shred,
        **common,
    )


def _target(attack: Attack) -> Model | Vehicle:
    """Cover is folded into `coverSave` alone; it is dropped where it cannot apply."""
    t = attack.target
    cover = {"cover_save": cover_save(attack), "stealth": False, "shrouded": False}
    if isinstance(t, Vehicle):
        hit_on = t.melee_hit_on if not attack.shooting else AUTO
        return replace(t, melee_hit_on=hit_on, **cover)
    instant_death = causes_instant_death(attack)
    strong_enough = attack.weapon.strength is not None and attack.weapon.strength >= 2 * t.toughness
    return replace(
        t,
        weapon_skill=None if attack.shooting else t.weapon_skill,
        feel_no_pain=None if instant_death else t.feel_no_pain,
        eternal_warrior=t.eternal_warrior and strong_enough,
        monstrous_creature=t.monstrous_creature and attack.attacker.monster_hunter,
        **cover,
    )


def canonical(attack: Attack) -> Attack:
    """The representative of every attack with the same outputs under these rewrites."""
    return replace(
        attack, attacker=_attacker(attack), weapon=_weapon(attack), target=_target(attack)
    )


def camel(name: str) -> str:
    """'ballistic_skill' -> 'ballisticSkill' (the API's member names)."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def as_json(value: Any) -> Any:
    """The request layout: camelCase members, every field present, DiceExpr as its string."""
    if isinstance(value, DiceExpr):
        return str(value)
    if is_dataclass(value):
        out = {camel(f.name): as_json(getattr(value, f.name)) for f in fields(value)}
        if isinstance(value, Model | Vehicle):
            out["vehicle"] = isinstance(value, Vehicle)
        return out
    return value


def cache_key(attack: Attack) -> str:
    """`kt2013-v1:<mode>:` + the canonical attack as JSON (sorted keys, no whitespace)."""
    body = as_json(canonical(attack))
    del body["mode"]
    return f"{ENGINE_VERSION}:{attack.mode}:" + json.dumps(
        body, sort_keys=True, separators=(",", ":")
    )
