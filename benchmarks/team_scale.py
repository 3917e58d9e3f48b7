"""Issue 16 at scale: a whole public KT2024 BattleScribe set served by `KILLMATH_CATALOG`.

Targets (issue 16, item 8): start-up ≤ 2 s extra and ≤ 150 MB more RSS than the bundled
catalog; catalog queries (filters by kill team, keyword, name; cursor pagination) p95 ≤ 5 ms;
a team matchup of two 12-operative teams (about 1,000 cells) ≤ 1 s cold and ≤ 50 ms warm.

Every server is a real `killmath serve` (one worker, in-process cache, no Redis), measured
over loopback HTTP with one keep-alive client. Start-up is the time from spawning the process
to its first 200 on /healthz (`service_harness.Server`, polled every 5 ms), and RSS is the
server's VmRSS then, with and without the catalog, interleaved. Cold team matchups are
different pairs of 12-operative teams on one fresh server (none of their cells computed
before); warm is the same request repeated. For comparison the warm matchup's cells are
also asked as the equivalent `/v1/grid` of catalog references.

Start-up is also given in CPU seconds of the server process (utime + stime at its first
healthy answer): on a shared machine the wall time is that CPU time stretched by the load,
so compare `uptime`'s load average with the numbers. A revalidated team matchup
(`If-None-Match` with the ETag of its first answer) is a 304 without any lookup.

The data is not part of this repository: point `--catalog` at a BattleScribe directory (the
`.gst` and the `2024 - *.cat` files of the public BSData/wh40k-killteam repository). With
`--repo DIR` (repeatable) each checkout's server is measured in the same run, start-ups
interleaved (a checkout of an older commit: before/after in one run).

    python benchmarks/team_scale.py --catalog /path/to/kt2024 [--repeats 200] [--repo DIR ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
sys.path.insert(0, str(REPO / "tests"))
from service_harness import Server  # noqa: E402
from timing import summary  # noqa: E402

MB = 1024 * 1024
SITUATIONS = [{"name": "open"}, {"name": "cover", "defender": {"coverSaves": 1}}]
OPTIONS = {"unknownRules": "IGNORE"}  # team rules (*Poison, ...) left out and listed


class Started(Server):
    """A `killmath serve` (one worker, rate limit off) with `KILLMATH_CATALOG` when given;
    its RSS and CPU seconds are read at its first healthy answer."""

    def __init__(self, catalog: str | None, repo: Path = REPO) -> None:
        super().__init__(repo=repo, rate_limit=0, **({"catalog": catalog} if catalog else {}))
        self.rss = self.vm_rss()
        self.cpu = self.cpu_seconds()


LOAD = """
import resource, sys, time
from schema.catalog.sources import load_sources
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
cpu, wall = time.process_time(), time.perf_counter()
loaded = load_sources(sys.argv[1])
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(f"{cpu:.3f} {wall:.3f} {grown * 1024} {len(loaded.profiles)}")
"""


def load_alone(catalog: str, repeats: int, repo: Path) -> None:
    """The catalog's own cost, in a fresh interpreter each time: CPU and wall seconds of
    `load_sources`, and the peak RSS it adds (less noisy than a whole start-up)."""
    runs = []
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-c", LOAD, catalog], cwd=repo, check=True,
                              capture_output=True, text=True)  # fmt: skip
        runs.append([float(x) for x in done.stdout.split()])
    cpu, wall, grown, profiles = (statistics.median(column) for column in zip(*runs, strict=True))
    print(f"[{repo.name}] load_sources alone ({profiles:.0f} profiles, {repeats} runs): CPU "
          f"{cpu:.2f} s, wall {wall:.2f} s, peak RSS +{grown / MB:.1f} MiB")  # fmt: skip


def startup(catalog: str, repeats: int, repos: list[Path]) -> None:
    """Bundled and catalog start-ups of every checkout, interleaved."""
    runs: dict[tuple[Path, str], list[Started]] = {}
    for _ in range(repeats):
        for repo in repos:
            for name, source in (("bundled", None), ("catalog", catalog)):
                server = Started(source, repo)
                server.stop()
                runs.setdefault((repo, name), []).append(server)
    for (repo, name), servers in runs.items():
        times = [s.seconds for s in servers]
        rss = statistics.median(s.rss for s in servers) / MB
        cpu = statistics.median(s.cpu for s in servers)
        print(summary(f"[{repo.name}] start-up, {name}", times, 44)
              + f"   CPU median {cpu:5.2f} s   RSS median {rss:6.1f} MiB")  # fmt: skip
    for repo in repos:
        with_catalog, bundled = runs[repo, "catalog"], runs[repo, "bundled"]

        def extra(of: str, a: list[Started] = with_catalog, b: list[Started] = bundled) -> float:
            return statistics.median(getattr(s, of) for s in a) - statistics.median(
                getattr(s, of) for s in b
            )

        print(f"[{repo.name}] start-up extra: wall {extra('seconds'):+.2f} s, CPU "
              f"{extra('cpu'):+.2f} s (target ≤ 2 s), RSS {extra('rss') / MB:+.1f} MiB "
              "(≤ 150 MB)")  # fmt: skip


class Meter:
    """The measured server's CPU seconds per request of each series printed: on a shared
    machine the steadiest figure of what a request costs (wall times carry the load)."""

    server: Started | None = None
    mark = 0.0

    @classmethod
    def watch(cls, server: Started) -> None:
        cls.server, cls.mark = server, server.cpu_seconds()

    @classmethod
    def line(cls, label: str, times: list[float], width: int = 52) -> str:
        text = summary(label, times, width)
        if cls.server is not None:
            now = cls.server.cpu_seconds()
            text += f"   server CPU {(now - cls.mark) / len(times) * 1e3:7.2f} ms/request"
            cls.mark = now
        return text


def timed(
    client: httpx.Client, method: str, path: str, **kwargs: object
) -> tuple[float, httpx.Response]:
    started = time.perf_counter()
    response = client.request(method, path, **kwargs)
    elapsed = time.perf_counter() - started
    if response.status_code not in (200, 304):
        raise RuntimeError(f"{path}: {response.status_code} {response.text[:300]}")
    return elapsed, response


def catalog_queries(client: httpx.Client, repeats: int, tag: str) -> None:
    teams = timed(client, "GET", "/v1/kill-teams")[1].json()["killTeams"]
    queries = {
        "operatives ?killTeam": [{"killTeam": t["id"]} for t in teams],
        "operatives ?keyword": [{"keyword": k} for k in ("LEADER", "GUNNER", "MEDIC", "PSYKER")],
        "operatives ?name": [{"name": n} for n in ("sergeant", "gunner", "a", "zz")],
    }
    everything: list[float] = []
    for label, params in queries.items():
        times = [timed(client, "GET", "/v1/operatives", params=params[i % len(params)])[0]
                 for i in range(repeats)]  # fmt: skip
        everything += times
        print(Meter.line(f"{tag} {label}", times))
    pages: list[float] = []
    while len(pages) < repeats:
        after = None
        while True:
            params = {"first": "20"} | ({"after": after} if after else {})
            elapsed, response = timed(client, "GET", "/v1/operatives", params=params)
            page = response.json()
            pages.append(elapsed)
            after = page["pageInfo"]["endCursor"]
            if not page["pageInfo"]["hasNextPage"]:
                break
    print(Meter.line(f"{tag} operatives, cursor pages of 20", pages))
    document = ("query($f: OperativeFilterInput) { operatives(filter: $f, first: 20) "
                "{ totalCount edges { cursor node { id name } } } }")  # fmt: skip
    graph = [
        timed(client, "POST", "/graphql", json={"query": document, "variables": {"f": {
            "killTeamId": teams[i % len(teams)]["id"]}}})[0]
        for i in range(repeats)
    ]  # fmt: skip
    print(Meter.line(f"{tag} GraphQL operatives(filter: killTeamId)", graph))
    everything += pages
    print(summary(f"{tag} all REST catalog queries (target p95 ≤ 5 ms)", everything, 52))
    floor = [timed(client, "GET", "/healthz")[0] for _ in range(repeats)]
    print(Meter.line(f"{tag} GET /healthz (a request's floor)", floor))


def twelve_operative_pairs(client: httpx.Client) -> list[tuple[list[str], list[str]]]:
    teams = timed(client, "GET", "/v1/kill-teams")[1].json()["killTeams"]
    big = [t["operativeIds"][:12] for t in teams if len(t["operativeIds"]) >= 12]
    return list(zip(big[::2], big[1::2], strict=False))


def team_body(attackers: list[str], defenders: list[str], melee: bool) -> dict:
    body = {"attackers": {"operativeIds": attackers}, "defenders": {"operativeIds": defenders},
            "situations": SITUATIONS, "options": OPTIONS}  # fmt: skip
    return body | ({"melee": {}} if melee else {})


def _cells(answer: dict) -> str:
    fights = len(answer.get("melee", {}).get("cells", []))
    return f"{len(answer['cells'])}+{fights}"


def _cached(response: httpx.Response) -> int:
    """Cells the cache answered: `Cache-Status`'s LRU detail, or (an older checkout) the
    body's `cachedCells`."""
    for member in response.headers.get("cache-status", "").split(","):
        if member.strip().startswith("killmath-lru") and 'detail="' in member:
            return int(member.split('detail="')[1].split("/")[0])
    return response.json()["cachedCells"]


