"""Team-vs-team matchups: what my kill team does to yours, cell by cell, and which weapon.

A team matchup names two sides of catalog operatives (a kill team, or a list of operative ids)
and answers, for every attacking operative × each of its ranged profiles × every defending
operative × situation, the expected damage and kill probability of that shot, and for every
(attacking operative, defending operative, situation) the best profile. The ranged cells are a
`service.grid` grid whose attackers are the profiles named by id and whose defenders are the
operatives named by id: the grid's envelopes, its situation overrides, its summaries and its
cache bulk pass, so every cell has the canonical key, the cache entry and the numbers of the
single `/v1/shoot` of the same referenced matchup.

Melee, when the request has a `melee` member, is a fight (`/v1/fight`) for every attacking
operative × each of its melee profiles × every defending operative × each of the defender's
melee profiles, both fighters on heuristic strategies (OPTIMAL is a search, priced per fight
in seconds, not a team-sized question). Situations are shooting overrides (cover, obscured,
ploys) and do not apply to fights; the fights' options are the request's shared options
(`exact`, `unknownRules`) and `melee.options` (`firstToAct`, `rounds`).

Choices where the question is silent, each a test:

* **Best profile**: the highest kill probability, then the highest expected damage, compared
  exactly when the request asked for exact output; a tie left after both goes to the profile
  listed first on the operative's datacard (catalog order), so the answer never depends on
  dictionary or hash order.
* **Best melee profile**: the defender fights back with the profile that is worst for the
  attacker by the same order (kill probability, then expected damage; first listed on a tie),
  and the attacker's best profile is the one whose worst case is best (maximin): a player
  picks the weapon before knowing which one the enemy answers with.
* A side listing an operative twice (a roster with two Troopers) is computed for it once, in
  the order of first appearance; operatives without ranged (or melee) profiles simply have no
  such cells. All cells, ranged and melee, count against the grid's cell limit.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any, Generic, TypeVar

import orjson
from pydantic import ValidationError

from engine.errors import InputError
from schema.answers.team_matchup import FightNumbers, ShotNumbers
from schema.catalog import Catalog, Operative, catalog
from schema.catalog.model import WeaponProfile
from schema.errors import from_validation_error
from schema.grid import GridRequest, Situation
from schema.limits import team_matchup_too_large
from schema.references import IGNORE, IGNORED, UNKNOWN_RULES, with_ignored
from schema.team_matchup import SHARED_OPTIONS, Side, TeamMatchupRequest
from service import grid as grids
from service import validators
from service.cache import SizedLRU, Tier, footprint
from service.compute import Computer, Job, Result, encode, key_member, prepare_raw

# ------------------------------------------------------------------ the request's operatives


def _operatives(cat: Catalog, side: Side, field: str) -> list[Operative]:
    if side.killTeamId is not None:
        for team in cat.kill_teams:
            if team.id == side.killTeamId:
                return list(team.operatives)
        raise InputError(
            "INVALID_INPUT", f"{field}.killTeamId", f"unknown kill team {side.killTeamId!r}"
        )
    found: dict[str, Operative] = {}
    for i, op_id in enumerate(side.operativeIds or ()):
        op = cat.operatives.get(op_id)
        if op is None:
            raise InputError(
                "INVALID_INPUT", f"{field}.operativeIds.{i}", f"unknown operative {op_id!r}"
            )
        found.setdefault(op_id, op)
    return list(found.values())


def _of_type(op: Operative, kind: str) -> list[WeaponProfile]:
    return [p for p in op.profiles() if p.type == kind]


@dataclass(frozen=True)
class Fight:
    """One melee cell: an attacking melee profile against a defender and the profile it
    strikes back with (None for a defender with no melee weapon: fought, it cannot)."""

    mine: WeaponProfile
    defender: Operative
    theirs: WeaponProfile | None


class Plan:
    """The request's operatives and every cell it asks for, before any is validated."""

    def __init__(self, request: TeamMatchupRequest, cat: Catalog) -> None:
        self.request = request
        self.catalog = cat
        self.attackers = _operatives(cat, request.attackers, "attackers")
        self.defenders = _operatives(cat, request.defenders, "defenders")
        self.shots = [p for op in self.attackers for p in _of_type(op, "ranged")]
        self.fights: list[Fight] = []
        if request.melee is not None:
            for op, defender in product(self.attackers, self.defenders):
                answers = _of_type(defender, "melee") or [None]  # None: it cannot strike back
                for mine, theirs in product(_of_type(op, "melee"), answers):
                    self.fights.append(Fight(mine, defender, theirs))

    @property
    def options(self) -> dict[str, Any]:
        """The request's options, IGNORE for rules the engine does not model unless the
        request says otherwise: a team matchup answers every cell it can (a kill team's own
        rules are common), each listing what it left out in `ignoredRules`; only an explicit
        `unknownRules: REFUSE` refuses."""
        return {UNKNOWN_RULES: IGNORE, **self.request.options}

    def grid(self) -> GridRequest:
        """The ranged cells as a grid of catalog references."""
        return GridRequest(
            attackers=[
                {"operativeId": p.operative_id, "weaponProfileId": p.id} for p in self.shots
            ],
            defenders=[{"operativeId": op.id} for op in self.defenders],
            situations=self.request.situations,
            options=self.options,
        )

    def cells(self) -> int:
        return len(self.shots) * len(self.defenders) * len(self.request.situations) + len(
            self.fights
        )

    def situation_names(self) -> list[str]:
        """Each situation's name for the answer: the one given, else `default` for one that
        overrides nothing (the request's implicit open shot), else its 1-based place, so a
        client never has to label a null."""
        return [
            situation.name or ("default" if situation == Situation() else f"situation {place}")
            for place, situation in enumerate(self.request.situations, 1)
        ]

    def operatives(self) -> list[dict[str, Any]]:
        """Both sides' operatives, once each (attackers first), as the catalog names them."""
        seen = {op.id: op for op in [*self.attackers, *self.defenders]}
        return [
            {"id": op.id, "name": op.name, "killTeamId": op.kill_team_id, "wounds": op.wounds}
            for op in seen.values()
        ]

    def weapon_profiles(self) -> list[dict[str, Any]]:
        """Every profile a cell names, once, in the cells' order (ranged, then melee)."""
        used = [*self.shots, *(p for f in self.fights for p in (f.mine, f.theirs) if p)]
        return [
            {
                "id": p.id,
                "operativeId": p.operative_id,
                "weapon": p.weapon,
                "profile": p.profile,
                "type": p.type,
            }
            for p in {p.id: p for p in used}.values()
        ]


