"""`killmath matrix`: one process and four index-shards write the same rows, the team
matchups' own cells, and leave the service's cache warm (issue 31).

The shards run as Kubernetes runs an Indexed Job's pods: four processes at once, each told
its part by `JOB_COMPLETION_INDEX`, sharing nothing but the Redis they write to. The bundled
catalog's three kill teams are six ordered pairs; with fights and two situations that is
both kinds of cell in seconds.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import orjson
import pyarrow.parquet as pq
import pytest
from service_harness import REPO, Server

from service import team_matchup as teams
from service.cli.main import main
from service.matrix import Pair, estimate, partition, plan_pairs
from service.settings import Settings

SITUATIONS = [{}, {"name": "cover", "defender": {"coverSaves": 1}}]
MELEE = {"options": {"rounds": 1}}
ARGS = ["--situations", orjson.dumps(SITUATIONS).decode(), "--melee", orjson.dumps(MELEE).decode()]
SHARDS = 4
CACHE_KEY = {"cache_key": "test-matrix-key"} if "cache_key" in Settings.model_fields else {}
"""The key Redis entries are signed with, where the service has one: the shards and the
server that reads their entries must share it, as the Job and the Deployment share their
Secret."""


def _env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KILLMATH_")}
    env.pop("JOB_COMPLETION_INDEX", None)
    env["PYTHONPATH"] = str(REPO)
    env.update({f"KILLMATH_{k.upper()}": v for k, v in {**CACHE_KEY, **settings}.items()})
    return env


def _matrix(out: Path, *extra: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "service.cli", "matrix", *ARGS, "--out", str(out), *extra],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finished(process: subprocess.Popen[str]) -> str:
    _, stderr = process.communicate(timeout=300)
    assert process.returncode == 0, stderr
    return stderr


def _rows(path: Path) -> list[dict]:
    return pq.read_table(path).to_pylist()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory):
    """One process without Redis, then four shards at once on a Redis db of the tests' own
    (left filled for the tests below: the module's last test flushes it)."""
    from service_harness import owned_redis

    base = tmp_path_factory.mktemp("matrix")
    with owned_redis() as redis_url:
        single = _finished(_matrix(base / "one", env=_env()))
        shards = [
            _matrix(base / "four", "--shards", str(SHARDS), "--progress-every", "0", env={
                **_env(redis_url=redis_url), "JOB_COMPLETION_INDEX": str(index)})
            for index in range(SHARDS)
        ]  # fmt: skip
        logs = [_finished(process) for process in shards]
        yield base, single, logs, redis_url


def test_four_shards_write_the_rows_of_one_process_once_each(runs):
    base, single, logs, _ = runs
    one = _rows(base / "one" / "part-0-of-1.parquet")
    parts = [_rows(base / "four" / f"part-{i}-of-{SHARDS}.parquet") for i in range(SHARDS)]
    union = [row for part in parts for row in part]
    keys = [orjson.dumps(row, option=orjson.OPT_SORT_KEYS) for row in union]
    assert len(keys) == len(set(keys)), "a row written twice"
    assert sorted(keys) == sorted(orjson.dumps(r, option=orjson.OPT_SORT_KEYS) for r in one)
    pairs = {(r["attackerKillTeam"], r["defenderKillTeam"]) for r in one}
    assert len(pairs) == 6
    for part in parts:  # a pair lives in one part only
        others = [p for p in parts if p is not part]
        mine = {(r["attackerKillTeam"], r["defenderKillTeam"]) for r in part}
        assert not mine & {
            (r["attackerKillTeam"], r["defenderKillTeam"]) for o in others for r in o
        }
    assert {r["kind"] for r in one} == {"ranged", "melee"}
    # progress: a line per pair (--progress-every 0) with rate and ETA, and a last line per
    # shard saying it is done, with its own cell count
    for index, log in enumerate(logs):
        lines = log.strip().splitlines()
        assert len(lines) >= 3
        assert all(" cells/s, " in line and "ETA " in line for line in lines[:-1])
        last = lines[-1]
        cells = len(parts[index])
        assert last.startswith(f"matrix shard {index}/{SHARDS}: {cells}/{cells} cells"), last
        assert last.endswith("done")
    assert single.strip().splitlines()[-1].startswith(f"matrix shard 0/1: {len(one)}/{len(one)}")


def test_rows_are_the_team_matchup_cells_to_the_bit(runs):
    from starlette.testclient import TestClient

    from service.app import create_app

    base = runs[0]
    one = _rows(base / "one" / "part-0-of-1.parquet")
    by_pair: dict[tuple[str, str], list[dict]] = {}
    for row in one:
        by_pair.setdefault((row["attackerKillTeam"], row["defenderKillTeam"]), []).append(row)
    with TestClient(create_app(Settings())) as client:
        for (attacker, defender), rows in by_pair.items():
            body = {
                "attackers": {"killTeamId": attacker},
                "defenders": {"killTeamId": defender},
                "situations": SITUATIONS,
                "melee": MELEE,
            }
            answer = client.post("/v1/team-matchup", json=body).json()
            cells = answer["cells"] + answer["melee"]["cells"]
            assert len(cells) == len(rows)
            for cell, row in zip(cells, rows, strict=True):
                assert {k: row[k] for k in cell} == cell  # floats compared with ==: the bits
                assert row["kind"] == ("ranged" if "situation" in cell else "melee")
                if "situation" in cell:
                    assert row["situationName"] == answer["situations"][cell["situation"]]


def test_a_fresh_server_on_the_shards_redis_answers_every_cell_cached(runs):
    base, _, _, redis_url = runs
    one = _rows(base / "one" / "part-0-of-1.parquet")
    pairs = list(dict.fromkeys((r["attackerKillTeam"], r["defenderKillTeam"]) for r in one))
    server = Server(redis_url=redis_url, log_level="WARNING", **CACHE_KEY)
    try:
        for attacker, defender in pairs:
            body = {
                "attackers": {"killTeamId": attacker},
                "defenders": {"killTeamId": defender},
                "situations": SITUATIONS,
                "melee": MELEE,
            }
            response = httpx.post(server.url + "/v1/team-matchup", json=body, timeout=60)
            assert response.status_code == 200, response.text
            assert response.headers["cache-status"].startswith("killmath-redis; hit"), (
                attacker,
                defender,
                response.headers["cache-status"],
            )
        query = """query($a: TeamSideInput!, $d: TeamSideInput!) {
            teamMatchup(attackers: $a, defenders: $d) { cachedCells cells { canonicalKey } } }"""
        attacker, defender = pairs[0]
        variables = {"a": {"killTeamId": attacker}, "d": {"killTeamId": defender}}
        response = httpx.post(
            server.url + "/graphql", json={"query": query, "variables": variables}, timeout=60
        )
        data = response.json()
        assert "errors" not in data, data
        matchup = data["data"]["teamMatchup"]
        assert matchup["cachedCells"] == len(matchup["cells"]) > 0
    finally:
        server.stop()


def test_a_rerun_of_one_index_replaces_only_its_own_part(runs):
    base, _, _, redis_url = runs
    four = base / "four"
    before = {p.name: p.stat() for p in four.iterdir()}
    rows = _rows(four / "part-2-of-4.parquet")
    env = {**_env(redis_url=redis_url), "JOB_COMPLETION_INDEX": "2"}
    _finished(_matrix(four, "--shards", str(SHARDS), env=env))
    after = {p.name: p.stat() for p in four.iterdir()}
    assert sorted(after) == sorted(before) == [f"part-{i}-of-4.parquet" for i in range(SHARDS)]
    for name, stat in after.items():
        same = (stat.st_ino, stat.st_mtime_ns) == (before[name].st_ino, before[name].st_mtime_ns)
        assert same == (name != "part-2-of-4.parquet"), name
    assert _rows(four / "part-2-of-4.parquet") == rows


def test_more_shards_than_pairs_leaves_an_empty_part_with_the_schema(tmp_path, capsys):
    argv = ["matrix", "--teams", "kasrkin,kommandos", "--out", str(tmp_path), "--shards", "3"]
    assert main([*argv, "--shard", "2"]) == 0
    assert main([*argv, "--shard", "0"]) == 0
    empty, full = (
        pq.read_table(tmp_path / "part-2-of-3.parquet"),
        pq.read_table(tmp_path / "part-0-of-3.parquet"),
    )
    assert empty.num_rows == 0 < full.num_rows
    assert empty.schema == full.schema
    assert "melee" not in " ".join(full.column_names).lower()  # no fight columns without --melee
    assert "matrix shard 2/3: 0/0 cells" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["--teams", "kasrkin,nobody"], "teams.1"),
        (["--shards", "4"], "shard"),
        (["--shards", "4", "--shard", "4"], "shard"),
        (["--shards", "0"], "shards"),
        (["--situations", "[{}"], "situations"),
        (["--situations", '[{"defender": {"save": 9}}]'], "situations.0.defender.save"),
        (["--options", '{"rounds": "x"}'], "options.rounds"),
    ],
)
def test_bad_input_is_a_located_error_with_status_2(argv, field, capsys, monkeypatch):
    monkeypatch.delenv("JOB_COMPLETION_INDEX", raising=False)
    assert main(["matrix", *argv]) == 2
    error = orjson.loads(capsys.readouterr().err)["error"]
    assert error["code"] in ("INVALID_INPUT", "LIMIT_EXCEEDED")
    assert error["field"] == field


