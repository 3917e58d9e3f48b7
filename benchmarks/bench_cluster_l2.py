"""Redis Cluster as the L2: how many answers three processes store and find in each other's.

One local six-node cluster (tests/redis_cluster.py); for each checkout given, three
`killmath serve` processes of that checkout point at one seed node with
`KILLMATH_REDIS_CLUSTER=true` (a checkout without the setting ignores it and talks to the
seed as to one Redis). Process i asks its 100 of 300 shooting scenarios one request at a
time; then every process asks all 300. Reported: answers stored in the cluster, and per
process the answers of the other two it found in L2 (200 possible), with the median request.

    python benchmarks/bench_cluster_l2.py [CHECKOUT ...]   # default: this checkout

Run an older commit side by side with `git worktree add /tmp/old <commit>` and pass both.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from redis_cluster import Cluster, redis_cluster  # noqa: E402
from service_harness import free_port  # noqa: E402
from test_service_faults import scenario  # noqa: E402

PER, PROCESSES = 100, 3


@contextmanager
def serve(checkout: Path, seed: str) -> Iterator[str]:
    """One `killmath serve` of `checkout`, with its code, on a free port."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("KILLMATH_")}
    env |= {
        "KILLMATH_REDIS_URL": seed,
        "KILLMATH_REDIS_CLUSTER": "true",
        "KILLMATH_LOG_LEVEL": "ERROR",
        "PYTHONPATH": str(checkout),
    }
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--port", str(port)],
            cwd=checkout,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 300  # a cold numba cache compiles first
            while True:
                try:
                    httpx.get(url + "/healthz", timeout=0.5)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise RuntimeError("server did not start") from None
                    time.sleep(0.1)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def measure(checkout: Path, cluster: Cluster) -> str:
    with cluster.client() as client:
        client.flushall()
    with ExitStack() as stack, httpx.Client(timeout=60) as http:
        urls = [stack.enter_context(serve(checkout, cluster.url)) for _ in range(PROCESSES)]
        for i, url in enumerate(urls):
            for n in range(i * PER, (i + 1) * PER):
                http.post(url + "/v1/shoot", json=scenario(n)).raise_for_status()
        time.sleep(1.0)  # writes follow the answers
        with cluster.client() as client:
            stored = client.dbsize()
        lines = [f"{checkout}: {stored} of {PROCESSES * PER} answers stored"]
        for i, url in enumerate(urls):
            found, seconds = 0, []
            for n in range(PROCESSES * PER):
                if i * PER <= n < (i + 1) * PER:
                    continue  # its own answers are L1 hits
                started = time.perf_counter()
                response = http.post(url + "/v1/shoot", json=scenario(n))
                seconds.append(time.perf_counter() - started)
                found += response.json()["cached"] is True
            others = (PROCESSES - 1) * PER
            lines.append(
                f"  process {i}: found {found} of the other processes' {others} answers "
                f"({found / others:.3f}); median request {statistics.median(seconds) * 1e3:.1f} ms"
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkouts", nargs="*", type=Path, default=[REPO])
    args = parser.parse_args()
    with redis_cluster() as cluster:
        for checkout in args.checkouts:
            print(measure(checkout.resolve(), cluster), flush=True)


if __name__ == "__main__":
    main()
