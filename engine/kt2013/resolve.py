"""The whole attack: hits first, then the sequence of §3 (models) or §4 (vehicles)."""

from __future__ import annotations

from fractions import Fraction

from engine.kt2013.dice import Number
from engine.kt2013.hull_points import VehicleResult, resolve_vehicle
from engine.kt2013.removal import ModelResult, resolve_model
from engine.kt2013.scenario import Attack, Vehicle
from engine.kt2013.to_hit import hit_distribution


def evaluate(attack: Attack) -> ModelResult | VehicleResult:
    """The outputs of kt2013.md §6 for a validated attack.

    Exact (Fractions) when `options.exact`, else floats: every single-roll chance and the hit
    batches are still worked out exactly, only the combining arithmetic runs in floats.
    """
    number: type[Number] = Fraction if attack.options.exact else float
    hits = hit_distribution(attack, number)
    if isinstance(attack.target, Vehicle):
        return resolve_vehicle(attack, attack.target, hits, number)
    return resolve_model(attack, attack.target, hits, number)
