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
import threading
from bisect import bisect_left
from collections.abc import Sequence
from fractions import Fraction
from itertools import accumulate, product
from typing import Annotated, Any, Literal

from pydantic import Field, StrictInt, ValidationError

from engine.errors import InputError
from schema.answers.grid import GridSummary
from schema.errors import every, from_validation_error, gathered
from schema.fields import StrictModel
from schema.limits import grid_too_large
from schema.report import ratio
from service.cache import LRU
from service.compute import Job, encode, prepare_raw

MAX_THRESHOLD = 1000  # no kt2024 shoot can deal more (20 dice x 20 damage + devastating)
Profile = dict[str, Any]


class Situation(StrictModel):
    """Overrides laid over every attacker/defender pair (later members win)."""

    name: str | None = None
    attacker: Profile = Field(default_factory=dict)
    defender: Profile = Field(default_factory=dict)
    options: Profile = Field(default_factory=dict)


class GridRequest(StrictModel):
    """`POST /v1/grid` and GraphQL `matchupGrid`: kt2024 shoot over profile lists."""

    ruleset: Literal["kt2024"] = "kt2024"
    mode: Literal["shoot"] = "shoot"
    attackers: list[Profile] = Field(min_length=1)
    defenders: list[Profile] = Field(min_length=1)
    situations: list[Situation] = Field(default_factory=lambda: [Situation()], min_length=1)
    options: Profile = Field(default_factory=dict)
    atLeast: list[Annotated[StrictInt, Field(ge=1, le=MAX_THRESHOLD)]] | None = Field(
        None, max_length=100, description="the k of P(damage ≥ k); default 1 … max wounds"
    )

    def cells(self) -> int:
        return len(self.attackers) * len(self.defenders) * len(self.situations)

    def thresholds(self, cells: Sequence[Job]) -> list[int]:
        """The k of P(damage ≥ k): those asked for, else 1 … the cells' largest wounds."""
        if self.atLeast is not None:
            return sorted(set(self.atLeast))
        top = max(job.scenario.defender.wounds for job in cells)
        return list(range(1, min(top, MAX_THRESHOLD) + 1))


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
    attacker: Profile, defender: Profile, options: Profile, situation: Situation
) -> dict[str, Any]:
    """One cell's kt2024 shoot envelope: the situation laid over the pair and the options."""
    return {
        "ruleset": "kt2024",
        "mode": "shoot",
        "attacker": {**attacker, **situation.attacker},
        "defender": {**defender, **situation.defender},
        "options": {**options, **situation.options},
    }


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
    attacker profile met in every cell is reported once."""
    jobs, errors = [], []
    for index, envelope in envelopes(grid):
        try:
            jobs.append(prepare_raw(encode(envelope)))
        except InputError as exc:
            errors.extend(_where(e, index, grid) for e in every(exc))
    if errors:
        raise gathered(errors)
    return jobs


def cell(
    index: Index, key: str, output: dict[str, Any], thresholds: tuple[int, ...]
) -> dict[str, Any]:
    """One cell: its (attacker, defender, situation) indices and its summary."""
    a, d, s = index
    return {"attacker": a, "defender": d, "situation": s, **summary(key, output, thresholds)}


_SUMMARIES = LRU(16_384)
_SUMMARIES_LOCK = threading.Lock()  # cells are built in pool threads


def summary(key: str, output: dict[str, Any], thresholds: tuple[int, ...]) -> dict[str, Any]:
    """Expected damage, kill probability and P(damage ≥ k) of one answer, memoised on its
    canonical key and the thresholds: a warm grid is then assembled, not recomputed."""
    with _SUMMARIES_LOCK:
        found = _SUMMARIES.get((key, thresholds))
    if found is None:
        found = _summarise(output, thresholds)
        with _SUMMARIES_LOCK:
            _SUMMARIES.put((key, thresholds), found)
    return found


def _summarise(output: dict[str, Any], thresholds: tuple[int, ...]) -> dict[str, Any]:
    """A cell's summary, through its answer model (`GridSummary`); exact members appear when
    the cell's options asked for exact output."""
    exact = "expectedDamageExact" in output
    members: dict[str, Any] = {
        "expected_damage": output["expectedDamage"],
        "kill_probability": output["killProbability"],
    }
    if exact:
        members["expected_damage_exact"] = output["expectedDamageExact"]
        members["kill_probability_exact"] = output["killProbabilityExact"]
    distribution = output["damageDistribution"]
    values = [e["value"] for e in distribution]
    tails = list(accumulate(reversed([e["probability"] for e in distribution])))[::-1]
    exact_tails = None
    if exact:
        exact_tails = list(accumulate(reversed([Fraction(e["exact"]) for e in distribution])))
        exact_tails.reverse()
    at_least = []
    for k in thresholds:
        i = bisect_left(values, k)
        entry: dict[str, Any] = {"k": k}
        if exact_tails is not None:
            p = exact_tails[i] if i < len(values) else Fraction(0)
            entry["probability"] = float(p)
            entry["exact"] = ratio(p)
        else:
            entry["probability"] = min(1.0, tails[i]) if i < len(values) else 0.0
        at_least.append(entry)
    return GridSummary(**members, damage_at_least=at_least).as_json()


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
