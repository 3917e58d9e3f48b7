"""Ruleset `threshold` answers (threshold.md): attack, deadlyDemise, heal."""

from __future__ import annotations

from schema.answers.base import Distribution, Omitted, Probability, Ratio, Result, answer_model


class ThresholdAftermath(Result):
    """What an HP pool went through (§5): HP lost, destruction, Devastating Wounds, Battle
    Shock tests owed and, for a unit of several models, models destroyed."""

    hp_loss: Distribution
    expected_hp_loss: float
    expected_hp_loss_exact: Ratio | None = Omitted()
    p_destroyed: Probability
    p_destroyed_exact: Ratio | None = Omitted()
    p_devastating: Probability
    p_devastating_exact: Ratio | None = Omitted()
    p_battle_shock_test: Probability
    p_battle_shock_test_exact: Ratio | None = Omitted()
    models_destroyed: Distribution | None = Omitted(
        "present when the target is a unit (hpPerModel and startingModels given)"
    )


class ThresholdAttackResult(ThresholdAftermath):
    """`attack`: one attack's success and HP loss, then the target's aftermath."""

    p_success: Probability
    p_success_exact: Ratio | None = Omitted()
    hp_loss_per_successful_attack: Distribution
    p_devastating_per_successful_attack: Probability
    p_devastating_per_successful_attack_exact: Ratio | None = Omitted()


class ThresholdUnitAftermath(ThresholdAftermath):
    """One unit near a Deadly Demise: its HP loss if the demise triggers, then its aftermath."""

    hp_loss_if_triggered: Distribution


class ThresholdDeadlyDemiseResult(Result):
    """`deadlyDemise`: the chance it triggers and each unit's aftermath, in request order."""

    p_trigger: Probability
    p_trigger_exact: Ratio | None = Omitted()
    units: list[ThresholdUnitAftermath]


class ThresholdHealResult(Result):
    """`heal`: HP after and restored, models returned, fully restored."""

    hp_after: Distribution
    hp_restored: Distribution
    models_returned: Distribution
    expected_hp_restored: float
    expected_hp_restored_exact: Ratio | None = Omitted()
    p_fully_restored: Probability
    p_fully_restored_exact: Ratio | None = Omitted()


ThresholdAttackAnswer = answer_model(ThresholdAttackResult)
ThresholdDeadlyDemiseAnswer = answer_model(ThresholdDeadlyDemiseResult)
ThresholdHealAnswer = answer_model(ThresholdHealResult)
