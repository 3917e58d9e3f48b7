"""The renderers build answers without validating them (`Result.build`, schema/answers/base.py):
here every answer they build is held to its answer model instead.

An answer is right when the model, validating it strictly and dumping it again, gives back
the very same dict with its members in the same order: no member the model lacks, none
missing, every type the declared one, an absent exact sibling absent (not null). Checked on
every worked example of every ruleset, exact and float, and on hypothesis' kt2024 shoots, their
grid summaries and fights.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson
import pytest
from conftest import load_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kt2024_fights import fights
from test_kt2024_shoot_properties import scenarios

from schema import registry
from schema.answers.base import Result
from schema.answers.grid import GridSummary
from schema.kt2024 import shoot as shoot_schema
from service import grid as grids

RULESETS = ("kt2024", "kt2018", "kt2013", "threshold")
EXAMPLES = [(ruleset, e) for ruleset in RULESETS for e in load_examples(ruleset)]


def envelope(ruleset: str, example: dict[str, Any], exact: bool) -> dict[str, Any]:
    scenario = example["scenario"]
    body = {**scenario, "options": {**scenario.get("options", {}), "exact": exact}}
    if ruleset == "kt2024":
        body["mode"] = example["kind"]
    return body


def as_validated(results: tuple[type[Result], ...], built: dict[str, Any]) -> dict[str, Any]:
    """What the first result model that validates `built` (strictly) dumps of it."""
    errors = []
    for model in results:
        try:
            return model.model_validate(built, strict=True).as_json()
        except ValueError as exc:
            errors.append(exc)
    raise AssertionError(errors)


def same_shape(results: tuple[type[Result], ...], built: dict[str, Any]) -> None:
    dumped = as_validated(results, built)
    assert dumped == built
    assert orjson.dumps(dumped) == orjson.dumps(built)  # members in the same order


@pytest.mark.parametrize("exact", [True, False], ids=["exact", "float"])
@pytest.mark.parametrize(
    ("ruleset", "example"), EXAMPLES, ids=[f"{r}:{e['name']}" for r, e in EXAMPLES]
)
def test_every_worked_example_is_its_models_answer(
    ruleset: str, example: dict[str, Any], exact: bool
) -> None:
    handler, scenario = registry.resolve(envelope(ruleset, example, exact))
    same_shape(handler.results, handler.evaluate(scenario))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=scenarios(), exact=st.booleans())
def test_random_shoots_are_their_models_answer(scenario: Any, exact: bool) -> None:
    handler = registry.modes("kt2024")["shoot"]
    scenario = replace(scenario, options=replace(scenario.options, exact=exact))
    same_shape(handler.results, shoot_schema.evaluate(scenario))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    scenario=scenarios(),
    exact=st.booleans(),
    thresholds=st.lists(st.integers(1, 60), max_size=8, unique=True).map(sorted),
)
def test_random_grid_summaries_are_their_models_answer(
    scenario: Any, exact: bool, thresholds: list[int]
) -> None:
    scenario = replace(scenario, options=replace(scenario.options, exact=exact))
    output = shoot_schema.evaluate(scenario)
    same_shape((GridSummary,), grids._summarise(output, tuple(thresholds)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=fights(max_attacks=2, max_wounds=4, max_rounds=1), exact=st.booleans())
def test_random_fights_are_their_models_answer(body: dict[str, Any], exact: bool) -> None:
    envelope = {**body, "mode": "fight", "options": {**body.get("options", {}), "exact": exact}}
    handler, scenario = registry.resolve(envelope)
    same_shape(handler.results, handler.evaluate(scenario))
