"""The kt2024 `shoot` request (§2.1), its conversion to the engine and its output (§10)."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from engine.kt2024 import Attacker, Defender, Shoot, ShootOptions, ShootResult, shoot
from engine.kt2024.canonical import shoot_key
from schema import registry, report
from schema.fields import Count, RuleRange

from .common import (
    ApiModel,
    AttackDiceModel,
    JustAScratch,
    Reroll,
    SaintlyRelics,
    check_elite,
    validate,
)


class AttackerModel(AttackDiceModel):
    devastating: Count(10) = 0
    piercing: Count(9) = 0
    piercing_crits: Count(9) = 0
    saturate: bool = False
    obscured: bool = False


class DefenderModel(ApiModel):
    defence_dice: Count(9) = 3
    save: RuleRange(2, 6) = 3
    wounds: Count(50, minimum=1) = 12
    crit_save: RuleRange(2, 6) = 6
    cover_saves: Count(9) = 0
    cover_crit_saves: Count(9) = 0
    reroll: Reroll = "NONE"
    fails_to_norms: Count(9) = 0
    norms_to_crits: Count(9) = 0
    indomitus: bool = False
    feel_no_pain: RuleRange(4, 6) | None = None
    just_a_scratch: JustAScratch = "NONE"
    saintly_relics: SaintlyRelics = "NONE"
    durable: bool = False
    invulnerable_save: RuleRange(2, 6) | None = None


class ShootOptionsModel(ApiModel):
    rounds: Count(10, minimum=1) = 1
    exact: bool = False


class ShootRequest(ApiModel):
    """One shooting attack, repeated `options.rounds` times."""

    attacker: AttackerModel = Field(default_factory=AttackerModel)
    defender: DefenderModel = Field(default_factory=DefenderModel)
    options: ShootOptionsModel = Field(default_factory=ShootOptionsModel)

    def to_engine(self) -> Shoot:
        return Shoot(
            Attacker(**self.attacker.model_dump()),
            Defender(**self.defender.model_dump()),
            ShootOptions(**self.options.model_dump()),
        )


def parse(body: Any) -> Shoot:
    request: ShootRequest = validate(ShootRequest, body)
    check_elite(request.attacker, "attacker")
    return request.to_engine()


def render(result: ShootResult, exact: bool) -> dict[str, Any]:
    """§10 shoot output."""
    out: dict[str, Any] = {"damageDistribution": report.distribution(result.damage, exact)}
    report.put_scalar(out, "expectedDamage", result.expected_damage, exact)
    report.put_scalar(out, "killProbability", result.kill_probability, exact)
    report.put_list(out, "killProbabilityByRound", result.kill_probability_by_round, exact)
    return out


def evaluate(scenario: Shoot) -> dict[str, Any]:
    return render(shoot(scenario), scenario.options.exact)


MODE = registry.register(
    registry.Mode("kt2024", "shoot", parse, shoot_key, evaluate, model=ShootRequest)
)
