"""Ruleset `threshold` answers (threshold.md): attack, deadlyDemise, heal."""

from schema.answers.base import Distribution, Exact, Omitted, Probability, Result, answer_model


class ThresholdAftermath(Result):
    """What an HP pool went through (§5): HP lost, destruction, Devastating Wounds, Battle
    Shock tests owed and, for a unit of several models, models destroyed."""

    hp_loss: Distribution
    expected_hp_loss: Exact[float]
    p_destroyed: Exact[Probability]
    p_devastating: Exact[Probability]
    p_battle_shock_test: Exact[Probability]
    models_destroyed: Distribution | None = Omitted(
        "present when the target is a unit (hpPerModel and startingModels given)"
    )


class ThresholdAttackResult(ThresholdAftermath):
    """`attack`: one attack's success and HP loss, then the target's aftermath."""

    p_success: Exact[Probability]
    hp_loss_per_successful_attack: Distribution
    p_devastating_per_successful_attack: Exact[Probability]


class ThresholdUnitAftermath(ThresholdAftermath):
    """One unit near a Deadly Demise: its HP loss if the demise triggers, then its aftermath."""

    hp_loss_if_triggered: Distribution


class ThresholdDeadlyDemiseResult(Result):
    """`deadlyDemise`: the chance it triggers and each unit's aftermath, in request order."""

    p_trigger: Exact[Probability]
    units: list[ThresholdUnitAftermath]


class ThresholdHealResult(Result):
    """`heal`: HP after and restored, models returned, fully restored."""

    hp_after: Distribution
    hp_restored: Distribution
    models_returned: Distribution
    expected_hp_restored: Exact[float]
    p_fully_restored: Exact[Probability]


ThresholdAttackAnswer = answer_model(ThresholdAttackResult)
ThresholdDeadlyDemiseAnswer = answer_model(ThresholdDeadlyDemiseResult)
ThresholdHealAnswer = answer_model(ThresholdHealResult)
