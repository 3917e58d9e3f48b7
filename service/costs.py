"""What a request costs in rate-limit tokens: the engine work it asks for.

A token is one kt2024 shoot's worth of work. A request is charged, before any lookup or
computation, by what it asks for — not by what the cache happens to hold, so its cost is
predictable and the same on every replica: one shoot is 1, one fight `FIGHT`, a batch or a
GraphQL `matchups` the sum of its envelopes, a grid one per cell (each cell is a shoot).
Envelopes of the other rulesets (kt2018, kt2013, threshold: a few dice stages each) weigh 1.
A request that names no engine work (catalog reads, imports, errors) costs 1; a 304 costs
nothing, since it is answered from the validators alone.

FIGHT comes from `benchmarks/bench_costs.py`: the median engine time of the load tests'
fights over that of their shoots, measured cold (each scenario evaluated once, as a cache
miss is), rounded.
"""

from __future__ import annotations

from collections.abc import Iterable

from schema.registry import Mode
from service.compute import Job

FIGHT = 9
WEIGHTS: dict[tuple[str, str], int] = {("kt2024", "fight"): FIGHT}
REQUEST = 1
"""The least any request costs (a 304 excepted)."""


def of_mode(mode: Mode) -> int:
    return WEIGHTS.get((mode.ruleset, mode.name), 1)


def of_jobs(jobs: Iterable[Job | object]) -> int:
    """The cost of prepared envelopes; one that failed validation asks for no engine work."""
    return max(REQUEST, sum(of_mode(job.mode) for job in jobs if isinstance(job, Job)))


def of_grid(cells: int) -> int:
    return max(REQUEST, cells)
