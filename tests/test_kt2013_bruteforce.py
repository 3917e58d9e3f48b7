"""kt2013: the engine against a die-by-die enumerator on random small requests.

The enumerator below is written from the spec's text alone and reads the raw request (with the
spec's defaults), so it shares no code with the engine or the request layer. It rolls every
die: each attack die of the batch as a face tuple (then every re-rolled die), and for each hit
its wound die, wound re-roll, save die and Feel No Pain die (vehicles: penetration die, D3 as a
halved D6, Tank Hunter re-roll, save die). Equal game states are merged between hits, which
keeps the enumeration exact and small.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import product

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kt2013_requests import requests

from engine.kt2013.to_hit import batch_hits, shooting_roll
from schema import registry

SIXTH = Fraction(1, 6)
FACES = range(1, 7)
WOUND_CHART = {2: 2, 1: 3, 0: 4, -1: 5, -2: 6, -3: 6}  # S − T → X+ (≥ 2 → 2+, ≤ −4 → none)
BS_CHART = {1: 6, 2: 5, 3: 4, 4: 3, 5: 2}


def attack_counts(expr: int | str) -> dict[int, Fraction]:
    """Roll the attacks: a number, a digit string, 'D3' (a halved D6) or 'D6'."""
    if isinstance(expr, int) or expr.strip().isdigit():
        return {int(expr): Fraction(1)}
    counts: dict[int, Fraction] = defaultdict(Fraction)
    for face in FACES:
        counts[(face + 1) // 2 if expr.strip().upper() == "D3" else face] += SIXTH
    return counts


def hit_needs(req: dict) -> tuple[int, int | None] | None:
    """(X+ to hit, X+ for a re-rolled 1 at BS 6+), or None for automatic hits."""
    attacker, target = req["attacker"], req["target"]
    if req["mode"] == "shooting":
        bs = 1 if attacker.get("snapShots") else attacker["ballisticSkill"]
        return (BS_CHART[bs], None) if bs <= 5 else (2, 12 - bs)
    if target.get("vehicle"):
        hit_on = target.get("meleeHitOn", "auto")
        return None if hit_on == "auto" else (hit_on, None)
    a, d = attacker["weaponSkill"], target["weaponSkill"]
    return (3 if a > d else 5 if d > 2 * a else 4), None


def hits(req: dict) -> dict[int, Fraction]:
    attacker, weapon = req["attacker"], req["weapon"]
    preferred, crafted = attacker.get("preferredEnemy", False), weapon.get("masterCrafted", False)
    needs = hit_needs(req)
    out: dict[int, Fraction] = defaultdict(Fraction)
    for n, p_n in attack_counts(weapon["attacks"]).items():
        if needs is None:
            out[n] += p_n
            continue
        need, special = needs
        for faces in product(FACES, repeat=n):
            rerolled: list[int] = []  # what each re-rolled die needs
            ones = faces.count(1)
            if crafted and any(1 < f < need for f in faces):
                rerolled.append(need)
            elif crafted and ones and not preferred:
                rerolled.append(need)
                ones -= 1
            for _ in range(ones):
                if preferred:
                    rerolled.append(need)
                elif special is not None:
                    rerolled.append(special)
            kept = sum(f >= need for f in faces)
            for again in product(FACES, repeat=len(rerolled)):
                total = kept + sum(f >= r for f, r in zip(again, rerolled, strict=True))
                out[total] += p_n * SIXTH ** (n + len(rerolled))
    return out


def cover(req: dict) -> int | None:
    target = req["target"]
    if req["mode"] != "shooting" or req["weapon"].get("ignoresCover"):
        return None
    value = target.get("coverSave") or 7
    value = max(2, value - target.get("stealth", False) - 2 * target.get("shrouded", False))
    return value if value <= 6 else None


def best(*saves: int | None) -> int | None:
    return min((s for s in saves if s is not None), default=None)


def die(need: int | None) -> list[tuple[bool, Fraction]]:
    """Roll one D6 against X+ (None: no roll, it fails)."""
    if need is None:
        return [(False, Fraction(1))]
    return [(face >= need, SIXTH) for face in FACES]


def model_hit(req: dict) -> dict[tuple, Fraction]:
    """One hit on a model, every die rolled: (wounded, unsaved, felt, instant death, lost)."""
    attacker, weapon, target = req["attacker"], req["weapon"], req["target"]
    shooting = req["mode"] == "shooting"
    strength, toughness = weapon["strength"], target["toughness"]
    sniper = shooting and (weapon.get("sniper") or attacker.get("sniper"))
    rending = weapon.get("rending") or weapon.get("sniper")
    needs = [4] if sniper else [WOUND_CHART.get(max(-4, min(2, strength - toughness)), 7)]
    needs += [2] if weapon.get("fleshbane") else []
    needs += [weapon["poisoned"]] if weapon.get("poisoned") else []
    need = min(needs)
    reroll_all = (
        weapon.get("shred")
        or (attacker.get("monsterHunter") and target.get("monstrousCreature"))
        or (weapon.get("poisoned") and not shooting and strength >= toughness)
    )
    reroll_ones = not reroll_all and attacker.get("preferredEnemy")
    killer = strength is not None and strength >= 2 * toughness
    instant = killer and not target.get("eternalWarrior")
    out: dict[tuple, Fraction] = defaultdict(Fraction)
    for first in FACES:
        ok = (first >= need and first != 1) or (rending and first == 6)
        finals = [(first, SIXTH)]
        if not ok and (reroll_all or (reroll_ones and first == 1)):
            finals = [(face, SIXTH * SIXTH) for face in FACES]
        for face, p in finals:
            if not ((face >= need and face != 1) or (rending and face == 6)):
                out[(0, 0, 0, 0, 0)] += p
                continue
            ap, armour = weapon.get("ap"), target["save"]
            if (rending and face == 6) or (ap is not None and armour is not None and ap <= armour):
                armour = None
            save = best(armour, cover(req), target.get("invulnerableSave"))
            for saved, p_save in die(save):
                if saved:
                    out[(1, 0, 0, 0, 0)] += p * p_save
                elif instant:
                    out[(1, 1, 1, 1, 0)] += p * p_save
                else:
                    for discounted, p_fnp in die(target.get("feelNoPain")):
                        fate = (1, 1, 0, 0, 0) if discounted else (1, 1, 1, 0, 1)
                        out[fate] += p * p_save * p_fnp
    return out


def vehicle_hit(req: dict) -> dict[tuple, Fraction]:
    """One hit on a vehicle, every die rolled: (unsaved glancing, unsaved penetrating)."""
    attacker, weapon, target = req["attacker"], req["weapon"], req["target"]
    rending = weapon.get("rending") or weapon.get("sniper")
    strength = 3 if weapon.get("sniper") else weapon["strength"]

    def roll() -> list[tuple[str, Fraction]]:
        results = []
        for face in FACES:
            if weapon.get("haywire"):
                results.append(("none" if face == 1 else "pen" if face == 6 else "glance", SIXTH))
                continue
            for d6 in FACES if rending and face == 6 else [0]:
                extra = (d6 + 1) // 2
                total = strength + face + extra
                result = "pen" if total > target["armourValue"] else "none"
                result = "glance" if total == target["armourValue"] else result
                results.append((result, SIXTH * (SIXTH if d6 else 1)))
        return results

    again = {"none"} | ({"glance"} if attacker.get("tankHunterRerollGlancing") else set())
    out: dict[tuple, Fraction] = defaultdict(Fraction)
    save = best(cover(req), target.get("invulnerableSave"))
    for result, p in roll():
        finals = [(result, p)]
        if attacker.get("tankHunter") and result in again:
            finals = [(second, p * q) for second, q in roll()]
        for final, p_final in finals:
            if final == "none":
                out[(0, 0)] += p_final
                continue
            for saved, p_save in die(save):
                fate = (0, 0) if saved else (int(final == "glance"), int(final == "pen"))
                out[fate] += p_final * p_save
    return out


def each_hit_count(req: dict, per_hit: dict[tuple, Fraction]) -> dict[tuple, Fraction]:
    """Fold the hits in one by one; states are tallies (sums) of the per-hit fate tuples."""
    size = len(next(iter(per_hit)))
    out: dict[tuple, Fraction] = defaultdict(Fraction)
    hit_counts = hits(req)
    states = {(0,) * size: Fraction(1)}
    for h in range(max(hit_counts) + 1):
        for state, p in states.items():
            out[state] += hit_counts.get(h, 0) * p
        folded: dict[tuple, Fraction] = defaultdict(Fraction)
        for state, p in states.items():
            for fate, q in per_hit.items():
                folded[tuple(a + b for a, b in zip(state, fate, strict=True))] += p * q
        states = folded
    return out, hit_counts


def brute_force(req: dict) -> dict:
    if req["target"].get("vehicle"):
        totals, hit_counts = each_hit_count(req, vehicle_hit(req))
        hp = req["target"]["hullPoints"]
        dist = defaultdict(lambda: defaultdict(Fraction))
        for (g, p), prob in totals.items():
            dist["glancingHits"][g] += prob
            dist["penetratingHits"][p] += prob
            dist["hullPointsLost"][min(g + p, hp)] += prob
        out = {k: dict(v) for k, v in dist.items()}
        out["pWrecked"] = sum(q for (g, p), q in totals.items() if g + p >= hp)
        out["pAnyPenetrating"] = sum(q for (g, p), q in totals.items() if p)
        out["expectedHits"] = sum(h * q for h, q in hit_counts.items())
        out["expectedHullPointsLost"] = sum(k * q for k, q in out["hullPointsLost"].items())
        return out
    totals, hit_counts = each_hit_count(req, model_hit(req))
    wounds = req["target"]["wounds"]
    lost: dict[int, Fraction] = defaultdict(Fraction)
    for (_, _, _, deaths, lost_n), q in totals.items():
        lost[wounds if deaths or lost_n >= wounds else lost_n] += q
    return {
        "woundsLost": dict(lost),
        "pRemoved": lost[wounds],
        "pInstantDeath": sum(q for s, q in totals.items() if s[3]),
        "pUnsavedWound": sum(q for s, q in totals.items() if s[2]),
        "pAnyHit": 1 - hit_counts.get(0, 0),
        "pAnyWound": sum(q for s, q in totals.items() if s[0]),
        "expectedHits": sum(h * q for h, q in hit_counts.items()),
        "expectedWounds": sum(s[0] * q for s, q in totals.items()),
        "expectedUnsavedWounds": sum(s[1] * q for s, q in totals.items()),
        "expectedWoundsLost": sum(k * q for k, q in lost.items()),
    }


def engine_exact(req: dict) -> dict:
    got = registry.run({**req, "options": {"exact": True}})
    out: dict = {}
    for name, value in got.items():
        if isinstance(value, list):
            out[name] = {e["value"]: Fraction(e["exact"]) for e in value}
        elif name.endswith("Exact"):
            out[name.removesuffix("Exact")] = Fraction(value)
    return out


def without_zeros(result: dict) -> dict:
    return {
        k: {v: p for v, p in d.items() if p} if isinstance(d, dict) else d
        for k, d in result.items()
    }


SMALL = [1, 2, 3, "2", "D3", "d3"]  # at most 3 attack dice: 6³ faces, then the re-rolls
CHECK = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@CHECK
@given(requests(vehicle=False, attacks=SMALL, most_wounds=4))
def test_model_targets_match_the_enumerator(req: dict) -> None:
    assert engine_exact(req) == without_zeros(brute_force(req))


@CHECK
@given(requests(vehicle=True, attacks=SMALL, most_wounds=4))
def test_vehicle_targets_match_the_enumerator(req: dict) -> None:
    assert engine_exact(req) == without_zeros(brute_force(req))


def batch_by_dice(n: int, need: int, special: int | None, crafted: bool, preferred: bool):
    """Hits of an n-dice batch, rolled die by die; states (hits, any low, ones) are merged, then
    the re-rolls of §3.3 are rolled die by die too. Reaches batches too big to enumerate."""
    states: dict[tuple[int, bool, int], Fraction] = {(0, False, 0): Fraction(1)}
    for _ in range(n):
        rolled: dict[tuple[int, bool, int], Fraction] = defaultdict(Fraction)
        for (hit, low, ones), p in states.items():
            for face in FACES:
                state = (hit + (face >= need), low or 1 < face < need, ones + (face == 1))
                rolled[state] += p * SIXTH
        states = rolled
    out: dict[int, Fraction] = defaultdict(Fraction)
    for (hit, low, ones), p in states.items():
        needs = []
        if crafted and (low or (ones and not preferred)):
            needs.append(need)
            ones -= 0 if low else 1
        needs += [need if preferred else special] * ones if preferred or special else []
        tallies = {hit: p}
        for again in needs:
            step: dict[int, Fraction] = defaultdict(Fraction)
            for count, q in tallies.items():
                for face in FACES:
                    step[count + (face >= again)] += q * SIXTH
            tallies = step
        for count, q in tallies.items():
            out[count] += q
    return {k: p for k, p in out.items() if p}


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 20),
    skill=st.integers(1, 10),
    crafted=st.booleans(),
    preferred=st.booleans(),
)
def test_large_hit_batches_match_die_by_die_rolling(
    n: int, skill: int, crafted: bool, preferred: bool
) -> None:
    roll = shooting_roll(skill)
    want = batch_by_dice(n, roll.need, roll.special, crafted, preferred)
    got = {h: p for h, p in enumerate(batch_hits(n, roll, crafted, preferred)) if p}
    assert got == want
