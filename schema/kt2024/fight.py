"""The kt2024 `fight` request (§2.2), its conversion to the engine and its output (§10)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from engine.kt2024.fight import FighterResult, FightResult
from engine.kt2024.fight import evaluate as fight
from engine.kt2024.fight_canonical import fight_key
from engine.kt2024.fighter import Fight, Fighter, FightOptions
from schema import registry, report
from schema.fields import Count, RuleRange

from .common import ApiModel, AttackDiceModel, JustAScratch, SaintlyRelics, check_elite, validate

Strategy = Literal["MAX_DAMAGE", "MIN_DAMAGE_TO_SELF", "STRIKE", "PARRY", "OPTIMAL"]


class FighterModel(AttackDiceModel):
    """A fighter: the attack-dice fields with the fight's smaller dice limits, plus §2.2's own."""

    attacks: Count(8) = 4
    accurate: Count(8) = 0
    auto_crits: Count(8) = 0
    fails_to_norms: Count(8) = 0
    norms_to_crits: Count(8) = 0
    wounds: Count(30, minimum=1) = 12
    strategy: Strategy = "MAX_DAMAGE"
    brutal: bool = False
    shock: bool = False
    stun2021: bool = False
    storm_shield2021: bool = False
    hammerhand2021: bool = False
    dueller2021: bool = False
    duelist: bool = False
    murderous_entrance2021: bool = False
    just_a_scratch: JustAScratch = "NONE"
    durable: bool = False
    half_damage_first_strike: bool = False
    feel_no_pain: RuleRange(4, 6) | None = None
    saintly_relics: SaintlyRelics = "NONE"


class FightOptionsModel(ApiModel):
    first_to_act: Literal["A", "B"] = "A"
    rounds: Count(5, minimum=1) = 1
    exact: bool = False


class FightRequest(ApiModel):
    """One fight, repeated for up to `options.rounds` sequences while both fighters stand."""

    fighter_a: FighterModel = Field(default_factory=FighterModel)
    fighter_b: FighterModel = Field(default_factory=FighterModel)
    options: FightOptionsModel = Field(default_factory=FightOptionsModel)

    def to_engine(self) -> Fight:
        return Fight(
            Fighter(**self.fighter_a.model_dump()),
            Fighter(**self.fighter_b.model_dump()),
            FightOptions(**self.options.model_dump()),
        )


def parse(body: Any) -> Fight:
    request: FightRequest = validate(FightRequest, body)
    check_elite(request.fighter_a, "fighterA")
    check_elite(request.fighter_b, "fighterB")
    return request.to_engine()


def render_fighter(result: FighterResult, exact: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "remainingWoundsDistribution": report.distribution(result.remaining_wounds, exact)
    }
    report.put_scalar(out, "incapacitatedProbability", result.incapacitated, exact)
    out["damageDealtDistribution"] = report.distribution(result.damage_dealt, exact)
    report.put_scalar(out, "expectedDamageDealt", result.expected_damage_dealt, exact)
    return out


def render(result: FightResult, exact: bool) -> dict[str, Any]:
    """§10 fight output."""
    return {
        "fighterA": render_fighter(result.fighter_a, exact),
        "fighterB": render_fighter(result.fighter_b, exact),
    }


def evaluate(scenario: Fight) -> dict[str, Any]:
    return render(fight(scenario), scenario.options.exact)


MODE = registry.register(
    registry.Mode("kt2024", "fight", parse, fight_key, evaluate, model=FightRequest)
)
