"""A new server's start (issue 20): spawn to ready, and spawn to its first fight answered.

Each run spawns a real `killmath serve` (one worker, in-process cache, numba's cache warm, as
in the image), polls `/readyz` every 5 ms, then posts one fight, one shoot and one GraphQL
query, each timed from the spawn; CPU seconds are the server's own (user + system, from
/proc) once it has answered the three. With `--against DIR` the same runs alternate with a
second checkout (say the code before a change, from `git worktree add`), so both see the
same machine: it is shared and noisy.

    python benchmarks/bench_start.py [--runs 10] [--against /path/to/other/checkout]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from service_harness import Server  # noqa: E402

FIGHT = {
    "fighterA": {"attacks": 4, "wounds": 10, "strategy": "OPTIMAL"},
    "fighterB": {"attacks": 3, "wounds": 9},
}
SHOOT = {"attacker": {"attacks": 4, "hit": 3, "normalDamage": 3, "criticalDamage": 4}}
QUERY = {"query": "{ rulesets { name } }"}


def one_start(checkout: Path) -> dict[str, float]:
    """Seconds from spawn to ready, to each first answer, and the CPU the server spent."""
    server = Server(repo=checkout, ready="/readyz", rate_limit=0)
    seen = {"ready": server.seconds}
    try:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            for name, path, body in (("fight", "/v1/fight", FIGHT), ("shoot", "/v1/shoot", SHOOT),
                                     ("graphql", "/graphql", QUERY)):  # fmt: skip
                answer = client.post(path, json=body)
                assert answer.status_code == 200, answer.text
                seen[name] = time.perf_counter() - server.spawned
        seen["cpu"] = server.cpu_seconds()
    finally:
        server.stop()
    return seen


def report(label: str, runs: list[dict[str, float]]) -> None:
    def column(name: str) -> str:
        values = sorted(run[name] for run in runs)
        p95 = values[round(0.95 * (len(values) - 1))]
        return f"{name} {statistics.median(values):5.2f} / {p95:5.2f}"

    names = ("ready", "fight", "shoot", "graphql", "cpu")
    print(f"{label:<28} n={len(runs):<3} median / p95 s: " + "   ".join(map(column, names)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--against", type=Path, help="another checkout, run alternately")
    args = parser.parse_args()
    checkouts = [REPO] + ([args.against.resolve()] if args.against else [])
    for checkout in checkouts:
        one_start(checkout)  # numba's cache for that checkout, and the OS's file cache
    runs: dict[Path, list[dict[str, float]]] = {checkout: [] for checkout in checkouts}
    for _ in range(args.runs):
        for checkout in checkouts:
            runs[checkout].append(one_start(checkout))
    print(f"load average {os.getloadavg()[0]:.1f}")
    for checkout, measured in runs.items():
        report(str(checkout), measured)


if __name__ == "__main__":
    main()