def test_exact_output_has_the_exact_columns(tmp_path):
    argv = ["matrix", "--teams", "kasrkin,kommandos", "--options", '{"exact": true}']
    assert main([*argv, "--out", str(tmp_path)]) == 0
    rows = _rows(tmp_path / "part-0-of-1.parquet")
    assert rows and all("/" in row["killProbabilityExact"] for row in rows)


def _pair(cost: int) -> Pair:
    return Pair("a", "b", None, 0, cost)  # type: ignore[arg-type]


def test_the_split_balances_cost_not_pair_count():
    """One costly pair and ten cheap ones: by count each part would get five or six pairs;
    by cost the costly pair is a part alone."""
    pairs = [_pair(1) for _ in range(5)] + [_pair(10)] + [_pair(1) for _ in range(5)]
    parts = partition(pairs, 2)
    assert sorted(map(len, parts)) == [1, 10]
    assert [sum(p.cost for p in part) for part in parts] == [10, 10]
    assert sorted(id(p) for part in parts for p in part) == sorted(map(id, pairs))
    place = {id(p): i for i, p in enumerate(pairs)}
    for part in parts:  # each keeps the pairs' order
        assert [place[id(p)] for p in part] == sorted(place[id(p)] for p in part)
    assert partition(pairs, 2) == parts  # deterministic: every shard computes the same split


def test_a_pairs_estimate_is_the_cost_model_over_its_cells():
    """A pair is priced from samples of its shots and fights (preparing them all in every
    shard would cost each shard the whole matrix's preparation), which stay close to the
    cost model over every cell."""
    from service import costs

    extra = {"melee": {}, "situations": SITUATIONS}
    for pair in plan_pairs(["kasrkin", "kommandos", "angels-of-death"], extra):
        jobs = teams.prepare_cells(pair.plan)
        every = costs.of_cells({job.key: job for job in jobs}.values())
        assert abs(estimate(pair.plan) - every) <= 0.25 * every
        assert pair.cost == estimate(pair.plan)
        assert pair.cells == len(jobs)


def test_without_out_the_rows_are_json_lines_on_stdout(tmp_path, capsys):
    argv = ["matrix", "--teams", "kasrkin,kommandos"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(argv) == 0
    lines = [orjson.loads(line) for line in capsys.readouterr().out.splitlines()]
    table = _rows(tmp_path / "part-0-of-1.parquet")
    assert len(lines) == len(table) > 0
    for line, row in zip(lines, table, strict=True):  # absent members left out, as in the answer
        assert {k: row[k] for k in line} == line
        assert all(row[k] is None for k in row.keys() - line.keys())
