"""Locust users modelling killmath's three kinds of client (issue 6).

* `MobileApp` — a player's phone: one shoot or fight at a time, over REST and GraphQL, mostly
  the popular matchups (so many requests repeat and hit the cache), some new ones.
* `ListBuilder` — a list-builder backend: bulk GraphQL `matchups`, `/v1/batch` and small grids
  over the profiles of a few kill teams, so almost every key repeats (heavy reuse).
* `Analyst` — one person running mass analyses: large grids of profiles never seen before, so
  every cell is a cold computation.

Scenario pools come from a fixed seed, so every run asks for the same popular matchups; the
analyst's profiles come from an unseeded generator, so they stay cold even against a Redis
that outlived earlier runs. Every response is checked for its shape, not only its status: an
answer without the numbers is a failure.

`--max-p95-ms` (run.sh passes it) fails the run when the aggregated 95th percentile is above
it; any failed request fails it through Locust's own exit code.
"""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Callable
from typing import Any

from locust import FastHttpUser, between, events, task

Profile = dict[str, Any]
Envelope = dict[str, Any]

POOL_SEED = 2024
REROLLS = ("NONE", "NONE", "NONE", "BALANCED", "CEASELESS", "RELENTLESS")
STRATEGIES = ("MAX_DAMAGE", "MAX_DAMAGE", "STRIKE", "PARRY", "MIN_DAMAGE_TO_SELF", "OPTIMAL")


# --- profiles a real kill team would field -----------------------------------------------


def attacker(rng: random.Random) -> Profile:
    """A ranged weapon profile: mostly 4–5 attacks, some heavy weapons, common weapon rules."""
    profile: Profile = {
        "attacks": rng.choice((3, 4, 4, 4, 5, 5, 6, 6, 8, 10)),
        "hit": rng.choice((2, 3, 3, 3, 4, 4, 5)),
        "normalDamage": rng.choice((2, 3, 3, 3, 4, 4, 5)),
    }
    profile["criticalDamage"] = profile["normalDamage"] + rng.choice((1, 1, 2, 2, 3))
    rules: list[Callable[[], Profile]] = [
        lambda: {"lethal": 5},
        lambda: {"piercing": rng.choice((1, 1, 2))},
        lambda: {"piercingCrits": 1},
        lambda: {"devastating": rng.choice((1, 2, 3))},
        lambda: {"accurate": 1},
        lambda: {"reroll": rng.choice(REROLLS)},
        lambda: {"punishing": True},
        lambda: {"rending": True},
        lambda: {"severe": True},
        lambda: {"saturate": True},
    ]
    for rule in rng.sample(rules, k=rng.choice((0, 1, 1, 2, 2, 3))):
        profile.update(rule())
    return profile


def defender(rng: random.Random) -> Profile:
    """A target operative: save 2+–5+, 7–18 wounds, sometimes cover or Feel No Pain."""
    profile: Profile = {
        "save": rng.choice((2, 3, 3, 3, 4, 4, 5)),
        "wounds": rng.choice((7, 8, 8, 9, 10, 12, 13, 14, 15, 18)),
    }
    if rng.random() < 0.3:
        profile["coverSaves"] = 1
    if rng.random() < 0.15:
        profile["feelNoPain"] = rng.choice((5, 6))
    if rng.random() < 0.1:
        profile["invulnerableSave"] = rng.choice((4, 5))
    return profile


def shoot(rng: random.Random) -> Envelope:
    return {
        "attacker": attacker(rng),
        "defender": defender(rng),
        "options": {"rounds": rng.choice((1, 1, 1, 1, 2, 3))},
    }


def fighter(rng: random.Random) -> Profile:
    """A melee profile: 3–5 attacks (OPTIMAL, the expensive strategy, now and then)."""
    normal = rng.choice((3, 4, 4, 5))
    profile: Profile = {
        "attacks": rng.choice((3, 4, 4, 5)),
        "hit": rng.choice((2, 3, 3, 4)),
        "normalDamage": normal,
        "criticalDamage": normal + rng.choice((1, 2)),
        "wounds": rng.choice((8, 9, 10, 12, 14)),
        "strategy": rng.choice(STRATEGIES),
    }
    extra = rng.choice(({}, {}, {"lethal": 5}, {"brutal": True}, {"shock": True}))
    return {**profile, **extra}


