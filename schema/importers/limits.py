"""What one import may cost, in the importers' own quantities, and the refusal beyond.

Kept apart from `schema.importers` (which imports the format modules) so that each format
module can check its budgets where the work is, before doing it. A document's size in
these terms is `GraphSize` (`schema.importers.graph_size`), cheap to know once parsed, so a
cost model can price an import before it runs.

The budgets are ten times and more what the public data needs (a whole BattleScribe game
system, the 2021 Kill Team one, is some 6,000 entries and profiles and 17,000 references;
its walk some 40,000 steps and 1,600 imported profile lines), and low enough that any
document within them imports in about a second.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from engine.errors import InputError

# An upload's limit: the largest public files (killteamjson's kt24.json) are under 4 MB.
MAX_BYTES = 8_000_000
# selection entries and profiles of one game system (BattleScribe), rows once joined (ktdash)
MAX_NODES = 100_000
# references between them: entry links, info links, entries and profiles nested in entries
MAX_EDGES = 200_000
# levels of XML elements (the public files have at most 15): deeper is "nested too deeply",
# INVALID_INPUT as a JSON document too deep for its parser is
MAX_DEPTH = 200
# the BattleScribe walk: each reference followed, each weapon carried up one reference
MAX_WALK_STEPS = 1_000_000
# weapon profile lines an import yields over all its operatives (each one parsed)
MAX_PROFILES = 20_000


@dataclass(frozen=True)
class GraphSize:
    """An upload's size for pricing: its bytes and its link graph's nodes and edges."""

    bytes: int
    nodes: int
    edges: int

    def as_json(self) -> dict[str, int]:
        return asdict(self)


def exceeded(what: str, limit: int) -> InputError:
    """The refusal of a document over one of the budgets above."""
    return InputError("LIMIT_EXCEEDED", "file", f"more than {limit} {what}", limit)


def check(size: GraphSize) -> None:
    """Refuse a document whose link graph is over the node or edge budget."""
    if size.nodes > MAX_NODES:
        raise exceeded("entries and profiles (nodes of the link graph)", MAX_NODES)
    if size.edges > MAX_EDGES:
        raise exceeded("references (edges of the link graph)", MAX_EDGES)
