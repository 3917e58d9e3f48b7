"""§11 canonical form: equivalent scenarios collapse to one value, hence one cache key.

Each rule rewrites fields that cannot change any output into a fixed value. The rules run in
order and the list repeats until nothing changes. The key is `"kt2024-v2:<mode>:"` + the
canonical object as JSON (camelCase members, keys sorted at every level, no whitespace).

The rules work on plain dicts of the dataclass fields: a cache key is computed for every
request, and rebuilding frozen dataclasses rule by rule would cost more than the lookup saves.
"""

from __future__ import annotations

import json
from dataclasses import fields, is_dataclass, replace
from functools import cache, lru_cache
from typing import Any, TypeVar

from .scenario import AttackDice, Attacker, Defender, Shoot, camel

ENGINE_VERSION = "kt2024-v2"

D = TypeVar("D", bound=AttackDice)
Fields = dict[str, Any]


@cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def member_fields(obj: Any) -> Fields:
    """A scenario member's fields as the plain dict the rules rewrite (a copy is rewritten)."""
    return {name: getattr(obj, name) for name in _names(type(obj))}


ATTACKER_DEFAULTS = member_fields(Attacker())
DEFENDER_DEFAULTS = member_fields(Defender())


def cs2(a: Fields) -> None:
    """CS2 (and CF1 for fighters): clamp auto-retained dice; drop roll rules when none roll."""
    a["auto_crits"] = min(a["auto_crits"], a["attacks"])
    a["accurate"] = min(a["accurate"], a["attacks"] - a["auto_crits"])
    a["lethal"] = max(a["lethal"], a["hit"])
    rolled = a["attacks"] - a["auto_crits"] - a["accurate"]
    if rolled == 0:
        a.update(hit=3, lethal=6, reroll="NONE", punishing=False, purity_seal=False)
        a.update(close_assault=False, rending=False, mystic_scry=False)
    a["fails_to_norms"] = min(a["fails_to_norms"], rolled)
    a["norms_to_crits"] = min(a["norms_to_crits"], rolled)


def canonical_attack_dice(d: D) -> D:
    """CS2 on any attack-dice dataclass (a shooting attacker or a fighter)."""
    values = member_fields(d)
    cs2(values)
    return replace(d, **values)


def cs1(a: Fields, d: Fields) -> None:
    """CS1: with no attack dice only the defence dice (and so only Curse of Rot) can matter."""
    if a["attacks"] != 0:
        return
    curse, piercing, saturate = a["curse_of_rot"], a["piercing"], a["saturate"]
    a.update(ATTACKER_DEFAULTS, attacks=0)
    kept = {}
    if curse:
        invulnerable = d["invulnerable_save"]
        a.update(curse_of_rot=True, piercing=0 if invulnerable is not None else piercing)
        kept = {
            "defence_dice": d["defence_dice"],
            "wounds": d["wounds"],
            "cover_saves": 0 if saturate else d["cover_saves"],
            "cover_crit_saves": 0 if saturate else d["cover_crit_saves"],
            "feel_no_pain": d["feel_no_pain"],
            "invulnerable_save": None if invulnerable is None else 6,
        }
    d.update(DEFENDER_DEFAULTS, **kept)


def cs3(a: Fields) -> None:
    """CS3: under Obscured crits become normals, so nothing that needs a crit can matter."""
    if not a["obscured"]:
        return
    a.update(rending=False, punishing=False, severe=False, norms_to_crits=0, devastating=0)
    a.update(piercing_crits=0, critical_damage=0)
    a["elite_moderate"] = a["elite_moderate"] or a["elite_extreme"]
    a["elite_extreme"] = False
    a["accurate"] += a["auto_crits"]
    a["auto_crits"] = 0
    if a["reroll"] != "CRIT_FISH":
        a["lethal"] = 6


def cs4(a: Fields, d: Fields) -> None:
    """CS4: Piercing beyond the defence dice, or under an invulnerable save, is moot."""
    a["piercing"] = min(a["piercing"], d["defence_dice"])
    a["piercing_crits"] = min(a["piercing_crits"], d["defence_dice"])
    if a["piercing_crits"] <= a["piercing"]:
        a["piercing_crits"] = 0
    if d["invulnerable_save"] is not None:
        a["piercing"] = a["piercing_crits"] = 0


