"""Summarise one Locust run as JSON: throughput, latency percentiles, cache hit ratio, and
the wire: the 304 ratio and the response bytes sent.

Reads Locust's `<name>_stats.csv` and two `/metrics` snapshots taken before and after the
run, so the cache figures count only this run's lookups. Hit ratio = lookups answered by
either cache tier / all lookups (every lookup starts at L1; L1 misses go to L2 when Redis is
configured); GraphQL replies served whole from the service's reply cache are counted apart.
`/metrics` counts every worker (`killmath serve` runs prometheus-client's multiprocess mode
with several). A soak (`run.sh --soak`) adds when its Redis was restarted
(from the log of `redis_process.py`) and how many entries Redis held at the end.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from collections import Counter
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

PERCENTILES = ("50%", "95%", "99%")


def counter(metrics_text: str, name: str, *labels: str) -> Counter[tuple[str, ...]]:
    """label values -> count so far, for one counter of a `/metrics` text."""
    counts: Counter[tuple[str, ...]] = Counter()
    for family in text_string_to_metric_families(metrics_text):
        if family.name != name:
            continue
        for sample in family.samples:
            if sample.name.endswith("_total"):
                counts[tuple(sample.labels[label] for label in labels)] += sample.value
    return counts


def _delta(before: str, after: str, name: str, *labels: str) -> Counter[tuple[str, ...]]:
    delta = counter(after, name, *labels)
    delta.subtract(counter(before, name, *labels))
    return delta


def cache_summary(before: str, after: str) -> dict[str, float | int | None]:
    """This run's cache lookups by tier, and the Redis calls that failed or were skipped."""
    delta = _delta(before, after, "killmath_cache_lookups", "tier", "result")
    l1_hit, l1_miss = delta[("l1", "hit")], delta[("l1", "miss")]
    l2_hit, l2_miss = delta[("l2", "hit")], delta[("l2", "miss")]
    # GraphQL documents answered whole from the service's reply cache make no L1/L2 lookup.
    reply_hit, reply_miss = delta[("reply", "hit")], delta[("reply", "miss")]
    errors = _delta(before, after, "killmath_redis_errors", "kind")
    lookups = l1_hit + l1_miss
    return {
        "lookups": int(lookups),
        "l1Hits": int(l1_hit),
        "l2Hits": int(l2_hit),
        "misses": int(l1_miss - l2_hit),
        "hitRatio": round((l1_hit + l2_hit) / lookups, 4) if lookups else None,
        "l2HitRatio": round(l2_hit / (l2_hit + l2_miss), 4) if l2_hit + l2_miss else None,
        "graphqlReplyHitRatio": (
            round(reply_hit / (reply_hit + reply_miss), 4) if reply_hit + reply_miss else None
        ),
        "redisErrors": int(sum(errors.values())),
        "redisErrorsByKind": {kind: int(n) for (kind,), n in sorted(errors.items()) if n},
    }


def wire_summary(before: str, after: str, rows: list[dict[str, str]]) -> dict[str, float | int]:
    """This run's 304 ratio and bytes on the wire. The server counts the body bytes it sent
    (after compression, `killmath_http_response_bytes_total`); a server without that counter
    (an older one, which compressed nothing) is measured by Locust's decoded sizes."""
    statuses = _delta(before, after, "killmath_http_requests", "status")
    requests = sum(statuses.values())
    sent = sum(_delta(before, after, "killmath_http_response_bytes", "route").values())
    if not sent:
        sent = sum(
            float(r.get("Average Content Size") or 0) * int(r["Request Count"])
            for r in rows
            if r["Name"] != "Aggregated"
        )
    return {
        "notModifiedRatio": round(statuses[("304",)] / requests, 4) if requests else 0,
        "responseBytes": int(sent),
        "bytesPerRequest": round(sent / requests, 1) if requests else 0,
    }


def restarts(redis_log: str) -> list[float]:
    """Seconds into the load at which `redis_process.py` restarted its server."""
    return [float(s) for s in re.findall(r"restarted at ([0-9.]+) s", redis_log)]


def _row(row: dict[str, str]) -> dict[str, float | int | str]:
    return {
        "requests": int(row["Request Count"]),
        "failures": int(row["Failure Count"]),
        "reqPerSec": round(float(row["Requests/s"]), 1),
        **{f"p{p.rstrip('%')}Ms": float(row[p]) for p in PERCENTILES},
        "maxMs": round(float(row["Max Response Time"]), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stats_csv", type=Path)
    parser.add_argument("metrics_before", type=Path)
    parser.add_argument("metrics_after", type=Path)
    parser.add_argument("--duration", default="")
    parser.add_argument("--users", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--redis", default="")
    parser.add_argument("--peak-rss-kib", type=int, default=0)
    parser.add_argument("--redis-log", type=Path, help="a soak's redis_process.py log")
    parser.add_argument("--redis-keys", type=int, help="entries in Redis at the end")
    args = parser.parse_args(argv)

    with args.stats_csv.open(newline="") as f:
        rows = list(csv.DictReader(f))
    total = next(r for r in rows if r["Name"] == "Aggregated")
    summary = {
        "duration": args.duration,
        "users": args.users,
        "workers": args.workers,
        "redis": bool(args.redis),
        "serverPeakRssMiB": round(args.peak_rss_kib / 1024, 1),
        "total": _row(total),
        "byRequest": {
            f"{r['Type']} {r['Name']}": _row(r) for r in rows if r["Name"] != "Aggregated"
        },
        "cache": cache_summary(args.metrics_before.read_text(), args.metrics_after.read_text()),
        "wire": wire_summary(args.metrics_before.read_text(), args.metrics_after.read_text(), rows),
    }
    if args.redis_log is not None:
        summary["redisRestartsAtSeconds"] = restarts(args.redis_log.read_text())
    if args.redis_keys is not None:
        summary["redisKeysAtEnd"] = args.redis_keys
    json.dump(summary, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
