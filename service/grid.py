"""Matchup grids: every attacker profile × every defender profile × every situation.

A grid is many kt2024 shoot scenarios that share their parts, answered cell by cell through
the same cache as single requests (one canonical key per cell, bulk MGET/SET). A situation is
a partial override of the attacker, the defender and the options (cover, obscured, a ploy), laid
over each profile pair, so "with and without cover" is two situations, not twice the profiles.

Each cell reports expected damage, kill probability and P(damage ≥ k) for the requested k.
Where the request names no k, the grid reports k = 1 … the largest `wounds` of any cell's
defender as validated — catalog operatives and situation overrides included: a player
reading a grid asks "how likely do I get this many wounds through", and the wounds line is
where that question ends.
"""

from __future__ import annotations

import csv
import io
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import accumulate, product
from typing import Any

from pydantic import ValidationError

from engine import collector
from engine.errors import InputError
from engine.kt2024.canonical import fields_key, member_fields
from schema import references
from schema.answers.grid import GridSummary
from schema.errors import every, from_validation_error, gathered
from schema.grid import GridRequest, Profile, Situation
from schema.kt2024 import shoot
from schema.limits import grid_too_large
from schema.report import ratio
from service.cache import SizedLRU, digest, footprint
from service.compute import LARGEST_JOB, Job, Result, encode, job_size, prepare_raw


def parse(body: Any, max_cells: int) -> GridRequest:
    """Validate the grid's shape and size (the profiles are validated cell by cell)."""
    try:
        grid = GridRequest.model_validate(body)
    except ValidationError as exc:
        raise from_validation_error(exc) from None
    if grid.cells() > max_cells:
        raise grid_too_large(grid.cells(), max_cells)
    return grid


Index = tuple[int, int, int]


def indices(grid: GridRequest) -> list[Index]:
    """Every cell's (attacker, defender, situation) index, in the order of the answer's cells
    (the index alone, without building the cells' envelopes)."""
    sizes = (len(grid.attackers), len(grid.defenders), len(grid.situations))
    return list(product(*map(range, sizes)))


def envelope(
    attacker: Profile | None, defender: Profile | None, options: Profile, situation: Situation
) -> dict[str, Any]:
    """One cell's kt2024 shoot envelope: the situation laid over the pair and the options.
    A part of a cell (`_parts`) names one of the pair, and leaves the other out (None)."""
    pair = {"attacker": attacker, "defender": defender}
    return {
        "ruleset": "kt2024",
        "mode": "shoot",
        **{role: {**profile, **getattr(situation, role)}
           for role, profile in pair.items() if profile is not None},
        "options": {**options, **situation.options},
    }  # fmt: skip


def envelopes(grid: GridRequest) -> list[tuple[Index, dict[str, Any]]]:
    """Every cell's (attacker, defender, situation) index and its shoot envelope."""
    return [
        ((a, d, s), envelope(grid.attackers[a], grid.defenders[d], grid.options,
                             grid.situations[s]))
        for a, d, s in indices(grid)
    ]  # fmt: skip


def _where(error: InputError, index: Index, grid: GridRequest) -> InputError:
    """Re-point a cell's error at the request member it came from (`attackers.2.hit`)."""
    a, d, s = index
    part, _, rest = error.field.partition(".")
    first = rest.partition(".")[0]
    situation = grid.situations[s]
    if part == "attacker":
        field = f"situations.{s}.attacker" if first in situation.attacker else f"attackers.{a}"
    elif part == "defender":
        field = f"situations.{s}.defender" if first in situation.defender else f"defenders.{d}"
    elif part == "options":
        field = f"situations.{s}.options" if first in situation.options else "options"
    else:
        return error
    return InputError(error.code, f"{field}.{rest}" if rest else field, error.message, error.limit)