def parse(body: Any, max_cells: int) -> Plan:
    """Validate the request's shape, resolve its operatives and check its size."""
    try:
        request = TeamMatchupRequest.model_validate(body)
    except ValidationError as exc:
        raise from_validation_error(exc) from None
    plan = Plan(request, catalog())
    if plan.cells() > max_cells:
        raise team_matchup_too_large(plan.cells(), max_cells)
    return plan


# ------------------------------------------------------------------ validating the cells


def _blame(error: InputError, field: str, what: str) -> InputError:
    """A cell's error about a catalog profile, pointed at the side it came from."""
    return InputError(error.code, field, f"{what}: {error.message}", error.limit)


def _shot_jobs(plan: Plan) -> list[Job]:
    grid = plan.grid()
    try:
        return grids.prepare_cells(grid)
    except InputError as exc:
        head, _, rest = exc.field.partition(".")
        index, _, _ = rest.partition(".")
        if head == "attackers" and index.isdigit():
            raise _blame(exc, "attackers", plan.shots[int(index)].id) from None
        if head == "defenders" and index.isdigit():
            raise _blame(exc, "defenders", plan.defenders[int(index)].id) from None
        raise


def fight_envelope(plan: Plan, fight: Fight) -> dict[str, Any]:
    """The `/v1/fight` envelope of one melee cell: the attacker is fighter A; a defender
    with no melee weapon is named by its operative alone and cannot strike back
    (`schema.references`)."""
    melee = plan.request.melee
    assert melee is not None
    shared = {k: v for k, v in plan.options.items() if k in SHARED_OPTIONS}
    weapon = {} if fight.theirs is None else {"weaponProfileId": fight.theirs.id}
    return {
        "ruleset": "kt2024",
        "mode": "fight",
        "fighterA": {
            "operativeId": fight.mine.operative_id,
            "weaponProfileId": fight.mine.id,
            "strategy": melee.strategy,
        },
        "fighterB": {
            "operativeId": fight.defender.id,
            **weapon,
            "strategy": melee.defenderStrategy,
        },
        "options": {**shared, **melee.options},
    }


