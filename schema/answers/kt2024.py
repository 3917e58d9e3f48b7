"""kt2024 answers (kt2024.md §10): one shooting attack, one fight."""

from __future__ import annotations

from schema.answers.base import (
    IGNORED_RULES,
    Distribution,
    Omitted,
    Probability,
    Ratio,
    Result,
    answer_model,
)


class Kt2024ShootResult(Result):
    """kt2024 shooting (§10): the damage distribution over every round, expected damage and
    the chance the defender is incapacitated, in all and by the end of each round."""

    damage_distribution: Distribution
    expected_damage: float
    expected_damage_exact: Ratio | None = Omitted()
    kill_probability: Probability
    kill_probability_exact: Ratio | None = Omitted()
    kill_probability_by_round: list[Probability]
    kill_probability_by_round_exact: list[Ratio] | None = Omitted()
    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


class Kt2024FighterResult(Result):
    """One fighter's side of a kt2024 fight (§10): wounds it has left, whether it is
    incapacitated, the damage it dealt."""

    remaining_wounds_distribution: Distribution
    incapacitated_probability: Probability
    incapacitated_probability_exact: Ratio | None = Omitted()
    damage_dealt_distribution: Distribution
    expected_damage_dealt: float
    expected_damage_dealt_exact: Ratio | None = Omitted()


class Kt2024FightResult(Result):
    """kt2024 fight (§10): both fighters' sides."""

    fighter_a: Kt2024FighterResult
    fighter_b: Kt2024FighterResult
    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


Kt2024ShootAnswer = answer_model(Kt2024ShootResult)
Kt2024FightAnswer = answer_model(Kt2024FightResult)
