"""Tokens charged against the server's CPU, for random cold requests of every kind.

Each request goes, one at a time, through the service's ASGI app in this process (httpx's
ASGI transport: the app, its middleware and its engine pool, with API keys on), and its CPU
is the process's (`time.process_time`, every thread: the engine pool's too, and httpx's small
share, so the figures err high) before and after. The app has no cache (`cache_entries=0`,
no Redis, no reply cache) and the inputs are random, so every request computes, as a cold one
does; the dice memos and compiled loops stay warm, as in a serving process (one request of
each kind runs first, unmeasured: first-use imports and compilation are not a request's). The tokens
charged are read off the RateLimit field (the bucket's fall); a GraphQL reply's
`extensions.cost.charged` must agree. Kinds: REST shoot, fight (heavy ones too: OPTIMAL,
exact, up to 5 rounds, the issue's heavy fight once), grid, batch (kt2024 and the other
rulesets), team matchup with and without melee, catalog reads; GraphQL shoot, fight,
matchups (shoots and threshold), matchupGrid, versus and teamMatchup.

"Before" is what main charged at 332adde for the same requests (a shoot 1, a fight 9, any
other envelope 1, a grid a token per cell, a team matchup 1 per shot and 9 per fight, a
batch or `matchups` the sum, `versus` nothing but the document's 1, catalog reads 1),
computed from the same prepared jobs. The target (issue 34): at most 20 ms of CPU per token
for every request, and within 4× of a uniform price (1 ms a token) for 99 % of them.

    python benchmarks/bench_costs.py [--count 40] [--seed 3]   (--count: requests per kind)
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))
import cost_scenarios as scenarios  # noqa: E402

from schema.catalog import catalog  # noqa: E402
from service import grid as grids  # noqa: E402
from service import team_matchup as teams  # noqa: E402
from service.app import create_app  # noqa: E402
from service.compute import Job, prepare, prepare_each  # noqa: E402
from service.settings import Settings  # noqa: E402

KEY = "bench-costs"
AUTH = {"authorization": f"Bearer {KEY}"}
OLD_FIGHT = 9  # main's weight of a kt2024 fight at 332adde


def old_tokens(jobs: list[Any]) -> int:
    """main's price of prepared envelopes (332adde `service.costs.of_jobs`)."""
    found = [j for j in jobs if isinstance(j, Job)]
    return max(1, sum(OLD_FIGHT if (j.mode.ruleset, j.mode.name) == ("kt2024", "fight") else 1
                      for j in found))  # fmt: skip


def body(envelope: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in envelope.items() if k not in ("ruleset", "mode")}


def graphql_body(envelope: dict[str, Any]) -> dict[str, Any]:
    """An envelope's body as a GraphQL input: threshold's enums are upper case there."""
    found = body(envelope)
    if "attack" in found:
        attack = dict(found["attack"])
        for name in ("damageType", "skillRollMode"):
            if name in attack:
                attack[name] = attack[name].upper()
        found["attack"] = attack
    return found


def input_name(envelope: dict[str, Any]) -> str:
    """The `MatchupInput` member of an envelope's mode (`shoot`, `kt2018Shooting`)."""
    ruleset, mode = envelope["ruleset"], envelope["mode"]
    return mode if ruleset == "kt2024" else ruleset + mode[0].upper() + mode[1:]


Request = tuple[str, str, dict[str, Any], int]  # (kind, path, JSON body, main's tokens)


def rest_single(rng: random.Random, mode: str, make: Callable[..., dict]) -> Request:
    envelope = make(rng)
    return f"REST {mode}", f"/v1/{mode}", body(envelope), old_tokens([prepare(envelope)])


def grid_body(rng: random.Random) -> dict[str, Any]:
    return {
        "attackers": [scenarios.shoot(rng)["attacker"] for _ in range(rng.randint(1, 4))],
        "defenders": [scenarios.shoot(rng)["defender"] for _ in range(rng.randint(1, 5))],
        "situations": [{"name": "open"}, {"name": "cover", "defender": {"coverSaves": 1}}][
            : rng.randint(1, 2)
        ],
    }


