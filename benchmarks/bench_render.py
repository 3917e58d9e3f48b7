"""Rendering benchmark: engine results turned into answers (the cache-miss path's last step).

Issue 15 renders every answer through its declared model (`schema.answers`) instead of
building dicts by hand; this measures what that costs per answer. The engine results are
computed once, outside the timing; each pass renders every one of them. The renderers'
names and signatures are the same before and after issue 15, so the script runs on both.
Run: `python benchmarks/bench_render.py [--count 300] [--repeats 5]`.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from bench_shoot import scenario
from timing import seconds, summary

from engine.kt2024 import shoot
from engine.kt2024.fight import evaluate as fight
from engine.kt2024.fighter import Fight, Fighter, FightOptions
from schema.kt2024 import fight as fight_schema
from schema.kt2024 import shoot as shoot_schema


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    rng = random.Random(15)
    scenarios = [scenario(rng) for _ in range(args.count)]
    fights = [
        Fight(
            Fighter(attacks=rng.randint(2, 5), wounds=rng.randint(6, 12)), Fighter(), FightOptions()
        )
        for _ in range(max(1, args.count // 10))
    ]
    for exact in (False, True):
        precision = "exact" if exact else "float"
        shots = [shoot(replace(s, options=replace(s.options, exact=exact))) for s in scenarios]
        print(
            summary(
                f"shoot render ({precision})",
                timed(shoot_schema.render, shots, exact, args.repeats),
            )
        )
        fought = [fight(replace(f, options=FightOptions(exact=exact))) for f in fights]
        print(
            summary(
                f"fight render ({precision})",
                timed(fight_schema.render, fought, exact, args.repeats),
            )
        )


def timed(
    render: Callable[[Any, bool], object], results: list[Any], exact: bool, repeats: int
) -> list[float]:
    """Seconds of each render, every result rendered `repeats` times."""
    return [seconds(lambda r=r: render(r, exact)) for _ in range(repeats) for r in results]


if __name__ == "__main__":
    main()