def _fight_jobs(plan: Plan) -> list[Job]:
    melee = plan.request.melee
    jobs = []
    for fight in plan.fights:
        try:
            jobs.append(prepare_raw(encode(fight_envelope(plan, fight))))
        except InputError as exc:
            head, _, rest = exc.field.partition(".")
            if head == "fighterA":
                raise _blame(exc, "attackers", fight.mine.id) from None
            if head == "fighterB":
                theirs = fight.theirs.id if fight.theirs else fight.defender.id
                raise _blame(exc, "defenders", theirs) from None
            first = rest.partition(".")[0]
            where = "melee.options" if melee and first in melee.options else "options"
            raise InputError(exc.code, f"{where}.{rest}", exc.message, exc.limit) from None
    return jobs


def prepare_cells(plan: Plan) -> list[Job]:
    """Every cell's job, ranged then melee: the first bad cell fails the request, located."""
    return _shot_jobs(plan) + _fight_jobs(plan)


# ------------------------------------------------------------------ the answer


def _exact(row: dict[str, Any], name: str) -> Fraction | float:
    """A value for comparisons: the exact rational when the cell has one."""
    exact = row.get(name + "Exact")
    return Fraction(exact) if exact is not None else row[name]


def _order(row: dict[str, Any]) -> tuple[Fraction | float, Fraction | float]:
    """Better for the attacker = larger: kill probability, then expected damage."""
    return _exact(row, "killProbability"), _exact(row, "expectedDamage")


def _worse(row: dict[str, Any]) -> tuple[Fraction | float, Fraction | float]:
    """Worse for the attacker = larger (the defender's choice of melee profile)."""
    kill, damage = _order(row)
    return -kill, -damage


VALUES = ("expectedDamage", "killProbability", "expectedDamageTaken")
VALUES += ("attackerIncapacitatedProbability", IGNORED)


def _values(row: dict[str, Any]) -> dict[str, Any]:
    """A cell's numbers, exact siblings included, and the rules it was computed without
    (max() below keeps the first of equals, which is the datacard-order tie rule)."""
    return {k: v for k, v in row.items() if k.removesuffix("Exact") in VALUES}


def _shot_numbers(output: dict[str, Any]) -> dict[str, Any]:
    members = {
        "expected_damage": output["expectedDamage"],
        "kill_probability": output["killProbability"],
    }
    if "expectedDamageExact" in output:
        members["expected_damage_exact"] = output["expectedDamageExact"]
        members["kill_probability_exact"] = output["killProbabilityExact"]
    return ShotNumbers(**members).as_json()


def _fight_numbers(output: dict[str, Any]) -> dict[str, Any]:
    """The attacker is fighter A: what it deals and its chance to take B out, and back."""
    a, b = output["fighterA"], output["fighterB"]
    members = {
        "expected_damage": a["expectedDamageDealt"],
        "kill_probability": b["incapacitatedProbability"],
        "expected_damage_taken": b["expectedDamageDealt"],
        "attacker_incapacitated_probability": a["incapacitatedProbability"],
    }
    if "expectedDamageDealtExact" in a:
        members["expected_damage_exact"] = a["expectedDamageDealtExact"]
        members["kill_probability_exact"] = b["incapacitatedProbabilityExact"]
        members["expected_damage_taken_exact"] = b["expectedDamageDealtExact"]
        members["attacker_incapacitated_probability_exact"] = a["incapacitatedProbabilityExact"]
    return FightNumbers(**members).as_json()


NUMBERS_BYTES = 8 * 2**20
_NUMBERS = SizedLRU(NUMBERS_BYTES)  # thread-safe: answers are assembled in pool threads


