"""GraphQL queries of kt2024: `shoot`, `fight`, bulk `matchups` and `matchupGrid`.

Inputs are derived from the registered modes' pydantic models (`service.graphql.inputs`), so
a field added to a model appears here without an edit. The attacker, defender and fighter
inputs also take the catalog references of `schema.references` (`operativeId`,
`weaponProfileId`, `weaponRules`). Resolvers hand the plain body to the service found in the
context (`info.context["service"]`), which expands references, validates, keys, caches and
computes exactly as for REST and the CLI, and raises GraphQL errors carrying the §12 members.

(No `from __future__ import annotations`: the input types are built at import, and strawberry
reads the resolvers' annotations as the objects themselves.)
"""

import functools
import logging
import typing
from typing import Any

import strawberry
from strawberry.types import Info
from strawberry.types.unset import UNSET

from schema import references, registry
from service.graphql.inputs import input_type, to_body
from service.graphql.outputs import answer_type, answer_types, tagged
from service.graphql.rulesets import mode_input, other_modes, query_name
from service.graphql.types import MatchupError, MatchupGrid

log = logging.getLogger("killmath.graphql")

RULESET = "kt2024"


def _model(mode: str) -> type | None:
    found = registry.modes(RULESET).get(mode)
    return found.model if found is not None else None


def _single(mode: str, model: type, fields: dict[str, Any], matchup: dict[str, Any]) -> type:
    """Add the query `<mode>` and the `MatchupInput` member `<mode>`; return their input type."""
    typed = input_type(model, f"Kt2024{mode.capitalize()}", nested=references.role_members)
    results = registry.modes(RULESET)[mode].results
    result = answer_type(results, f"Kt2024{mode.capitalize()}Result")

    async def resolver(info: Info, input: typed) -> result:
        answer = await info.context["service"].one(to_body(input), RULESET, mode)
        return tagged(results, answer.body(), answer.key, answer.cached)

    fields[mode] = strawberry.field(resolver=resolver, description=f"one kt2024 {mode}")
    matchup["__annotations__"][mode] = typed | None
    matchup[mode] = strawberry.field(default=UNSET)
    return typed


@functools.cache
def shoot_inputs() -> tuple[type, type, type, type]:
    """The kt2024 shooting attacker, defender, options and situation input types (the grid's
    and the team matchup's), built once (the shoot mode must be registered)."""
    parts = registry.modes(RULESET)["shoot"].model.model_fields
    attacker_in = input_type(
        parts["attacker"].annotation,
        "Kt2024ShootAttacker",
        references.role_members("attacker"),
    )
    defender_in = input_type(
        parts["defender"].annotation,
        "Kt2024ShootDefender",
        references.role_members("defender"),
    )
    options_in = input_type(parts["options"].annotation, "Kt2024ShootOptions")

    @strawberry.input(description="Overrides laid over every attacker/defender pair")
    class SituationInput:
        name: str | None = UNSET
        attacker: attacker_in | None = UNSET
        defender: defender_in | None = UNSET
        options: options_in | None = UNSET

    return attacker_in, defender_in, options_in, SituationInput


def build() -> type:
    """The kt2024 query type, typed by whichever kt2024 modes are registered with a model."""
    shoot_model, fight_model = _model("shoot"), _model("fight")
    fields: dict[str, Any] = {}
    matchup: dict[str, Any] = {"__annotations__": {}}

    if shoot_model is not None:
        _single("shoot", shoot_model, fields, matchup)
        attacker_in, defender_in, options_in, situation_in = shoot_inputs()

        async def matchup_grid(
            info: Info,
            attackers: list[attacker_in],
            defenders: list[defender_in],
            situations: list[situation_in] | None = UNSET,
            options: options_in | None = UNSET,
            at_least: list[int] | None = UNSET,
        ) -> MatchupGrid:
            body: dict[str, Any] = {
                "attackers": [to_body(a) for a in attackers],
                "defenders": [to_body(d) for d in defenders],
            }
            if situations:
                body["situations"] = [to_body(s) for s in situations]
            if options:
                body["options"] = to_body(options)
            if at_least:
                body["atLeast"] = list(at_least)
            return await info.context["service"].grid(body)

        fields["matchup_grid"] = strawberry.field(
            resolver=matchup_grid,
            description="every attacker × defender × situation (kt2024 shooting)",
        )

    if fight_model is not None:
        _single("fight", fight_model, fields, matchup)

    members: dict[str, registry.Mode] = {
        mode: registry.modes(RULESET)[mode] for mode in ("shoot", "fight") if mode in fields
    }
    for other in other_modes():
        name = query_name(other.ruleset, other.name)
        members[name] = other
        matchup["__annotations__"][name] = mode_input(other) | None
        description = f"a {other.ruleset} {other.name}"
        matchup[name] = strawberry.field(default=UNSET, description=description)
    matchup_input = strawberry.input(
        type("MatchupInput", (), matchup),
        one_of=True,
        description="exactly one matchup: a kt2024 shoot or fight, or any other ruleset's mode",
    )
    answers = [t for mode in members.values() for t in answer_types(mode.results)]
    matchup_result = typing.Annotated[
        typing.Union[(*dict.fromkeys(answers), MatchupError)],
        strawberry.union("MatchupResult"),
    ]

    async def matchups(info: Info, inputs: list[matchup_input]) -> list[matchup_result]:
        chosen: list[registry.Mode] = []
        envelopes: list[Any] = []
        for item in inputs:
            name, mode = next(
                (n, m) for n, m in members.items() if getattr(item, n, UNSET) not in (UNSET, None)
            )
            chosen.append(mode)
            body = to_body(getattr(item, name))
            envelopes.append({"ruleset": mode.ruleset, "mode": mode.name, **body})
        found = await info.context["service"].many(envelopes)
        return [
            MatchupError(**answer)
            if isinstance(answer, dict)
            else tagged(mode.results, answer.body(), answer.key, answer.cached)
            for mode, answer in zip(chosen, found, strict=True)
        ]

    fields["matchups"] = strawberry.field(
        resolver=matchups, description="many matchups at once; a bad one gets a MatchupError"
    )
    return strawberry.type(type("Kt2024Query", (), fields), name="Kt2024Query")


Kt2024Query = build()
