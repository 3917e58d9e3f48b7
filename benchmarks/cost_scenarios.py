"""Random envelopes of every ruleset and mode, light and heavy, for the cost model's
calibration (`calibrate_costs.py`) and its check against the server (`bench_costs.py`).

The kt2024 ones span the request limits the cost model must price: shoots up to 20 attacks,
9 defence dice, 10 rounds and 50 wounds; fights up to 8 attacks a side, 30 wounds, 5 rounds,
exact, OPTIMAL, rerolls and Feel No Pain (the issue's heavy fight is one of them). `heavy`
bounds how far the fights go: the calibration needs the big ones, a request mix fewer.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "loadtests"))
import kt2013 as kt2013_bench  # noqa: E402
import kt2018 as kt2018_bench  # noqa: E402
import threshold as threshold_bench  # noqa: E402
from scenarios import fight as load_fight  # noqa: E402
from scenarios import shoot as load_shoot  # noqa: E402

Envelope = dict[str, Any]
REROLLS = ("NONE", "BALANCED", "CEASELESS", "RELENTLESS", "CEASELESS_AND_BALANCED")
STRATEGIES = ("MAX_DAMAGE", "STRIKE", "PARRY", "MIN_DAMAGE_TO_SELF", "OPTIMAL")

HEAVY_FIGHT: Envelope = {
    "ruleset": "kt2024",
    "mode": "fight",
    **{
        side: {
            "attacks": 8,
            "hit": 3,
            "normalDamage": 3,
            "criticalDamage": 4,
            "wounds": wounds,
            "strategy": "OPTIMAL",
            "reroll": "CEASELESS_AND_BALANCED",
            "feelNoPain": 5,
        }
        for side, wounds in (("fighterA", 30), ("fighterB", 29))
    },
    "options": {"rounds": 5, "exact": True},
}
"""The issue's heavy fight (finding 3): 9.1 s of CPU at 332adde, charged 10 tokens."""


def shoot(rng: random.Random) -> Envelope:
    """A load-test shoot, or (a third of them) one pushed towards the limits."""
    envelope = load_shoot(rng)
    if rng.random() < 1 / 3:
        envelope["attacker"]["attacks"] = rng.randint(4, 20)
        envelope["attacker"]["reroll"] = rng.choice(REROLLS)
        envelope["defender"]["defenceDice"] = rng.randint(2, 9)
        envelope["defender"]["wounds"] = rng.randint(5, 50)
        if rng.random() < 0.3:
            envelope["defender"]["feelNoPain"] = rng.choice((4, 5, 6))
        envelope["options"] = {"rounds": rng.randint(1, 10), "exact": rng.random() < 0.5}
    return {"ruleset": "kt2024", "mode": "shoot", **envelope}


def _fighter(rng: random.Random, heavy: float) -> dict[str, Any]:
    normal = rng.randint(2, 5)
    fighter = {
        "attacks": rng.randint(2, 4 + round(4 * heavy)),
        "hit": rng.randint(2, 5),
        "normalDamage": normal,
        "criticalDamage": normal + rng.randint(0, 3),
        "wounds": rng.randint(3, 12 + round(18 * heavy)),
        "strategy": rng.choice(STRATEGIES),
        "reroll": rng.choice(REROLLS),
    }
    if rng.random() < 0.25:
        fighter["feelNoPain"] = rng.choice((4, 5, 6))
    extra = rng.choice(
        ({}, {}, {"lethal": 5}, {"brutal": True}, {"shock": True}, {"duelist": True})
    )
    return {**fighter, **extra}


def fight(rng: random.Random, heavy: float = 1.0) -> Envelope:
    """A load-test fight, or (half of them) a random one up to the limits, `heavy` (0 … 1)
    scaling its attacks, wounds and rounds."""
    if rng.random() < 0.5:
        return {"ruleset": "kt2024", "mode": "fight", **load_fight(rng)}
    rounds = rng.randint(1, 1 + round(4 * heavy))
    return {
        "ruleset": "kt2024",
        "mode": "fight",
        "fighterA": _fighter(rng, heavy),
        "fighterB": _fighter(rng, heavy),
        "options": {"rounds": rounds, "exact": rng.random() < 0.5},
    }


def kt2018(rng: random.Random) -> Envelope:
    """One of the kt2018 benchmark's scenarios, its weapons' attacks varied."""
    envelope = dict(rng.choice(list(kt2018_bench.SCENARIOS.values())))
    if "weapons" in envelope:
        weapons = [dict(w) for w in envelope["weapons"]][: rng.randint(1, 4)]
        for weapon in weapons:
            weapon["attacks"] = rng.choice((1, 2, 3, "D3", "D6", 10, 20))
        envelope["weapons"] = weapons
    return {"ruleset": "kt2018", **envelope, "options": {"exact": rng.random() < 0.5}}


def kt2013(rng: random.Random) -> Envelope:
    return kt2013_bench.scenario(rng)


def threshold(rng: random.Random) -> Envelope:
    """One of the threshold benchmark's scenarios, an attack's count and damage varied."""
    envelope = dict(rng.choice(list(threshold_bench.SCENARIOS.values())))
    if envelope["mode"] == "attack":
        attack = dict(envelope["attack"])
        attack["attacks"] = rng.randint(1, 10)
        attack["damage"] = f"{rng.randint(1, 6)}d{rng.choice((6, 8, 12, 20))}"
        envelope["attack"] = attack
    return {"ruleset": "threshold", **envelope}


KINDS = {
    "kt2024 shoot": shoot,
    "kt2024 fight": fight,
    "kt2018": kt2018,
    "kt2013": kt2013,
    "threshold": threshold,
}


def heavy_fight(rng: random.Random) -> Envelope:
    """A variant of the issue's heavy fight: fewer attacks, wounds or rounds, another
    strategy or precision: the fights whose price matters most."""
    envelope = {
        **HEAVY_FIGHT,
        "options": {"rounds": rng.randint(2, 5), "exact": rng.random() < 0.6},
    }
    for side in ("fighterA", "fighterB"):
        envelope[side] = {
            **HEAVY_FIGHT[side],
            "attacks": rng.randint(4, 8),
            "wounds": rng.randint(12, 30),
            "strategy": rng.choice(("OPTIMAL", "OPTIMAL", "MAX_DAMAGE", "PARRY")),
        }
        if rng.random() < 0.5:
            del envelope[side]["feelNoPain"]
    return envelope
