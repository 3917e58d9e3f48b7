"""The whole attack: hits first, then the sequence of §3 (models) or §4 (vehicles)."""

from __future__ import annotations

from engine.kt2013.hull_points import VehicleResult, resolve_vehicle
from engine.kt2013.removal import ModelResult, resolve_model
from engine.kt2013.scenario import Attack, Vehicle
from engine.kt2013.to_hit import hit_distribution


def evaluate(attack: Attack) -> ModelResult | VehicleResult:
    """Exact outputs of kt2013.md §6 for a validated attack."""
    hits = hit_distribution(attack)
    if isinstance(attack.target, Vehicle):
        return resolve_vehicle(attack, attack.target, hits)
    return resolve_model(attack, attack.target, hits)
