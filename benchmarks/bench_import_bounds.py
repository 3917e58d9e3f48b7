"""Issue 34, finding 1: what a hostile BattleScribe upload costs a real server.

For each checkout (`--repo DIR`, repeatable; default this one) a `killmath serve` (one worker)
is sent, over REST (multipart `/v1/import`) and GraphQL (`importProfiles`), the depth-22 DAG
of tests/test_import_bounds.py (44 entries, 4 million paths) and a 2,000-long link chain.
For each: the HTTP status, the server's CPU seconds for the request (utime + stime before
and after), and the longest `/healthz` wait while it ran (asked every 50 ms from another
thread), after one small import by each door (their one-off set-up is not the upload's). A
checkout of an older commit gives the before figures in the same run. The waits are wall
time: on a loaded machine compare them with `uptime`'s load average.

    python benchmarks/bench_import_bounds.py [--repo /path/to/old/checkout ...]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))
from service_harness import Server  # noqa: E402
from test_import_bounds import IMPORT_QUERY, chain, dag  # noqa: E402


def _send(server: Server, door: str, name: str, document: str) -> httpx.Response:
    if door == "rest":
        files = {"file": (name, document.encode(), "application/xml")}
        return httpx.post(server.url + "/v1/import", files=files, timeout=600)
    body = {"query": IMPORT_QUERY, "variables": {"c": document}}
    return httpx.post(server.url + "/graphql", json=body, timeout=600)


def measure(server: Server, door: str, name: str, document: str) -> dict[str, float | int]:
    """Status, CPU seconds and the longest /healthz wait of one import."""
    done = threading.Event()
    waits: list[float] = []

    def probe() -> None:
        while not done.is_set():
            start = time.perf_counter()
            httpx.get(server.url + "/healthz", timeout=600)
            waits.append(time.perf_counter() - start)
            done.wait(0.05)

    cpu = server.cpu_seconds()
    prober = threading.Thread(target=probe)
    prober.start()
    response = _send(server, door, name, document)
    done.set()
    prober.join()
    status = response.status_code
    if door == "graphql" and status == 200 and response.json().get("errors"):
        status = f"200 {response.json()['errors'][0].get('extensions', {}).get('code')}"
    return {"status": status, "cpu": server.cpu_seconds() - cpu, "healthz": max(waits)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", action="append", type=Path, default=[])
    args = parser.parse_args()
    documents = {"dag-22": dag(22), "chain-2000": chain(2_000)}
    for repo in [*args.repo, REPO]:
        server = Server(workers=1, repo=repo)
        try:
            for door in ("rest", "graphql"):  # a first request's one-off set-up, not measured
                _send(server, door, "warm-up.cat", chain(2))
            for name, document in documents.items():
                for door in ("rest", "graphql"):
                    m = measure(server, door, f"{name}.cat", document)
                    print(
                        f"{repo.name:>12} {name:>10} {door:>7}: status {m['status']}, "
                        f"CPU {m['cpu']:.2f} s, longest /healthz wait {m['healthz']:.3f} s",
                        flush=True,
                    )
        finally:
            server.stop()


if __name__ == "__main__":
    main()