def matchups(client: httpx.Client, repeats: int, label: str) -> None:
    """Ranged (two situations) and melee (heuristic fights): the whole team question."""
    pairs = twelve_operative_pairs(client)
    for melee in (False, True):
        kind = f"{label} team matchup " + ("ranged + melee" if melee else "ranged")
        cold, sizes = [], []
        for attackers, defenders in pairs:
            body = team_body(attackers, defenders, melee)
            elapsed, response = timed(client, "POST", "/v1/team-matchup", json=body)
            cold.append(elapsed)
            sizes.append(f"{_cells(response.json())} ({_cached(response)} cached)")
        print(f"{kind}: {len(pairs)} pairs of 12-operative teams, shots+fights: {sizes}")
        print(Meter.line(f"{kind}, cold", cold))
        body = team_body(*pairs[0], melee)
        warm = [timed(client, "POST", "/v1/team-matchup", json=body) for _ in range(repeats)]
        print(Meter.line(f"{kind}, warm", [t for t, _ in warm]))
        csv = [timed_csv(client, body) for _ in range(repeats)]
        print(Meter.line(f"{kind}, warm, as CSV", csv))
        tag = {"if-none-match": warm[0][1].headers.get("etag", '"none"')}
        again = [timed(client, "POST", "/v1/team-matchup", json=body, headers=tag)
                 for _ in range(repeats)]  # fmt: skip
        statuses = sorted({r.status_code for _, r in again})
        print(Meter.line(f"{kind}, revalidated {statuses}", [t for t, _ in again]))
    answer = timed(client, "POST", "/v1/team-matchup", json=team_body(*pairs[0], False))[1]
    cells = answer.json()["cells"]
    profiles = dict.fromkeys(c["weaponProfile"] for c in cells)
    grid = {"attackers": [{"weaponProfileId": p} for p in profiles],
            "defenders": [{"operativeId": d} for d in answer.json()["defenders"]],
            "situations": SITUATIONS, "options": OPTIONS, "atLeast": [1]}  # fmt: skip
    same = [timed(client, "POST", "/v1/grid", json=grid)[0] for _ in range(repeats)]
    print(Meter.line(f"{label} the same ranged cells as /v1/grid, warm", same))


