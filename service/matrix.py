"""The meta matrix: the team matchup of every ordered pair of distinct kill teams, in shards.

A pair is the team matchup `{"attackers": {"killTeamId": a}, "defenders": {"killTeamId": b},
...}` with the matrix's situations, options and melee: planned, validated and rendered by
`service.team_matchup` itself (`parse`, `prepare_cells`, `shot_rows`, `fight_rows`), so a
row is a cell of `POST /v1/team-matchup`'s answer, to the bit, with the same canonical key.

Sharding splits the pairs, whole, into N disjoint parts balanced by their estimated cost
(`service.costs`, the rate limiter's own estimate, over prepared cells), not by their count:
a pair of elite teams is a few dozen cells, one of hordes with many weapons thousands. Every
shard estimates every pair and the split is a function of the estimates and the pairs' order
alone, so N processes that never talk to each other agree on it. A pair is the unit because
its cells are rendered together (the answer's order); with many more pairs than shards (2,352
for 49 teams) the parts come out even.

Estimating must cost a shard far less than its own part, or N shards would each pay for the
whole matrix's preparation: preparing a fight (validating it, its canonical key) takes longer
than the heuristic fight itself, and preparing every shot of a 12-team matrix was a quarter
of a shard's CPU (`benchmarks/bench_matrix.py`). So a pair is priced from samples, each
scaled to the whole: its shots against `DEFENDER_SAMPLE` of its distinct defenders (every
profile, every situation) and `FIGHT_SAMPLE` of its distinct fights, evenly spaced (a horde
of alike operatives is a few keys, each computed once: counting its cells would overprice
it). Only the shard that owns a pair prepares all its cells. The price is `costs.of_cells`,
the rate limiter's per-cell price (`engine.cost`'s CPU estimate of each scenario) without a
request's fixed part.

Cells are answered as the service answers them (`service.compute`'s functions): looked up in
the cache (L1, then Redis when configured), the missing ones evaluated and stored under the
service's own keys (`service.cache.Cache`), so after a shard has run every replica answers
its team matchups warm.
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from engine.errors import InputError
from schema.catalog import Catalog
from schema.team_matchup import Side
from service import costs
from service import team_matchup as teams
from service.cache import Cache
from service.compute import CHUNK, Job, Result, encode, evaluate_chunk, prepare_raw

T = TypeVar("T")

FIGHT_SAMPLE = 4
"""Distinct fights of a pair prepared to price them all (module docstring)."""
DEFENDER_SAMPLE = 2
"""Distinct defenders of a pair whose shots are prepared to price all its shots."""


@dataclass(frozen=True)
class Pair:
    """One ordered pair of kill teams: its plan (cells not yet prepared), its cell count and
    its estimated cost."""

    attacker: str
    defender: str
    plan: teams.Plan
    cells: int
    cost: float  # estimated CPU milliseconds


def team_ids(cat: Catalog, wanted: Sequence[str] | None) -> list[str]:
    """The kill teams of the matrix: every one of the catalog, or those named (each once, in
    the order given); an unknown name is the caller's error."""
    known = [team.id for team in cat.kill_teams]
    if wanted is None:
        return known
    for i, name in enumerate(wanted):
        if name not in known:
            raise InputError("INVALID_INPUT", f"teams.{i}", f"unknown kill team {name!r}")
    return list(dict.fromkeys(wanted))


def body(attacker: str, defender: str, extra: dict[str, Any]) -> dict[str, Any]:
    """The team matchup request of one pair: `extra` holds the matrix's situations, options
    and melee, as the request spells them."""
    return {"attackers": {"killTeamId": attacker}, "defenders": {"killTeamId": defender}, **extra}


def _ms(jobs: Sequence[Job]) -> float:
    """The cost model's estimate of prepared cells, each distinct key once (the cache
    computes it once), in CPU milliseconds (`costs.of_cells`: no request's fixed part, no
    rounding to tokens, either of which would swamp a small sample)."""
    return costs.of_cells({job.key: job for job in jobs}.values())


_PARTS: dict[tuple[str, str], str] = {}


def _part(kind: str, item: Any) -> str:
    """One side's engine fields as text (`kind`: a profile's attacker fields, an operative's
    fighter or defender fields), memoised by id: the catalog is fixed for the process's life,
    and a 49-team matrix asks for each a few thousand times."""
    found = _PARTS.get((kind, item.id))
    if found is None:
        found = _PARTS[(kind, item.id)] = repr(sorted(getattr(item, kind)().items()))
    return found


def _identity(*parts: str | None) -> tuple[str | None, ...]:
    """What a cell's canonical key is a function of, as read off the catalog's engine fields
    (cheap: no validation, no canonical form): cells alike here are one key, computed once."""
    return parts


