"""Benchmark of ruleset `threshold`: median / p95 / total wall time per scenario.

Runs each scenario through `registry.run` (validation + engine + output rendering, exact
output on) and prints one line per scenario. The heavy ones are the spec's limits: 10 attacks
against a 200-HP pool, and Direct Damage, whose HP loss takes many values per attack.

    .venv/bin/python benchmarks/threshold.py [repeats]
"""

from __future__ import annotations

import sys
from typing import Any

from timing import repeated, summary

from schema import registry

TARGET_200 = {
    "minorThreshold": 20,
    "majorThreshold": 40,
    "currentHP": 200,
    "hpPerModel": 10,
    "startingModels": 20,
}

SCENARIOS: dict[str, dict[str, Any]] = {
    "attack: 1 attack, 2d12": {
        "mode": "attack",
        "attack": {"dc": 7, "skillBonus": 2, "damage": "2d12"},
        "target": {"minorThreshold": 8, "majorThreshold": 14, "currentHP": 5},
    },
    "attack: 10 advantage attacks, 6d20, 200 HP": {
        "mode": "attack",
        "attack": {"attacks": 10, "dc": 7, "skillRollMode": "advantage", "damage": "6d20"},
        "target": TARGET_200,
    },
    "attack: 10 direct attacks, 6d20, 200 HP": {
        "mode": "attack",
        "attack": {"attacks": 10, "dc": 7, "damage": "6d20", "damageType": "direct"},
        "target": TARGET_200,
    },
    "attack: 10 direct attacks, 6d20+45, 200 HP": {
        "mode": "attack",
        "attack": {"attacks": 10, "damage": "6d20+45", "damageType": "direct"},
        "target": TARGET_200,
    },
    "deadlyDemise: x 6, 6 units": {
        "mode": "deadlyDemise",
        "x": 6,
        "units": [TARGET_200] * 6,
    },
    "heal: 6d20+100, 20 models": {
        "mode": "heal",
        "startingModels": 20,
        "hpPerModel": 50,
        "currentHP": 1,
        "amount": "6d20+100",
        "canReturnModels": True,
    },
}


def main(repeats: int) -> None:
    for name, body in SCENARIOS.items():
        envelope = {"ruleset": "threshold", "options": {"exact": True}, **body}
        registry.run(envelope)  # warm-up: imports and first-call costs are not the engine's
        times = repeated(lambda e=envelope: registry.run(e), repeats)
        print(summary(name, times, width=48))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
