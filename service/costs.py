"""What a request costs in rate-limit tokens: the CPU its engine work is estimated to take.

A token is a millisecond of CPU (`engine.cost`). Each prepared envelope carries the engine's
estimate of its evaluation (`Job.work`, from the canonical scenario: a fight's moments,
strategies and rounds, a shoot's dice and rounds, a few-stage ruleset's dice); a request
costs a fixed part for the HTTP and JSON around it (`REQUEST_MS`) plus, for each distinct
canonical key it asks (a cell asked twice is computed once), a part for its lookup and
rendering (`CELL_MS`) and its estimate. Grids, `versus`, team matchups, batches and GraphQL
`matchups` are thus the sum over their cells. A request is charged that estimate before any
lookup or computation, whatever the cache holds: its cost is predictable and the same on
every replica (a 304 is answered from the validators alone and costs nothing). Requests that
name no engine work cost `REQUEST`: catalog reads, and rule text and imports by their bytes
(`of_bytes`).

An estimate above the per-request ceiling (`KILLMATH_MAX_REQUEST_TOKENS`) is refused before
any work, 422 LIMIT_EXCEEDED naming the field that drives it (`within`).

REQUEST_MS and CELL_MS come from `benchmarks/bench_costs.py` (the server's CPU per request
against the engine's estimate), the engine's constants from `benchmarks/calibrate_costs.py`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from engine.cost import MS_PER_TOKEN
from engine.errors import InputError
from service.compute import Job

REQUEST = 1
"""The least any request costs (a 304 excepted)."""
REQUEST_MS = 1.5
"""Server CPU of a request around its engine work: HTTP, JSON, middleware, metrics."""
CELL_MS = 0.1
"""Server CPU per distinct cell of a request: its cache lookup and its share of the answer."""
RULE_BYTE_MS = 0.0012
"""Server CPU per byte of weapon-rules text parsed (`schema.weapon_rules.parse_rules`)."""
IMPORT_BYTE_MS = 0.0006
"""Server CPU per byte of a file imported (the importers' fixtures: 0.2–0.6 µs a byte)."""


@dataclass(frozen=True)
class Estimate:
    """A request's price: whole tokens, and the request field that drives it (the one to
    reduce; "" when no field does)."""

    tokens: int
    field: str = ""


FIELDS: dict[tuple[str, str], dict[str, str]] = {
    ("kt2024", "shoot"): {"attacks": "attacker.attacks", "rounds": "options.rounds"},
    ("kt2024", "fight"): {
        "attacks": "fighterA.attacks",
        "rounds": "options.rounds",
        "exact": "options.exact",
    },
}
"""The request field each engine quantity (`engine.cost.Work.driver`) is given by, per mode."""
DICE_FIELDS = {"kt2018": "weapons", "kt2013": "weapon", "threshold": "attack"}
"""The field a few-stage ruleset's dice come from (threshold's `heal` names `amount`)."""


def field_of(job: Job) -> str:
    """The request field that drives a job's estimate."""
    driver = job.work.driver
    mode = job.mode
    if driver == "strategy":  # an OPTIMAL fighter's
        optimal = getattr(job.scenario, "fighter_a", None)
        side = "fighterA" if getattr(optimal, "strategy", "") == "OPTIMAL" else "fighterB"
        return f"{side}.strategy"
    if driver in ("dice", "wounds") and mode.ruleset in DICE_FIELDS:
        if mode.name == "heal":
            return "amount"
        return DICE_FIELDS[mode.ruleset] if driver == "dice" else "target"
    return FIELDS.get((mode.ruleset, mode.name), {}).get(driver, "")


def _tokens(ms: float) -> int:
    return max(REQUEST, math.ceil(ms / MS_PER_TOKEN))


def of_jobs(jobs: Iterable[Job | object], container: str = "") -> Estimate:
    """The price of prepared envelopes (one that failed validation asks for no engine work):
    the request's fixed part and each distinct key's. `container` names the request member
    holding the cells (a grid's `attackers`), before the costliest cell's own field; a batch
    (no container) names that cell by its index."""
    distinct: dict[str, tuple[int, Job]] = {}
    for index, job in enumerate(jobs):
        if isinstance(job, Job):
            distinct.setdefault(job.key, (index, job))
    ms = REQUEST_MS + of_cells(job for _, job in distinct.values())
    if not distinct:
        return Estimate(_tokens(ms))
    index, top = max(distinct.values(), key=lambda found: found[1].work.ms)
    field = field_of(top)
    if container:
        field = container
    elif len(distinct) > 1 or index > 0:
        field = f"{index}.{field}" if field else str(index)
    return Estimate(_tokens(ms), field)


def of_cells(jobs: Iterable[Job]) -> float:
    """The estimated CPU milliseconds of distinct prepared cells, each its lookup and share
    of the answer and its evaluation: a request's price without its fixed part and before
    rounding to tokens, which is what `killmath matrix` balances its shards by (a sample of
    cells scaled to the whole; `service.matrix`)."""
    return sum(CELL_MS + job.work.ms for job in jobs)


def of_job(job: Job) -> Estimate:
    return of_jobs([job])


def of_bytes(size: int, field: str, per_byte: float) -> Estimate:
    """Rule text parsed (`RULE_BYTE_MS`) or a file imported (`IMPORT_BYTE_MS`): by its bytes."""
    return Estimate(_tokens(REQUEST_MS + per_byte * size), field if size else "")


def within(estimate: Estimate, ceiling: int, spent: int = 0) -> Estimate:
    """The estimate, or LIMIT_EXCEEDED when it (after `spent`: a GraphQL document's fields
    so far) is above the per-request ceiling."""
    if spent + estimate.tokens > ceiling:
        raise InputError(
            "LIMIT_EXCEEDED",
            estimate.field,
            f"this request would cost {spent + estimate.tokens} tokens (≈ ms of CPU), "
            f"at most {ceiling} a request",
            ceiling,
        )
    return estimate


def describe(estimate: Estimate) -> dict[str, Any]:
    return {"tokens": estimate.tokens, "field": estimate.field}
