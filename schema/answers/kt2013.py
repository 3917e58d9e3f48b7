"""kt2013 answers (kt2013.md §6): against a model or against a vehicle, by the target."""

from __future__ import annotations

from schema.answers.base import Distribution, Omitted, Probability, Ratio, Result, answer_model


class Kt2013ModelResult(Result):
    """An attack on a model (§6): hits, wounds, saves, Instant Death, removal."""

    wounds_lost: Distribution
    p_removed: Probability
    p_removed_exact: Ratio | None = Omitted()
    p_instant_death: Probability
    p_instant_death_exact: Ratio | None = Omitted()
    p_unsaved_wound: Probability
    p_unsaved_wound_exact: Ratio | None = Omitted()
    p_any_hit: Probability
    p_any_hit_exact: Ratio | None = Omitted()
    p_any_wound: Probability
    p_any_wound_exact: Ratio | None = Omitted()
    expected_hits: float
    expected_hits_exact: Ratio | None = Omitted()
    expected_wounds: float
    expected_wounds_exact: Ratio | None = Omitted()
    expected_unsaved_wounds: float
    expected_unsaved_wounds_exact: Ratio | None = Omitted()
    expected_wounds_lost: float
    expected_wounds_lost_exact: Ratio | None = Omitted()


class Kt2013VehicleResult(Result):
    """An attack on a vehicle (§6): glancing and penetrating hits, hull points, wrecked."""

    glancing_hits: Distribution
    penetrating_hits: Distribution
    hull_points_lost: Distribution
    p_wrecked: Probability
    p_wrecked_exact: Ratio | None = Omitted()
    p_any_penetrating: Probability
    p_any_penetrating_exact: Ratio | None = Omitted()
    expected_hits: float
    expected_hits_exact: Ratio | None = Omitted()
    expected_hull_points_lost: float
    expected_hull_points_lost_exact: Ratio | None = Omitted()


Kt2013ModelAnswer = answer_model(Kt2013ModelResult)
Kt2013VehicleAnswer = answer_model(Kt2013VehicleResult)
