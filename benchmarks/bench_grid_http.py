"""The 10,000-cell grid of `bench_service.py` over a real server: REST `POST /v1/grid` against
GraphQL `matchupGrid` (every member of every cell selected), cold and warm (issue 17: GraphQL
within 2× of REST).

Each measurement starts a new `killmath serve` (one worker, in-process cache, a time budget
large enough for a slow machine), answers the grid once cold (every memo empty: the first
request of a fresh process) then `--warm` times more (every cell from the LRU). REST and
GraphQL each get their own server, so both colds are cold. GraphQL's whole-reply cache is
off: a repeated document would otherwise be answered from its bytes, not executed. Answers
are read uncompressed (compression is the same work for both doors). With `--root` (several
allowed) the same servers are started from other checkouts (a `git worktree` of main),
interleaved round by round, and every checkout's cells must be identical.

    python benchmarks/bench_grid_http.py [--root CHECKOUT ...] [--rounds 3] [--warm 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import httpx
import orjson
from bench_service import grid_request

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE / "tests"))
from service_harness import Server  # noqa: E402

CELL = "attacker defender situation expectedDamage killProbability damageAtLeast { k probability }"
QUERY = (
    "query($a: [Kt2024ShootAttackerInput!]!, $d: [Kt2024ShootDefenderInput!]!, "
    "$s: [SituationInput!]) "
    f"{{ matchupGrid(attackers: $a, defenders: $d, situations: $s) "
    f"{{ atLeast cachedCells cells {{ {CELL} }} }} }}"
)


def server(root: Path) -> Server:
    """A fresh `killmath serve` of one checkout, its GraphQL schema built (GraphQL's first
    request would otherwise wait for the start thread, and its cold time with it)."""
    started = Server(repo=root, time_budget=300, graphql_reply_cache_bytes=0)
    httpx.post(started.url + "/graphql", json={"query": "{ __typename }"}, timeout=120)
    return started


def rest(client: httpx.Client, grid: dict) -> list[dict]:
    response = client.post("/v1/grid", json=grid)
    assert response.status_code == 200, response.text[:500]
    return orjson.loads(response.content)["cells"]


def graphql(client: httpx.Client, grid: dict) -> list[dict]:
    variables = {"a": grid["attackers"], "d": grid["defenders"], "s": grid["situations"]}
    response = client.post("/graphql", json={"query": QUERY, "variables": variables})
    reply = orjson.loads(response.content)
    assert response.status_code == 200 and "errors" not in reply, response.text[:500]
    return reply["data"]["matchupGrid"]["cells"]


DOORS = {"REST": rest, "GraphQL": graphql}


def measure(root: Path, door: str, grid: dict, warm: int) -> tuple[float, list[float], bytes]:
    """Cold seconds, warm seconds, and the cells (as JSON) of one fresh server."""
    live = server(root)
    try:
        headers = {"accept-encoding": "identity"}
        with httpx.Client(base_url=live.url, timeout=600, headers=headers) as client:
            started = time.perf_counter()
            cells = DOORS[door](client, grid)
            cold = time.perf_counter() - started
            warms = []
            for _ in range(warm):
                started = time.perf_counter()
                again = DOORS[door](client, grid)
                warms.append(time.perf_counter() - started)
                assert again == cells
    finally:
        live.stop()
    return cold, warms, orjson.dumps(cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, action="append", default=[])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--warm", type=int, default=5)
    args = parser.parse_args()
    roots = [HERE, *(r.resolve() for r in args.root)]
    grid = grid_request()
    cold: dict[tuple[Path, str], list[float]] = {(r, d): [] for r in roots for d in DOORS}
    warm: dict[tuple[Path, str], list[float]] = {(r, d): [] for r in roots for d in DOORS}
    answers: set[bytes] = set()
    print(f"load average {os.getloadavg()}")
    for round_ in range(args.rounds):
        for root in roots:
            for door in DOORS:
                c, w, cells = measure(root, door, grid, args.warm)
                answers.add(cells)
                cold[root, door].append(c)
                warm[root, door].extend(w)
                print(f"round {round_ + 1} {root.name:<16} {door:<8} cold {c:6.3f} s   "
                      f"warm median {statistics.median(w):6.3f} s", flush=True)  # fmt: skip
    assert len(answers) == 1, "the checkouts' or doors' cells differ"
    print(f"load average {os.getloadavg()}; every answer identical")
    for root in roots:
        line = [root.name]
        for door in DOORS:
            c, w = cold[root, door], warm[root, door]
            runs = [round(x, 3) for x in c]
            line.append(f"{door} cold median {statistics.median(c):.3f} s {runs}, "
                        f"warm median {statistics.median(w):.3f} s (max {max(w):.3f})")  # fmt: skip
        print("\n  ".join(line))
        medians = {d: (statistics.median(cold[root, d]), statistics.median(warm[root, d]))
                   for d in DOORS}  # fmt: skip
        (rest_cold, rest_warm), (gql_cold, gql_warm) = medians["REST"], medians["GraphQL"]
        print(f"  GraphQL / REST: cold {gql_cold / rest_cold:.2f}×, "
              f"warm {gql_warm / rest_warm:.2f}× (target ≤ 2×)")  # fmt: skip


if __name__ == "__main__":
    main()
