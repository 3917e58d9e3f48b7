"""Die-by-die cross-checks: enumerate every face of every die and replay the rules of
threshold.md literally, then compare with the engine's answer through the registry.

The enumerators share no code with the engine: they roll skill dice, Damage dice, Focus and
Panic dice one face at a time, including the dice of attacks that are never resolved because
the unit is already destroyed (each full face sequence is equally likely).
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product
from math import ceil, prod
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from schema import registry

SMALL_DICE = (2, 3, 4, 6)
BUDGET = 30_000  # face sequences per enumeration; keeps each example well under 0.1 s


def expression(dice: list[int], constant: int) -> str | int:
    """A ThDiceExpr spelling of dice + constant (the engine parses it; the enumerator doesn't)."""
    if not dice:
        return constant
    text = "+".join(f"d{size}" for size in dice)
    return text + (f"{constant:+d}" if constant else "")


def exact_answer(envelope: dict[str, Any]) -> dict[str, Any]:
    return registry.run({**envelope, "options": {"exact": True}})


def as_fractions(distribution: list[dict[str, Any]]) -> dict[int, Fraction]:
    return {entry["value"]: Fraction(entry["exact"]) for entry in distribution}


def normalised(counts: Counter, total: int) -> dict[Any, Fraction]:
    return {key: Fraction(n, total) for key, n in counts.items() if n}


def hp_loss(damage: int, minor: int, major: int, centrepiece: bool, direct: bool):
    """(L, Devastating Wounds) straight from the table of §2 step 3."""
    if direct:
        return max(damage, 0), False
    if damage >= 2 * major:
        return (4 if centrepiece else 3), True
    if damage >= major:
        return 3, False
    if damage >= minor:
        return 2, False
    return 1, False


def models(hp: int, per_model: int) -> int:
    return ceil(hp / per_model)


# --- attack ------------------------------------------------------------------------------


@st.composite
def attacks(draw: st.DrawFn) -> tuple[dict[str, Any], list[int], int]:
    """(request, Damage dice, Damage constant), small enough to enumerate every face."""
    count = draw(st.integers(1, 3))
    dc = draw(st.none() | st.integers(1, 16))
    mode = draw(st.sampled_from(["normal", "advantage", "disadvantage"]))
    skill_faces = 1 if dc is None else (12 if mode == "normal" else 144)
    dice: list[int] = []
    for size in draw(st.lists(st.sampled_from(SMALL_DICE), max_size=3)):
        if skill_faces * prod(dice) * size > BUDGET:
            break
        dice.append(size)
    while (skill_faces * prod(dice)) ** count > BUDGET:
        count -= 1
    constant = draw(st.integers(-4, 6))
    # Thresholds around the Damage range, so that every band (and 2 × Major) is reachable.
    top = max(sum(dice) + constant, 1)
    minor = draw(st.integers(1, top + 1))
    current = draw(st.integers(1, 8))
    target: dict[str, Any] = {
        "minorThreshold": minor,
        "majorThreshold": draw(st.integers(minor, max(minor, top))),
        "currentHP": current,
    }
    unit = draw(st.none() | st.integers(1, 4))
    if unit is not None:
        extra = draw(st.integers(0, 2))
        target |= {"hpPerModel": unit, "startingModels": ceil(current / unit) + extra}
    constant = draw(st.integers(-4, 6))
    request = {
        "ruleset": "threshold",
        "mode": "attack",
        "attack": {
            "attacks": count,
            "skillBonus": draw(st.integers(-3, 3)),
            "dc": dc,
            "skillRollMode": mode,
            "damage": expression(dice, constant),
            "damageType": draw(st.sampled_from(["normal", "direct"])),
            "centrepiece": draw(st.booleans()),
        },
        "target": target,
    }
    return request, dice, constant


def enumerate_attack(envelope: dict[str, Any], dice: list[int], constant: int) -> dict[str, Any]:
    attack, target = envelope["attack"], envelope["target"]
    dc, mode = attack["dc"], attack["skillRollMode"]
    skill_dice = 0 if dc is None else (1 if mode == "normal" else 2)
    direct = attack["damageType"] == "direct"
    start = target["currentHP"]

    def resolve_damage(faces: tuple[int, ...]):
        return hp_loss(
            sum(faces) + constant,
            target["minorThreshold"],
            target["majorThreshold"],
            attack["centrepiece"],
            direct,
        )

    def succeeds(faces: tuple[int, ...]) -> bool:
        if dc is None:
            return True
        kept = {"normal": faces[0], "advantage": max(faces), "disadvantage": min(faces)}[mode]
        return kept + attack["skillBonus"] >= dc

    skill_rolls = list(product(range(1, 13), repeat=skill_dice))
    damage_rolls = list(product(*(range(1, s + 1) for s in dice)))
    per_success = Counter(resolve_damage(faces) for faces in damage_rolls)

    final: Counter = Counter()
    per_attack = skill_dice + len(dice)
    sizes = ([12] * skill_dice + dice) * attack["attacks"]
    for faces in product(*(range(1, s + 1) for s in sizes)):
        hp, devastating, battle_shock = start, False, False
        for i in range(attack["attacks"]):
            if hp == 0:
                break
            roll = faces[i * per_attack : (i + 1) * per_attack]
            if not succeeds(roll[:skill_dice]):
                continue
            loss, triggered = resolve_damage(roll[skill_dice:])
            hp = max(hp - loss, 0)
            devastating |= triggered
            battle_shock |= triggered and hp > 0
        final[(hp, devastating, battle_shock)] += 1
    total = sum(final.values())

    def share(event) -> Fraction:
        return Fraction(sum(n for state, n in final.items() if event(state)), total)

    out: dict[str, Any] = {
        "pSuccess": Fraction(sum(succeeds(f) for f in skill_rolls), len(skill_rolls)),
        "hpLossPerSuccessfulAttack": normalised(
            _by(per_success, lambda hit: hit[0]), len(damage_rolls)
        ),
        "pDevastatingPerSuccessfulAttack": Fraction(
            sum(n for (_, d), n in per_success.items() if d), len(damage_rolls)
        ),
        "hpLoss": normalised(_by(final, lambda s: start - s[0]), total),
        "expectedHpLoss": Fraction(sum((start - s[0]) * n for s, n in final.items()), total),
        "pDestroyed": share(lambda s: s[0] == 0),
        "pDevastating": share(lambda s: s[1]),
        "pBattleShockTest": share(lambda s: s[2]),
    }
    if "hpPerModel" in target:
        w = target["hpPerModel"]
        out["modelsDestroyed"] = normalised(
            _by(final, lambda s: models(start, w) - models(s[0], w)), total
        )
    return out


def _by(counts: Counter, key) -> Counter:
    grouped: Counter = Counter()
    for outcome, n in counts.items():
        grouped[key(outcome)] += n
    return grouped


def exact_scalars_and_distributions(answer: dict[str, Any]) -> dict[str, Any]:
    """An exact API answer as Fractions: scalars from `<name>Exact`, distributions as dicts."""
    out: dict[str, Any] = {}
    for name, value in answer.items():
        if name.endswith("Exact"):
            out[name.removesuffix("Exact")] = Fraction(value)
        elif isinstance(value, list) and name != "units":
            out[name] = as_fractions(value)
    return out


ATTACK_DEFAULTS = {
    "attacks": 1,
    "skillBonus": 0,
    "dc": None,
    "skillRollMode": "normal",
    "damageType": "normal",
    "centrepiece": False,
}


def _targeted(attack: dict[str, Any], target: dict[str, Any], dice: list[int], constant: int):
    """A hand-picked attack the random draw rarely reaches (repeated Devastating Wounds)."""
    attack = ATTACK_DEFAULTS | attack
    return (
        {"ruleset": "threshold", "mode": "attack", "attack": attack, "target": target},
        dice,
        constant,
    )


@settings(max_examples=150, deadline=None)
@given(attacks())
@example(
    _targeted(
        {"attacks": 3, "damage": "d6+d4", "centrepiece": True},
        {
            "minorThreshold": 2,
            "majorThreshold": 3,
            "currentHP": 8,
            "hpPerModel": 3,
            "startingModels": 3,
        },
        [6, 4],
        0,
    )
)
@example(
    _targeted(
        {"attacks": 2, "dc": 6, "skillBonus": -1, "damage": "d6"},
        {
            "minorThreshold": 2,
            "majorThreshold": 2,
            "currentHP": 5,
            "hpPerModel": 2,
            "startingModels": 3,
        },
        [6],
        0,
    )
)
@example(
    _targeted(
        {"attacks": 3, "damage": "d6-2", "damageType": "direct"},
        {
            "minorThreshold": 9,
            "majorThreshold": 9,
            "currentHP": 6,
            "hpPerModel": 2,
            "startingModels": 3,
        },
        [6],
        -2,
    )
)
def test_attack_matches_face_enumeration(drawn: tuple[dict[str, Any], list[int], int]) -> None:
    request, dice, constant = drawn
    answer = exact_scalars_and_distributions(exact_answer(request))
    assert answer == enumerate_attack(request, dice, constant)


# --- deadlyDemise ------------------------------------------------------------------------


@st.composite
def blasts(draw: st.DrawFn) -> dict[str, Any]:
    units = []
    for _ in range(draw(st.integers(1, 2))):
        minor = draw(st.integers(1, 15))
        current = draw(st.integers(1, 6))
        unit: dict[str, Any] = {
            "name": draw(st.text(max_size=3)),
            "minorThreshold": minor,
            "majorThreshold": draw(st.integers(minor, 15)),
            "currentHP": current,
        }
        if draw(st.booleans()):
            w = draw(st.integers(1, 3))
            unit |= {"hpPerModel": w, "startingModels": ceil(current / w)}
        units.append(unit)
    return {
        "ruleset": "threshold",
        "mode": "deadlyDemise",
        "x": draw(st.integers(1, 2)),
        "units": units,
    }


def enumerate_unit_demise(x: int, unit: dict[str, Any]) -> dict[str, Any]:
    start = unit["currentHP"]
    final: Counter = Counter()
    if_triggered: Counter = Counter()
    for focus, panic, *damage in product(range(1, 13), repeat=2 + x):
        hp, devastating = start, False
        if panic > focus:
            loss, devastating = hp_loss(
                sum(damage), unit["minorThreshold"], unit["majorThreshold"], False, False
            )
            hp = max(hp - loss, 0)
            if_triggered[start - hp] += 1
        final[(hp, devastating, devastating and hp > 0)] += 1
    total = sum(final.values())
    out: dict[str, Any] = {
        "hpLossIfTriggered": normalised(if_triggered, sum(if_triggered.values())),
        "hpLoss": normalised(_by(final, lambda s: start - s[0]), total),
        "expectedHpLoss": Fraction(sum((start - s[0]) * n for s, n in final.items()), total),
        "pDestroyed": Fraction(sum(n for s, n in final.items() if s[0] == 0), total),
        "pDevastating": Fraction(sum(n for s, n in final.items() if s[1]), total),
        "pBattleShockTest": Fraction(sum(n for s, n in final.items() if s[2]), total),
    }
    if "hpPerModel" in unit:
        w = unit["hpPerModel"]
        out["modelsDestroyed"] = normalised(
            _by(final, lambda s: models(start, w) - models(s[0], w)), total
        )
    return out


@settings(max_examples=25, deadline=None)
@given(blasts())
def test_deadly_demise_matches_face_enumeration(envelope: dict[str, Any]) -> None:
    answer = exact_answer(envelope)
    triggers = sum(panic > focus for focus, panic in product(range(1, 13), repeat=2))
    assert Fraction(answer["pTriggerExact"]) == Fraction(triggers, 144)
    assert len(answer["units"]) == len(envelope["units"])
    for got, unit in zip(answer["units"], envelope["units"], strict=True):
        assert exact_scalars_and_distributions(got) == enumerate_unit_demise(envelope["x"], unit)


# --- heal --------------------------------------------------------------------------------


@st.composite
def heals(draw: st.DrawFn) -> tuple[dict[str, Any], list[int], int]:
    """(request, amount dice, amount constant)."""
    n = draw(st.integers(1, 5))
    w = draw(st.integers(1, 6))
    dice = draw(st.lists(st.sampled_from((*SMALL_DICE, 8, 12)), max_size=3))
    constant = draw(st.integers(-6, 6))
    request = {
        "ruleset": "threshold",
        "mode": "heal",
        "startingModels": n,
        "hpPerModel": w,
        "currentHP": draw(st.integers(1, n * w)),
        "amount": expression(dice, constant),
        "canReturnModels": draw(st.booleans()),
    }
    return request, dice, constant


def enumerate_heal(envelope: dict[str, Any], dice: list[int], constant: int) -> dict[str, Any]:
    n, w, start = envelope["startingModels"], envelope["hpPerModel"], envelope["currentHP"]
    after: Counter = Counter()
    for faces in product(*(range(1, s + 1) for s in dice)):
        hp = start
        # Restore one HP at a time, as a player would count it out.
        for _ in range(max(sum(faces) + constant, 0)):
            full = n * w if envelope["canReturnModels"] else models(start, w) * w
            if hp < full:
                hp += 1
        after[hp] += 1
    total = sum(after.values())
    return {
        "hpAfter": normalised(after, total),
        "hpRestored": normalised(_by(after, lambda hp: hp - start), total),
        "modelsReturned": normalised(
            _by(after, lambda hp: models(hp, w) - models(start, w)), total
        ),
        "expectedHpRestored": Fraction(sum((hp - start) * c for hp, c in after.items()), total),
        "pFullyRestored": Fraction(after[n * w], total),
    }


@settings(max_examples=150, deadline=None)
@given(heals())
def test_heal_matches_face_enumeration(drawn: tuple[dict[str, Any], list[int], int]) -> None:
    request, dice, constant = drawn
    answer = exact_scalars_and_distributions(exact_answer(request))
    assert answer == enumerate_heal(request, dice, constant)