def _spread(items: Sequence[T], count: int) -> list[T]:
    """`count` of `items`, evenly spaced (all of them when there are fewer)."""
    step = max(1, len(items) // count)
    return list(items[::step][:count])


def _fights(plan: teams.Plan) -> tuple[list[Job], int]:
    """A sample of the plan's distinct fights, prepared, and how many distinct fights there
    are; one that fails is left out here (the shard owning the pair reports it, located,
    when it prepares them all)."""
    distinct: dict[tuple[str | None, ...], teams.Fight] = {}
    for fight in plan.fights:
        attacker = plan.catalog.operatives[fight.mine.operative_id]
        theirs = None if fight.theirs is None else _part("attacker_fields", fight.theirs)
        key = _identity(_part("attacker_fields", fight.mine), _part("fighter_fields", attacker),
                        _part("fighter_fields", fight.defender), theirs)  # fmt: skip
        distinct.setdefault(key, fight)
    jobs = []
    for fight in _spread(list(distinct.values()), FIGHT_SAMPLE):
        try:
            jobs.append(prepare_raw(encode(teams.fight_envelope(plan, fight))))
        except InputError:
            continue
    return jobs, len(distinct)


def estimate(plan: teams.Plan) -> float:
    """A pair's cost: its shots' as those against a sample of its distinct defenders, and its
    fights' as a sample of its distinct fights, each scaled to the whole (module docstring)."""
    cost = 0.0
    defenders = list({_part("defender_fields", op): op for op in plan.defenders}.values())
    sample = _spread(defenders, DEFENDER_SAMPLE)
    if plan.shots and sample:
        side = Side(operativeIds=[op.id for op in sample])
        request = plan.request.model_copy(update={"melee": None, "defenders": side})
        shots = teams.prepare_cells(teams.Plan(request, plan.catalog))
        cost += _ms(shots) * len(defenders) / len(sample)
    fights, distinct = _fights(plan)
    if fights:
        cost += _ms(fights) * distinct / len(fights)
    return cost


def plan_pairs(team_list: Sequence[str], extra: dict[str, Any]) -> list[Pair]:
    """Every ordered pair of distinct teams, planned and estimated: a bad situation or option
    (or a bad shot) fails the whole matrix before anything is computed, located as the team
    matchup locates it."""
    pairs = []
    for attacker in team_list:
        for defender in team_list:
            if attacker == defender:
                continue
            plan = teams.parse(body(attacker, defender, extra), sys.maxsize)
            pairs.append(Pair(attacker, defender, plan, plan.cells(), estimate(plan)))
    return pairs


def partition(pairs: Sequence[Pair], shards: int) -> list[list[Pair]]:
    """`shards` disjoint parts of the pairs balanced by cost: the costliest pair first, each
    to the part with the least cost so far (the lowest index on a tie; the LPT rule, within
    4/3 of the best split). Each part keeps the pairs' own order. Deterministic."""
    loads = [(0.0, index) for index in range(shards)]
    owner: dict[int, int] = {}
    for place in sorted(range(len(pairs)), key=lambda i: (-pairs[i].cost, i)):
        load, index = heapq.heappop(loads)
        owner[place] = index
        heapq.heappush(loads, (load + pairs[place].cost, index))
    parts: list[list[Pair]] = [[] for _ in range(shards)]
    for place, pair in enumerate(pairs):
        parts[owner[place]].append(pair)
    return parts


async def answer(cache: Cache, jobs: Sequence[Job]) -> tuple[list[Result], int]:
    """Every job's answer, in order, and how many the cache had: a lookup of the distinct
    keys (a Redis entry not of its mode's answer shape is a miss, as in `Computer.results`),
    then the missing evaluated a chunk at a time (`service.compute.CHUNK`, so each
    Redis write fits its time limit as the service's do) and stored. A cell only the engine
    refuses (a cross-field rule) raises its InputError, as it fails the team matchup."""
    keys = list(dict.fromkeys(job.key for job in jobs))
    by_key = {job.key: job for job in jobs}
    found = await cache.get_many(keys, lambda key, out: by_key[key].mode.fits(out))
    outputs = {key: output for key, (output, _) in found.items()}
    tiers = {key: tier for key, (_, tier) in found.items()}
    missing = [by_key[key] for key in keys if key not in found]
    for start in range(0, len(missing), CHUNK):
        chunk = missing[start : start + CHUNK]
        store = {}
        for job, output in zip(chunk, evaluate_chunk(chunk), strict=True):
            if isinstance(output, InputError):
                raise output
            store[job.key] = output
        await cache.put_many(store)
        outputs.update(store)
    results = [Result(job.key, outputs[job.key], tiers.get(job.key), job.ignored) for job in jobs]
    return results, len(found)


def _names(cat: Catalog, row: dict[str, Any], side: str, profile_field: str) -> dict[str, Any]:
    """The operative's and weapon's names beside their ids (a defender's weapon may be
    absent: it cannot strike back)."""
    out = {f"{side}Name": cat.operatives[row[side]].name}
    profile = cat.profiles.get(row.get(profile_field, ""))
    if profile is not None:
        prefix = "" if side == "attacker" else "defender"
        weapon, name = (f"{prefix}Weapon", f"{prefix}Profile") if prefix else ("weapon", "profile")
        out[weapon], out[name] = profile.weapon, profile.profile
    return out


def rows(pair: Pair, results: list[Result]) -> list[dict[str, Any]]:
    """The pair's cells as the team matchup renders them (ranged, then melee), each with
    `kind`, the teams, the names, and the situation's name beside its index."""
    plan = pair.plan
    split = len(results) - len(plan.fights)
    names = plan.situation_names()
    out = []
    cells = [("ranged", row) for row in teams.shot_rows(plan, results[:split])]
    cells += [("melee", row) for row in teams.fight_rows(plan, results[split:])]
    for kind, row in cells:
        situation = row.get("situation")
        extra = {} if situation is None else {"situationName": names[situation]}
        out.append(
            {
                "kind": kind,
                "attackerKillTeam": pair.attacker,
                "defenderKillTeam": pair.defender,
                **row,
                **_names(plan.catalog, row, "attacker", "weaponProfile"),
                **_names(plan.catalog, row, "defender", "defenderWeaponProfile"),
                **extra,
            }
        )
    return out
