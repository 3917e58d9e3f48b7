"""The kt2024 `fight` request (§2.2), its conversion to the engine and its output (§10)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from engine.errors import InputError, TooLarge
from engine.kt2024 import budgets
from engine.kt2024.fight import FighterResult, FightResult
from engine.kt2024.fight import evaluate as fight
from engine.kt2024.fight_canonical import fight_key
from engine.kt2024.fighter import Fight, Fighter, FightOptions
from schema import registry, report
from schema.answers.kt2024 import Kt2024FighterResult, Kt2024FightResult
from schema.fields import Count, RuleRange
from schema.models import ApiModel, engine_model, engine_value, validate

from .common import RuleOptions, attack_dice_limits, check_elite

FighterModel = engine_model(
    Fighter,
    attack_dice_limits(8)
    | {"wounds": Count(30, minimum=1), "feel_no_pain": RuleRange(4, 6) | None},
    "A fighter: the attack-dice fields with the fight's smaller dice limits, plus §2.2's own.",
)
FightOptionsModel = engine_model(
    FightOptions,
    {"rounds": Count(5, minimum=1)},
    "Who acts first, sequences, exact output.",
    base=RuleOptions,
)


class FightRequest(ApiModel):
    """One fight, repeated for up to `options.rounds` sequences while both fighters stand."""

    fighter_a: FighterModel = Field(default_factory=FighterModel)
    fighter_b: FighterModel = Field(default_factory=FighterModel)
    options: FightOptionsModel = Field(default_factory=FightOptionsModel)

    def to_engine(self) -> Fight:
        return Fight(
            Fighter(**self.fighter_a.model_dump()),
            Fighter(**self.fighter_b.model_dump()),
            engine_value(FightOptions, self.options),
        )


def parse(body: Any) -> Fight:
    request: FightRequest = validate(FightRequest, body)
    check_elite(request.fighter_a, "fighterA")
    check_elite(request.fighter_b, "fighterB")
    return request.to_engine()


def render_fighter(result: FighterResult, exact: bool) -> dict[str, Any]:
    return Kt2024FighterResult.build(
        remaining_wounds_distribution=report.distribution(result.remaining_wounds, exact),
        damage_dealt_distribution=report.distribution(result.damage_dealt, exact),
        **report.exact_members(
            exact,
            incapacitated_probability=result.incapacitated,
            expected_damage_dealt=result.expected_damage_dealt,
        ),
    )


def render(result: FightResult, exact: bool) -> dict[str, Any]:
    """§10 fight output, by its answer model."""
    return Kt2024FightResult.build(
        fighter_a=render_fighter(result.fighter_a, exact),
        fighter_b=render_fighter(result.fighter_b, exact),
    )


CHARGED = {
    budgets.MOMENTS: "fighterA.attacks",
    budgets.BYTES: "options.rounds",
    budgets.DIGITS: "options.rounds",
    budgets.ROW: "fighterB.wounds",
    budgets.OPTIMAL_BYTES: "{fighter}.strategy",
}
"""The request field a fight's refusal names, per budget it exceeds: what the client should
reduce (the OPTIMAL fighter's strategy for OPTIMAL's memory)."""


def refusal(error: TooLarge) -> InputError:
    """The engine's refusal as §12's LIMIT_EXCEEDED on the field it is charged to."""
    fighter = "fighterA" if error.fighter == 0 else "fighterB"
    field = CHARGED[error.quantity].format(fighter=fighter)
    return InputError("LIMIT_EXCEEDED", field, error.message, error.limit)


def evaluate(scenario: Fight) -> dict[str, Any]:
    try:
        result = fight(scenario)
    except TooLarge as error:
        raise refusal(error) from error
    return render(result, scenario.options.exact)


MODE = registry.register(
    registry.Mode(
        "kt2024",
        "fight",
        parse,
        fight_key,
        evaluate,
        model=FightRequest,
        results=(Kt2024FightResult,),
        peak_bytes=lambda _: 0,  # the engine claims its arrays itself (`flat.resolve`)
    )
)
