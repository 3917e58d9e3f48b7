"""Memory of a long-lived process: distinct shooting scenarios, then every memo's fill and
the process's resident memory, so a memo that grows without bound shows.

- engine (default): `shoot` on each scenario, as a batch process runs them;
- `--service`: each scenario as a JSON body through the server's own path without HTTP
  (`compute.prepare_raw`'s body memo, the L1 cache of `settings.cache_entries`, single-flight,
  the engine pool), in requests of `--batch` bodies; Starlette keeps nothing per request, so
  this is what a replica holds after that many distinct requests.
Run: `python benchmarks/bench_memory.py [--count 20000] [--step 5000] [--service]`
(issue 17 measures `--count 1000000 --step 100000`).
"""

from __future__ import annotations

import argparse
import asyncio
import random
from collections.abc import Iterator
from dataclasses import asdict, fields, replace

import orjson
from bench_shoot import MEMOS, scenario

from engine.kt2024 import Shoot, shoot
from engine.kt2024.scenario import camel


def resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 2**20


def scenarios(count: int) -> Iterator[Shoot]:
    """`count` benchmark scenarios, 30 % of them exact."""
    rng = random.Random(7)
    for _ in range(count):
        s = scenario(rng)
        yield replace(s, options=replace(s.options, exact=rng.random() < 0.3))


def body(s: Shoot) -> bytes:
    """A scenario as the REST body a client sends: API names, defaults left out."""
    envelope = {}
    for part in fields(s):
        value = getattr(s, part.name)
        default = type(value)()
        envelope[part.name] = {
            camel(name): v for name, v in asdict(value).items() if v != getattr(default, name)
        }
    return orjson.dumps(envelope)


def engine_run(count: int, step: int) -> None:
    for done, s in enumerate(scenarios(count), 1):
        shoot(s)
        if done % step == 0:
            print(f"{done} scenarios: {resident_mb():.0f} MB resident", flush=True)


async def service_run(count: int, step: int, batch: int) -> None:
    from service import compute, settings
    from service.cache import LRU, Cache

    config = settings.from_environment()
    l1 = LRU(config.cache_entries)
    computer = compute.Computer(Cache(l1, None), pool_size=1, time_budget=600.0)
    pending: list[compute.Job] = []
    for done, s in enumerate(scenarios(count), 1):
        pending.append(compute.prepare_raw(body(s), "shoot"))
        if len(pending) == batch or done == count:
            for result in await computer.results(pending):
                assert isinstance(result, compute.Result), result
            pending = []
        if done % step == 0:
            print(f"{done} requests: {resident_mb():.0f} MB resident, L1 {len(l1)} entries, "
                  f"body memo {len(compute._PREPARED)} ({compute._PREPARED.size >> 20} MB), "
                  f"in flight {len(computer.inflight)}", flush=True)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--step", type=int, default=5_000)
    parser.add_argument("--service", action="store_true", help="through the server's path")
    parser.add_argument("--batch", type=int, default=32, help="bodies per request (--service)")
    args = parser.parse_args()
    print(f"start: {resident_mb():.0f} MB resident")
    if args.service:
        asyncio.run(service_run(args.count, args.step, args.batch))
    else:
        engine_run(args.count, args.step)
    for memo in MEMOS:  # bench_shoot clears (so lists) every memo of the shoot path
        info = memo.cache_info()
        name = f"{memo.__module__.rsplit('.', 1)[-1]}.{memo.__name__}"
        print(f"  {name:<28} {info.currsize:>6} / {info.maxsize}")


if __name__ == "__main__":
    main()