def fight(rng: random.Random) -> Envelope:
    return {"fighterA": fighter(rng), "fighterB": fighter(rng), "options": {}}


class Popular:
    """A fixed pool of scenarios drawn with Zipf-like weights: a few are asked very often."""

    def __init__(self, make: Callable[[random.Random], Envelope], size: int, seed: int) -> None:
        rng = random.Random(seed)
        self.items = [make(rng) for _ in range(size)]
        self.weights = [1.0 / (rank + 1) for rank in range(size)]

    def draw(self, rng: random.Random) -> Envelope:
        return rng.choices(self.items, self.weights)[0]


POPULAR_SHOOTS = Popular(shoot, 300, POOL_SEED)
POPULAR_FIGHTS = Popular(fight, 60, POOL_SEED + 1)
# A list builder's world: the weapons and operatives of a few kill teams.
_roster = random.Random(POOL_SEED + 2)
ROSTER_ATTACKERS = [attacker(_roster) for _ in range(24)]
ROSTER_DEFENDERS = [defender(_roster) for _ in range(16)]
SITUATIONS = [
    {"name": "open"},
    {"name": "cover", "defender": {"coverSaves": 1}},
    {"name": "obscured", "attacker": {"obscured": True}},
]


# --- response checks ---------------------------------------------------------------------


def _check(response: Any, ok: Callable[[Any], bool], what: str) -> None:
    """Mark the request failed unless it answered 200 with a body that `ok` accepts."""
    if response.status_code != 200:
        response.failure(f"HTTP {response.status_code}: {response.text[:200]}")
        return
    try:
        body = response.json()
    except ValueError:
        response.failure(f"{what}: body is not JSON")
        return
    if not ok(body):
        response.failure(f"{what}: unexpected body {str(body)[:200]}")


def _is_shoot(body: Any) -> bool:
    return isinstance(body, dict) and "expectedDamage" in body and "damageDistribution" in body


def _is_fight(body: Any) -> bool:
    return isinstance(body, dict) and "incapacitatedProbability" in body.get("fighterA", {})


def _is_grid(cells: int) -> Callable[[Any], bool]:
    return lambda body: isinstance(body, dict) and len(body.get("cells", ())) == cells


