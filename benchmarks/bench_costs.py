"""Rate-limit weights (`service.costs`): engine CPU time of the load tests' shoots and fights.

Every scenario is evaluated once, in a fresh order, the way a cache miss is (dice-stat memos
and compiled loops warm from earlier scenarios, the scenario's own answer never): the median
fight over the median shoot is the weight `service.costs.FIGHT` rounds. CPU time
(`time.process_time`), so the shared machine's load barely moves it.

    python benchmarks/bench_costs.py [--count 300] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "loadtests"))
from scenarios import fight, shoot  # noqa: E402

from engine.kt2024 import flat  # noqa: E402
from schema import registry  # noqa: E402


def cpu_times(envelopes: list[dict], mode: str) -> list[float]:
    times = []
    for envelope in envelopes:
        handler, scenario = registry.resolve({**envelope, "mode": mode})
        started = time.process_time()
        handler.evaluate(scenario)
        times.append(time.process_time() - started)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    flat.warm_up()
    cpu_times([shoot(rng) for _ in range(20)], "shoot")  # first-use tables out of the way
    cpu_times([fight(rng) for _ in range(5)], "fight")
    shoots = cpu_times([shoot(rng) for _ in range(args.count)], "shoot")
    fights = cpu_times([fight(rng) for _ in range(args.count)], "fight")
    for name, times in (("shoot", shoots), ("fight", fights)):
        ordered = sorted(times)
        print(
            f"{name}: n={len(times)} median {statistics.median(ordered) * 1e3:.3f} ms  "
            f"mean {statistics.fmean(ordered) * 1e3:.3f} ms  "
            f"p95 {ordered[round(0.95 * (len(ordered) - 1))] * 1e3:.3f} ms"
        )
    median = statistics.median(fights) / statistics.median(shoots)
    mean = statistics.fmean(fights) / statistics.fmean(shoots)
    print(f"fight / shoot: median {median:.1f}, mean {mean:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
