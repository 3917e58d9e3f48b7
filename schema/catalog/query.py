"""Finding operatives: the filter and cursor pagination shared by REST and GraphQL.

A cursor is the opaque base64 of an operative id, not of a position, so a page boundary
stays put when the catalog gains operatives elsewhere in the list.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass

from engine.errors import InputError
from schema.catalog.model import Catalog, Operative

DEFAULT_PAGE = 20
MAX_PAGE = 100


@dataclass(frozen=True)
class OperativeFilter:
    kill_team_id: str | None = None
    keyword: str | None = None
    name_contains: str | None = None

    def matches(self, op: Operative) -> bool:
        if self.kill_team_id is not None and op.kill_team_id != self.kill_team_id:
            return False
        if self.keyword is not None and self.keyword.upper() not in op.keywords:
            return False
        return self.name_contains is None or self.name_contains.lower() in op.name.lower()


@dataclass(frozen=True)
class Page:
    operatives: list[Operative]
    cursors: list[str]
    has_next_page: bool
    total_count: int

    @property
    def end_cursor(self) -> str | None:
        return self.cursors[-1] if self.cursors else None


def cursor(op: Operative) -> str:
    return base64.urlsafe_b64encode(f"operative:{op.id}".encode()).decode()


def _decode(value: str) -> str:
    try:
        text = base64.urlsafe_b64decode(value.encode()).decode()
    except (binascii.Error, UnicodeError, ValueError):
        text = ""
    kind, _, op_id = text.partition(":")
    if kind != "operative" or not op_id:
        raise InputError("INVALID_INPUT", "after", "not a cursor from this API")
    return op_id


def find(
    cat: Catalog, where: OperativeFilter, first: int = DEFAULT_PAGE, after: str | None = None
) -> Page:
    """One page of the operatives matching `where`, in catalog order."""
    if first < 1:
        raise InputError("INVALID_INPUT", "first", "must be at least 1")
    if first > MAX_PAGE:
        raise InputError("LIMIT_EXCEEDED", "first", f"must be at most {MAX_PAGE}", MAX_PAGE)
    matching: Sequence[Operative] = [op for op in cat.operatives.values() if where.matches(op)]
    start = 0
    if after is not None:
        op_id = _decode(after)
        ids = [op.id for op in matching]
        if op_id not in ids:
            raise InputError("INVALID_INPUT", "after", f"{op_id!r} is not in these results")
        start = ids.index(op_id) + 1
    chosen = list(matching[start : start + first])
    return Page(chosen, [cursor(op) for op in chosen], start + first < len(matching),
                len(matching))  # fmt: skip
