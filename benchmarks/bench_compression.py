"""Compression on the wire: bytes and CPU of a 640-cell grid and a 160-envelope batch.

Starts a real `killmath serve`, asks each answer once per coding (identity, gzip, br, zstd)
with `Accept-Encoding`, checks every decoded body equals the identity body, and times, in this
process, the compressor calls the service makes for that body at `service.compression.LEVELS`
(median of `--repeat` runs, CPU time).

    python benchmarks/bench_compression.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import gzip
import random
import statistics
import sys
import time
from pathlib import Path

import brotli
import httpx
import zstandard

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(REPO / "loadtests"))
from scenarios import attacker, defender, fight, shoot  # noqa: E402
from service_harness import serving  # noqa: E402

from service.compression import LEVELS  # noqa: E402

CODERS = {
    "gzip": lambda body: gzip.compress(body, compresslevel=LEVELS["gzip_level"]),
    "br": lambda body: brotli.compress(body, quality=LEVELS["brotli_quality"]),
    "zstd": lambda body: zstandard.ZstdCompressor(level=LEVELS["zstd_level"]).compress(body),
}


def requests() -> dict[str, tuple[str, object, dict[str, str]]]:
    rng = random.Random(19)
    grid = {
        "attackers": [attacker(rng) for _ in range(16)],
        "defenders": [defender(rng) for _ in range(20)],
        "situations": [{"name": "open"}, {"name": "cover", "defender": {"coverSaves": 1}}],
    }
    batch = [{"mode": "shoot", **shoot(rng)} for _ in range(120)]
    batch += [{"mode": "fight", **fight(rng)} for _ in range(40)]
    return {
        "grid 640 JSON": ("/v1/grid", grid, {}),
        "grid 640 CSV": ("/v1/grid", grid, {"accept": "text/csv"}),
        "batch 160": ("/v1/batch", batch, {}),
    }


def cpu_ms(call, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.process_time()
        call()
        times.append(time.process_time() - started)
    return statistics.median(times) * 1e3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    with serving() as server, httpx.Client(base_url=server.url, timeout=120) as client:
        for name, (path, body, headers) in requests().items():
            plain = client.post(path, json=body, headers={**headers, "accept-encoding": "identity"})
            assert plain.status_code == 200, plain.text
            line = [f"{name:<14} identity {len(plain.content):>8} B"]
            for coding, compress in CODERS.items():
                response = client.post(
                    path, json=body, headers={**headers, "accept-encoding": coding}
                )
                assert response.headers.get("content-encoding") == coding
                assert response.content == plain.content  # httpx decodes gzip, br, zstd
                wire = int(response.headers["content-length"])
                content = plain.content
                cost = cpu_ms(lambda c=compress, b=content: c(b), args.repeat)
                ratio = len(plain.content) / wire
                line.append(f"{coding} {wire:>7} B ({ratio:4.1f}x, {cost:5.2f} ms)")
            print("  ".join(line))
    return 0


if __name__ == "__main__":
    sys.exit(main())
