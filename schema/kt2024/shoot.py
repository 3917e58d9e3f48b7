"""The kt2024 `shoot` request (§2.1), its conversion to the engine and its output (§10)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from engine.kt2024 import Attacker, Defender, Shoot, ShootOptions, ShootResult, memory, shoot
from engine.kt2024.canonical import shoot_key
from engine.kt2024.scenario import MOST_ATTACKS, MOST_DEFENCE_DICE
from schema import registry, report
from schema.answers.kt2024 import Kt2024ShootResult
from schema.fields import Count, RuleRange
from schema.models import ApiModel, engine_model, engine_value, validate

from .common import RuleOptions, attack_dice_limits, check_elite

AttackerModel = engine_model(
    Attacker,
    attack_dice_limits(MOST_ATTACKS)
    | {"devastating": Count(10), "piercing": Count(9), "piercing_crits": Count(9)},
    "The shooting attacker: its weapon profile and ploys (§2.1).",
)
DefenderModel = engine_model(
    Defender,
    {
        "defence_dice": Count(MOST_DEFENCE_DICE),
        "save": RuleRange(2, 6),
        "wounds": Count(50, minimum=1),
        "crit_save": RuleRange(2, 6),
        "cover_saves": Count(9),
        "cover_crit_saves": Count(9),
        "fails_to_norms": Count(9),
        "norms_to_crits": Count(9),
        "feel_no_pain": RuleRange(4, 6) | None,
        "invulnerable_save": RuleRange(2, 6) | None,
    },
    "The target: its defence dice, saves and defensive rules (§2.1).",
)
ShootOptionsModel = engine_model(
    ShootOptions,
    {"rounds": Count(10, minimum=1)},
    "Rounds of identical attacks; exact output.",
    base=RuleOptions,
)


class ShootRequest(ApiModel):
    """One shooting attack, repeated `options.rounds` times."""

    attacker: AttackerModel = Field(default_factory=AttackerModel)
    defender: DefenderModel = Field(default_factory=DefenderModel)
    options: ShootOptionsModel = Field(default_factory=ShootOptionsModel)

    def to_engine(self) -> Shoot:
        return Shoot(
            Attacker(**self.attacker.model_dump()),
            Defender(**self.defender.model_dump()),
            engine_value(ShootOptions, self.options),
        )


def parse(body: Any) -> Shoot:
    request: ShootRequest = validate(ShootRequest, body)
    check_elite(request.attacker, "attacker")
    return request.to_engine()


def compose(attacking: Shoot, defending: Shoot) -> Shoot:
    """`parse` of a body made of the attacker and options `attacking` was parsed from and the
    defender `defending` was: a request validates each member on its own, with no rule
    across them (Elite is the attacker's), so a grid validates each profile once per
    situation and composes its cells (`service.grid`). A rule across members added to `parse`
    must be checked here too."""
    return Shoot(attacking.attacker, defending.defender, attacking.options)


def render(result: ShootResult, exact: bool) -> dict[str, Any]:
    """§10 shoot output, by its answer model."""
    return Kt2024ShootResult.build(
        damage_distribution=report.weighted(result.support, result.numerators, result.den, exact),
        **report.exact_members(
            exact,
            expected_damage=result.expected_damage,
            kill_probability=result.kill_probability,
            kill_probability_by_round=result.kill_probability_by_round,
        ),
    )


def evaluate(scenario: Shoot) -> dict[str, Any]:
    return render(shoot(scenario), scenario.options.exact)


MODE = registry.register(
    registry.Mode(
        "kt2024",
        "shoot",
        parse,
        shoot_key,
        evaluate,
        model=ShootRequest,
        results=(Kt2024ShootResult,),
        peak_bytes=memory.shoot_bytes,
    )
)
