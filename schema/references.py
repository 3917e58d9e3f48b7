"""Catalog references in matchup inputs, resolved to inline profiles before validation.

The service calls `expand(envelope)` on every envelope (REST, GraphQL, batch, grid cells)
before `registry.resolve`, so a matchup that names catalog ids and the same matchup written
inline become one canonical engine input, one cache key and one answer.

A kt2024 role object may name catalog ids instead of spelling out a profile:

* `attacker`: `weaponProfileId` (a ranged profile; `operativeId` optional, checked if given);
* `defender`: `operativeId` (save, wounds, 3 defence dice, its defensive rules);
* `fighterA` / `fighterB`: `operativeId` and `weaponProfileId` (a melee profile of it), or
  `operativeId` alone: the operative fights without a weapon (as one with no melee weapon
  does) and cannot strike back: `attacks: 0`, its wounds and defensive rules.

Every other member of the object is a situational override (cover, obscured, ploys...) and
wins over the catalog's value. `weaponRules` adds rule text to the profile's own rules before
they are turned into fields, so a ploy granting Balanced to a Ceaseless weapon gives
CEASELESS_AND_BALANCED exactly as the combined datacard text would. Without ids,
`weaponRules` alone turns an inline attacker's or fighter's rule text into fields
(`{"attacks": 4, "weaponRules": "Lethal 5+, Prc1"}`). Every rule in it must be understood:
a silently ignored rule would give a wrong answer — unless the request says
`options.unknownRules: "IGNORE"`: then the matchup is computed without the rules that were
not understood (in `weaponRules` text, or a catalog profile's own, such as a kill team's
`*Poison`) and the answer lists them, verbatim, in `ignoredRules`. Unknown ids, a profile of
the wrong type, or a profile of another operative are InputErrors naming the field.

The rule parser (`schema.weapon_rules`, dozens of patterns compiled at import) is imported by
the functions that turn references into fields, not here: an inline envelope, the common case
of a batch line, never needs it (`killmath batch` start-up, issue 17).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from engine.errors import InputError
from schema.limits import rules_text

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

UNKNOWN_RULES = "unknownRules"  # the options member choosing the policy below
REFUSE = "REFUSE"
IGNORE = "IGNORE"
POLICIES = (REFUSE, IGNORE)
IGNORED = "ignoredRules"  # the answer member listing the rules IGNORE left out

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


class UnknownRules:
    """What to do with weapon rules that were not understood (`options.unknownRules`):
    REFUSE (the default) names them in an error; IGNORE computes without them and lists
    them, verbatim and in order, for the answer's `ignoredRules`."""

    def __init__(self, policy: str = REFUSE) -> None:
        self.ignore = policy == IGNORE
        self.ignored: list[str] = []

    def check(self, unknown: tuple[str, ...], field: str, message: str) -> None:
        if not unknown:
            return
        if not self.ignore:
            hint = f' (options.unknownRules: "{IGNORE}" computes without them)'
            raise InputError("INVALID_INPUT", field, message + hint)
        self.ignored.extend(unknown)  # listed once each by `ignored_by_roles`