def _graphql_ok(field: str, ok: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda body: not body.get("errors") and ok((body.get("data") or {}).get(field))


SHOOT_QUERY = """
query Shoot($input: ShootInput!) {
  shoot(input: $input) { expectedDamage killProbability canonicalKey cached
    damageDistribution { value probability } }
}"""
MATCHUPS_QUERY = """
query Matchups($inputs: [MatchupInput!]!) {
  matchups(inputs: $inputs) { expectedDamage killProbability canonicalKey cached }
}"""


# --- the three clients -------------------------------------------------------------------


class MobileApp(FastHttpUser):
    """A player checking one matchup at a time; popular matchups repeat across players."""

    weight = 8
    wait_time = between(0.2, 1.0)

    def on_start(self) -> None:
        self.rng = random.Random()

    def _shoot(self) -> Envelope:
        return POPULAR_SHOOTS.draw(self.rng) if self.rng.random() < 0.8 else shoot(self.rng)

    @task(6)
    def rest_shoot(self) -> None:
        with self.client.post("/v1/shoot", json=self._shoot(), catch_response=True) as r:
            _check(r, _is_shoot, "shoot")

    @task(2)
    def rest_fight(self) -> None:
        envelope = POPULAR_FIGHTS.draw(self.rng) if self.rng.random() < 0.7 else fight(self.rng)
        with self.client.post("/v1/fight", json=envelope, catch_response=True) as r:
            _check(r, _is_fight, "fight")

    @task(2)
    def graphql_shoot(self) -> None:
        payload = {"query": SHOOT_QUERY, "variables": {"input": self._shoot()}}
        with self.client.post(
            "/graphql", json=payload, name="/graphql shoot", catch_response=True
        ) as r:
            _check(r, _graphql_ok("shoot", _is_shoot), "graphql shoot")


class ListBuilder(FastHttpUser):
    """A list-builder backend refreshing its matchup tables: bulk requests, keys that repeat."""

    weight = 3
    wait_time = between(0.5, 2.0)

    def on_start(self) -> None:
        self.rng = random.Random()

    def _matchup(self) -> Envelope:
        return {
            "attacker": self.rng.choice(ROSTER_ATTACKERS),
            "defender": self.rng.choice(ROSTER_DEFENDERS),
            "options": {},
        }

    @task(3)
    def graphql_matchups(self) -> None:
        inputs = [self._matchup() for _ in range(50)]
        payload = {"query": MATCHUPS_QUERY, "variables": {"inputs": inputs}}
        with self.client.post(
            "/graphql", json=payload, name="/graphql matchups", catch_response=True
        ) as r:
            _check(r, _graphql_ok("matchups", lambda rows: len(rows) == 50), "matchups")

    @task(2)
    def rest_batch(self) -> None:
        envelopes = [{"mode": "shoot", **self._matchup()} for _ in range(100)]
        with self.client.post("/v1/batch", json=envelopes, catch_response=True) as r:
            _check(r, lambda rows: len(rows) == 100 and all(map(_is_shoot, rows)), "batch")

    @task(1)
    def team_grid(self) -> None:
        body = {
            "attackers": self.rng.sample(ROSTER_ATTACKERS, 8),
            "defenders": self.rng.sample(ROSTER_DEFENDERS, 6),
            "situations": SITUATIONS,
        }
        with self.client.post(
            "/v1/grid", json=body, name="/v1/grid team", catch_response=True
        ) as r:
            _check(r, _is_grid(8 * 6 * len(SITUATIONS)), "team grid")


class Analyst(FastHttpUser):
    """Mass analysis: a large grid of fresh profiles, every cell computed from cold."""

    fixed_count = 1
    wait_time = between(2.0, 5.0)

    def on_start(self) -> None:
        self.rng = random.Random()
        self.cells = int(os.environ.get("LOADTEST_ANALYST_CELLS", "1200"))

    @task
    def cold_grid(self) -> None:
        situations = SITUATIONS[:2]
        defenders = [defender(self.rng) for _ in range(20)]
        attackers = [
            attacker(self.rng) for _ in range(max(1, self.cells // (20 * len(situations))))
        ]
        body = {"attackers": attackers, "defenders": defenders, "situations": situations}
        cells = len(attackers) * len(defenders) * len(situations)
        with self.client.post(
            "/v1/grid", json=body, name="/v1/grid cold", catch_response=True
        ) as r:
            _check(r, _is_grid(cells), "cold grid")


# --- the verdict -------------------------------------------------------------------------


@events.init_command_line_parser.add_listener
def _add_arguments(parser: Any) -> None:
    parser.add_argument(
        "--max-p95-ms",
        type=float,
        default=0.0,
        env_var="LOCUST_MAX_P95_MS",
        help="fail the run when the aggregated p95 latency (ms) is above this; 0 = no bound",
        include_in_web_ui=False,
    )


@events.quitting.add_listener
def _judge(environment: Any, **_: Any) -> None:
    """Failed requests already fail the run (Locust's exit code); add the latency bound."""
    total = environment.stats.total
    bound = environment.parsed_options.max_p95_ms
    p95 = total.get_response_time_percentile(0.95) if total.num_requests else 0
    if total.num_requests == 0:
        logging.error("no request was made")
        environment.process_exit_code = 1
    elif bound and p95 > bound:
        logging.error("p95 %.0f ms is above the bound of %.0f ms", p95, bound)
        environment.process_exit_code = 1
