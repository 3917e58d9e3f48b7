"""From hits to hull points (kt2013.md §4.3–4.4, vehicle outputs of §6).

Each hit independently glances, penetrates or does nothing, and a save cancels a glancing or
penetrating hit; counts are taken over all hits, the wreck only caps `hullPointsLost`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from engine.kt2013.armour import penetration
from engine.kt2013.dice import Number, mean, none_of, thin
from engine.kt2013.saves import vehicle_hit_saved
from engine.kt2013.scenario import Attack, Vehicle


@dataclass(frozen=True)
class VehicleResult:
    """The vehicle outputs of §6."""

    glancing_hits: dict[int, Number]
    penetrating_hits: dict[int, Number]
    hull_points_lost: dict[int, Number]
    p_wrecked: Number
    p_any_penetrating: Number
    expected_hits: Number
    expected_hull_points_lost: Number


def capped(counts: Mapping[int, Number], cap: int) -> dict[int, Number]:
    out: dict[int, Number] = dict.fromkeys(range(cap + 1), 0)
    for n, p in counts.items():
        out[min(n, cap)] += p
    return out


def resolve_vehicle(
    attack: Attack, target: Vehicle, hits: Mapping[int, Number], number: type[Number]
) -> VehicleResult:
    """The §6 outputs against `target` (the attack's own target) given the hit distribution."""
    roll = penetration(attack)
    unsaved = 1 - vehicle_hit_saved(attack)
    glancing = number(roll.glancing * unsaved)
    penetrating = number(roll.penetrating * unsaved)
    lost = capped(thin(hits, glancing + penetrating), target.hull_points)
    return VehicleResult(
        glancing_hits=thin(hits, glancing),
        penetrating_hits=thin(hits, penetrating),
        hull_points_lost=lost,
        p_wrecked=lost[target.hull_points],
        p_any_penetrating=1 - none_of(hits, penetrating),
        expected_hits=mean(hits),
        expected_hull_points_lost=mean(lost),
    )
