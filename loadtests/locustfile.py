"""Locust users modelling killmath's three kinds of client (issue 6).

* `MobileApp` — a player's phone: one shoot or fight at a time, over REST and GraphQL, mostly
  the popular matchups (so many requests repeat and hit the cache), some new ones. Like an
  app with a local cache it keeps each REST answer with its ETag and asks again with
  `If-None-Match` (a 304 is the stored answer, checked), asks for the compact answer
  (`Prefer: return=minimal`) and accepts gzip, as mobile HTTP stacks do.
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

import orjson
from locust import FastHttpUser, between, events, task
from scenarios import (
    POPULAR_FIGHTS,
    POPULAR_SHOOTS,
    ROSTER_ATTACKERS,
    ROSTER_DEFENDERS,
    SITUATIONS,
    Envelope,
    attacker,
    defender,
    fight,
    shoot,
)

# --- response checks ---------------------------------------------------------------------


def _check(response: Any, ok: Callable[[Any], bool], what: str) -> Any:
    """Mark the request failed unless it answered 200 with a body that `ok` accepts; the
    body, or None."""
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
        return None
    return body


def _is_shoot(body: Any) -> bool:
    return isinstance(body, dict) and "expectedDamage" in body and "killProbability" in body


def _is_fight(body: Any) -> bool:
    return isinstance(body, dict) and "incapacitatedProbability" in body.get("fighterA", {})


def _is_grid(cells: int) -> Callable[[Any], bool]:
    return lambda body: isinstance(body, dict) and len(body.get("cells", ())) == cells


def _graphql_ok(field: str, ok: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda body: not body.get("errors") and ok((body.get("data") or {}).get(field))


SHOOT_QUERY = """
query Shoot($input: Kt2024ShootInput!) {
  shoot(input: $input) {
    expectedDamage killProbability canonicalKey cached
    damageDistribution { value probability }
  }
}"""
MATCHUPS_QUERY = """
query Matchups($inputs: [MatchupInput!]!) {
  matchups(inputs: $inputs) {
    ... on Kt2024ShootResult { expectedDamage killProbability canonicalKey cached }
    ... on MatchupError { code field message }
  }
}"""
GRID_QUERY = """
query Grid(
  $attackers: [Kt2024ShootAttackerInput!]!
  $defenders: [Kt2024ShootDefenderInput!]!
  $situations: [SituationInput!]
) {
  matchupGrid(attackers: $attackers, defenders: $defenders, situations: $situations) {
    cachedCells
    cells { attacker defender situation expectedDamage killProbability
      damageAtLeast { k probability } }
  }
}"""


def _all_shoots(count: int) -> Callable[[Any], bool]:
    return lambda rows: isinstance(rows, list) and len(rows) == count and all(map(_is_shoot, rows))


# --- the three clients -------------------------------------------------------------------


MOBILE_HEADERS = {"accept-encoding": "gzip", "prefer": "return=minimal"}


class MobileApp(FastHttpUser):
    """A player checking one matchup at a time; popular matchups repeat across players, and
    the app revalidates what it has stored instead of fetching it again."""

    weight = 8
    wait_time = between(0.2, 1.0)

    def on_start(self) -> None:
        self.rng = random.Random()
        self.stored: dict[tuple[str, str], tuple[str, Any]] = {}  # (path, body) -> (ETag, answer)

    def _shoot(self) -> Envelope:
        return POPULAR_SHOOTS.draw(self.rng) if self.rng.random() < 0.8 else shoot(self.rng)

    def _revalidating(self, path: str, envelope: Envelope, ok: Callable[[Any], bool]) -> None:
        """POST with the stored ETag, if any: a 304 must match a stored, valid answer."""
        body = orjson.dumps(envelope).decode()
        held = self.stored.get((path, body))
        headers = dict(MOBILE_HEADERS)
        if held is not None:
            headers["if-none-match"] = held[0]
        with self.client.post(
            path, data=body, headers={**headers, "content-type": "application/json"},
            catch_response=True,
        ) as r:  # fmt: skip
            if r.status_code == 304:
                if held is None or r.headers.get("etag") != held[0]:
                    r.failure("304 for an answer this client does not hold")
                else:
                    r.success()
                return
            answer = _check(r, ok, path)
            if answer is not None and r.headers.get("etag"):
                self.stored[(path, body)] = (r.headers["etag"], answer)

    @task(6)
    def rest_shoot(self) -> None:
        self._revalidating("/v1/shoot", self._shoot(), _is_shoot)

    @task(2)
    def rest_fight(self) -> None:
        envelope = POPULAR_FIGHTS.draw(self.rng) if self.rng.random() < 0.7 else fight(self.rng)
        self._revalidating("/v1/fight", envelope, _is_fight)

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
        inputs = [{"shoot": self._matchup()} for _ in range(50)]
        payload = {"query": MATCHUPS_QUERY, "variables": {"inputs": inputs}}
        with self.client.post(
            "/graphql", json=payload, name="/graphql matchups", catch_response=True
        ) as r:
            _check(r, _graphql_ok("matchups", _all_shoots(50)), "matchups")

    @task(2)
    def rest_batch(self) -> None:
        envelopes = [{"mode": "shoot", **self._matchup()} for _ in range(100)]
        with self.client.post("/v1/batch", json=envelopes, catch_response=True) as r:
            _check(r, _all_shoots(100), "batch")

    def _team_grid(self) -> dict[str, Any]:
        return {
            "attackers": self.rng.sample(ROSTER_ATTACKERS, 8),
            "defenders": self.rng.sample(ROSTER_DEFENDERS, 6),
            "situations": SITUATIONS,
        }

    @task(1)
    def rest_team_grid(self) -> None:
        with self.client.post(
            "/v1/grid", json=self._team_grid(), name="/v1/grid team", catch_response=True
        ) as r:
            _check(r, _is_grid(8 * 6 * len(SITUATIONS)), "team grid")

    @task(1)
    def graphql_team_grid(self) -> None:
        payload = {"query": GRID_QUERY, "variables": self._team_grid()}
        with self.client.post(
            "/graphql", json=payload, name="/graphql matchupGrid", catch_response=True
        ) as r:
            _check(r, _graphql_ok("matchupGrid", _is_grid(8 * 6 * len(SITUATIONS))), "grid")


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