def numbers(answer: Result) -> dict[str, Any]:
    """A cell's numbers rendered through its answer model (`ShotNumbers`, `FightNumbers`),
    memoised on its canonical key (which names the mode), as the grid memoises its cells'
    summaries: a warm matchup is assembled, not rendered again. Read only."""
    found: dict[str, Any] | None = _NUMBERS.get(answer.key)
    if found is None:
        fight = "fighterA" in answer.output
        found = (_fight_numbers if fight else _shot_numbers)(answer.output)
        _NUMBERS.keep(answer.key, found, footprint(found))
    return found


def shot_rows(plan: Plan, answers: list[Result], minimal: bool = False) -> list[dict[str, Any]]:
    """The ranged cells in profile, defender, situation order (the grid's)."""
    rows = []
    for (a, d, s), answer in zip(grids.indices(plan.grid()), answers, strict=True):
        profile = plan.shots[a]
        row = {
            "attacker": profile.operative_id,
            "weaponProfile": profile.id,
            "defender": plan.defenders[d].id,
            "situation": s,
            **numbers(answer),
            **key_member(answer, minimal),
        }
        rows.append(with_ignored(row, answer.ignored))
    return rows


def best_shots(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For every (attacker, defender, situation), its best profile (module docstring)."""
    groups: dict[tuple[str, str, int], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["attacker"], row["defender"], row["situation"]), []).append(row)
    out = []
    for (attacker, defender, situation), cells in groups.items():
        best = max(cells, key=_order)
        out.append(
            {
                "attacker": attacker,
                "defender": defender,
                "situation": situation,
                "weaponProfile": best["weaponProfile"],
                **_values(best),
            }
        )
    return out


def fight_rows(plan: Plan, answers: list[Result], minimal: bool = False) -> list[dict[str, Any]]:
    """The melee cells: the attacker's damage and kill chance, and what it risks."""
    rows = []
    for fight, answer in zip(plan.fights, answers, strict=True):
        theirs = {} if fight.theirs is None else {"defenderWeaponProfile": fight.theirs.id}
        row = {
            "attacker": fight.mine.operative_id,
            "weaponProfile": fight.mine.id,
            "defender": fight.defender.id,
            **theirs,
            **numbers(answer),
            **key_member(answer, minimal),
        }
        rows.append(with_ignored(row, answer.ignored))
    return rows


def best_fights(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For every (attacker, defender), the maximin melee profile (module docstring)."""
    groups: dict[tuple[str, str], dict[str, list[dict[str, Any]]]] = {}
    for row in rows:
        pair = groups.setdefault((row["attacker"], row["defender"]), {})
        pair.setdefault(row["weaponProfile"], []).append(row)
    out = []
    for (attacker, defender), by_profile in groups.items():
        worst = [max(answers, key=_worse) for answers in by_profile.values()]
        best = max(worst, key=_order)
        out.append(
            {
                "attacker": attacker,
                "defender": defender,
                "weaponProfile": best["weaponProfile"],
                **{k: best[k] for k in ("defenderWeaponProfile",) if k in best},
                **_values(best),
            }
        )
    return out


def answer(plan: Plan, answers: list[Result], *, minimal: bool = False) -> dict[str, Any]:
    """The team matchup's JSON answer (`TeamMatchupAnswer`) from its cells' results, ranged
    first, then melee; `minimal`, without the cells' `canonicalKey`. Whether the cache
    answered a cell is not in it (`Cache-Status` says so, GraphQL's `cachedCells`): one
    input's body is the same bytes on every call."""
    split = len(answers) - len(plan.fights)
    shots, fights = answers[:split], answers[split:]
    rows = shot_rows(plan, shots, minimal)
    out: dict[str, Any] = {
        "catalogVersion": plan.catalog.version,
        "attackers": [op.id for op in plan.attackers],
        "defenders": [op.id for op in plan.defenders],
        "operatives": plan.operatives(),
        "weaponProfiles": plan.weapon_profiles(),
        "situations": plan.situation_names(),
        "cells": rows,
        "best": best_shots(rows),
    }
    if plan.request.melee is not None:
        melee = fight_rows(plan, fights, minimal)
        out["melee"] = {"cells": melee, "best": best_fights(melee)}
    return out


def identity(plan: Plan, jobs: Sequence[Job]) -> tuple[list[str], str]:
    """What a team matchup's answer is a function of, for its ETag: every cell's canonical
    key with the rules it is computed without (ranged then melee), and the rest of the body
    (the catalog version, the sides' operative ids, the situations' names, melee or not)."""
    cells = [validators.cell(job.key, job.ignored) for job in jobs]
    names = plan.situation_names()
    rest = [plan.catalog.version, [op.id for op in plan.attackers],
            [op.id for op in plan.defenders], names, plan.request.melee is not None]  # fmt: skip
    return cells, orjson.dumps(rest).decode()


# ------------------------------------------------------------------ CSV

COLUMNS = ["kind", "attacker", "weaponProfile", "defender", "defenderWeaponProfile"]
COLUMNS += ["situation", "best", "expectedDamage", "killProbability"]
MELEE_COLUMNS = ["expectedDamageTaken", "attackerIncapacitatedProbability"]


def to_csv(answer: dict[str, Any]) -> str:
    """One line per cell, ranged then melee; `best` (`true` / `false`, as JSON spells them)
    marks the best profile's cells; the `...Exact` columns follow when the request asked
    for exact output."""
    melee = answer.get("melee")
    values = ["expectedDamage", "killProbability"] + (MELEE_COLUMNS if melee else [])
    rows: list[tuple[str, dict[str, Any]]] = [("ranged", row) for row in answer["cells"]]
    rows += [("melee", row) for row in (melee["cells"] if melee else [])]
    exact = any("expectedDamageExact" in row for _, row in rows)
    header = COLUMNS + (MELEE_COLUMNS if melee else [])
    header += [f"{name}Exact" for name in values] if exact else []
    best = {_best_key(row) for row in answer["best"]}
    best |= {_best_key(row) for row in (melee["best"] if melee else [])}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    for kind, row in rows:
        line = [kind, row["attacker"], row["weaponProfile"], row["defender"]]
        line += [row.get("defenderWeaponProfile", ""), row.get("situation", "")]
        line += ["true" if _best_key(row) in best else "false"]
        line += [row["expectedDamage"], row["killProbability"]]
        line += [row[name] for name in MELEE_COLUMNS if melee and name in row]
        line += [""] * (len(MELEE_COLUMNS) if melee and kind == "ranged" else 0)
        line += [row.get(f"{name}Exact", "") for name in values] if exact else []
        writer.writerow(line)
    return buffer.getvalue()


def _best_key(row: dict[str, Any]) -> tuple[Any, ...]:
    return (row["attacker"], row["defender"], row.get("situation"), row["weaponProfile"],
            row.get("defenderWeaponProfile"))  # fmt: skip


# ------------------------------------------------------------------ the run

T = TypeVar("T")
Early = TypeVar("Early")  # what `admit` answers instead of the matchup (REST: a 304)


@dataclass
class Answered(Generic[T]):
    """A team matchup's rendered answer, and how its cells were found: each cell's cache
    tier (REST's `Cache-Status`) and how many the cache answered (GraphQL's `cachedCells`)."""

    body: T
    tiers: list[Tier | None]

    @property
    def cached_cells(self) -> int:
        return sum(1 for tier in self.tiers if tier is not None)


async def run(
    service: Computer,
    plan: Plan,
    admit: Callable[[Sequence[Job]], Awaitable[Early | None]],
    render: Callable[[list[Result]], T],
) -> Answered[T] | Early:
    """Every cell of a team matchup through the cache, then `render` of their results (in
    the pool).

    `admit` sees the cells' jobs before any lookup (it charges them) and may answer instead
    (a 304)."""

    async def work() -> Answered[T] | Early:
        jobs = await service.in_pool(prepare_cells, plan)
        early = await admit(jobs)
        if early is not None:
            return early
        answers = await service.results(jobs)
        results: list[Result] = []
        for found in answers:
            if isinstance(found, InputError):  # a cross-field rule only the engine checks
                raise found
            results.append(found)
        body = await service.in_pool(render, results)
        return Answered(body, [r.tier for r in results])

    return await service.within_budget(work())