def grid_old(grid: dict[str, Any]) -> int:
    return max(1, len(grids.prepare_cells(grids.parse(grid, 10_000))))


def team_body(rng: random.Random) -> dict[str, Any]:
    ids = list(catalog().operatives)
    found: dict[str, Any] = {
        "attackers": {"operativeIds": rng.sample(ids, rng.randint(1, 2))},
        "defenders": {"operativeIds": rng.sample(ids, rng.randint(1, 3))},
        "options": {"rounds": rng.randint(1, 3), "exact": rng.random() < 0.5},
    }
    if rng.random() < 0.5:
        found["melee"] = {"strategy": rng.choice(("MAX_DAMAGE", "STRIKE", "PARRY"))}
    return found


def team_old(team: dict[str, Any]) -> int:
    return old_tokens(teams.prepare_cells(teams.parse(team, 10_000)))


def other(rng: random.Random) -> dict[str, Any]:
    return rng.choice((scenarios.kt2018, scenarios.kt2013, scenarios.threshold))(rng)


def requests(rng: random.Random, count: int) -> list[Request]:
    """`count` requests of every kind, shuffled."""
    found: list[Request] = [
        ("REST fight", "/v1/fight", body(scenarios.HEAVY_FIGHT), OLD_FIGHT),
    ]
    for _ in range(count):
        found.append(rest_single(rng, "shoot", scenarios.shoot))
        found.append(rest_single(rng, "fight", lambda r: scenarios.fight(r, heavy=0.6)))
        if rng.random() < 0.15:
            found.append(rest_single(rng, "fight", scenarios.heavy_fight))
        grid = grid_body(rng)
        found.append(("REST grid", "/v1/grid", grid, grid_old(grid)))
        batch = [rng.choice((scenarios.shoot, other, other))(rng) for _ in range(rng.randint(1, 8))]
        found.append(("REST batch", "/v1/batch", batch, old_tokens(prepare_each(batch))))  # type: ignore[arg-type]
        team = team_body(rng)
        found.append(("REST team matchup", "/v1/team-matchup", team, team_old(team)))
        found.append(("REST catalog", "/v1/kill-teams", {}, 1))
        shot = scenarios.shoot(rng)
        query = "query($i: Kt2024ShootInput!) { shoot(input: $i) { expectedDamage } }"
        found.append(
            graphql("GraphQL shoot", query, {"i": body(shot)}, old_tokens([prepare(shot)]))
        )
        melee = scenarios.fight(rng, heavy=0.6)
        found.append(graphql("GraphQL fight", "query($i: Kt2024FightInput!) { fight(input: $i) "
                             "{ canonicalKey } }", {"i": body(melee)}, OLD_FIGHT))  # fmt: skip
        # kt2018's and kt2013's GraphQL inputs spell enums their own way: REST batches send those
        mixed = [
            rng.choice((scenarios.threshold, scenarios.shoot))(rng)
            for _ in range(rng.randint(1, 6))
        ]
        inputs = [{input_name(e): graphql_body(e)} for e in mixed]
        found.append(graphql("GraphQL matchups", "query($i: [MatchupInput!]!) { matchups("
                             "inputs: $i) { __typename } }", {"i": inputs},
                             old_tokens(prepare_each(mixed))))  # fmt: skip
        grid = grid_body(rng)
        found.append(graphql(
            "GraphQL matchupGrid",
            "query($a: [Kt2024ShootAttackerInput!]!, $d: [Kt2024ShootDefenderInput!]!, "
            "$s: [SituationInput!]) { matchupGrid(attackers: $a, defenders: $d, situations: $s) "
            "{ cachedCells } }",
            {"a": grid["attackers"], "d": grid["defenders"], "s": grid["situations"]},
            grid_old(grid),
        ))  # fmt: skip
        ids = rng.sample(list(catalog().operatives), rng.randint(1, 13))
        options = {"rounds": rng.randint(1, 10), "exact": rng.random() < 0.5}
        found.append(graphql(
            "GraphQL versus",
            "query($ids: [String!]!, $o: Kt2024ShootOptionsInput) { killTeams { operatives "
            "{ versus(operativeIds: $ids, options: $o) { canonicalKey } } } }",
            {"ids": ids, "o": options},
            1,
        ))  # fmt: skip
        team = team_body(rng)
        found.append(graphql(
            "GraphQL teamMatchup",
            "query($a: TeamSideInput!, $d: TeamSideInput!, $o: Kt2024ShootOptionsInput, "
            "$m: TeamMeleeInput) { teamMatchup(attackers: $a, defenders: $d, options: $o, "
            "melee: $m) { cachedCells } }",
            {"a": team["attackers"], "d": team["defenders"], "o": team["options"],
             "m": team.get("melee")},
            team_old(team),
        ))  # fmt: skip
    rng.shuffle(found)
    return found


