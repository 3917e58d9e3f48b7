"""Benchmark of ruleset `kt2013`: median / p95 / total wall time per request and precision.

Each request goes through `registry.run` (validation + engine + output rendering). The set is
fixed and seeded: 600 realistic attacks (mostly 1–6 shots or attacks, some up to 20 or 3D6+2;
every special rule, model and vehicle targets, both modes). Two passes per precision: cold
(the memoised hit tables cleared before every request) and warm (kept). The heaviest
request, at the §8 limits, is timed on its own.

    .venv/bin/python benchmarks/kt2013.py [count]
"""

from __future__ import annotations

import random
import sys
from typing import Any

from timing import seconds, summary

from engine.kt2013.to_hit import batch_hits, hits_of
from schema import registry

ATTACKS = [1, 1, 2, 2, 3, 4, 5, 6, "D3", "D6", "D3+1", 10, 12, 20, "2D6", "3D6+2"]
HEAVIEST = {
    "ruleset": "kt2013",
    "mode": "shooting",
    "attacker": {"ballisticSkill": 3, "preferredEnemy": True, "monsterHunter": True},
    "weapon": {
        "attacks": "3D6+2",
        "strength": 6,
        "ap": 3,
        "rending": True,
        "poisoned": 4,
        "masterCrafted": True,
    },
    "target": {
        "toughness": 6,
        "save": 2,
        "invulnerableSave": 4,
        "coverSave": 5,
        "feelNoPain": 4,
        "wounds": 10,
        "monstrousCreature": True,
    },
}


def flag(rng: random.Random) -> bool:
    return rng.random() < 0.2


def scenario(rng: random.Random) -> dict[str, Any]:
    mode = rng.choice(["shooting", "shooting", "fight"])
    vehicle = rng.random() < 0.2
    shooting = mode == "shooting"
    weapon = {
        "attacks": rng.choice(ATTACKS),
        "strength": rng.randint(3, 8),
        "ap": rng.choice([None, None, 2, 3, 4, 5, 6]),
        "rending": flag(rng),
        "sniper": shooting and flag(rng),
        "fleshbane": flag(rng),
        "poisoned": rng.choice([None, None, None, 4, 2]),
        "shred": flag(rng),
        "masterCrafted": flag(rng),
        "ignoresCover": flag(rng),
        "haywire": vehicle and flag(rng),
    }
    attacker = {
        "ballisticSkill": rng.choice([3, 4, 4, 5, 6, 7]),
        "weaponSkill": rng.randint(2, 6),
        "snapShots": shooting and flag(rng),
        "preferredEnemy": flag(rng),
        "monsterHunter": flag(rng),
        "tankHunter": vehicle and flag(rng),
        "tankHunterRerollGlancing": flag(rng),
        "sniper": shooting and flag(rng),
    }
    cover = {
        "coverSave": rng.choice([None, None, 5, 4]),
        "stealth": flag(rng),
        "shrouded": flag(rng),
        "invulnerableSave": rng.choice([None, None, 5, 4]),
    }
    if vehicle:
        target = {
            "vehicle": True,
            "armourValue": rng.randint(10, 14),
            "hullPoints": rng.randint(2, 4),
            **cover,
            "meleeHitOn": rng.choice(["auto", 3, 4, 6]),
        }
    else:
        target = {
            "toughness": rng.randint(3, 6),
            "weaponSkill": rng.randint(2, 6),
            "wounds": rng.choice([1, 1, 2, 3, 4, 6, 10]),
            "save": rng.choice([None, 2, 3, 4, 5, 6]),
            "feelNoPain": rng.choice([None, None, None, 5, 4]),
            "eternalWarrior": flag(rng),
            "monstrousCreature": flag(rng),
            **cover,
        }
    return {
        "ruleset": "kt2013",
        "mode": mode,
        "attacker": attacker,
        "weapon": weapon,
        "target": target,
    }


def timed(envelopes: list[dict[str, Any]], cold: bool) -> list[float]:
    times = []
    for envelope in envelopes:
        if cold:
            batch_hits.cache_clear()
            hits_of.cache_clear()
        times.append(seconds(lambda e=envelope: registry.run(e)))
    return times


def main(count: int) -> None:
    rng = random.Random(2013)
    envelopes = [scenario(rng) for _ in range(count)]
    registry.modes("kt2013")  # import outside the timings
    for exact in (False, True):
        batch = [{**e, "options": {"exact": exact}} for e in envelopes]
        precision = "exact" if exact else "float"
        print(summary(f"{precision}, cold", timed(batch, cold=True)))
        timed(batch, cold=False)  # fill the memo
        print(summary(f"{precision}, warm", timed(batch, cold=False)))
        heaviest = [{**HEAVIEST, "options": {"exact": exact}}] * 20
        print(summary(f"{precision}, heaviest (3D6+2, W10), cold", timed(heaviest, cold=True)))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 600)
