"""From hits to wounds lost and removal (kt2013.md §3.4–3.7 combined, outputs of §6).

Every hit goes through wound, save and unsaved-wound stages independently of the others, so
one hit has a small set of fates and a batch of h hits is a multinomial over them. Every attack
is rolled even after the target is removed (§3), which keeps the expectations linear.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import comb

from engine.kt2013.dice import ONE, ZERO, mean, none_of
from engine.kt2013.instant_death import unsaved_wound
from engine.kt2013.saves import wound_saved
from engine.kt2013.scenario import Attack, Model
from engine.kt2013.to_wound import wound_roll


@dataclass(frozen=True)
class HitFate:
    """Chances for one hit: it wounds; the wound goes unsaved; it then kills outright, costs one
    wound, or goes unsaved and is not discounted by Feel No Pain (the trigger of §6)."""

    wound: Fraction
    unsaved: Fraction
    instant_death: Fraction
    wound_lost: Fraction
    felt: Fraction


def hit_fate(attack: Attack) -> HitFate:
    roll = wound_roll(attack)
    unsaved = roll.wound * (ONE - wound_saved(attack, rending_wound=False)) + roll.rending_wound * (
        ONE - wound_saved(attack, rending_wound=True)
    )
    fate = unsaved_wound(attack)
    return HitFate(
        wound=roll.any_wound,
        unsaved=unsaved,
        instant_death=unsaved * fate.instant_death,
        wound_lost=unsaved * fate.wound_lost,
        felt=unsaved * (ONE - fate.discounted),
    )


@dataclass(frozen=True)
class ModelResult:
    """The non-vehicle outputs of §6 (exact)."""

    wounds_lost: dict[int, Fraction]
    p_removed: Fraction
    p_instant_death: Fraction
    p_unsaved_wound: Fraction
    p_any_hit: Fraction
    p_any_wound: Fraction
    expected_hits: Fraction
    expected_wounds: Fraction
    expected_unsaved_wounds: Fraction
    expected_wounds_lost: Fraction


def wounds_lost(hits: Mapping[int, Fraction], fate: HitFate, wounds: int) -> dict[int, Fraction]:
    """P(woundsLost = k), k = 0..wounds: below `wounds` only with no Instant Death and exactly k
    wounds lost; the rest of the probability is removal, reported as all `wounds` lost (§3.7)."""
    quiet = ONE - fate.instant_death - fate.wound_lost
    out = dict.fromkeys(range(wounds + 1), ZERO)
    for h, p_h in hits.items():
        for k in range(min(h, wounds - 1) + 1):
            out[k] += p_h * comb(h, k) * fate.wound_lost**k * quiet ** (h - k)
    out[wounds] = ONE - sum(out.values(), ZERO)
    return out


def resolve_model(attack: Attack, target: Model, hits: Mapping[int, Fraction]) -> ModelResult:
    """The §6 outputs against `target` (the attack's own target) given the hit distribution."""
    fate = hit_fate(attack)
    lost = wounds_lost(hits, fate, target.wounds)
    expected_hits = mean(hits)
    return ModelResult(
        wounds_lost=lost,
        p_removed=lost[target.wounds],
        p_instant_death=ONE - none_of(hits, fate.instant_death),
        p_unsaved_wound=ONE - none_of(hits, fate.felt),
        p_any_hit=ONE - hits.get(0, ZERO),
        p_any_wound=ONE - none_of(hits, fate.wound),
        expected_hits=expected_hits,
        expected_wounds=expected_hits * fate.wound,
        expected_unsaved_wounds=expected_hits * fate.unsaved,
        expected_wounds_lost=mean(lost),
    )
