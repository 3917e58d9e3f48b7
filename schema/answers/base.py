"""What every answer model shares: camelCase members, exact siblings, distributions.

An answer model is the one declaration of an answer's shape. The engines' results are
rendered by it (`Result.build(...)`: its members by their JSON names, in its order), so a
member it does not declare cannot reach a client; the OpenAPI response schemas are its JSON
Schema (serialization mode); the GraphQL output types are derived from it. Members are
snake_case in Python and camelCase in JSON, like the request models.

`build` does not validate: validating every cache-miss answer cost 35–75 µs of the render
(benchmarks/bench_render.py). That the dicts it builds are what the model validates and dumps
(types, names, order, absent members) is checked by the tests instead, over every worked
example and hypothesis' scenarios (tests/test_answer_models.py).

Exact output (`options.exact`) adds a `<name>Exact` sibling `"p/q"` to every probability and
an `"exact"` member to every distribution entry. Those members are *absent* when exact output
was not asked for, never null: `Omitted` declares such a member, and its schema says
"a string, not required" rather than advertising a null the service never sends. A member
declared `Exact[float]` (or `Exact[Probability]`, `Exact[list[Probability]]`) gets its
sibling declared with it, right after it, as an ordinary model field: OpenAPI and GraphQL
see both.
"""

from __future__ import annotations

import functools
import inspect
import typing
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

RATIO_PATTERN = r"^-?[0-9]+/[1-9][0-9]*$"


def _never_null(schema: dict[str, Any]) -> None:
    """Drop the `null` branch and the `null` default pydantic writes for an `X | None = None`
    member that is left out of the answer instead of being null."""
    schema.pop("default", None)
    branches = [s for s in schema.pop("anyOf", []) if s.get("type") != "null"]
    if len(branches) == 1:
        schema.update(branches[0])
    elif branches:
        schema["anyOf"] = branches


def Omitted(description: str | None = None, *, alias: str | None = None) -> Any:
    """The `Field` of a member that may be absent from an answer (never null)."""
    return Field(default=None, alias=alias, description=description, json_schema_extra=_never_null)


Ratio = Annotated[str, Field(pattern=RATIO_PATTERN, examples=["11/36"])]
"""An exact probability or expectation: "p/q" in lowest terms ("0/1", "1/1")."""

Probability = Annotated[float, Field(description="a probability: the nearest double of a rational")]
"""Not bounded in the schema: in float mode a sum of floats may land a rounding step past 1."""


class _HasExactSibling:
    """`Annotated` metadata of a member declared with `Exact` (pydantic ignores it)."""


HAS_EXACT_SIBLING = _HasExactSibling()


class Exact:
    """`name: Exact[T]` declares the member `name: T` and its exact sibling `name_exact`
    (`<name>Exact` in JSON): "p/q", or a list of them for a list `T`, absent unless exact
    output was asked for (`Omitted`)."""

    def __class_getitem__(cls, value: Any) -> Any:
        return Annotated[value, HAS_EXACT_SIBLING]


def _with_exact_siblings(declared: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The annotations with each `Exact` member's sibling right after it, and the siblings."""
    members: dict[str, Any] = {}
    siblings = []
    for name, annotation in declared.items():
        members[name] = annotation
        if isinstance(annotation, str):  # `from __future__ import annotations`
            assert "Exact[" not in annotation, f"{name}: `Exact` needs evaluated annotations"
            continue
        if HAS_EXACT_SIBLING in getattr(annotation, "__metadata__", ()):
            plural = typing.get_origin(annotation.__origin__) is list
            members[f"{name}_exact"] = (list[Ratio] if plural else Ratio) | None
            siblings.append(f"{name}_exact")
    return members, siblings


IGNORED_RULES = (
    "weapon rules left out, verbatim, under `options.unknownRules: IGNORE` (present only then, "
    "possibly empty)"
)


class Result(BaseModel):
    """A rendered engine result: built by the schema layer only, so unknown members are a
    programming error (`extra="forbid"`), and the members set are the members sent.

    `defer_build`: pydantic builds a model's validator and serializer on its first use, not
    at import. `build` needs only the fields, so a batch line of one mode never pays for
    building every answer model it imports (issue 17: ~10 ms of `killmath batch`'s start);
    the OpenAPI document and the tests build them when they read them."""

    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True,
        defer_build=True,
    )  # fmt: skip

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Declare the siblings of the `Exact` members (before pydantic collects the
        fields, which happens after this hook, so they are fields like any other)."""
        super().__init_subclass__(**kwargs)
        members, siblings = _with_exact_siblings(inspect.get_annotations(cls))
        for sibling in siblings:
            setattr(cls, sibling, Omitted())
        cls.__annotations__ = members

    def as_json(self) -> dict[str, Any]:
        """The JSON-ready dict: camelCase, members never set (the exact siblings of a float
        answer) left out."""
        return self.model_dump(by_alias=True, exclude_unset=True)

    @classmethod
    def build(cls, **members: Any) -> dict[str, Any]:
        """The JSON dict `cls(**members).as_json()` would give, built without validating
        (nested answers given as their `build` dicts): members in the model's order by their
        JSON names. A name the model lacks is a programming error, as `extra="forbid"`."""
        names = _json_names(cls)
        built = {alias: members[name] for name, alias in names if name in members}
        if len(built) != len(members):
            unknown = sorted(set(members) - {name for name, _ in names})
            raise TypeError(f"{cls.__name__} has no members {unknown}")
        return built


@functools.cache
def _json_names(model: type[Result]) -> tuple[tuple[str, str], ...]:
    """(Python name, JSON name) of every member, in the model's order."""
    return tuple((name, info.alias or name) for name, info in model.model_fields.items())


class DistributionEntry(Result):
    """One value of a distribution with its probability (zero-probability values are left
    out; entries ascend by value)."""

    value: int
    probability: Probability
    exact: Ratio | None = Omitted("the probability as p/q (exact output only)")


class OutcomeEntry(Result):
    """A distribution entry whose value is a count or the state `outOfAction` (kt2018),
    which sorts after every count."""

    value: int | Literal["outOfAction"]
    probability: Probability
    exact: Ratio | None = Omitted("the probability as p/q (exact output only)")


Distribution = list[DistributionEntry]


class ServiceMembers(BaseModel):
    """What the service adds to a result in a REST answer (absent from batch lines and the
    CLI). Every answer schema is closed (`additionalProperties: false`), so a generated
    client types each member it reads; a later version may still add members, and clients
    are to ignore members they do not know (README, "Compatibility")."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid")

    canonical_key: str = Omitted(
        "the engine's canonical key of the request (it carries the engine version): equal "
        "keys, equal answers; left out when the request says `Prefer: return=minimal`"
    )
    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


@functools.cache
def answer_model(result: type[Result]) -> type[BaseModel]:
    """The REST answer of a result model: its members plus the service members, named
    `<Result>Answer` (one class per result, however often asked for)."""
    name = result.__name__.removesuffix("Result") + "Answer"
    return type(
        name,
        (ServiceMembers, result),
        {
            "__doc__": f"{(result.__doc__ or '').strip()} With the service members.",
            "__module__": result.__module__,
            "model_config": ConfigDict(
                alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True
            ),
        },
    )
