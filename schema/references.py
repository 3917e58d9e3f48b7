"""Catalog references in matchup inputs, resolved to inline profiles before validation.

The service calls `expand(envelope)` on every envelope (REST, GraphQL, batch, grid cells)
before `registry.resolve`, so a matchup that names catalog ids and the same matchup written
inline become one canonical engine input, one cache key and one answer.

A kt2024 role object may name catalog ids instead of spelling out a profile:

* `attacker`: `weaponProfileId` (a ranged profile; `operativeId` optional, checked if given);
* `defender`: `operativeId` (save, wounds, 3 defence dice, its defensive rules);
* `fighterA` / `fighterB`: `operativeId` and `weaponProfileId` (a melee profile of it).

Every other member of the object is a situational override (cover, obscured, ploys...) and
wins over the catalog's value. `weaponRules` adds rule text to the profile's own rules before
they are turned into fields, so a ploy granting Balanced to a Ceaseless weapon gives
CEASELESS_AND_BALANCED exactly as the combined datacard text would. Without ids,
`weaponRules` alone turns an inline attacker's or fighter's rule text into fields
(`{"attacks": 4, "weaponRules": "Lethal 5+, Prc1"}`). Every rule in it must be understood:
a silently ignored rule would give a wrong answer. Unknown ids, a profile of
the wrong type, or a profile of another operative are InputErrors naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from engine.errors import InputError
from schema.weapon_rules import for_fighting, for_shooting, format_rules, parse_rules

if TYPE_CHECKING:
    from schema.catalog import Catalog, Operative, WeaponProfile

OPERATIVE = "operativeId"
PROFILE = "weaponProfileId"
EXTRA_RULES = "weaponRules"
REFERENCE_KEYS = frozenset({OPERATIVE, PROFILE, EXTRA_RULES})

# role member -> what it needs: "attacker" (ranged profile), "defender", "fighter" (melee)
ROLES: dict[str, str] = {
    "attacker": "attacker",
    "defender": "defender",
    "fighterA": "fighter",
    "fighterB": "fighter",
}

RULESETS = frozenset({"kt2024"})

# what each kind of role object may name, with the meaning typed APIs (GraphQL) show for it
MEMBERS: dict[str, str] = {
    OPERATIVE: "catalog operative id (`GET /v1/operatives`)",
    PROFILE: "catalog weapon profile id; its statline and rules fill the profile",
    EXTRA_RULES: "weapon-rule text added to the profile's rules (`Lethal 5+, Prc1`)",
}
KIND_MEMBERS: dict[str, tuple[str, ...]] = {
    "attacker": (OPERATIVE, PROFILE, EXTRA_RULES),
    "defender": (OPERATIVE,),
    "fighter": (OPERATIVE, PROFILE, EXTRA_RULES),
}


def role_members(role: str) -> dict[str, str]:
    """The reference members a role object (`attacker`, `fighterA`...) accepts, described."""
    kind = ROLES.get(role)
    return {m: MEMBERS[m] for m in KIND_MEMBERS[kind]} if kind else {}


def _id(body: Mapping[str, Any], key: str, role: str) -> str | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise InputError("INVALID_INPUT", f"{role}.{key}", "must be a string id")
    return value


def _operative(cat: Catalog, op_id: str, role: str) -> Operative:
    try:
        return cat.operatives[op_id]
    except KeyError:
        raise InputError(
            "INVALID_INPUT", f"{role}.{OPERATIVE}", f"unknown operative {op_id!r}"
        ) from None


def _profile(cat: Catalog, body: Mapping[str, Any], role: str, kind: str) -> WeaponProfile:
    profile_id = _id(body, PROFILE, role)
    field = f"{role}.{PROFILE}"
    if profile_id is None:
        raise InputError("INVALID_INPUT", field, "weaponProfileId is required with operativeId")
    profile = cat.profiles.get(profile_id)
    if profile is None:
        raise InputError("INVALID_INPUT", field, f"unknown weapon profile {profile_id!r}")
    if profile.type != kind:
        use = "shooting" if kind == "ranged" else "a fight"
        raise InputError("INVALID_INPUT", field, f"{profile_id!r} is {profile.type}; {use} "
                         f"needs a {kind} profile")  # fmt: skip
    op_id = _id(body, OPERATIVE, role)
    if op_id is not None:
        _operative(cat, op_id, role)
        if profile.operative_id != op_id:
            raise InputError("INVALID_INPUT", field, f"{profile_id!r} is not a weapon of {op_id!r}")
    return profile


def _rule_fields(texts: list[str], role: str) -> dict[str, Any]:
    """Fields of weapon-rule text, all of which must be understood."""
    parsed = parse_rules(texts)
    if parsed.unknown:
        reasons = {m.text: m.message for m in parsed.malformed}
        detail = "; ".join(f"{u!r}" + (f": {reasons[u]}" if u in reasons else "")
                           for u in parsed.unknown)  # fmt: skip
        raise InputError("INVALID_INPUT", f"{role}.{EXTRA_RULES}", f"not understood: {detail}")
    return parsed.fields


def _extra_rules(body: Mapping[str, Any], role: str) -> str | None:
    extra = body.get(EXTRA_RULES)
    if extra is not None and not isinstance(extra, str):
        raise InputError("INVALID_INPUT", f"{role}.{EXTRA_RULES}", "must be a string")
    return extra


def _weapon_fields(profile: WeaponProfile, body: Mapping[str, Any], role: str) -> dict[str, Any]:
    """The profile's engine fields, with any extra rule text merged into its rules first."""
    fields = profile.attacker_fields()
    extra = _extra_rules(body, role)
    if extra is None:
        return fields
    combined = _rule_fields([format_rules(profile.rules.fields), extra], role)
    only = for_shooting if profile.type == "ranged" else for_fighting
    base = {k: v for k, v in fields.items() if k not in profile.rules.fields}
    return {**base, **only(combined)}


