"""Soak: many mixed fresh requests against a real `killmath serve`, its RSS sampled; then the
heaviest requests it accepts, its peak RSS against the pod's memory limit (issue 34, finding 3).

Requests are shoots, fights, grids and team matchups drawn from a fixed seed, nearly all of
them distinct (fresh: computed, not served from a cache), sent by `--concurrency` clients. RSS
is printed every `--step` requests: after warm-up (the L1 cache and the memos fill to their
bounds) it must stay flat. The last phase resets the server's peak (`clear_refs` 5) and sends
the heaviest fights the memory budget admits, several at once, and the issue's heavy fight
(refused with 422 under the default budget): the peak must stay under `--limit` (the
manifests' 896 MiB). Exit 1 if it does not, or if any request failed with a 5xx.

Run: `python benchmarks/bench_soak.py [--requests 100000] [--step 10000] [--concurrency 8]`
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from service_harness import Server

MIB = 2**20
OPERATIVES = (
    "kasrkin.sergeant",
    "kasrkin.gunner",
    "kasrkin.sharpshooter",
    "kasrkin.trooper",
    "kommandos.boss-nob",
    "kommandos.boy",
    "kommandos.slasha-boy",
    "kommandos.breacha-boy",
)
REROLLS = ("NONE", "BALANCED", "CEASELESS", "RELENTLESS")


def attacker(rng: random.Random) -> dict:
    return {
        "attacks": rng.randint(2, 8),
        "hit": rng.randint(2, 5),
        "normalDamage": rng.randint(2, 5),
        "criticalDamage": rng.randint(3, 7),
        "lethal": rng.choice([5, 6]),
        "piercing": rng.choice([0, 0, 1, 2]),
        "reroll": rng.choice(REROLLS),
    }


def defender(rng: random.Random) -> dict:
    return {
        "save": rng.randint(2, 6),
        "wounds": rng.randint(6, 20),
        "feelNoPain": rng.choice([None, None, 5, 6]),
        "coverSaves": rng.choice([0, 0, 1]),
    }


def situation(rng: random.Random) -> dict:
    """A team matchup situation's defender overrides (its wounds are the operative's)."""
    return {k: v for k, v in defender(rng).items() if k != "wounds"}


def fighter(rng: random.Random) -> dict:
    return {
        "attacks": rng.randint(2, 5),
        "hit": rng.randint(2, 5),
        "wounds": rng.randint(5, 14),
        "normalDamage": rng.randint(2, 5),
        "criticalDamage": rng.randint(3, 6),
        "strategy": rng.choice(["MAX_DAMAGE", "STRIKE", "OPTIMAL"]),
    }


def requests(count: int, seed: int = 34) -> Iterator[tuple[str, dict]]:
    """`count` (path, body): 50 % shoots, 20 % fights, 20 % 2×2 grids, 10 % team matchups."""
    rng = random.Random(seed)
    for _ in range(count):
        kind = rng.random()
        exact = rng.random() < 0.3
        if kind < 0.5:
            options = {"rounds": rng.randint(1, 3), "exact": exact}
            yield (
                "/v1/shoot",
                {"attacker": attacker(rng), "defender": defender(rng), "options": options},
            )
        elif kind < 0.7:
            options = {"rounds": rng.randint(1, 2), "exact": exact}
            yield (
                "/v1/fight",
                {"fighterA": fighter(rng), "fighterB": fighter(rng), "options": options},
            )
        elif kind < 0.9:
            yield (
                "/v1/grid",
                {
                    "attackers": [attacker(rng) for _ in range(2)],
                    "defenders": [defender(rng) for _ in range(2)],
                    "options": {"exact": exact},
                },
            )
        else:
            yield (
                "/v1/team-matchup",
                {
                    "attackers": {"operativeIds": rng.sample(OPERATIVES[:4], 2)},
                    "defenders": {"operativeIds": rng.sample(OPERATIVES[4:], 2)},
                    "situations": [{"name": "s", "defender": situation(rng)}],
                },
            )


async def soak(server: Server, count: int, step: int, concurrency: int) -> Counter:
    statuses: Counter = Counter()
    work = requests(count)
    done = 0
    started = time.perf_counter()

    async def client() -> None:
        nonlocal done
        async with httpx.AsyncClient(base_url=server.url, timeout=120) as http:
            for path, body in work:
                body = {k: v for k, v in body.items() if v is not None}
                response = await http.post(path, json=body)
                statuses[response.status_code] += 1
                done += 1
                if done % step == 0:
                    rate = done / (time.perf_counter() - started)
                    print(f"{done:>8} requests  RSS {server.vm_rss() / MIB:7.1f} MiB  "
                          f"{rate:6.0f}/s  {dict(statuses)}", flush=True)  # fmt: skip

    await asyncio.gather(*(client() for _ in range(concurrency)))
    return statuses


def heavy(attacks: int, wounds: int, rounds: int) -> dict:
    side = {"attacks": attacks, "strategy": "OPTIMAL", "reroll": "CEASELESS_AND_BALANCED"}
    return {
        "fighterA": {**side, "wounds": wounds, "feelNoPain": 5},
        "fighterB": {**side, "wounds": wounds - 1},
        "options": {"rounds": rounds, "exact": True},
    }


def vm(server: Server, field: str) -> int:
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) * 1024
    raise RuntimeError(field)


async def heaviest(server: Server) -> int:
    """The heaviest fights the default budget admits (~280 MB each by their estimates), two at
    once, one just above it and the issue's heavy fight; the server's peak RSS over them."""
    Path(f"/proc/{server.process.pid}/clear_refs").write_text("5")
    bodies = [heavy(7, 25, 4), heavy(7, 24, 4), heavy(8, 30, 3), heavy(8, 30, 5)]
    async with httpx.AsyncClient(base_url=server.url, timeout=600) as http:
        answers = await asyncio.gather(*(http.post("/v1/fight", json=b) for b in bodies))
    for body, answer in zip(bodies, answers, strict=True):
        a = body["fighterA"]
        print(f"  fight {a['attacks']}A {a['wounds']}W {body['options']['rounds']}R OPTIMAL: "
              f"{answer.status_code} {answer.json().get('error', {}).get('code', '')}")  # fmt: skip
    return vm(server, "VmHWM:")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument("--step", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--limit", type=int, default=896, help="MiB: the pod's memory limit")
    args = parser.parse_args()
    server = Server(1, cache_entries=20_000, log_level="WARNING")
    try:
        print(f"started: RSS {server.vm_rss() / MIB:.1f} MiB")
        statuses = asyncio.run(soak(server, args.requests, args.step, args.concurrency))
        rss, peak = server.vm_rss() / MIB, vm(server, "VmHWM:") / MIB
        print(f"after the soak: RSS {rss:.1f} MiB, peak {peak:.1f} MiB")
        top = asyncio.run(heaviest(server))
        print(f"heaviest accepted requests: peak RSS {top / MIB:.1f} MiB (limit {args.limit} MiB)")
    finally:
        server.stop()
    failed = sum(n for status, n in statuses.items() if status >= 500)
    return 1 if failed or top >= args.limit * MIB else 0


if __name__ == "__main__":
    sys.exit(main())
