"""Lists completed as projections (`service.graphql.execution.Projecting`) answer exactly what
graphql-core's own completion answers: the same data, members in the same order, the same
errors at the same paths — for good answers, for answers graphql-core coerces, and for
answers it refuses; over aliases, fragments, `__typename`, directives and repeated fields."""

from __future__ import annotations

import math
from typing import Any

import orjson
import pytest
import strawberry

from schema.answers.grid import MatchupGrid
from service.graphql.execution import Projecting
from service.graphql.outputs import output_type
from service.graphql.schema import CONFIG


def cell(a: int, d: int, **changes: Any) -> dict[str, Any]:
    entries = [{"k": k, "probability": 1.0 / (k + a + d + 1)} for k in (1, 2, 3)]
    found = {
        "attacker": a,
        "defender": d,
        "situation": 0,
        "expectedDamage": 2.5 + a,
        "killProbability": 0.25,
        "damageAtLeast": entries,
    }
    return {**found, **changes}


def grid(*cells: Any) -> dict[str, Any]:
    return {"atLeast": [1, 2, 3], "cells": list(cells), "cachedCells": 0}


GOOD = grid(*(cell(a, d) for a in range(3) for d in range(2)))
EXACT = grid(
    cell(0, 0, expectedDamageExact="5/2", killProbabilityExact="1/4",
         damageAtLeast=[{"k": 1, "probability": 0.5, "exact": "1/2"}]),
    cell(1, 0),
)  # fmt: skip
CASES: list[dict[str, Any]] = [
    GOOD,
    EXACT,
    grid(cell(0, 0, killProbability=1), cell(1, 0, expectedDamage=True)),  # coerced to floats
    grid(cell(0, 0), cell(1, 0, killProbability=None)),  # null where non-null
    grid(cell(0, 0), "not a cell"),
    grid(cell(0, 0), {**cell(1, 0), "__typename": "Elsewhere"}),
    grid(cell(0, 0, damageAtLeast=({"k": 1, "probability": 0.5},))),  # a tuple, not a list
    grid(cell(0, 0, damageAtLeast=[{"k": 2**40, "probability": 0.5}])),  # not a 32-bit Int
    grid(cell(0, 0, expectedDamage=math.nan)),
    grid(cell(0, 0, expectedDamage="2.5")),  # a string Float coerces
    grid(cell(0, 0, damageAtLeast=None)),
    grid(cell(0, 0, damageAtLeast=[None])),
    grid(),
    grid(cell(0, 0, expectedDamageExact=5)),  # an Int where String: coerced "5"
    grid(cell(0, 0), cell(1, 0, damageAtLeast=[{"k": True, "probability": 0.5}])),  # bool Int
    grid(cell(0, 0, damageAtLeast=[{"probability": 0.5, "k": 1}])),  # members in another order
    grid(cell(0, 0, damageAtLeast=[{"k": 1, "probability": 0.5, "more": 1}])),
    grid(cell(0, 0, expectedDamage=math.inf)),
    grid(cell(0, 0, expectedDamage=1e308), cell(1, 0, expectedDamage=1e308)),  # sums past a double
    grid(cell(0, 0, expectedDamage=-0.0, killProbability=5e-324)),
    grid(*(cell(a, 0) for a in range(3)), cell(2**31, 0)),  # past a 32-bit Int
    grid(cell(0, 0, damageAtLeast=[])),
]

Grid = output_type(MatchupGrid)


def answer(case: int) -> Grid:  # type: ignore[valid-type]
    return CASES[case]  # type: ignore[return-value]


Query = strawberry.type(
    type("Query", (), {"__annotations__": {}, "grid": strawberry.field(resolver=answer)})
)
PROJECTING = strawberry.Schema(query=Query, config=CONFIG, execution_context_class=Projecting)
COMPLETING = strawberry.Schema(query=Query, config=CONFIG)

FULL = "cells { attacker defender situation expectedDamage expectedDamageExact killProbability "
FULL += "damageAtLeast { k probability exact } }"
WHOLE = "cells { attacker defender situation expectedDamage killProbability "
WHOLE += "damageAtLeast { k probability } }"  # exactly the members of a float cell
DOCUMENTS = [
    "{ grid(case: $c) { atLeast cachedCells " + FULL + " } }",
    "{ grid(case: $c) { atLeast " + WHOLE + " } }",
    "{ grid(case: $c) { cells { p: killProbability e: expectedDamage attacker } } }",
    "{ grid(case: $c) { cells { __typename damageAtLeast { __typename k } } } }",
    "{ grid(case: $c) { cells { ...C damageAtLeast { probability } } } }"
    " fragment C on GridCell { attacker damageAtLeast { k } }",
    "{ grid(case: $c) { cells { ... on GridCell { defender } killProbability } } }",
    "{ grid(case: $c) { cells { attacker @include(if: $yes) defender @skip(if: $yes) } } }",
    "{ grid(case: $c) { cells { attacker } cells { defender attacker } } }",
    "{ grid(case: $c) { cells @include(if: $yes) { attacker } atLeast } }",
]


def execute(schema: strawberry.Schema, document: str, case: int) -> tuple[bytes, list[Any]]:
    variables = "$c: Int!, $yes: Boolean! = true" if "$yes" in document else "$c: Int!"
    result = schema.execute_sync(f"query({variables}) {document}", variable_values={"c": case})
    errors = [e.formatted for e in result.errors or []]
    assert not any("Variable" in e["message"] for e in errors), errors  # the document is valid
    return orjson.dumps(result.data), errors


@pytest.mark.parametrize("document", DOCUMENTS)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_a_projected_list_is_what_completion_gives(document: str, case: int) -> None:
    assert execute(PROJECTING, document, case) == execute(COMPLETING, document, case)


def test_the_full_grid_selection_is_projected() -> None:
    """Not every case falls back: a good grid is answered by the projection itself."""
    calls = []
    original = Projecting.complete_iterable_value

    def counting(self: Projecting, *args: Any) -> Any:
        calls.append(args)
        return original(self, *args)

    Projecting.complete_iterable_value = counting  # type: ignore[method-assign]
    try:
        data, errors = execute(PROJECTING, DOCUMENTS[0], 0)
    finally:
        Projecting.complete_iterable_value = original  # type: ignore[method-assign]
    assert not errors and orjson.loads(data)["grid"]["cells"][5]["attacker"] == 2
    assert calls == []  # no list was completed item by item
