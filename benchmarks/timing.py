"""Shared timing helpers for the benchmark scripts (wall-clock, `time.perf_counter`)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def seconds(call: Callable[[], object]) -> float:
    """Wall-clock seconds of one call."""
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def repeated(call: Callable[[], object], repeats: int) -> list[float]:
    return [seconds(call) for _ in range(repeats)]


def summary(label: str, times: list[float], width: int = 34) -> str:
    """One line: median, p95, p99, max and total, in units that suit the numbers."""
    ordered = sorted(times)
    p95 = ordered[round(0.95 * (len(ordered) - 1))]
    p99 = ordered[round(0.99 * (len(ordered) - 1))]

    def show(t: float) -> str:
        return f"{t * 1e6:9.1f} µs" if t < 1e-2 else f"{t * 1e3:9.2f} ms"

    return (
        f"{label:<{width}} n={len(times):<4} median {show(statistics.median(ordered))}   "
        f"p95 {show(p95)}   p99 {show(p99)}   max {show(ordered[-1])}   "
        f"total {sum(times) * 1e3:9.1f} ms"
    )
