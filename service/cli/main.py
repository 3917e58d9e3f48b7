"""The `killmath` command line.

`shoot` and `fight` evaluate one kt2024 scenario (JSON as the argument, or on stdin when it
is absent or `-`): a readable table on a terminal (`service.cli.table`), the JSON answer when
piped or with `--json`; an error goes to stderr with exit status 2.
`batch` reads JSON lines of envelopes and writes one JSON line per input line, in order; a
bad line gets `{"error": {...}, "errors": [...]}` (`schema.errors.error_body`) and the batch
goes on; the exit status is 0 only if every line succeeded. Other subcommands live in their
own modules, listed in COMMAND_MODULES with the commands each registers: each has
`add_parser(subparsers)` registering a parser whose `run` default handles it. Only the module
of the command being run is imported (every module for help or an unknown command), so
`killmath batch` never pays for the server or the importers.

A command that computes in its own process (every one but `serve`) sets two environment
defaults for its run, `START_DEFAULTS`, unless the caller set them; see there why.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

import orjson

from engine.errors import InputError
from schema import references, registry
from schema.errors import error_body
from service.cli import table

# module -> the subcommands its add_parser registers
COMMAND_MODULES: dict[str, tuple[str, ...]] = {
    "service.cli.serve": ("serve",),
    "service.cli.catalog": ("rules", "import"),
    "service.cli.graphql": ("graphql-schema",),
    "service.cli.matrix": ("matrix",),
}

START_DEFAULTS: dict[str, str] = {
    "OPENBLAS_NUM_THREADS": "1",
    "PYDANTIC_DISABLE_PLUGINS": "__all__",
}
"""Environment defaults of a command's run (issue 17: start-up), each one a cost of starting
that buys the command nothing. OpenBLAS starts its worker threads when numpy loads, and a
new worker spins for its first work before it sleeps: ~50 ms of a 2-core machine's start of
`killmath batch`. No command needs a second one: the engine has no matmul or linalg, its one
einsum is over integers (numpy sums those itself), and its float dots (a shot's expected
damage, `np.convolve`'s terms) are vectors of at most ~6,100 terms (§12's bounds), which
OpenBLAS sums in one thread whatever it is allowed (it splits a dot above 10,000), so the
float bits are the same either way.
pydantic looks for plugins by reading the metadata of every installed distribution when it
builds its first validator (~5–20 ms); the service installs none. A caller who sets either
variable (`PYDANTIC_DISABLE_PLUGINS=` to let pydantic look) keeps it. `serve` keeps the
environment it was deployed with."""

SERVER_COMMANDS = ("serve",)


def dumps(obj: Any) -> str:
    return orjson.dumps(obj).decode()


def evaluate_line(line: str | bytes, mode: str | None = None) -> tuple[dict[str, Any], bool]:
    """One envelope in, one result (or `{"error"}`) out, plus whether it succeeded."""
    try:
        envelope = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        error = InputError("INVALID_INPUT", "", f"not valid JSON: {exc}")
        return error_body(error), False
    try:
        expanded, ignored = references.expand_rules(envelope)
        return references.with_ignored(registry.run(expanded, mode), ignored), True
    except InputError as exc:
        return error_body(exc), False


def run_batch(lines: Iterable[str], out: TextIO) -> bool:
    """Evaluate JSON lines in order; blank lines are skipped. True iff every line succeeded."""
    ok = True
    for line in lines:
        if not line.strip():
            continue
        result, succeeded = evaluate_line(line)
        ok &= succeeded
        out.write(dumps(result) + "\n")
        out.flush()
    return ok


def _single(args: argparse.Namespace) -> int:
    """One scenario: a table on a terminal, JSON when piped or with `--json`; an error on
    stderr (as JSON too when piped, so a script can read it) with exit status 2."""
    text = sys.stdin.read() if args.scenario in (None, "-") else args.scenario
    result, ok = evaluate_line(text, args.command)
    as_json = args.json or not sys.stdout.isatty()
    if not ok:
        readable = sys.stderr.isatty() and not args.json
        print(table.error(result) if readable else dumps(result), file=sys.stderr)
        return 2
    unicode = (sys.stdout.encoding or "").lower().replace("-", "") == "utf8"
    print(dumps(result) if as_json else table.VIEWS[args.command](result, unicode=unicode))
    return 0


def _batch(args: argparse.Namespace) -> int:
    source = open(args.file, encoding="utf-8") if args.file else sys.stdin  # noqa: SIM115
    with source:
        return 0 if run_batch(source, sys.stdout) else 1


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `command`, only the module registering that command is imported."""
    parser = argparse.ArgumentParser(prog="killmath", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name, what in (("shoot", "one shooting scenario"), ("fight", "one fight")):
        p = sub.add_parser(name, help=f"evaluate {what} (kt2024)")
        p.add_argument("scenario", nargs="?", help="JSON scenario; read from stdin if absent or -")
        p.add_argument(
            "--json", action="store_true", help="print JSON on a terminal too (as when piped)"
        )
        p.set_defaults(run=_single)
    p = sub.add_parser("batch", help="evaluate JSON lines of envelopes")
    p.add_argument("file", nargs="?", help="JSON-lines file; stdin if absent")
    p.set_defaults(run=_batch)
    if command in sub.choices:  # a built-in command needs no other module
        return parser
    owners = [module for module, names in COMMAND_MODULES.items() if command in names]
    for module in owners or COMMAND_MODULES:  # help or an unknown command: list every command
        importlib.import_module(module).add_parser(sub)
    return parser


@contextlib.contextmanager
def start_defaults(command: str | None) -> Iterator[None]:
    """`START_DEFAULTS` for the run of `command` (none for a server), the caller's own values
    kept; removed again afterwards, so an in-process caller (the tests) keeps its environment."""
    added = {} if command in SERVER_COMMANDS else START_DEFAULTS.keys() - os.environ.keys()
    os.environ.update({name: START_DEFAULTS[name] for name in added})
    try:
        yield
    finally:
        for name in added:
            os.environ.pop(name, None)


def main(argv: list[str] | None = None) -> int:
    """Run the command line `argv` (the process's own, `sys.argv`, if None) and return its
    exit status. Run as the process's command line, it ends the process, so it freezes its
    objects out of the cyclic collector (`gc.freeze`): once a mode is imported (a command
    that computes: `registry.freeze_imports`) and when the command is done. The collector's
    passes over numpy's, pydantic's and the engine's objects, after the import and while the
    interpreter exits, cost a one-line batch ~40 ms (issue 17's start-up) and would find a
    few hundred objects of import-time cycles, which the exit frees with the process anyway.
    Output is flushed either way."""
    ends_process = argv is None
    argv = sys.argv[1:] if argv is None else argv
    command = next((arg for arg in argv if not arg.startswith("-")), None)
    if ends_process and command not in SERVER_COMMANDS:
        registry.freeze_imports()
    with start_defaults(command):
        args = build_parser(command).parse_args(argv)
        status = int(args.run(args))
    if ends_process:
        gc.freeze()
    return status
