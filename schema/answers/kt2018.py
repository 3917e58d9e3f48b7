"""kt2018 answers (kt2018.md §5–§8): the wounding modes share `Kt2018Outcome`."""

from schema.answers.base import (
    Distribution,
    Exact,
    OutcomeEntry,
    Probability,
    Result,
    answer_model,
)


class Kt2018Outcome(Result):
    """What happened to the target (§5): wounds lost and left, flesh wounds after the Injury
    rolls, out of action. `woundsRemaining` and `fleshWoundsAfter` count `outOfAction` apart."""

    wounds_lost: Distribution
    wounds_remaining: list[OutcomeEntry]
    flesh_wounds_after: list[OutcomeEntry]
    p_out_of_action: Exact[Probability]
    p_flesh_wound: Exact[Probability]
    p_injury_roll: Exact[Probability]
    expected_wounds_lost: Exact[float]


class Kt2018CombatResult(Kt2018Outcome):
    """`shooting` and `fight`: the outcome plus the expected unsaved wounds."""

    expected_unsaved_wounds: Exact[float]


class Kt2018PsyboltResult(Kt2018Outcome):
    """`psybolt` (§6): the target's outcome and the psyker's Psychic test, Perils and Deny."""

    p_perils: Exact[Probability]
    p_psyker_out_of_action: Exact[Probability]
    p_psyker_flesh_wound: Exact[Probability]
    p_manifested: Exact[Probability]
    p_denied: Exact[Probability]
    p_resolved: Exact[Probability]


class Kt2018MortalWoundsResult(Kt2018Outcome):
    """`mortalWounds` (§6): the outcome alone."""


class Kt2018NerveTestResult(Result):
    """`nerveTest` (§8): shaken or passed."""

    p_shaken: Exact[Probability]
    p_pass: Exact[Probability]


class Kt2018BreakCheckResult(Result):
    """`breakCheck` (§8)."""

    p_broken: Exact[Probability]


Kt2018CombatAnswer = answer_model(Kt2018CombatResult)
Kt2018PsyboltAnswer = answer_model(Kt2018PsyboltResult)
Kt2018MortalWoundsAnswer = answer_model(Kt2018MortalWoundsResult)
Kt2018NerveTestAnswer = answer_model(Kt2018NerveTestResult)
Kt2018BreakCheckAnswer = answer_model(Kt2018BreakCheckResult)
