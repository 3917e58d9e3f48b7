"""Finding operatives: the filter and cursor pagination shared by REST and GraphQL.

A cursor is the opaque base64 of an operative id, not of a position, so a page boundary
stays put when the catalog gains operatives elsewhere in the list.

A query reads the catalog's `Index`, built once per catalog (the catalog never changes
while it is served): the operatives of each kill team and of each keyword. A filter starts
from the shortest list its exact members name and checks the rest on that list only, so a
query costs what it returns, not a scan of the whole catalog (530 operatives for the public
KT2024 data).
"""

from __future__ import annotations

import base64
import binascii
import threading
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


class Index:
    """A catalog's operatives by kill team and by keyword, in catalog order, and their
    cursors."""

    def __init__(self, cat: Catalog) -> None:
        self.catalog = cat
        self.operatives = list(cat.operatives.values())
        self.by_kill_team: dict[str, list[Operative]] = {}
        self.by_keyword: dict[str, list[Operative]] = {}
        for op in self.operatives:
            self.by_kill_team.setdefault(op.kill_team_id, []).append(op)
            for keyword in dict.fromkeys(op.keywords):
                self.by_keyword.setdefault(keyword, []).append(op)
        self.cursors = {op.id: cursor(op) for op in self.operatives}

    def candidates(self, where: OperativeFilter) -> Sequence[Operative]:
        """The shortest list that holds every match: that of the filter's kill team or of
        its keyword, else every operative."""
        lists: list[Sequence[Operative]] = [self.operatives]
        if where.kill_team_id is not None:
            lists.append(self.by_kill_team.get(where.kill_team_id, ()))
        if where.keyword is not None:
            lists.append(self.by_keyword.get(where.keyword.upper(), ()))
        return min(lists, key=len)

    def matching(self, where: OperativeFilter) -> list[Operative]:
        """Every operative matching `where`, in catalog order."""
        return [op for op in self.candidates(where) if where.matches(op)]


_INDEXES: dict[int, Index] = {}
_INDEXES_LOCK = threading.Lock()
MAX_INDEXES = 4  # the bundled catalog and the installed one, with room to spare


def index(cat: Catalog) -> Index:
    """The catalog's index, built on first use (the service builds it at start-up). It is
    kept with its catalog, so the id it is filed under cannot be reused meanwhile."""
    found = _INDEXES.get(id(cat))
    if found is not None and found.catalog is cat:
        return found
    built = Index(cat)
    with _INDEXES_LOCK:
        while len(_INDEXES) >= MAX_INDEXES:
            del _INDEXES[next(iter(_INDEXES))]
        _INDEXES[id(cat)] = built
    return built


def find(
    cat: Catalog, where: OperativeFilter, first: int = DEFAULT_PAGE, after: str | None = None
) -> Page:
    """One page of the operatives matching `where`, in catalog order."""
    if first < 1:
        raise InputError("INVALID_INPUT", "first", "must be at least 1")
    if first > MAX_PAGE:
        raise InputError("LIMIT_EXCEEDED", "first", f"must be at most {MAX_PAGE}", MAX_PAGE)
    indexed = index(cat)
    matching = indexed.matching(where)
    start = 0
    if after is not None:
        op_id = _decode(after)
        found = cat.operatives.get(op_id)
        if found is None or not where.matches(found):
            raise InputError("INVALID_INPUT", "after", f"{op_id!r} is not in these results")
        start = next(i for i, op in enumerate(matching) if op is found) + 1
    chosen = matching[start : start + first]
    return Page(chosen, [indexed.cursors[op.id] for op in chosen], start + first < len(matching),
                len(matching))  # fmt: skip