def cs5(a: Fields, d: Fields) -> None:
    """CS5: Saturate removes cover; cover is capped by the defence dice."""
    if a["saturate"]:
        a["saturate"] = False
        d["cover_saves"] = d["cover_crit_saves"] = 0
    d["cover_crit_saves"] = min(d["cover_crit_saves"], d["defence_dice"])
    d["cover_saves"] = min(d["cover_saves"], d["defence_dice"] - d["cover_crit_saves"])


def cs6(a: Fields, d: Fields) -> None:
    """CS6: Durable only reduces crits of 4+ damage."""
    if a["critical_damage"] <= 3:
        d["durable"] = False


def cs7(a: Fields, d: Fields) -> None:
    """CS7: save thresholds, and rules of rolled defence dice when none are rolled."""
    if d["invulnerable_save"] is not None:
        d["crit_save"] = max(d["crit_save"], d["invulnerable_save"])
        d["save"] = 3
    else:
        d["crit_save"] = max(d["crit_save"], d["save"])
    rolled = d["defence_dice"] - d["cover_crit_saves"] - d["cover_saves"]
    d["fails_to_norms"] = min(d["fails_to_norms"], rolled)
    d["norms_to_crits"] = min(d["norms_to_crits"], rolled)
    if rolled == 0:
        d.update(reroll="NONE", indomitus=False, crit_save=6, save=3)
        if d["invulnerable_save"] is not None:
            d["invulnerable_save"] = 6
        a["curse_of_rot"] = False


def _canonical_fields(s: Shoot) -> tuple[Fields, Fields]:
    """CS1–CS7 on a scenario's attacker and defender."""
    return canonical_pair(member_fields(s.attacker), member_fields(s.defender))


def canonical_pair(attacker: Fields, defender: Fields) -> tuple[Fields, Fields]:
    """CS1–CS7 in order, repeated until nothing changes, on copies of the members' fields
    (`member_fields`): a grid takes each profile's fields once and pairs them cell by cell."""
    a, d = dict(attacker), dict(defender)
    while True:
        before = (dict(a), dict(d))
        cs1(a, d)
        cs2(a)
        cs3(a)
        cs4(a, d)
        cs5(a, d)
        cs6(a, d)
        cs7(a, d)
        if (a, d) == before:
            return a, d


def canonical_shoot(s: Shoot) -> Shoot:
    """The canonical scenario equivalent to `s` (same results, one cache key)."""
    a, d = _canonical_fields(s)
    return Shoot(Attacker(**a), Defender(**d), s.options)


def as_json(value: Any) -> Any:
    """A scenario dataclass as plain JSON data with the API's camelCase member names."""
    if is_dataclass(value):
        return {camel(name): as_json(getattr(value, name)) for name in _names(type(value))}
    return value


def key(mode: str, scenario: Any) -> str:
    """`<engine version>:<mode>:` + canonical JSON (sorted keys, no whitespace)."""
    return _key(mode, _json(as_json(scenario)))


def _key(mode: str, body: str) -> str:
    """The key of a scenario whose canonical JSON is `body`."""
    return f"{ENGINE_VERSION}:{mode}:{body}"


def _json(body: Any) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"))


def shoot_key(s: Shoot) -> str:
    return fields_key(member_fields(s.attacker), member_fields(s.defender), s.options)


def fields_key(attacker: Fields, defender: Fields, options: Any) -> str:
    """`shoot_key` of a scenario given as its members' fields (`member_fields`) and options.

    The key is `key`'s for the scenario: its body `{"attacker": …, "defender": …,
    "options": …}` names its members in sorted order already, so it is spelled from each
    member's own canonical JSON, memoised on the member's values. A grid's thousands of
    cells share few canonical members (one profile meets many targets). The memo takes the
    values to be of their declared types, as validation makes them: `True == 1`, a bool
    where an int is declared would share the int's JSON."""
    a, d = canonical_pair(attacker, defender)
    return _key(
        "shoot",
        f'{{"attacker":{_member_json(Attacker, tuple(a.values()))},'
        f'"defender":{_member_json(Defender, tuple(d.values()))},'
        f'"options":{_member_json(type(options), tuple(member_fields(options).values()))}}}',
    )


@lru_cache(maxsize=4096)
def _member_json(kind: type, values: tuple[Any, ...]) -> str:
    """One flat member (attacker, defender, options) as canonical JSON, from its values in
    the order of its dataclass's fields."""
    return _json({camel(name): value for name, value in zip(_names(kind), values, strict=True)})
