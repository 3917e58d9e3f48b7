"""Calibrate `engine.kt2024.memory`: each scenario's peak RSS above the process's before it,
against the estimate the service's admission holds for it.

The peak is read from /proc/self/status (VmHWM) after resetting it (`clear_refs` 5), so one
warmed process measures every scenario in turn; the loops' arrays are large enough to be
mapped and unmapped whole, so one scenario's memory is not reused by the next. An estimate
below its measurement is a fit that admits too much: the script says so and exits 1.
Run: `python benchmarks/bench_memory_peaks.py [--heavy]` (`--heavy` adds the issue's 8-attack
OPTIMAL fight, ~10 s).
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

from engine.kt2024 import flat, memory
from engine.kt2024.fight import evaluate as fight
from engine.kt2024.fighter import Fight, Fighter, FightOptions
from engine.kt2024.scenario import Attacker, Defender, Shoot, ShootOptions
from engine.kt2024.sequence import Sequence
from engine.kt2024.shoot import shoot

STATUS = Path("/proc/self/status")


def kib(field: str) -> int:
    for line in STATUS.read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) * 1024
    raise RuntimeError(field)


def peak_of(run) -> int:
    Path("/proc/self/clear_refs").write_text("5")
    before = kib("VmRSS:")
    run()
    return kib("VmHWM:") - before


def fights(heavy: bool) -> list[Fight]:
    out = []
    for attacks, wounds, rounds, strategy, rr in [
        (4, 12, 2, "MAX_DAMAGE", "NONE"),
        (5, 14, 3, "OPTIMAL", "BALANCED"),
        (6, 20, 3, "OPTIMAL", "CEASELESS"),
        (6, 24, 4, "MAX_DAMAGE", "CEASELESS_AND_BALANCED"),
        (7, 25, 4, "OPTIMAL", "CEASELESS_AND_BALANCED"),
        (8, 30, 5, "MAX_DAMAGE", "CEASELESS_AND_BALANCED"),
        (8, 30, 3, "OPTIMAL", "CEASELESS_AND_BALANCED"),
        *([(8, 30, 5, "OPTIMAL", "CEASELESS_AND_BALANCED")] if heavy else []),
    ]:
        a = Fighter(attacks=attacks, wounds=wounds, strategy=strategy, reroll=rr, feel_no_pain=5)
        b = Fighter(attacks=attacks, wounds=wounds - 1, strategy=strategy, reroll=rr)
        out.append(Fight(a, b, FightOptions(rounds=rounds, exact=True)))
    return out


def shots() -> list[Shoot]:
    rng = random.Random(34)
    out = []
    for _ in range(12):
        attacker = Attacker(
            attacks=rng.randint(6, 20),
            normal_damage=rng.randint(3, 6),
            critical_damage=rng.randint(4, 8),
            lethal=rng.choice([5, 6]),
            reroll=rng.choice(["CEASELESS", "BALANCED", "RELENTLESS"]),
        )
        defender = Defender(feel_no_pain=rng.choice([None, 5]), saintly_relics="TWO_D6")
        out.append(Shoot(attacker, defender, ShootOptions(rounds=rng.randint(1, 6), exact=True)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--heavy", action="store_true")
    args = parser.parse_args()
    flat.warm_up()
    low = False
    print(f"{'scenario':60} {'measured MB':>12} {'estimate MB':>12}")
    for f in fights(args.heavy):
        fl = flat.Flat(f, Sequence(f))
        lanes = fl.lanes(True)
        estimate = memory.fight_bytes(fl.footprint(lanes, len(fl.primes(True)[0])))
        measured = peak_of(lambda f=f: fight(f))
        low |= estimate < measured
        a = f.fighter_a
        name = f"fight {a.attacks}A {a.wounds}W {f.options.rounds}R {a.strategy} {a.reroll}"
        print(f"{name:60} {measured / 2**20:12.1f} {estimate / 2**20:12.1f}", flush=True)
    for s in shots():
        measured = peak_of(lambda s=s: shoot(s))
        estimate = memory.shoot_bytes(s)
        low |= estimate < measured
        a = s.attacker
        name = f"shoot {a.attacks}A {a.normal_damage}/{a.critical_damage} {s.options.rounds}R"
        print(f"{name:60} {measured / 2**20:12.1f} {estimate / 2**20:12.1f}", flush=True)
    if low:
        print("an estimate is below its measurement: refit engine/kt2024/memory.py")
        sys.exit(1)


if __name__ == "__main__":
    main()
