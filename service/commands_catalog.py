"""`killmath rules "<text>"` and `killmath import <file>`: the catalog tools on the command line.

`rules` prints the weapon-rule parse as JSON (`fields`, `noNumericEffect`, `unknown`,
`malformed`) and exits 1 when any rule was not understood, so scripts can check a whole list
of weapons. `import` prints the imported operatives and profiles; it exits 1 when the file
cannot be read or any profile had a problem, 0 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

from engine.errors import InputError
from schema.errors import error_body
from schema.importers import FORMATS, import_text
from schema.weapon_rules import parse_rules


def _print(obj: object) -> None:
    print(orjson.dumps(obj).decode())


def _rules(args: argparse.Namespace) -> int:
    text = " ".join(args.text) if args.text else sys.stdin.read()
    parsed = parse_rules(text)
    _print(parsed.as_json())
    return 0 if parsed.understood else 1


def _import(args: argparse.Namespace) -> int:
    try:
        content = Path(args.file).read_bytes() if args.file != "-" else sys.stdin.buffer.read()
    except OSError as exc:
        _print(error_body(InputError("INVALID_INPUT", "file", str(exc))))
        return 1
    try:
        result = import_text(content, args.format)
    except InputError as exc:
        _print(error_body(exc))
        return 1
    _print(result.as_json())
    return 1 if result.problems else 0


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("rules", help="parse weapon rules into engine fields (JSON)")
    p.add_argument("text", nargs="*", help='e.g. "Lethal 5+, Piercing 1"; stdin if absent')
    p.set_defaults(run=_rules)
    p = subparsers.add_parser("import", help="import a ktdash JSON or BattleScribe .cat file")
    p.add_argument("file", help="the file to import ('-' for stdin)")
    p.add_argument("--format", choices=FORMATS, help="skip format detection")
    p.set_defaults(run=_import)
