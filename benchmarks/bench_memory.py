"""Memory of a long-lived process: distinct shooting scenarios, then every memo's fill and
the process's resident memory, so a memo that grows without bound shows.

Run: `python benchmarks/bench_memory.py [--count 20000] [--step 5000]`.
"""

from __future__ import annotations

import argparse
import random
from dataclasses import replace

from bench_shoot import MEMOS, scenario

from engine.kt2024 import attack, shoot


def resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--step", type=int, default=5_000)
    args = parser.parse_args()
    rng = random.Random(7)
    print(f"start: {resident_mb():.0f} MB resident")
    for done in range(1, args.count + 1):
        s = scenario(rng)
        shoot(replace(s, options=replace(s.options, exact=rng.random() < 0.3)))
        if done % args.step == 0:
            print(f"{done} scenarios: {resident_mb():.0f} MB resident")
    for memo in [*MEMOS, attack.attack_dice]:
        info = memo.cache_info()
        name = f"{memo.__module__.rsplit('.', 1)[-1]}.{memo.__name__}"
        print(f"  {name:<28} {info.currsize:>6} / {info.maxsize}")


if __name__ == "__main__":
    main()
