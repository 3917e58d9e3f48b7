"""Where a catalog came from: its sources, their problems, and the digest of its content.

Kept apart from `schema.catalog.sources` (which needs the importers) so that the bundled
catalog and the importers can both use it without importing each other.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from schema.catalog.model import KillTeam


@dataclass(frozen=True)
class Source:
    """One source as loaded: where from, its format, and its import counts."""

    path: str
    format: str
    name: str
    counts: dict[str, int]

    def as_json(self) -> dict[str, Any]:
        return {"path": self.path, "format": self.format, "name": self.name, **self.counts}


@dataclass(frozen=True)
class CatalogProblem:
    source: str
    problem: Any  # schema.importers.result.Problem

    def as_json(self) -> dict[str, str]:
        return {"source": self.source, **self.problem.as_json()}


def digest(teams: Sequence[KillTeam]) -> str:
    """SHA-256 of the catalog as the API shows it (kill teams, operatives, profiles)."""
    content = [[t.as_json(), [o.as_json() for o in t.operatives]] for t in teams]
    return hashlib.sha256(orjson.dumps(content, option=orjson.OPT_SORT_KEYS)).hexdigest()
