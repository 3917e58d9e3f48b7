"""Random fights for the kt2024 fight tests: API dicts drawn by hypothesis over every field and
strategy, and the engine's `Fight` for one (shared by the oracle and the table tests)."""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from engine.kt2024.fighter import Fight
from schema import registry

STRATEGIES = ("MAX_DAMAGE", "MIN_DAMAGE_TO_SELF", "STRIKE", "PARRY", "OPTIMAL")
HEURISTICS = STRATEGIES[:4]
REROLLS = (
    "NONE", "BALANCED", "DOUBLE_BALANCED", "CEASELESS", "RELENTLESS", "CRIT_FISH", "REROLL_ONES",
    "ONES_AND_BALANCED", "CEASELESS_AND_BALANCED",
)  # fmt: skip
FLAGS = (
    "rending", "severe", "punishing", "closeAssault", "puritySeal", "mysticScry", "curseOfRot",
    "brutal", "shock", "stun2021", "stormShield2021", "hammerhand2021", "dueller2021", "duelist",
    "murderousEntrance2021", "durable", "halfDamageFirstStrike",
)  # fmt: skip


def slow(examples: int) -> settings:
    """Fixed examples (reproducible runs), no per-example deadline: the oracle is slow."""
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
        derandomize=True,
    )


@st.composite
def fighter_dicts(draw, max_attacks: int = 3, max_wounds: int = 8, strategies=STRATEGIES) -> dict:
    """A fighter as an API dict; every field can take every kind of value."""
    attacks = draw(st.integers(0, max_attacks))
    f = {
        "attacks": attacks,
        "hit": draw(st.sampled_from([2, 3, 3, 4, 4, 5, 6])),
        "lethal": draw(st.sampled_from([6, 6, 5, 4, 2])),
        "normalDamage": draw(st.sampled_from([0, 1, 2, 2, 3, 3, 4, 5])),
        "criticalDamage": draw(st.sampled_from([0, 1, 2, 3, 3, 4, 4, 5, 6, 7])),
        "wounds": draw(st.integers(1, max_wounds)),
        "strategy": draw(st.sampled_from(strategies)),
        "accurate": draw(st.sampled_from([0, 0, 0, 1, 2])),
        "autoCrits": draw(st.sampled_from([0, 0, 0, 1])),
        "failsToNorms": draw(st.sampled_from([0, 0, 1])),
        "normsToCrits": draw(st.sampled_from([0, 0, 1])),
        # re-rolls multiply the oracle's work by 6**dice: only on small pools
        "reroll": draw(st.sampled_from(REROLLS)) if attacks <= 2 else "NONE",
        "justAScratch": draw(st.sampled_from(["NONE", "NONE", "CRITS", "NORMALS"])),
        "saintlyRelics": draw(st.sampled_from(["NONE", "NONE", "ONE_D6", "TWO_D6"])),
        "feelNoPain": draw(st.sampled_from([None, None, 4, 5, 6])),
    }
    elite = draw(st.sampled_from([None, None, None, "eliteModerate", "eliteExtreme"]))
    if elite:
        f[elite] = True
    for flag in draw(st.sets(st.sampled_from(FLAGS), max_size=6)):
        f[flag] = True
    return f


@st.composite
def fights(draw, max_attacks: int = 3, max_wounds: int = 8, max_rounds: int = 2, **kw) -> dict:
    a = draw(fighter_dicts(max_attacks, max_wounds, **kw))
    b = draw(fighter_dicts(max_attacks, max_wounds, **kw))
    rounds = draw(st.integers(1, max_rounds))
    return {"fighterA": a, "fighterB": b,
            "options": {"firstToAct": draw(st.sampled_from("AB")), "rounds": rounds}}  # fmt: skip


def engine_fight(body: dict, exact: bool = True) -> Fight:
    return registry.resolve({**body, "options": {**body["options"], "exact": exact}}, "fight")[1]