def prepare_cells(grid: GridRequest) -> list[Job]:
    """Validate and key every cell. Any bad cell fails the grid, naming every bad member of
    the request: errors are re-pointed at the profile or situation they came from, so a bad
    attacker profile met in every cell is reported once.

    A cell is its attacker, its defender and its options, each validated on its own (the
    shoot request's `compose` says so), so each attacker and each defender is validated
    once per situation, not once per cell: a part is prepared as an envelope of that part
    and the options (`prepare_raw`, memoised on its bytes), and the cells are assembled from
    the parts, keyed from the parts' fields (`fields_key`) and memoised on the parts' bytes.
    Should any part be refused, the grid is validated cell by cell, which names every bad
    member exactly as a cell's own request would."""
    with collector.paused():  # thousands of acyclic jobs: nothing for the collector to find
        parts = _parts(grid)
        if parts is None:
            return _cell_by_cell(grid)
        attackers, defenders = parts
        return [_assemble(attackers[s][a], defenders[s][d]) for a, d, s in indices(grid)]


@dataclass(frozen=True)
class _Part:
    """An attacker (or defender) under one situation's overrides and options, prepared."""

    raw: bytes  # the part's envelope: with the options, what decides the part
    job: Job
    fields: dict[str, Any]  # the scenario member's fields, as the canonical rules take them


def _parts(grid: GridRequest) -> tuple[list[list[_Part]], list[list[_Part]]] | None:
    """Every situation's attackers and defenders prepared, or None if any is refused."""
    attackers, defenders = [], []
    try:
        for s in grid.situations:
            attackers.append([_part("attacker", envelope(profile, None, grid.options, s))
                              for profile in grid.attackers])  # fmt: skip
            defenders.append([_part("defender", envelope(None, profile, grid.options, s))
                              for profile in grid.defenders])  # fmt: skip
    except InputError:
        return None
    return attackers, defenders


def _part(role: str, part: dict[str, Any]) -> _Part:
    raw = encode(part)
    job = prepare_raw(raw)
    return _Part(raw, job, member_fields(getattr(job.scenario, role)))


CELLS_BYTES = 16 * 2**20
_CELLS = SizedLRU(CELLS_BYTES, LARGEST_JOB)  # thread-safe: grids are prepared in pool threads


def _assemble(attacker: _Part, defender: _Part) -> Job:
    """One cell's job from its parts, as one request's: its scenario composed by the shoot
    request (`shoot.compose`), its rules ignored listed as one request lists them
    (`references.ignored_by_roles`), keyed from the parts' fields; memoised on the parts'
    bytes (a digest of them: the memo never holds the bodies, `CELLS_BYTES` at most)."""
    memo = digest(attacker.raw, defender.raw)
    found: Job | None = _CELLS.get(memo)
    if found is not None:
        return found
    a, d = attacker.job, defender.job
    scenario = shoot.compose(a.scenario, d.scenario)
    key = fields_key(attacker.fields, defender.fields, scenario.options)
    ignored = None  # REFUSE: the parts share the options, so both are None or neither
    if a.ignored is not None and d.ignored is not None:
        ignored = references.ignored_by_roles({"attacker": a.ignored, "defender": d.ignored})
    job = Job(a.mode, scenario, key, ignored)
    _CELLS.keep(memo, job, job_size(job))
    return job


def _cell_by_cell(grid: GridRequest) -> list[Job]:
    """Every cell prepared as its own request, its errors re-pointed (`_where`)."""
    jobs, errors = [], []
    for index, envelope in envelopes(grid):
        try:
            jobs.append(prepare_raw(encode(envelope)))
        except InputError as exc:
            errors.extend(_where(e, index, grid) for e in every(exc))
    if errors:
        raise gathered(errors)
    return jobs


