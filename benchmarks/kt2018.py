"""Benchmark of ruleset `kt2018`: median / p95 / total wall time per scenario and precision.

Runs each scenario through `registry.run` (validation + engine + output rendering), once with
exact output and once float-only, and prints one line each. The heavy ones sit at the §11
limits: 4 weapons × 40 Rapid Fire shots, 2D6 Damage (up to 12 Injury dice), 20 wounds and
6 flesh-wound boxes, with saves poor enough that the target is usually taken out of action.

    .venv/bin/python benchmarks/kt2018.py [repeats]
"""

from __future__ import annotations

import sys
from typing import Any

from timing import repeated, summary

from schema import registry

BOLTER = {"type": "rapidFire", "attacks": 1, "strength": 4, "damage": 1}
LIMIT_GUN = {"type": "rapidFire", "attacks": 20, "strength": 8, "ap": -3, "damage": "2D6"}
TOUGH = {"toughness": 4, "save": 4, "invulnerableSave": 5, "wounds": 20, "maxFleshWounds": 6}

SCENARIOS: dict[str, dict[str, Any]] = {
    "shooting: boltgun vs 1-wound model": {
        "mode": "shooting",
        "attacker": {"ballisticSkill": 3},
        "weapons": [BOLTER],
        "target": {"toughness": 3, "save": 5, "wounds": 1},
    },
    "fight: 2 weapons, D3 attacks, D3 damage": {
        "mode": "fight",
        "attacker": {"weaponSkill": 3, "rerollHits": "ones"},
        "weapons": [
            {"attacks": "D3+1", "strength": 5, "ap": -2, "damage": "D3"},
            {"attacks": 2, "strength": 4, "damage": 1},
        ],
        "target": {"toughness": 4, "save": 3, "wounds": 3},
    },
    "shooting: 1 weapon at the limits": {
        "mode": "shooting",
        "attacker": {"ballisticSkill": 3, "rerollWounds": "failed"},
        "weapons": [LIMIT_GUN],
        "target": TOUGH,
    },
    "shooting: 4 weapons at the limits": {
        "mode": "shooting",
        "attacker": {"ballisticSkill": 2, "rerollHits": "failed"},
        "weapons": [LIMIT_GUN] * 4,
        "target": TOUGH,
    },
    "psybolt: deny the witch": {
        "mode": "psybolt",
        "psyker": {"wounds": 1, "fleshWounds": 2},
        "denyTheWitch": True,
        "target": {"wounds": 20, "maxFleshWounds": 6},
    },
    "mortalWounds: 4D3+6 vs 20 wounds": {
        "mode": "mortalWounds",
        "amount": "4D3+6",
        "source": "psychic",
        "target": {"wounds": 20, "obscured": True, "withinOneInchOfIntervening": True},
    },
}


def main(repeats: int) -> None:
    registry.modes("kt2018")  # import outside the timings
    for name, body in SCENARIOS.items():
        for exact in (True, False):
            envelope = {"ruleset": "kt2018", "options": {"exact": exact}, **body}
            times = repeated(lambda e=envelope: registry.run(e), repeats)
            print(summary(f"{name} ({'exact' if exact else 'float'})", times, width=52))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
