"""Importers for the two common community formats of operative and weapon data.

`import_text` detects the format from the first character (`<` BattleScribe XML, `{`/`[`
killteamjson/ktdash JSON) unless one is named, and returns an `ImportResult` whose profiles
carry engine fields ready for a matchup. A file that cannot be read at all is an InputError
on the field `file`; a single unreadable profile is a `problem` in the result instead, so one
typo does not lose a whole kill team.
"""

from __future__ import annotations

import json

from engine.errors import InputError
from schema.importers import battlescribe, ktdash
from schema.importers.result import ImportResult

__all__ = ["FORMATS", "MAX_BYTES", "ImportResult", "import_text"]

FORMATS: tuple[str, ...] = (ktdash.FORMAT, battlescribe.FORMAT)

# A whole BattleScribe catalogue of a kill team is well under 1 MB; 5 MB leaves room.
MAX_BYTES = 5_000_000


def detect(text: str) -> str:
    head = text.lstrip("\ufeff \t\r\n")[:1]
    if head == "<":
        return battlescribe.FORMAT
    if head in ("{", "["):
        return ktdash.FORMAT
    raise InputError(
        "INVALID_INPUT", "file", "neither JSON nor XML; expected a ktdash JSON or a .cat file"
    )


def import_text(text: str | bytes, format: str | None = None) -> ImportResult:
    """Import one file's content. Raises InputError for an unreadable or oversized file."""
    if len(text) > MAX_BYTES:
        raise InputError("LIMIT_EXCEEDED", "file", f"larger than {MAX_BYTES} bytes", MAX_BYTES)
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError("INVALID_INPUT", "file", f"not UTF-8 text: {exc}") from None
    if format is not None and format not in FORMATS:
        raise InputError("INVALID_INPUT", "format", f"expected one of {list(FORMATS)}")
    chosen = format or detect(text)
    try:
        if chosen == battlescribe.FORMAT:
            return battlescribe.import_xml(text)
        return ktdash.import_json(json.loads(text.lstrip("\ufeff")))
    except ValueError as exc:  # JSONDecodeError, XML errors and refused documents
        raise InputError("INVALID_INPUT", "file", str(exc)) from None
    except RecursionError:
        raise InputError("INVALID_INPUT", "file", "nested too deeply") from None
