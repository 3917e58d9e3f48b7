"""kt2018 answers (kt2018.md §5–§8): the wounding modes share `Kt2018Outcome`."""

from __future__ import annotations

from schema.answers.base import (
    Distribution,
    Omitted,
    OutcomeEntry,
    Probability,
    Ratio,
    Result,
    answer_model,
)


class Kt2018Outcome(Result):
    """What happened to the target (§5): wounds lost and left, flesh wounds after the Injury
    rolls, out of action. `woundsRemaining` and `fleshWoundsAfter` count `outOfAction` apart."""

    wounds_lost: Distribution
    wounds_remaining: list[OutcomeEntry]
    flesh_wounds_after: list[OutcomeEntry]
    p_out_of_action: Probability
    p_out_of_action_exact: Ratio | None = Omitted()
    p_flesh_wound: Probability
    p_flesh_wound_exact: Ratio | None = Omitted()
    p_injury_roll: Probability
    p_injury_roll_exact: Ratio | None = Omitted()
    expected_wounds_lost: float
    expected_wounds_lost_exact: Ratio | None = Omitted()


class Kt2018CombatResult(Kt2018Outcome):
    """`shooting` and `fight`: the outcome plus the expected unsaved wounds."""

    expected_unsaved_wounds: float
    expected_unsaved_wounds_exact: Ratio | None = Omitted()


class Kt2018PsyboltResult(Kt2018Outcome):
    """`psybolt` (§6): the target's outcome and the psyker's Psychic test, Perils and Deny."""

    p_perils: Probability
    p_perils_exact: Ratio | None = Omitted()
    p_psyker_out_of_action: Probability
    p_psyker_out_of_action_exact: Ratio | None = Omitted()
    p_psyker_flesh_wound: Probability
    p_psyker_flesh_wound_exact: Ratio | None = Omitted()
    p_manifested: Probability
    p_manifested_exact: Ratio | None = Omitted()
    p_denied: Probability
    p_denied_exact: Ratio | None = Omitted()
    p_resolved: Probability
    p_resolved_exact: Ratio | None = Omitted()


class Kt2018MortalWoundsResult(Kt2018Outcome):
    """`mortalWounds` (§6): the outcome alone."""


class Kt2018NerveTestResult(Result):
    """`nerveTest` (§8): shaken or passed."""

    p_shaken: Probability
    p_shaken_exact: Ratio | None = Omitted()
    p_pass: Probability
    p_pass_exact: Ratio | None = Omitted()


class Kt2018BreakCheckResult(Result):
    """`breakCheck` (§8)."""

    p_broken: Probability
    p_broken_exact: Ratio | None = Omitted()


Kt2018CombatAnswer = answer_model(Kt2018CombatResult)
Kt2018PsyboltAnswer = answer_model(Kt2018PsyboltResult)
Kt2018MortalWoundsAnswer = answer_model(Kt2018MortalWoundsResult)
Kt2018NerveTestAnswer = answer_model(Kt2018NerveTestResult)
Kt2018BreakCheckAnswer = answer_model(Kt2018BreakCheckResult)
