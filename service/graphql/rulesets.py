"""GraphQL queries of every ruleset: `rulesets`, and one query per ruleset and mode.

kt2024's shoot and fight are `service.graphql.kt2024`'s. Every other (ruleset, mode) gets a
query named `<ruleset><Mode>` (`kt2018Shooting`, `thresholdAttack`) whose input is derived
from the mode's pydantic model (`service.graphql.inputs`) and whose answer is the mode's answer
model as a GraphQL type (`service.graphql.outputs`), with `canonicalKey` and `cached`; a
union where the mode answers in several shapes (kt2013: `Kt2013ModelResult` or
`Kt2013VehicleResult`). A mode must be registered with its model and result models to be
served here. A ruleset whose module fails to import is left out of the schema (and logged)
rather than taking the whole API down.

(No `from __future__ import annotations`: see `service.graphql.kt2024`.)
"""

import logging
from typing import Any

import strawberry
from strawberry.types import Info

from schema import registry
from service.graphql.inputs import input_type, to_body
from service.graphql.outputs import answer_type, tagged

log = logging.getLogger("killmath.graphql")

TYPED_ELSEWHERE = {("kt2024", "shoot"), ("kt2024", "fight")}


@strawberry.type(description="A ruleset and its modes")
class Ruleset:
    name: str
    modes: list[str]


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_"))


def available() -> dict[str, dict[str, registry.Mode]]:
    found = {}
    for name in registry.RULESET_MODULES:
        try:
            found[name] = registry.modes(name)
        except ImportError:
            log.exception("ruleset %s is unavailable", name)
    return found


def query_name(ruleset: str, mode: str) -> str:
    return f"{ruleset}{_pascal(mode)}"


def mode_input(mode: registry.Mode) -> type:
    """The input type of a mode's body."""
    assert mode.model is not None, f"{mode.ruleset} {mode.name} has no model"
    return input_type(mode.model, _pascal(query_name(mode.ruleset, mode.name)))


def mode_answer(mode: registry.Mode) -> Any:
    """The GraphQL type of a mode's answer (a union for several result models)."""
    assert mode.results, f"{mode.ruleset} {mode.name} declares no result model"
    return answer_type(mode.results, _pascal(query_name(mode.ruleset, mode.name)) + "Result")


def other_modes() -> list[registry.Mode]:
    """Every mode served by this module, in schema order."""
    return [
        mode
        for ruleset, modes in available().items()
        for name, mode in sorted(modes.items())
        if (ruleset, name) not in TYPED_ELSEWHERE
    ]


def _query(mode: registry.Mode) -> Any:
    typed, answer = mode_input(mode), mode_answer(mode)

    async def resolver(info: Info, input: typed) -> answer:
        found = await info.context["service"].one(to_body(input), mode.ruleset, mode.name)
        return tagged(mode.results, found.output, found.key, found.cached)

    return strawberry.field(resolver=resolver, description=f"one {mode.ruleset} {mode.name}")


def build() -> type:
    every = available()

    def rulesets() -> list[Ruleset]:
        return [Ruleset(name=n, modes=sorted(m)) for n, m in every.items()]

    fields: dict[str, Any] = {
        "rulesets": strawberry.field(resolver=rulesets, description="every ruleset and its modes")
    }
    for mode in other_modes():
        fields[query_name(mode.ruleset, mode.name)] = _query(mode)
    return strawberry.type(type("RulesetQuery", (), fields), name="RulesetQuery")


RulesetQuery = build()