def _expand_role(cat: Catalog, body: Mapping[str, Any], role: str, kind: str) -> dict[str, Any]:
    overrides = {k: v for k, v in body.items() if k not in REFERENCE_KEYS}
    if kind == "defender":
        if PROFILE in body or EXTRA_RULES in body:
            bad = PROFILE if PROFILE in body else EXTRA_RULES
            raise InputError("INVALID_INPUT", f"{role}.{bad}", "a target takes only operativeId")
        op_id = _id(body, OPERATIVE, role)
        if op_id is None:
            raise InputError("INVALID_INPUT", f"{role}.{OPERATIVE}", "must be a string id")
        return {**_operative(cat, op_id, role).defender_fields(), **overrides}
    if _id(body, OPERATIVE, role) is None and _id(body, PROFILE, role) is None:
        # an inline profile with its rules as text: the members given explicitly win
        only = for_shooting if kind == "attacker" else for_fighting
        return {**only(_rule_fields([_extra_rules(body, role) or ""], role)), **overrides}
    if kind == "attacker":
        profile = _profile(cat, body, role, "ranged")
        return {**_weapon_fields(profile, body, role), **overrides}
    profile = _profile(cat, body, role, "melee")
    operative = cat.operatives[profile.operative_id]
    return {**operative.fighter_fields(), **_weapon_fields(profile, body, role), **overrides}


def expand(envelope: Any) -> Any:
    """The envelope with every catalog reference replaced by its inline profile.

    An envelope without references is returned as is (the same object), so the common inline
    case costs one scan of a few keys.
    """
    if not isinstance(envelope, Mapping):
        return envelope
    ruleset = envelope.get("ruleset", "kt2024")
    if not isinstance(ruleset, str) or ruleset not in RULESETS:
        return envelope  # `registry.resolve` names what is wrong with the ruleset
    referenced = [
        role
        for role in ROLES
        if isinstance(envelope.get(role), Mapping) and REFERENCE_KEYS & envelope[role].keys()
    ]
    if not referenced:
        return envelope
    from schema.catalog import catalog  # loaded when a request first names it, not at start-up

    cat = catalog(ruleset)
    expanded = dict(envelope)
    for role in referenced:
        expanded[role] = _expand_role(cat, envelope[role], role, ROLES[role])
    return expanded
