"""`killmath matrix`: the team matchups of every ordered pair of kill teams, or one shard of them.

Every ordered pair of distinct kill teams of the served catalog (`KILLMATH_CATALOG`, as the
service reads it), or of `--teams a,b,…`: its shots, in every `--situations` situation with
the `--options` shoot options, and with `--melee` (a team matchup's `melee` object, `{}` by
default) its fights (`service.matrix`: the team matchup's own cells, to the bit).

`--shards N` splits the pairs into N parts balanced by estimated cost; this process computes
part `--shard I`, or `JOB_COMPLETION_INDEX` (a Kubernetes Indexed Job's pod index). With
`--out DIR` it writes `DIR/part-I-of-N.parquet` (pyarrow, the `matrix` extra), written under
a temporary name and renamed when complete, so a re-run of one index replaces only its own
file and a reader never sees half of one; without, JSON lines on stdout. One row per cell
(`COLUMNS`). Every answer goes through the service's cache (`KILLMATH_REDIS_URL`, also a
Redis Cluster), so the service answers these team matchups warm afterwards.

A progress line goes to stderr every `--progress-every` seconds and at the end: done / total
cells, rate, ETA. Exit status 0 only when the shard is complete; bad input (an unknown team,
a bad situation or option, a bad shard) goes to stderr as the JSON error body, status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any, Protocol

import orjson

STRINGS = ["kind", "attackerKillTeam", "attacker", "attackerName", "weaponProfile", "weapon"]
STRINGS += ["profile", "defenderKillTeam", "defender", "defenderName"]
MELEE_STRINGS = ["defenderWeaponProfile", "defenderWeapon", "defenderProfile"]
VALUES = ["expectedDamage", "killProbability"]
MELEE_VALUES = ["expectedDamageTaken", "attackerIncapacitatedProbability"]
INDEX = "JOB_COMPLETION_INDEX"
BATCH_ROWS = 20_000  # rows per Parquet row group: memory stays bounded on a 49-team shard


def columns(melee: bool, exact: bool) -> list[tuple[str, str]]:
    """The Parquet columns and their types, one schema for every shard of one matrix (an
    empty shard too), so the parts read as one table: the fight columns with `--melee`,
    the exact `p/q` strings when exact output is asked."""
    values = VALUES + (MELEE_VALUES if melee else [])
    out = [(name, "string") for name in STRINGS + (MELEE_STRINGS if melee else [])]
    out += [("situation", "int32"), ("situationName", "string")]
    out += [(name, "float64") for name in values]
    out += [(f"{name}Exact", "string") for name in values] if exact else []
    out += [("ignoredRules", "list<string>"), ("canonicalKey", "string")]
    return out


class Sink(Protocol):
    def write(self, rows: list[dict[str, Any]]) -> None: ...
    def commit(self) -> None: ...
    def abandon(self) -> None: ...


class JsonLines:
    """Rows as JSON lines on stdout (a cell's absent members left out, as in the answer)."""

    def write(self, rows: list[dict[str, Any]]) -> None:
        sys.stdout.write("".join(orjson.dumps(row).decode() + "\n" for row in rows))
        sys.stdout.flush()

    def commit(self) -> None:
        return None

    def abandon(self) -> None:
        return None


class Parquet:
    """`part-I-of-N.parquet` in `out`, written in row groups to a hidden temporary file of
    this process and renamed over the part when the shard is complete."""

    def __init__(self, out: Path, index: int, shards: int, schema: list[tuple[str, str]]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        types = {"string": pa.string(), "int32": pa.int32(), "float64": pa.float64()}
        types["list<string>"] = pa.list_(pa.string())
        self.pa = pa
        self.schema = pa.schema([(name, types[kind]) for name, kind in schema])
        out.mkdir(parents=True, exist_ok=True)
        self.path = out / f"part-{index}-of-{shards}.parquet"
        self.temporary = out / f".{self.path.name}.{os.getpid()}.tmp"
        self.writer = pq.ParquetWriter(self.temporary, self.schema)
        self.pending: list[dict[str, Any]] = []

    def write(self, rows: list[dict[str, Any]]) -> None:
        self.pending.extend(rows)
        if len(self.pending) >= BATCH_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self.pending:
            self.writer.write_table(self.pa.Table.from_pylist(self.pending, self.schema))
            self.pending = []

    def commit(self) -> None:
        self._flush()
        self.writer.close()  # an empty shard still writes the schema: the parts read as one
        os.replace(self.temporary, self.path)

    def abandon(self) -> None:
        self.writer.close()
        self.temporary.unlink(missing_ok=True)


class Progress:
    """Done / total cells, the rate since the start and the ETA, on stderr: every `every`
    seconds (after a pair) and once at the end."""

    def __init__(self, index: int, shards: int, total: int, every: float) -> None:
        self.label = f"matrix shard {index}/{shards}"
        self.total, self.every = total, every
        self.done = self.cached = 0
        self.started = self.shown = time.monotonic()

    def add(self, cells: int, cached: int) -> None:
        self.done += cells
        self.cached += cached
        if time.monotonic() - self.shown >= self.every:
            self.show()

    def show(self, final: bool = False) -> None:
        self.shown = time.monotonic()
        elapsed = self.shown - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = f"ETA {(self.total - self.done) / rate:.0f} s" if rate > 0 else "ETA ?"
        share = 100.0 * self.done / self.total if self.total else 100.0
        eta = "done" if final else left
        print(
            f"{self.label}: {self.done}/{self.total} cells ({share:.1f} %), "
            f"{self.cached} cached, {rate:.0f} cells/s, {elapsed:.1f} s, {eta}",
            file=sys.stderr,
            flush=True,
        )


def _json(text: str | None, field: str, default: Any) -> Any:
    from engine.errors import InputError

    if text is None:
        return default
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise InputError("INVALID_INPUT", field, f"not valid JSON: {exc}") from None


def _shard(args: argparse.Namespace) -> tuple[int, int]:
    """(this shard's index, the number of shards): `--shard`, else JOB_COMPLETION_INDEX, else
    0 for a matrix of one shard."""
    from engine.errors import InputError

    if args.shards < 1:
        raise InputError("INVALID_INPUT", "shards", "--shards must be at least 1")
    given = args.shard if args.shard is not None else os.environ.get(INDEX)
    if given is None:
        if args.shards == 1:
            return 0, 1
        raise InputError("INVALID_INPUT", "shard", f"give --shard or {INDEX} with --shards")
    try:
        index = int(given)
    except ValueError:
        raise InputError("INVALID_INPUT", "shard", f"not a shard index: {given!r}") from None
    if not 0 <= index < args.shards:
        raise InputError(
            "INVALID_INPUT", "shard", f"shard {index} is not in 0..{args.shards - 1}", args.shards
        )
    return index, args.shards


def _request(args: argparse.Namespace) -> dict[str, Any]:
    """The team matchup members every pair shares, as the request spells them."""
    extra: dict[str, Any] = {}
    situations = _json(args.situations, "situations", None)
    if situations is not None:
        extra["situations"] = situations
    options = _json(args.options, "options", None)
    if options is not None:
        extra["options"] = options
    if args.melee is not None:
        extra["melee"] = _json(args.melee, "melee", {})
    return extra


async def _compute(pairs: list[Any], sink: Sink, progress: Progress) -> None:
    from service import matrix
    from service import team_matchup as teams
    from service.app import build_cache
    from service.settings import from_environment

    cache = build_cache(from_environment())
    try:
        for pair in pairs:
            jobs = teams.prepare_cells(pair.plan)  # the first bad cell fails the shard, located
            results, cached = await matrix.answer(cache, jobs)
            sink.write(matrix.rows(pair, results))
            progress.add(pair.cells, cached)
    finally:
        await cache.close()


def _run(args: argparse.Namespace) -> int:
    from engine.errors import InputError
    from schema.catalog import catalog
    from schema.errors import error_body
    from service import matrix
    from service.app import install_catalog
    from service.settings import from_environment

    try:
        index, shards = _shard(args)
        install_catalog(from_environment())
        wanted = args.teams.split(",") if args.teams is not None else None
        teams = matrix.team_ids(catalog(), wanted)
        extra = _request(args)
        pairs = matrix.plan_pairs(teams, extra)
    except InputError as exc:
        print(orjson.dumps(error_body(exc)).decode(), file=sys.stderr)
        return 2
    mine = matrix.partition(pairs, shards)[index]
    exact = _exact(extra)
    if args.out is None:
        sink: Sink = JsonLines()
    else:
        try:
            sink = Parquet(Path(args.out), index, shards, columns("melee" in extra, exact))
        except ImportError:
            print("killmath matrix --out needs pyarrow: pip install 'killmath[matrix]'",
                  file=sys.stderr)  # fmt: skip
            return 2
    progress = Progress(index, shards, sum(pair.cells for pair in mine), args.progress_every)
    progress.show()
    try:
        asyncio.run(_compute(mine, sink, progress))
    except InputError as exc:  # a bad cell of this shard's, or a rule only the engine checks
        sink.abandon()
        print(orjson.dumps(error_body(exc)).decode(), file=sys.stderr)
        return 2
    except BaseException:
        sink.abandon()
        raise
    sink.commit()
    progress.show(final=True)
    return 0


def _exact(extra: dict[str, Any]) -> bool:
    """Whether any cell answers with exact siblings: shots and fights share `exact`, and the
    fights' own options may ask for it too."""
    melee = extra.get("melee") or {}
    fight_options = melee.get("options") if isinstance(melee, dict) else None
    either = [extra.get("options"), fight_options]
    return any(isinstance(o, dict) and o.get("exact") is True for o in either)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "matrix", help="team matchups of every ordered pair of kill teams (a shard of them)"
    )
    p.add_argument("--teams", help="comma-separated kill team ids (default: the whole catalog)")
    p.add_argument("--situations", help="JSON list of situations, as in the team matchup")
    p.add_argument("--options", help="JSON shoot options, as in the team matchup")
    p.add_argument(
        "--melee",
        nargs="?",
        const="{}",
        help="also fight; optional JSON of the team matchup's melee (strategies, options)",
    )
    p.add_argument("--out", help="write DIR/part-I-of-N.parquet (default: JSON lines on stdout)")
    p.add_argument("--shards", type=int, default=1, help="split the pairs into N parts")
    p.add_argument("--shard", help=f"the part to compute (default: ${INDEX})")
    p.add_argument(
        "--progress-every", type=float, default=10.0, help="seconds between progress lines"
    )
    p.set_defaults(run=_run)
