"""Grid benchmark in one process: the 10,000-cell grid of `bench_service.py` (100 fresh
attackers × 50 fresh defenders × 2 situations), through the service's own code path without
HTTP or Redis: validate and key every cell (`grid.prepare_cells`), evaluate each distinct key
(`compute.evaluate_chunk`, what a cache miss runs), then the answer's cells (`grid.rows`).

- cold: every memo a grid fills cleared first (the engine's, the prepared parts, the cells,
  the canonical members' JSON, the summaries);
- warm: the answers are known (a dict by canonical key stands in for the cache tiers): what
  is left is validation, keys and summaries, as in a warm `POST /v1/grid`.
Run: `python benchmarks/bench_grid.py [--repeats 3]`; to compare checkouts, run each one's
copy alternately (`PYTHONPATH=<checkout> python <checkout>/benchmarks/bench_grid.py`).
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench_service import grid_request
from bench_shoot import clear

from engine.kt2024 import canonical
from service import compute
from service import grid as grids
from service.compute import Result


def run(answers: dict[str, object]) -> float:
    """Seconds for one grid; `answers` (by canonical key) stands in for the cache tiers."""
    started = time.perf_counter()
    spec = grids.parse(grid_request(), max_cells=10_000)
    jobs = grids.prepare_cells(spec)
    thresholds = tuple(spec.thresholds(job.scenario.defender.wounds for job in jobs))
    missing = {job.key: job for job in jobs if job.key not in answers}
    answers.update(zip(missing, compute.evaluate_chunk(list(missing.values())), strict=True))
    results = [Result(job.key, answers[job.key], None, job.ignored) for job in jobs]
    cells = grids.rows(spec, results, thresholds)
    assert len(cells) == spec.cells()
    return time.perf_counter() - started


def clear_memos() -> None:
    """Every memo a grid fills: the engine's, the prepared bodies, cells and summaries."""
    clear()
    compute._PREPARED.clear()
    canonical._member_json.cache_clear()
    grids._CELLS.clear()
    grids._SUMMARIES.clear()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cold, warm = [], []
    for _ in range(args.repeats):
        clear_memos()
        answers: dict[str, object] = {}
        cold.append(run(answers))
        warm.append(run(answers))
    print(f"10,000-cell grid cold: median {statistics.median(cold):.3f} s  {cold}")
    print(f"10,000-cell grid warm: median {statistics.median(warm):.3f} s  {warm}")


if __name__ == "__main__":
    main()
