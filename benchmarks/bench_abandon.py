"""Abandoned work (issue 34, finding 4): the server's CPU after a client leaves mid-fight, and
after a request is answered TIMEOUT.

A real `killmath serve` (one worker) is sent the issue's heavy fight (~9 s of CPU) on a raw
socket that is closed after 0.5 s, and the server's CPU over the next 4 s is read; then, on a
server with `--budget` seconds of time budget, the same fight is awaited to its 503 and the
CPU over the next 4 s is read. Both should be near 0 once work stops (the issue's figures at
332adde: 4 s, and a 503 that kept computing for 46 s in all). `--repo` times another checkout
(the heavy fight gets the memory it needs where the checkout has a memory budget).
Run: `python benchmarks/bench_abandon.py [--repo PATH] [--budget 5]`
"""

from __future__ import annotations

import argparse
import socket
import sys
import time
from pathlib import Path

import httpx
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from service_harness import REPO, Server

SIDE = {"attacks": 8, "strategy": "OPTIMAL", "reroll": "CEASELESS_AND_BALANCED", "feelNoPain": 5}
HEAVY_FIGHT = {
    "fighterA": {**SIDE, "wounds": 30},
    "fighterB": {**SIDE, "wounds": 29},
    "options": {"rounds": 5, "exact": True},
}


def leave_after(port: int, seconds: float) -> None:
    data = orjson.dumps(HEAVY_FIGHT)
    with socket.create_connection(("127.0.0.1", port)) as sock:
        head = (
            "POST /v1/fight HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        )
        sock.sendall(head.encode() + data)
        time.sleep(seconds)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repo", type=Path, default=REPO)
    parser.add_argument("--budget", type=float, default=5.0)
    args = parser.parse_args()
    room = {"memory_budget": 2**31}  # ignored as an unknown variable by older checkouts

    server = Server(1, repo=args.repo, **room)
    try:
        leave_after(server.port, 0.5)
        gone = server.cpu_seconds()
        time.sleep(4)
        print(f"client gone after 0.5 s: {server.cpu_seconds() - gone:.2f} s CPU in the next 4 s")
    finally:
        server.stop()

    server = Server(1, repo=args.repo, time_budget=args.budget, **room)
    try:
        started = time.perf_counter()
        status = httpx.post(server.url + "/v1/fight", json=HEAVY_FIGHT, timeout=600).status_code
        answered = server.cpu_seconds()
        waited = time.perf_counter() - started
        time.sleep(4)
        after = server.cpu_seconds() - answered
        print(f"budget {args.budget:g} s: {status} after {waited:.1f} s; "
              f"{after:.2f} s CPU in the next 4 s")  # fmt: skip
    finally:
        server.stop()


if __name__ == "__main__":
    main()