def rows(
    grid: GridRequest, answers: Sequence[Result | InputError], thresholds: tuple[int, ...]
) -> list[dict[str, Any]]:
    """The answer's cells, in order, from the cells' answers (a cell the engine refused
    fails the grid with its error)."""
    out = []
    with collector.paused():
        for index, answer in zip(indices(grid), answers, strict=True):
            if isinstance(answer, InputError):
                raise answer
            row = cell(index, answer.key, answer.output, thresholds)
            out.append(references.with_ignored(row, answer.ignored))
    return out


def cell(
    index: Index, key: str, output: dict[str, Any], thresholds: tuple[int, ...]
) -> dict[str, Any]:
    """One cell: its (attacker, defender, situation) indices and its summary."""
    a, d, s = index
    return {"attacker": a, "defender": d, "situation": s, **summary(key, output, thresholds)}


SUMMARIES_BYTES = 8 * 2**20
_SUMMARIES = SizedLRU(SUMMARIES_BYTES)  # thread-safe: cells are built in pool threads


def summary(key: str, output: dict[str, Any], thresholds: tuple[int, ...]) -> dict[str, Any]:
    """Expected damage, kill probability and P(damage ≥ k) of one answer, memoised on its
    canonical key and the thresholds: a warm grid is then assembled, not recomputed."""
    memo = f"{key} {thresholds}"
    found: dict[str, Any] | None = _SUMMARIES.get(memo)
    if found is None:
        found = _summarise(output, thresholds)
        _SUMMARIES.keep(memo, found, footprint(found))
    return found


def _summarise(output: dict[str, Any], thresholds: tuple[int, ...]) -> dict[str, Any]:
    """A cell's summary, built by its answer model (`GridSummary.build`, which does not
    validate: tests/test_answer_models.py holds the summaries to the model); exact members
    appear when the cell's options asked for exact output."""
    exact = "expectedDamageExact" in output
    members: dict[str, Any] = {
        "expected_damage": output["expectedDamage"],
        "kill_probability": output["killProbability"],
    }
    if exact:
        members["expected_damage_exact"] = output["expectedDamageExact"]
        members["kill_probability_exact"] = output["killProbabilityExact"]
    distribution = output["damageDistribution"]
    values = [e["value"] for e in distribution]  # ascending: bisect finds the first ≥ k
    if exact:
        # P(damage ≥ k) as the exact sum of the tail, rounded once; past the end, 0
        exact_tails = [*accumulate(reversed([Fraction(e["exact"]) for e in distribution]))]
        exact_tails.reverse()
        exact_tails.append(Fraction(0))
        at_least = []
        for k in thresholds:
            p = exact_tails[bisect_left(values, k)]
            at_least.append({"k": k, "probability": float(p), "exact": ratio(p)})
    else:
        # the float tail summed from the top, at most 1 (the sum may round past it); past
        # the end, 0
        tails = [*accumulate(reversed([e["probability"] for e in distribution]))]
        tails.reverse()
        tails.append(0.0)
        at_least = [
            {"k": k, "probability": p if (p := tails[bisect_left(values, k)]) < 1.0 else 1.0}
            for k in thresholds
        ]
    return GridSummary.build(**members, damage_at_least=at_least)


def to_csv(rows: list[dict[str, Any]], thresholds: list[int]) -> str:
    """One line per cell; `damageAtLeastK` columns follow the scalar columns."""
    exact = any("expectedDamageExact" in row for row in rows)
    scalars = ["expectedDamage", "killProbability"]
    if exact:
        scalars += ["expectedDamageExact", "killProbabilityExact"]
    header = ["attacker", "defender", "situation", *scalars]
    header += [f"damageAtLeast{k}" for k in thresholds]
    if exact:
        header += [f"damageAtLeast{k}Exact" for k in thresholds]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        line = [row["attacker"], row["defender"], row["situation"]]
        line += [row.get(name, "") for name in scalars]
        line += [e["probability"] for e in row["damageAtLeast"]]
        if exact:
            line += [e.get("exact", "") for e in row["damageAtLeast"]]
        writer.writerow(line)
    return buffer.getvalue()
