"""The meta matrix benchmark (issue 31): cells per second per core, the shards' balance, and
how many Indexed Job pods finish the whole catalog's meta in ten minutes.

On a sample of K kill teams of a catalog (the public BSData set when a copy is given, else the
bundled one), every figure from real `killmath matrix` processes, CPU seconds from their
rusage (the machine may be shared: CPU, not wall, is what a pod of one CPU buys):

- fixed: a process that plans every pair and computes nothing (the last of many shards: an
  empty part), i.e. imports, the catalog, planning and the split, which every pod pays;
- one: the whole sample in one process; cells per CPU second = cells / (one - fixed);
- shards: each of N shards alone, its CPU minus fixed against its estimated cost (the
  partition's), as max/mean over the shards (1.0 is a perfect split);
- together: the N shards at once, wall time against one process's (on 2 CPUs the issue asks
  for at most 0.7x with N = 4).

The full meta is then extrapolated: its cells counted from the team matchups' plans (without
preparing them), the fixed part scaled by planning's own rate, and
pods = ceil(cells / rate * balance / (600 s - fixed)).

A sample runs faster per cell than the whole: on the public set's 49 teams (shots and fights,
one situation) one process measured 3,440 cells per CPU second where a 12-team sample gave
7,355, so time the whole meta when a copy of the set is at hand (`/usr/bin/time killmath
matrix --melee --out DIR`, and the shards with `--shards 4 --shard I`).

Run: `KILLMATH_CATALOG=/tmp/explore-bsdata python benchmarks/bench_matrix.py --teams 6 --melee`
(never commit the BSData files).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import mean

import orjson

REPO = Path(__file__).resolve().parents[1]


def _process(argv: list[str], out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("KILLMATH_REDIS_URL", None)
    env.pop("JOB_COMPLETION_INDEX", None)
    command = [sys.executable, "-m", "service.cli", "matrix", *argv, "--out", str(out)]
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL)


def _cpu(process: subprocess.Popen[bytes]) -> float:
    """The finished process's CPU seconds (user + system), from wait4's rusage."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 0, f"matrix exited {process.returncode}"
    CPU[process.pid] = usage.ru_utime + usage.ru_stime
    return CPU[process.pid]


CPU: dict[int, float] = {}


def _cpu_of(process: subprocess.Popen[bytes]) -> float:
    return CPU[process.pid]


def _run(argv: list[str], out: Path) -> float:
    return _cpu(_process(argv, out))


def _sample(ids: list[str], k: int) -> list[str]:
    """K teams spread over the catalog (every len/K-th), not its first K."""
    step = max(1, len(ids) // k)
    return ids[::step][:k]


def _full_cells(ids: list[str], extra: dict) -> tuple[int, int]:
    """(shot cells, fight cells) of every ordered pair, from the plans alone (no validation:
    the counts of `Plan.cells`)."""
    from schema.catalog import catalog
    from schema.team_matchup import TeamMatchupRequest
    from service import matrix
    from service.team_matchup import Plan

    shots = fights = 0
    for attacker in ids:
        for defender in ids:
            if attacker != defender:
                body = matrix.body(attacker, defender, extra)
                plan = Plan(TeamMatchupRequest.model_validate(body), catalog())
                fights += len(plan.fights)
                shots += plan.cells() - len(plan.fights)
    return shots, fights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--teams", type=int, default=6, help="kill teams in the sample")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--cpus", type=int, default=2, help="CPUs the shards share at once")
    parser.add_argument("--melee", action="store_true", help="fights too")
    parser.add_argument("--situations", help="JSON list of situations (default: one, open)")
    args = parser.parse_args()

    from schema.catalog import catalog
    from service import matrix
    from service.app import install_catalog
    from service.settings import from_environment

    install_catalog(from_environment())
    ids = [team.id for team in catalog().kill_teams]
    sample = _sample(ids, args.teams)
    extra: dict = {"melee": {}} if args.melee else {}
    if args.situations:
        extra["situations"] = orjson.loads(args.situations)
    started = time.process_time()
    pairs = matrix.plan_pairs(sample, extra)
    planning = time.process_time() - started
    cells = sum(pair.cells for pair in pairs)
    parts = matrix.partition(pairs, args.shards)
    estimated = [sum(pair.cost for pair in part) for part in parts]

    base = ["--teams", ",".join(sample), *(["--melee"] if args.melee else [])]
    base += ["--situations", args.situations] if args.situations else []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        fixed = _run([*base, "--shards", "100000", "--shard", "99999"], out)
        wall = time.perf_counter()
        one = _run(base, out)
        one_wall = time.perf_counter() - wall
        alone = [
            _run([*base, "--shards", str(args.shards), "--shard", str(i)], out)
            for i in range(args.shards)
        ]
        wall = time.perf_counter()
        together = [
            _process([*base, "--shards", str(args.shards), "--shard", str(i)], out)
            for i in range(args.shards)
        ]
        for process in together:
            _cpu(process)
        together_wall = time.perf_counter() - wall
        together_cpu = [_cpu_of(process) for process in together]

    rate = cells / (one - fixed)
    measured = [cpu - fixed for cpu in alone]
    balance = max(measured) / mean(measured)
    print(f"catalog {catalog().version}: {len(ids)} kill teams; sample {sample}")
    kinds = "shots and fights" if args.melee else "shots"
    print(f"sample: {len(pairs)} pairs, {cells} cells ({kinds})")
    print(f"planning {planning:.2f} s CPU in process ({cells / planning:.0f} cells/s)")
    print(
        f"fixed per process {fixed:.2f} s CPU; one process {one:.2f} s CPU, {one_wall:.2f} s wall"
    )
    print(f"rate: {rate:.0f} cells per CPU second (per core)")
    shown = [round(e, 1) for e in estimated]
    print(f"estimated per shard {shown}: max/mean {max(estimated) / mean(estimated):.3f}")
    print(f"measured per shard {[round(m, 2) for m in measured]} s: max/mean {balance:.3f}")
    print(f"{args.shards} shards at once: {together_wall:.2f} s wall = "
          f"{together_wall / one_wall:.2f} x one process on this machine")  # fmt: skip
    # on `cpus` idle CPUs: the longest shard, or all the shards' CPU shared out, whichever is
    # longer (the machine the benchmark runs on may be busy with other work: its wall is not)
    idle = max(max(together_cpu), sum(together_cpu) / args.cpus)
    print(f"on {args.cpus} idle CPUs: {args.shards} shards {idle:.2f} s against one process's "
          f"{one:.2f} s CPU = {idle / one:.2f} x")  # fmt: skip

    shots, fights = _full_cells(ids, extra)
    total = shots + fights
    start_up = max(0.0, fixed - planning)
    full_fixed = start_up + total / (cells / planning)
    work = total / rate
    pods = math.ceil(work * balance / (600 - full_fixed)) if full_fixed < 600 else None
    print(f"full meta: {len(ids)} teams, {len(ids) * (len(ids) - 1)} pairs, {total} cells "
          f"({shots} shots, {fights} fights), {work / 3600:.2f} CPU hours; fixed per pod "
          f"{full_fixed:.0f} s; pods for 10 minutes: {pods}")  # fmt: skip


if __name__ == "__main__":
    main()
