"""GraphQL queries of every ruleset: `rulesets`, and one query per ruleset and mode.

kt2024 has fully typed answers (`schema.graphql_kt2024`). Every other (ruleset, mode) gets a
query named `<ruleset><Mode>` (`kt2018Shoot`, `thresholdAttack`) whose input is derived from
the mode's pydantic model and whose answer is `RulesetResult`: the answer as a JSON scalar,
exactly as REST and the CLI return it, plus `canonicalKey` and `cached`. A mode registered
without a model takes its body as JSON. A ruleset whose module fails to import is left out
of the schema (and logged) rather than taking the whole API down.

(No `from __future__ import annotations`: see `schema.graphql_kt2024`.)
"""

import logging
from typing import Any

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from schema import registry
from schema.graphql_inputs import input_type, to_body
from schema.graphql_types import RulesetResult

log = logging.getLogger("killmath.graphql")

TYPED_ELSEWHERE = {("kt2024", "shoot"), ("kt2024", "fight")}


@strawberry.type(description="A ruleset and its modes")
class Ruleset:
    name: str
    modes: list[str]


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("-", "_").split("_"))


def _available() -> dict[str, dict[str, registry.Mode]]:
    found = {}
    for name in registry.RULESET_MODULES:
        try:
            found[name] = registry.modes(name)
        except ImportError:
            log.exception("ruleset %s is unavailable", name)
    return found


def _query(ruleset: str, mode: registry.Mode) -> Any:
    """A resolver for one (ruleset, mode), its input typed by the mode's model when it has one."""
    name = f"{ruleset}{_pascal(mode.name)}"
    if mode.model is not None:
        typed = input_type(mode.model, _pascal(name))

        async def typed_resolver(info: Info, input: typed) -> RulesetResult:
            return await _answer(info, to_body(input), ruleset, mode.name)

        resolver = typed_resolver
    else:

        async def json_resolver(info: Info, input: JSON) -> RulesetResult:
            return await _answer(info, input, ruleset, mode.name)

        resolver = json_resolver
    return strawberry.field(resolver=resolver, description=f"one {ruleset} {mode.name}")


async def _answer(info: Info, body: Any, ruleset: str, mode: str) -> RulesetResult:
    answer = await info.context["service"].one(body, ruleset, mode)
    return RulesetResult(result=answer.output, canonical_key=answer.key, cached=answer.cached)


def build() -> type:
    available = _available()

    def rulesets() -> list[Ruleset]:
        return [Ruleset(name=n, modes=sorted(m)) for n, m in available.items()]

    fields: dict[str, Any] = {
        "rulesets": strawberry.field(resolver=rulesets, description="every ruleset and its modes")
    }
    for ruleset, modes in available.items():
        for mode_name, mode in sorted(modes.items()):
            if (ruleset, mode_name) not in TYPED_ELSEWHERE:
                fields[f"{ruleset}{_pascal(mode_name)}"] = _query(ruleset, mode)
    return strawberry.type(type("RulesetQuery", (), fields), name="RulesetQuery")


RulesetQuery = build()
