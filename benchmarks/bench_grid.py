"""Grid benchmark in one process: the 10,000-cell grid of `bench_service.py` (100 fresh
attackers × 50 fresh defenders × 2 situations), through the service's own code path without
HTTP or Redis: validate and key every cell (`grid.prepare_cells`), evaluate each distinct key
(`compute.evaluate_chunk`, what a cache miss runs), then each cell's summary (`grid.cell`).

- cold: every engine memo, the prepared-body memo and the summaries cleared first;
- warm: the answers are known (a dict by canonical key stands in for the cache tiers): what
  is left is validation, keys and summaries, as in a warm `POST /v1/grid`.
Run: `python benchmarks/bench_grid.py [--repeats 3]` (`--root` as in `bench_fresh.py`).
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_service import grid_request
from bench_shoot import clear

from service import compute
from service import grid as grids
from service.cache import LRU


def run(answers: dict[str, object] | None) -> float:
    started = time.perf_counter()
    spec = grids.parse(grid_request(), max_cells=10_000)
    jobs = grids.prepare_cells(spec)
    thresholds = tuple(spec.thresholds(jobs))
    known = answers if answers is not None else {}
    missing = {job.key: job for job in jobs if job.key not in known}
    known.update(zip(missing, compute.evaluate_chunk(list(missing.values())), strict=True))
    cells = [
        grids.cell(index, job.key, known[job.key], thresholds)
        for index, job in zip(grids.indices(spec), jobs, strict=True)
    ]
    assert len(cells) == spec.cells()
    if answers is not None:
        answers.update(known)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cold, warm = [], []
    for _ in range(args.repeats):
        clear()
        compute._memo_prepare_body.cache_clear()
        grids._SUMMARIES = LRU(16_384)
        answers: dict[str, object] = {}
        cold.append(run(answers))
        warm.append(run(answers))
    print(f"10,000-cell grid cold: median {statistics.median(cold):.3f} s  {cold}")
    print(f"10,000-cell grid warm: median {statistics.median(warm):.3f} s  {warm}")


if __name__ == "__main__":
    main()
