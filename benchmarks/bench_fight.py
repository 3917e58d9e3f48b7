"""Fight benchmark: a fixed, seeded set of realistic fights, both precisions, OPTIMAL apart.

Every fight is computed from scratch: the per-fight arrays (the flattened fight, its
decisions, OPTIMAL's values) are built per fight; the memos keyed on profiles only
(the attack-dice pipeline's and the sequence openings' on dice stats, the moment tables' on
melee rules) are cleared for the "cold" pass and kept for the "warm" one. numba's compiled
loops are loaded (or compiled) before the first timing.
Times are CPU seconds of this process (`time.process_time`), so other load on a shared
machine does not count. Targets (issue 3): float median ≤ 5 ms, p95 ≤ 50 ms, max ≤ 500 ms,
OPTIMAL included (the "all" lines pool both sets); exact within 5×.
The last lines time one §12-sized fight (8 attacks a side, 30 wounds, 5 sequences, MAX_DAMAGE)
in both precisions.
Warm times are each fight's least of `--repeat` runs (3): the machines this runs on vary in
speed by a third from minute to minute, and the least time is the one such slowdowns spare.
Run: `python benchmarks/bench_fight.py [--count 300] [--optimal 60] [--quick] [--repeat 3]`
(`--quick`: the warm passes only). `--fresh` times what a new process pays instead (issue 18's
targets: median ≤ 4 ms, p95 ≤ 30 ms, max ≤ 150 ms, 300 fights ≤ 2 s): the imports, loading the
compiled loops, then `--count` heuristic fights once each, every memo empty, in float.
"""

from __future__ import annotations

import argparse
import random
import time
from dataclasses import replace
from typing import get_args

from timing import summary

from engine.errors import TooLarge
from engine.kt2024 import attack, dice, flat, sequence, table
from engine.kt2024.fight import evaluate
from engine.kt2024.fighter import Fight, Fighter, FightOptions
from engine.kt2024.scenario import Reroll

REROLLS = get_args(Reroll)
HEURISTICS = ["MAX_DAMAGE", "MAX_DAMAGE", "MIN_DAMAGE_TO_SELF", "STRIKE", "PARRY"]


def fighter(rng: random.Random, strategy: str | None = None) -> Fighter:
    """A realistic melee profile: 3–6 attacks, 8–18 wounds, rules sprinkled in."""
    maybe = lambda p: rng.random() < p  # noqa: E731 - reads as a sentence below
    return Fighter(
        attacks=rng.randint(3, 6),
        hit=rng.choice([2, 3, 3, 3, 4, 4, 5]),
        normal_damage=rng.randint(2, 5),
        critical_damage=rng.randint(3, 7),
        lethal=5 if maybe(0.15) else 6,
        accurate=1 if maybe(0.05) else 0,
        reroll=rng.choice(REROLLS) if maybe(0.3) else "NONE",
        rending=maybe(0.1),
        severe=maybe(0.05),
        punishing=maybe(0.05),
        mystic_scry=maybe(0.03),
        curse_of_rot=maybe(0.05),
        wounds=rng.randint(8, 18),
        strategy=strategy or rng.choice(HEURISTICS),
        brutal=maybe(0.1),
        shock=maybe(0.1),
        stun2021=maybe(0.05),
        storm_shield2021=maybe(0.05),
        hammerhand2021=maybe(0.05),
        dueller2021=maybe(0.05),
        duelist=maybe(0.05),
        murderous_entrance2021=maybe(0.05),
        just_a_scratch=rng.choice(["CRITS", "NORMALS"]) if maybe(0.05) else "NONE",
        durable=maybe(0.05),
        half_damage_first_strike=maybe(0.05),
        feel_no_pain=rng.choice([4, 5, 6]) if maybe(0.15) else None,
        saintly_relics=rng.choice(["ONE_D6", "TWO_D6"]) if maybe(0.05) else "NONE",
    )


def fight(rng: random.Random, optimal: bool = False) -> Fight:
    a = fighter(rng, "OPTIMAL" if optimal else None)
    b = fighter(rng, rng.choice(["OPTIMAL", *HEURISTICS]) if optimal else None)
    rounds = rng.choice([1, 1, 1, 1, 2, 3])
    return Fight(a, b, FightOptions(first_to_act=rng.choice("AB"), rounds=rounds))


REFUSED: list[Fight] = []


def timed(scenario: Fight) -> float:
    """CPU time of one fight; a fight refused by a state budget (TooLarge) is counted."""
    start = time.process_time()
    try:
        evaluate(scenario)
    except TooLarge:
        REFUSED.append(scenario)
    return time.process_time() - start


WARM: dict[bool, list[float]] = {False: [], True: []}
"""Every warm time per precision, for the targets' reading "OPTIMAL included"."""


def run(label: str, fights: list[Fight], quick: bool, repeat: int) -> None:
    for exact in (False, True):
        batch = [replace(f, options=replace(f.options, exact=exact)) for f in fights]
        name = f"{label} {'exact' if exact else 'float'}"
        attack.retained_counts.cache_clear()
        dice.roll_counts.cache_clear()
        sequence._opening.cache_clear()
        table._table.cache_clear()
        cold = [timed(f) for f in batch]
        if not quick:
            print(summary(f"{name} cold", cold, width=24))
        warm = [min(timed(f) for _ in range(repeat)) for f in batch]
        WARM[exact] += warm
        print(summary(f"{name} warm", warm, width=24))


def largest() -> None:
    """The §12-sized heuristic fight, once per precision."""
    side = Fighter(attacks=8, wounds=30)
    for exact in (False, True):
        scenario = Fight(side, side, FightOptions(rounds=5, exact=exact))
        print(f"§12-sized fight {'exact' if exact else 'float'}: {timed(scenario):.2f} s")


def fresh(fights: list[Fight], imported: float) -> None:
    """The cold fights of a new process, after its imports and loading the compiled loops."""
    start = time.process_time()
    flat.warm_up()
    loaded = time.process_time() - start
    start = time.perf_counter()
    times = [timed(f) for f in fights]
    wall = time.perf_counter() - start
    print(f"start and imports {imported:.2f} s CPU, compiled loops loaded {loaded:.2f} s CPU")
    print(summary(f"{len(fights)} fresh fights", times, width=24))
    print(f"{len(fights)} fresh fights: {sum(times):.2f} s CPU, {wall:.2f} s wall")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--optimal", type=int, default=60)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--quick", action="store_true", help="warm passes only")
    parser.add_argument("--fresh", action="store_true", help="a new process's cold fights")
    parser.add_argument(
        "--repeat", type=int, default=3, help="warm: each fight's least time of this many runs"
    )
    args = parser.parse_args()
    imported = time.process_time()  # CPU seconds of this process: its start and imports
    rng = random.Random(args.seed)
    heuristic = [fight(rng) for _ in range(args.count)]
    if args.fresh:
        fresh(heuristic, imported)
        return
    flat.warm_up()
    optimal = [fight(rng, optimal=True) for _ in range(args.optimal)]
    print(f"{len(heuristic)} heuristic fights, {len(optimal)} OPTIMAL fights (seed {args.seed})")
    run("heuristic", heuristic, args.quick, args.repeat)
    run("OPTIMAL", optimal, args.quick, args.repeat)
    for exact, warm in WARM.items():
        print(summary(f"all {'exact' if exact else 'float'} warm", warm, width=24))
    largest()
    print(f"refused by a state budget: {len(REFUSED)} runs")


if __name__ == "__main__":
    main()
