"""Fit the cost model's constants (`engine/*/cost.py`): CPU time against the estimate's terms.

Every scenario (`cost_scenarios`, random, light to heavy, of every ruleset) is prepared as the
service prepares it (validate, canonicalise, key and estimate: `service.compute.prepare`) and
evaluated once, cold for its own answer (the dice memos warm from earlier scenarios, as in a
serving process); the CPU time (`time.process_time`, so the shared machine's load barely
moves it) is regressed on the estimate's terms, each row weighted by 1/time so the fit
minimises the relative error, with no constant allowed below 0 (an active-set least squares).
For kt2024 fights the reach spread (`engine.kt2024.cost.SPREAD`) is chosen by trying several.
It prints each kind's fitted constants (to paste into its module) and how far the estimates
fall from the times measured.

    python benchmarks/calibrate_costs.py [--count 120] [--seed 11] [--most-ms 4000]

`--most-ms` skips the fights the model (as it stands) puts above that, the issue's heavy
fight excepted, which is always measured: the calibration stays within a few minutes.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
import cost_scenarios as scenarios  # noqa: E402

from engine import cost  # noqa: E402
from engine.kt2024 import cost as kt2024_cost  # noqa: E402
from engine.kt2024 import flat  # noqa: E402
from service.compute import prepare  # noqa: E402

Sample = tuple[Any, float]  # (scenario, CPU ms of prepare + evaluate)


def measure(envelope: dict[str, Any]) -> Sample | None:
    """The scenario and its CPU ms, or None for an envelope the engine refuses."""
    started = time.process_time()
    try:
        job = prepare(envelope)
        job.mode.evaluate(job.scenario)
    except Exception:
        return None
    return job.scenario, (time.process_time() - started) * 1e3


def nonnegative_fit(rows: np.ndarray, times: np.ndarray) -> np.ndarray:
    """min Σ ((rows·c − t)/t)² with c ≥ 0: least squares, dropping the most negative term
    until none comes out negative (a term nothing measured varies is dropped too)."""
    weights = rows / times[:, None]
    ones = np.ones(len(times))
    active = list(range(rows.shape[1]))
    while True:
        found, *_ = np.linalg.lstsq(weights[:, active], ones, rcond=None)
        if (found >= 0).all():
            constants = np.zeros(rows.shape[1])
            constants[active] = found
            return constants
        del active[int(np.argmin(found))]


def spread(estimates: list[float], times: list[float]) -> str:
    ratios = sorted(t / max(e, 1e-9) for e, t in zip(estimates, times, strict=True))
    within = sum(1 for r in ratios if 0.25 <= r <= 4) / len(ratios)
    return (
        f"measured/estimated: median {statistics.median(ratios):.2f}, "
        f"min {ratios[0]:.2f}, max {ratios[-1]:.2f}, within 4×: {100 * within:.1f} %"
    )


def fit(
    name: str,
    samples: list[Sample],
    terms: Callable[[Any], dict[str, float]],
) -> tuple[dict[str, float], list[float]]:
    names = list(terms(samples[0][0]))
    rows = np.array([[terms(s)[n] for n in names] for s, _ in samples])
    times = np.array([t for _, t in samples])
    constants = nonnegative_fit(rows, times)
    estimates = (rows @ constants).tolist()
    fitted = {n: float(f"{c:.3g}") for n, c in zip(names, constants, strict=True)}
    return fitted, estimates


def report(name: str, constants: dict[str, float], samples: list[Sample], est: list[float]):
    times = [t for _, t in samples]
    print(
        f"{name}: n={len(samples)}, CPU median {statistics.median(times):.2f} ms, "
        f"max {max(times):.1f} ms"
    )
    print(f"  constants = {constants}")
    print(f"  {spread(est, times)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=120)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--most-ms", type=float, default=4000.0)
    parser.add_argument("--skip-fights", action="store_true", help="fit the other kinds only")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    flat.warm_up()
    for kind in scenarios.KINDS.values():  # first-use tables out of the way
        for _ in range(5):
            measure(kind(rng))

    def collect(kind: Callable[..., dict[str, Any]], keep: Callable[[Any], bool]) -> list[Sample]:
        samples = []
        while len(samples) < args.count:
            envelope = kind(rng)
            try:
                if not keep(prepare(envelope).scenario):
                    continue
            except Exception:
                continue
            found = measure(envelope)
            if found is not None:
                samples.append(found)
        return samples

    def light(fight: Any) -> bool:
        return kt2024_cost.fight(fight).ms <= args.most_ms

    if not args.skip_fights:
        fit_fights(args, collect, light)
    everything = lambda _: True  # noqa: E731
    shoots = collect(scenarios.shoot, everything)
    report("kt2024 shoot", *_fitted(shoots, kt2024_cost.shoot_terms))
    for name, kind in (
        ("kt2018", scenarios.kt2018),
        ("kt2013", scenarios.kt2013),
        ("threshold", scenarios.threshold),
    ):
        samples = collect(kind, everything)
        report(name, *_fitted(samples, _dice_terms))
    return 0


def fit_fights(args: argparse.Namespace, collect: Callable[..., list[Sample]], light) -> None:
    """The fights' constants, and the spread that fits them best."""
    fights = collect(scenarios.fight, light)
    count, args.count = args.count, max(1, args.count // 6)
    fights += collect(scenarios.heavy_fight, light)
    args.count = count
    heavy = measure(scenarios.HEAVY_FIGHT)
    assert heavy is not None
    fights.append(heavy)
    best = None
    for candidate in (4, 8, 16, 32):
        kt2024_cost.SPREAD = candidate
        constants, est = fit("kt2024 fight", fights, kt2024_cost.fight_terms)
        times = [t for _, t in fights]
        logs = sorted(abs(math.log(t / max(e, 1e-9))) for e, t in zip(est, times, strict=True))
        score = logs[int(0.99 * (len(logs) - 1))]
        if best is None or score < best[0]:
            best = (score, candidate, constants, est)
    _, chosen, constants, est = best
    print(f"kt2024 fight SPREAD = {chosen}")
    report("kt2024 fight", constants, fights, est)
    print(f"  the issue's heavy fight: {heavy[1]:.0f} ms, estimated {est[-1]:.0f} ms")


def _dice_terms(scenario: Any) -> dict[str, float]:
    return cost.dice_terms(getattr(scenario, "scenario", scenario))


def _fitted(samples: list[Sample], terms: Callable[[Any], dict[str, float]]):
    constants, est = fit("", samples, terms)
    return constants, samples, est


if __name__ == "__main__":
    sys.exit(main())
