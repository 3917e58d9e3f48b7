"""kt2013 answers (kt2013.md §6): against a model or against a vehicle, by the target."""

from schema.answers.base import Distribution, Exact, Probability, Result, answer_model


class Kt2013ModelResult(Result):
    """An attack on a model (§6): hits, wounds, saves, Instant Death, removal."""

    wounds_lost: Distribution
    p_removed: Exact[Probability]
    p_instant_death: Exact[Probability]
    p_unsaved_wound: Exact[Probability]
    p_any_hit: Exact[Probability]
    p_any_wound: Exact[Probability]
    expected_hits: Exact[float]
    expected_wounds: Exact[float]
    expected_unsaved_wounds: Exact[float]
    expected_wounds_lost: Exact[float]


class Kt2013VehicleResult(Result):
    """An attack on a vehicle (§6): glancing and penetrating hits, hull points, wrecked."""

    glancing_hits: Distribution
    penetrating_hits: Distribution
    hull_points_lost: Distribution
    p_wrecked: Exact[Probability]
    p_any_penetrating: Exact[Probability]
    expected_hits: Exact[float]
    expected_hull_points_lost: Exact[float]


Kt2013ModelAnswer = answer_model(Kt2013ModelResult)
Kt2013VehicleAnswer = answer_model(Kt2013VehicleResult)