def ignored_by_roles(ignored: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
    """A request's `ignoredRules` under IGNORE from the rules each of its roles ignored: in
    `ROLES` order, each rule once, where first met. `expand_rules` lists a request's so, and
    a grid its cells' from the parts it validated alone (`service.grid`)."""
    return tuple(dict.fromkeys(rule for role in ROLES for rule in ignored.get(role, ())))


def _policy(envelope: Mapping[str, Any]) -> tuple[str, Any]:
    """`options.unknownRules` and the options without it (the engine never sees it)."""
    options = envelope.get("options")
    if not isinstance(options, Mapping) or UNKNOWN_RULES not in options:
        return REFUSE, options
    policy = options[UNKNOWN_RULES]
    if policy not in POLICIES:
        raise InputError("INVALID_INPUT", f"options.{UNKNOWN_RULES}",
                         f"expected one of {list(POLICIES)}")  # fmt: skip
    return policy, {k: v for k, v in options.items() if k != UNKNOWN_RULES}


def _rule_fields(texts: list[str], role: str, rules: UnknownRules) -> dict[str, Any]:
    """Fields of weapon-rule text; rules not understood go to `rules` (refused or ignored)."""
    from schema.weapon_rules import parse_rules

    parsed = parse_rules(texts)
    reasons = {m.text: m.message for m in parsed.malformed}
    detail = "; ".join(f"{u!r}" + (f": {reasons[u]}" if u in reasons else "")
                       for u in parsed.unknown)  # fmt: skip
    rules.check(parsed.unknown, f"{role}.{EXTRA_RULES}", f"not understood: {detail}")
    return parsed.fields


def _extra_rules(body: Mapping[str, Any], role: str) -> str | None:
    """The role's rule text, within the cap (`schema.limits.rules_text`): the one door by
    which rule text enters a matchup, whichever route (REST, batch, grid, team matchup,
    GraphQL) sent it."""
    extra = body.get(EXTRA_RULES)
    if extra is None:
        return None
    if not isinstance(extra, str):
        raise InputError("INVALID_INPUT", f"{role}.{EXTRA_RULES}", "must be a string")
    return rules_text(extra, f"{role}.{EXTRA_RULES}")


def _weapon_fields(
    profile: WeaponProfile, body: Mapping[str, Any], role: str, rules: UnknownRules
) -> dict[str, Any]:
    """The profile's engine fields, with any extra rule text merged into its rules first."""
    from schema.weapon_rules import for_fighting, for_shooting, format_rules

    listed = ", ".join(repr(u) for u in profile.rules.unknown)
    rules.check(profile.rules.unknown, f"{role}.{PROFILE}",
                f"{profile.id!r} has weapon rules not understood: {listed}")  # fmt: skip
    fields = profile.attacker_fields()
    extra = _extra_rules(body, role)
    if extra is None:
        return fields
    combined = _rule_fields([format_rules(profile.rules.fields), extra], role, rules)
    only = for_shooting if profile.type == "ranged" else for_fighting
    base = {k: v for k, v in fields.items() if k not in profile.rules.fields}
    return {**base, **only(combined)}


def _expand_role(
    cat: Catalog, body: Mapping[str, Any], role: str, kind: str, rules: UnknownRules
) -> dict[str, Any]:
    from schema.weapon_rules import for_fighting, for_shooting

    overrides = {k: v for k, v in body.items() if k not in REFERENCE_KEYS}
    if kind == "defender":
        if PROFILE in body or EXTRA_RULES in body:
            bad = PROFILE if PROFILE in body else EXTRA_RULES
            raise InputError("INVALID_INPUT", f"{role}.{bad}", "a target takes only operativeId")
        op_id = _id(body, OPERATIVE, role)
        if op_id is None:
            raise InputError("INVALID_INPUT", f"{role}.{OPERATIVE}", "must be a string id")
        return {**_operative(cat, op_id, role).defender_fields(), **overrides}
    for key in (OPERATIVE, PROFILE):
        if key in body and body[key] is None:  # the schema says string: null is not absent
            raise InputError("INVALID_INPUT", f"{role}.{key}", "must be a string id")
    if _id(body, OPERATIVE, role) is None and _id(body, PROFILE, role) is None:
        # an inline profile with its rules as text: the members given explicitly win
        only = for_shooting if kind == "attacker" else for_fighting
        fields = _rule_fields([_extra_rules(body, role) or ""], role, rules)
        return {**only(fields), **overrides}
    if kind == "fighter" and PROFILE not in body and EXTRA_RULES not in body:
        # an operative named alone, as one with no melee weapon: it is fought, and cannot
        # strike back (no attack dice), as in the game
        operative = _operative(cat, str(_id(body, OPERATIVE, role)), role)
        return {**operative.fighter_fields(), "attacks": 0, **overrides}
    if kind == "attacker":
        profile = _profile(cat, body, role, "ranged")
        return {**_weapon_fields(profile, body, role, rules), **overrides}
    profile = _profile(cat, body, role, "melee")
    operative = cat.operatives[profile.operative_id]
    weapon = _weapon_fields(profile, body, role, rules)
    return {**operative.fighter_fields(), **weapon, **overrides}


def expand(envelope: Any) -> Any:
    """The envelope with every catalog reference replaced by its inline profile."""
    return expand_rules(envelope)[0]


def expand_rules(envelope: Any) -> tuple[Any, tuple[str, ...] | None]:
    """The envelope with every catalog reference replaced by its inline profile and
    `options.unknownRules` taken out, and the rules ignored (None unless IGNORE was asked).

    The canonical key is then that of the rules applied: an ignored rule is not in the
    envelope the engine sees. An envelope without references or policy is returned as is
    (the same object), so the common inline case costs one scan of a few keys.
    """
    if not isinstance(envelope, Mapping):
        return envelope, None
    ruleset = envelope.get("ruleset", "kt2024")
    if not isinstance(ruleset, str) or ruleset not in RULESETS:
        return envelope, None  # `registry.resolve` names what is wrong with the ruleset
    policy, options = _policy(envelope)
    referenced = [
        role
        for role in ROLES
        if isinstance(envelope.get(role), Mapping) and REFERENCE_KEYS & envelope[role].keys()
    ]
    if not referenced and options is envelope.get("options"):
        return envelope, None
    expanded = dict(envelope)
    if options is not envelope.get("options"):
        expanded["options"] = options
    ignored: dict[str, list[str]] = {}
    if referenced:
        from schema.catalog import catalog  # loaded when a request first names it

        cat = catalog(ruleset)
        for role in referenced:
            rules = UnknownRules(policy)
            expanded[role] = _expand_role(cat, envelope[role], role, ROLES[role], rules)
            ignored[role] = rules.ignored
    return expanded, ignored_by_roles(ignored) if policy == IGNORE else None


def with_ignored(answer: dict[str, Any], ignored: tuple[str, ...] | None) -> dict[str, Any]:
    """The answer with `ignoredRules` when the request asked for IGNORE (even if none were)."""
    return answer if ignored is None else {**answer, IGNORED: list(ignored)}
