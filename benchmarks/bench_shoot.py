"""Shooting benchmark: a fixed, seeded set of realistic scenarios, both precisions.

Four passes per precision:
- cold, each: every memo cleared before every scenario (a server's first request of a kind);
- cold: every memo cleared once, before the first scenario (a fresh process's batch);
- warm: the memoised sub-results that depend only on dice stats kept, the per-action memo
  cleared, so every scenario still combines its pools, saves, relics and FNP from scratch;
- hot: everything memoised (a repeated identical scenario).
Run: `python benchmarks/bench_shoot.py [--count 600] [--passes 1]` (`--passes 7`: each pass
seven times, each scenario's least time kept); `--fresh` times only the cold batch of float
scenarios and the process's own start (run it as a new process, as `bench_fresh.py` does).
"""

from __future__ import annotations

import argparse
import random
from dataclasses import replace
from typing import get_args

from timing import seconds, summary

from engine.kt2024 import (
    Attacker,
    Defender,
    Shoot,
    ShootOptions,
    attack,
    damage,
    dice,
    precision,
    shoot,
)
from engine.kt2024.scenario import Reroll

REROLLS = get_args(Reroll)


def scenario(rng: random.Random) -> Shoot:
    """A realistic profile: mostly 4–6 attacks, sometimes a big pool, rules sprinkled in."""
    attacks = (
        rng.choice([1, 2, 3, 4, 4, 4, 5, 5, 6, 6, 7, 8])
        if rng.random() < 0.9
        else rng.randint(10, 20)
    )
    maybe = lambda p: rng.random() < p  # noqa: E731 - reads as a sentence below
    a = Attacker(
        attacks=attacks,
        hit=rng.choice([2, 3, 3, 4, 4, 5]),
        normal_damage=rng.randint(2, 5),
        critical_damage=rng.randint(3, 7),
        lethal=5 if maybe(0.15) else 6,
        accurate=rng.randint(1, 2) if maybe(0.1) else 0,
        auto_crits=1 if maybe(0.03) else 0,
        devastating=rng.randint(1, 3) if maybe(0.15) else 0,
        piercing=rng.randint(1, 2) if maybe(0.15) else 0,
        piercing_crits=rng.randint(1, 2) if maybe(0.1) else 0,
        reroll=rng.choice(REROLLS) if maybe(0.35) else "NONE",
        fails_to_norms=1 if maybe(0.03) else 0,
        norms_to_crits=1 if maybe(0.03) else 0,
        punishing=maybe(0.1),
        rending=maybe(0.1),
        severe=maybe(0.08),
        saturate=maybe(0.05),
        close_assault=maybe(0.03),
        elite_moderate=maybe(0.03),
        purity_seal=maybe(0.03),
        mystic_scry=maybe(0.03),
        curse_of_rot=maybe(0.05),
        obscured=maybe(0.08),
    )
    d = Defender(
        defence_dice=3 if maybe(0.9) else rng.randint(1, 5),
        save=rng.choice([2, 3, 3, 4, 4, 5, 6]),
        wounds=rng.randint(7, 18),
        crit_save=5 if maybe(0.05) else 6,
        cover_saves=1 if maybe(0.3) else 0,
        reroll=rng.choice(REROLLS) if maybe(0.1) else "NONE",
        indomitus=maybe(0.03),
        feel_no_pain=rng.choice([4, 5, 6]) if maybe(0.15) else None,
        just_a_scratch=rng.choice(["CRITS", "NORMALS"]) if maybe(0.05) else "NONE",
        saintly_relics=rng.choice(["ONE_D6", "TWO_D6"]) if maybe(0.05) else "NONE",
        durable=maybe(0.05),
        invulnerable_save=4 if maybe(0.05) else None,
    )
    return Shoot(a, d, ShootOptions(rounds=rng.choice([1, 1, 1, 1, 2, 3, 4])))


MEMOS = [dice.at_most, dice.roll_counts, attack.attack_dice, attack.retained_counts,
         damage.attack_pool, damage.defence_pool, damage.through, damage.action, damage.thinning,
         damage.relic_misses, precision.binomials]  # fmt: skip


def clear() -> None:
    for memo in MEMOS:
        memo.cache_clear()


def timed(batch: list[Shoot]) -> list[float]:
    return [seconds(lambda s=s: shoot(s)) for s in batch]


def least(passes: list[list[float]]) -> list[float]:
    """Each scenario's least time over repeated passes (`--passes`): a shared machine's stalls,
    another process holding the core for milliseconds, are left out of medians and totals."""
    return [min(times) for times in zip(*passes, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--fresh", action="store_true", help="only the cold float batch")
    parser.add_argument("--passes", type=int, default=1, help="each pass repeated, least kept")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    scenarios = [scenario(rng) for _ in range(args.count)]
    if args.fresh:
        total = sum(seconds(lambda s=s: shoot(s)) for s in scenarios)
        print(f"{len(scenarios)} scenarios in a fresh process: {total * 1e3:.1f} ms")
        return
    print(f"{len(scenarios)} shoot scenarios (seed {args.seed})")
    for exact in (False, True):
        batch = [replace(s, options=replace(s.options, exact=exact)) for s in scenarios]
        name = "exact" if exact else "float"
        passes = {
            "cold, each": lambda b=batch: [seconds(lambda s=s: (clear(), shoot(s))) for s in b],
            "cold": lambda b=batch: (clear(), timed(b))[1],
            "warm": lambda b=batch: (damage.action.cache_clear(), timed(b))[1],
            "hot (action memo)": lambda b=batch: timed(b),
        }
        for label, run in passes.items():
            print(summary(f"{name} {label}", least([run() for _ in range(args.passes)])))
    big = Shoot(
        Attacker(attacks=20, hit=3, reroll="CEASELESS"),
        Defender(),
        ShootOptions(rounds=4),
    )
    for exact in (False, True):
        s = replace(big, options=replace(big.options, exact=exact))
        clear()
        cold = seconds(lambda s=s: shoot(s))
        damage.action.cache_clear()
        warm = seconds(lambda s=s: shoot(s))
        print(f"20-dice CEASELESS 4 rounds ({'exact' if exact else 'float'}): "
              f"cold {cold * 1e3:.1f} ms, warm {warm * 1e3:.2f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
