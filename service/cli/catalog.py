"""`killmath rules "<text>"` and `killmath import <path>...`: the catalog tools on the command line.

`rules` prints the weapon-rule parse as JSON (`fields`, `noNumericEffect`, `unknown`,
`malformed`) and exits 1 when any rule was not understood, so scripts can check a whole list
of weapons. `import` reads files and directories (a directory is a BattleScribe game system)
with the readers the catalog uses, and prints one JSON line per source read (one per game
system of a directory): its operatives, profiles, `counts`, `problemKinds` and `problems`.
It exits 1 when a source cannot be read or anything in it was not understood (an unreadable
stat line, an unknown rule, an unresolved link: `problemKinds` says which), 0 otherwise.

Importers are imported when the command runs, not when the CLI starts.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

FORMATS = ("ktdash-json", "ktdash-export", "killteamjson-factions", "battlescribe-cat")


def _print(obj: object) -> None:
    print(orjson.dumps(obj).decode())


def _rules(args: argparse.Namespace) -> int:
    from schema.weapon_rules import parse_rules

    text = " ".join(args.text) if args.text else sys.stdin.read()
    parsed = parse_rules(text)
    _print(parsed.as_json())
    return 0 if parsed.understood else 1


def _import(args: argparse.Namespace) -> int:
    from engine.errors import InputError
    from schema.errors import error_body
    from schema.importers import import_path, import_text

    status = 0
    for name in args.paths:
        try:
            if name == "-":
                results = [import_text(sys.stdin.buffer.read(), args.format, limit=None)]
            elif args.format is not None:
                results = [import_text(Path(name).read_bytes(), args.format, name, limit=None)]
            else:
                results = import_path(Path(name))
        except (InputError, OSError) as exc:
            error = (
                exc
                if isinstance(exc, InputError)
                else InputError("INVALID_INPUT", "file", f"{name}: {exc}")
            )
            _print({"source": name, **error_body(error)})
            status = 1
            continue
        for result in results:
            _print({"source": name, **result.as_json()})
            status |= 1 if result.problems else 0
    return status


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("rules", help="parse weapon rules into engine fields (JSON)")
    p.add_argument("text", nargs="*", help='e.g. "Lethal 5+, Piercing 1"; stdin if absent')
    p.set_defaults(run=_rules)
    p = subparsers.add_parser(
        "import", help="import ktdash / killteamjson JSON, BattleScribe files or directories"
    )
    p.add_argument(
        "paths", nargs="+", metavar="path", help="files or BattleScribe directories ('-' for stdin)"
    )
    p.add_argument("--format", choices=FORMATS, help="skip format detection")
    p.set_defaults(run=_import)
