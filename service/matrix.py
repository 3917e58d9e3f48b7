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
of a shard's CPU (`benchmarks/bench_matrix.py`). So a pair is priced from samples, each scaled to
the whole: its shots against `DEFENDER_SAMPLE` of its defenders (every profile, every
situation), and `FIGHT_SAMPLE` of its fights, evenly spaced; only the shard that owns a pair
prepares all its cells. Under a cost model by mode (a shot 1 token, a fight `costs.FIGHT`)
the samples are exact.

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
from typing import Any

from engine.errors import InputError
from schema.catalog import Catalog
from schema.team_matchup import Side
from service import costs
from service import team_matchup as teams
from service.cache import Cache
from service.compute import CHUNK, Job, Result, encode, evaluate_chunk, prepare_raw

FIGHT_SAMPLE = 4
"""Fights of a pair prepared to price them all (module docstring)."""
DEFENDER_SAMPLE = 2
"""Defenders of a pair whose shots are prepared to price all its shots."""


@dataclass(frozen=True)
class Pair:
    """One ordered pair of kill teams: its plan (cells not yet prepared), its cell count and
    its estimated cost."""

    attacker: str
    defender: str
    plan: teams.Plan
    cells: int
    cost: int


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


def _tokens(jobs: Sequence[Job]) -> int:
    """The cost model's estimate of prepared cells: a whole number of tokens (an int on
    main, an estimate with `tokens` under the CPU-time model of issue 34)."""
    estimate: Any = costs.of_jobs(jobs)
    return int(getattr(estimate, "tokens", estimate))


def _sample(plan: teams.Plan) -> list[Job]:
    """`FIGHT_SAMPLE` of the plan's fights, evenly spaced, prepared; one that fails is left
    out here (the shard owning the pair reports it, located, when it prepares them all)."""
    step = max(1, len(plan.fights) // FIGHT_SAMPLE)
    jobs = []
    for fight in plan.fights[::step][:FIGHT_SAMPLE]:
        try:
            jobs.append(prepare_raw(encode(teams.fight_envelope(plan, fight))))
        except InputError:
            continue
    return jobs


def estimate(plan: teams.Plan) -> int:
    """A pair's cost: its shots' as those against a sample of its defenders, and its fights'
    as a sample of them, each scaled to the whole (module docstring)."""
    cost = 0
    step = max(1, len(plan.defenders) // DEFENDER_SAMPLE)
    defenders = plan.defenders[::step][:DEFENDER_SAMPLE]
    if plan.shots and defenders:
        side = Side(operativeIds=[op.id for op in defenders])
        request = plan.request.model_copy(update={"melee": None, "defenders": side})
        shots = teams.prepare_cells(teams.Plan(request, plan.catalog))
        cost += round(_tokens(shots) * len(plan.defenders) / len(defenders))
    sample = _sample(plan)
    if sample:
        cost += round(_tokens(sample) * len(plan.fights) / len(sample))
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
    loads = [(0, index) for index in range(shards)]
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
    keys, then the missing evaluated a chunk at a time (`service.compute.CHUNK`, so each
    Redis write fits its time limit as the service's do) and stored. A cell only the engine
    refuses (a cross-field rule) raises its InputError, as it fails the team matchup."""
    keys = list(dict.fromkeys(job.key for job in jobs))
    by_key = {job.key: job for job in jobs}
    found = await cache.get_many(keys)
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