def graphql(kind: str, query: str, variables: dict[str, Any], old: int) -> Request:
    return kind, "/graphql", {"query": query, "variables": variables}, old


def remaining(response: httpx.Response) -> int:
    state = dict(p.split("=") for p in response.headers["ratelimit"].split(";")[1:])
    return int(state["r"])


async def measure(found: list[Request], warm: int) -> list[tuple[str, float, int, int]]:
    """(kind, CPU ms, tokens charged, main's tokens) of every request answered 200, the
    first `warm` (the warm-up) left out."""
    settings = Settings(
        redis_url=None,
        log_level="WARNING",
        api_keys=KEY,
        rate_limit=0.001,
        rate_limit_burst=10**9,
        cache_entries=0,
        graphql_reply_cache_bytes=0,
        time_budget=600,  # a heavy fight on a loaded machine: measured, not timed out
    )
    app = create_app(settings)
    rows = []
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            left = remaining(await client.get("/v1/rulesets", headers=AUTH))
            for index, (kind, path, payload, old) in enumerate(found):
                started = time.process_time()
                if path == "/v1/kill-teams":
                    response = await client.get(path, headers=AUTH)
                else:
                    response = await client.post(path, json=payload, headers=AUTH, timeout=120)
                cpu = (time.process_time() - started) * 1e3
                now = remaining(response)
                charged, left = left - now, now
                ok = response.status_code == 200
                if ok and path == "/graphql":
                    reply = response.json()
                    ok = "errors" not in reply
                    assert reply["extensions"]["cost"]["charged"] == charged, (kind, reply)
                if index < warm:
                    continue
                if ok:
                    rows.append((kind, cpu, charged, old))
                else:
                    print(f"  skipped {kind}: {response.status_code} {response.text[:160]}")
    return rows


def summary(label: str, rows: list[tuple[float, int]]) -> str:
    per = sorted(cpu / tokens for cpu, tokens in rows)
    within = sum(1 for p in per if 0.25 <= p <= 4) / len(per)
    p99 = per[min(len(per) - 1, round(0.99 * (len(per) - 1)))]
    return (
        f"{label:<22} n={len(per):>4}  ms/token median {statistics.median(per):7.2f}  "
        f"p99 {p99:8.2f}  max {per[-1]:8.2f}  within 4×: {100 * within:5.1f} %"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    warm = [
        r for r in requests(random.Random(-args.seed), 1) if r[2] != body(scenarios.HEAVY_FIGHT)
    ]
    rows = asyncio.run(measure(warm + requests(rng, args.count), len(warm)))
    kinds = sorted({kind for kind, *_ in rows})
    for name, index in (("before (main's costs)", 3), ("after (the cost model)", 2)):
        print(name)
        for kind in kinds:
            print("  " + summary(kind, [(r[1], r[index]) for r in rows if r[0] == kind]))
        print("  " + summary("every request", [(r[1], r[index]) for r in rows]))
    heavy = max(rows, key=lambda r: r[1])
    print(f"costliest: {heavy[0]}, {heavy[1]:.0f} ms of CPU, charged {heavy[2]} tokens "
          f"(main: {heavy[3]})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