def timed_csv(client: httpx.Client, body: dict) -> float:
    started = time.perf_counter()
    response = client.post("/v1/team-matchup", json=body, headers={"accept": "text/csv"})
    response.raise_for_status()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", required=True, help="a BattleScribe KT2024 directory")
    parser.add_argument("--repeats", type=int, default=200)
    parser.add_argument("--startups", type=int, default=5)
    parser.add_argument("--repo", type=Path, action="append", help="a checkout (repeatable)")
    args = parser.parse_args()
    repos = [r.resolve() for r in args.repo] if args.repo else [REPO]
    print(f"load average {os.getloadavg()}")
    for repo in repos:
        load_alone(args.catalog, args.startups, repo)
    startup(args.catalog, args.startups, repos)
    for repo in repos:
        server = Started(args.catalog, repo)
        Meter.watch(server)
        try:
            with httpx.Client(base_url=server.url, timeout=60) as client:
                counts = timed(client, "GET", "/v1/catalog")[1].json()
                print(f"[{repo.name}]", {k: counts[k] for k in ("counts",) if k in counts})
                matchups(client, args.repeats, f"[{repo.name}]")
                catalog_queries(client, args.repeats, f"[{repo.name}]")
        finally:
            server.stop()
        print(f"load average {os.getloadavg()}")


if __name__ == "__main__":
    main()
