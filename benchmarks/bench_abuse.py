"""How fast hostile requests are refused (issue 8's bound: within 100 ms at the client).

Starts a real `killmath serve` with its default limits and sends every payload of
tests/abuse_requests.py (the abuse test's `ATTACKS` and `LIST_ARGUMENTS`) `--tries` times on
one warm keep-alive connection, each try a new GraphQL document (so no parser or validation
cache answers), checking each response is the refusal the test expects. Prints the best and
the median round trip of each and marks those whose best try reaches the bound: the best
try is the server's work, the median what a shared machine adds. The tests check what is
refused and how; this script is where the time is measured.

    python benchmarks/bench_abuse.py [--tries 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
from abuse_requests import ATTACKS, LIST_ARGUMENTS, Attack  # noqa: E402
from service_errors import ErrorShape  # noqa: E402
from service_harness import serving  # noqa: E402

REFUSED_WITHIN = 0.100  # seconds, issue 8


def timed(attack: Attack, client: httpx.Client, n: int) -> tuple[httpx.Response, float]:
    """Try `n` of an attack and its round trip in seconds."""
    started = time.perf_counter()
    response = attack.send(client, n)
    return response, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tries", type=int, default=5)
    args = parser.parse_args()
    with serving() as server, httpx.Client(base_url=server.url, timeout=60) as client:
        errors = ErrorShape(client.get("/openapi.json").json())
        assert client.get("/healthz").status_code == 200  # the connection is warm
        limited = {name: (attack, None) for name, attack in LIST_ARGUMENTS.items()}
        slow = []
        for name, (attack, refused) in {**ATTACKS, **limited}.items():
            times = []
            for n in range(args.tries):
                response, elapsed = timed(attack, client, n)
                times.append(elapsed)
                if refused is not None:
                    refused(response, errors)
                else:
                    (error,) = response.json()["errors"]
                    assert error["extensions"]["code"] == "LIMIT_EXCEEDED", error
            best, median = min(times), statistics.median(times)
            mark = "  SLOW" if best >= REFUSED_WITHIN else ""
            print(f"{name:<52} best {best * 1e3:7.1f} ms  median {median * 1e3:7.1f} ms{mark}")
            slow += [name] if mark else []
    print(f"{len(slow)} refusal(s) at or over {REFUSED_WITHIN * 1e3:.0f} ms (best of {args.tries})")
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
