"""From hits to wounds lost and removal (kt2013.md §3.4–3.7 combined, outputs of §6).

Every hit goes through wound, save and unsaved-wound stages independently of the others, so
one hit has a small set of fates and a batch of h hits is a multinomial over them. Every attack
is rolled even after the target is removed (§3), which keeps the expectations linear.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from math import comb

from engine.kt2013.dice import Number, common, mean, none_of, ratio
from engine.kt2013.instant_death import unsaved_wound
from engine.kt2013.saves import wound_saved
from engine.kt2013.scenario import Attack, Model
from engine.kt2013.to_wound import wound_roll


@dataclass(frozen=True)
class HitFate:
    """Chances for one hit: it wounds; the wound goes unsaved; it then kills outright, costs one
    wound, or goes unsaved and is not discounted by Feel No Pain (the trigger of §6)."""

    wound: Number
    unsaved: Number
    instant_death: Number
    wound_lost: Number
    felt: Number


def hit_fate(attack: Attack, number: type[Number]) -> HitFate:
    """One hit's fate, worked out exactly, then given as `number` (Fraction or float)."""
    roll = wound_roll(attack)
    unsaved = roll.wound * (1 - wound_saved(attack, rending_wound=False)) + roll.rending_wound * (
        1 - wound_saved(attack, rending_wound=True)
    )
    fate = unsaved_wound(attack)
    return HitFate(
        wound=number(roll.any_wound),
        unsaved=number(unsaved),
        instant_death=number(unsaved * fate.instant_death),
        wound_lost=number(unsaved * fate.wound_lost),
        felt=number(unsaved * (1 - fate.discounted)),
    )


@dataclass(frozen=True)
class ModelResult:
    """The non-vehicle outputs of §6."""

    wounds_lost: dict[int, Number]
    p_removed: Number
    p_instant_death: Number
    p_unsaved_wound: Number
    p_any_hit: Number
    p_any_wound: Number
    expected_hits: Number
    expected_wounds: Number
    expected_unsaved_wounds: Number
    expected_wounds_lost: Number


def wounds_lost(hits: Mapping[int, Number], fate: HitFate, wounds: int) -> dict[int, Number]:
    """P(woundsLost = k), k = 0..wounds: below `wounds` only with no Instant Death and exactly k
    wounds lost; removal (any Instant Death, or `wounds` or more lost) counts as all lost (§3.7).

    With h hits: k lost and no Instant Death is C(h,k)·lostᵏ·quietʰ⁻ᵏ (quiet: neither), and
    some Instant Death is 1 − (1 − death)ʰ. Every entry is a sum of non-negative terms, never a
    complement, so an entry is zero in float mode exactly when it is zero in exact mode.
    Computed over a common denominator (see `dice.common`).
    """
    sizes = list(hits)
    chances, e = common(hits.values())
    (lost, death), d = common([fate.wound_lost, fate.instant_death])
    quiet = d - lost - death
    top = max(sizes)
    out = [0] * (wounds + 1)
    for h, chance in zip(sizes, chances, strict=True):
        scale = chance * d ** (top - h)
        for k in range(h + 1):
            out[min(k, wounds)] += scale * comb(h, k) * lost**k * quiet ** (h - k)
        out[wounds] += scale * (d**h - (d - death) ** h)
    return {k: ratio(v, e * d**top) for k, v in enumerate(out)}


def resolve_model(
    attack: Attack, target: Model, hits: Mapping[int, Number], number: type[Number]
) -> ModelResult:
    """The §6 outputs against `target` (the attack's own target) given the hit distribution."""
    fate = hit_fate(attack, number)
    lost = wounds_lost(hits, fate, target.wounds)
    expected_hits = mean(hits)
    return ModelResult(
        wounds_lost=lost,
        p_removed=lost[target.wounds],
        p_instant_death=1 - none_of(hits, fate.instant_death),
        p_unsaved_wound=1 - none_of(hits, fate.felt),
        p_any_hit=1 - hits.get(0, 0),
        p_any_wound=1 - none_of(hits, fate.wound),
        expected_hits=expected_hits,
        expected_wounds=expected_hits * fate.wound,
        expected_unsaved_wounds=expected_hits * fate.unsaved,
        expected_wounds_lost=mean(lost),
    )
