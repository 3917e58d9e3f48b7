"""kt2024 answers (kt2024.md §10): one shooting attack, one fight."""

from schema.answers.base import (
    IGNORED_RULES,
    Distribution,
    Exact,
    Omitted,
    Probability,
    Result,
    answer_model,
)


class Kt2024ShootResult(Result):
    """kt2024 shooting (§10): the damage distribution over every round, expected damage and
    the chance the defender is incapacitated, in all and by the end of each round."""

    damage_distribution: Distribution
    expected_damage: Exact[float]
    kill_probability: Exact[Probability]
    kill_probability_by_round: Exact[list[Probability]]
    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


class Kt2024FighterResult(Result):
    """One fighter's side of a kt2024 fight (§10): wounds it has left, whether it is
    incapacitated, the damage it dealt."""

    remaining_wounds_distribution: Distribution
    incapacitated_probability: Exact[Probability]
    damage_dealt_distribution: Distribution
    expected_damage_dealt: Exact[float]


class Kt2024FightResult(Result):
    """kt2024 fight (§10): both fighters' sides."""

    fighter_a: Kt2024FighterResult
    fighter_b: Kt2024FighterResult
    ignored_rules: list[str] | None = Omitted(IGNORED_RULES)


Kt2024ShootAnswer = answer_model(Kt2024ShootResult)
Kt2024FightAnswer = answer_model(Kt2024FightResult)
