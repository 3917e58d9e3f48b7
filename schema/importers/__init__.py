"""Importers for the community formats of operative and weapon data.

`import_text` reads one document: XML is BattleScribe, JSON one of the shapes of
`schema.importers.ktdash` (detected from the structure; an unknown shape is an error naming
the shapes expected). `import_path` reads a file or a directory, which is a BattleScribe
game system: its `.gst` files and every `.cat`, each catalogue joined to its game system
(`gameSystemId`) so that links resolve across the catalogues of one system. The catalog
(`schema.catalog.sources`) and `killmath import` use these same readers.

A document that cannot be read at all is an InputError on the field `file`; a single
unreadable profile is a `problem` in the result instead, so one typo does not lose a whole
kill team. A document over one of the budgets of `schema.importers.limits` (bytes, nodes
and edges of its link graph, steps of the walk, profile lines) is LIMIT_EXCEEDED on `file`
with the limit; `graph_size` tells a document's size in those terms without importing it.
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.errors import InputError
from schema.importers import battlescribe, ktdash
from schema.importers.limits import (
    MAX_BYTES,
    MAX_DEPTH,
    MAX_EDGES,
    MAX_NODES,
    MAX_PROFILES,
    MAX_WALK_STEPS,
    GraphSize,
)
from schema.importers.result import ImportResult

__all__ = [
    "FORMATS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_EDGES",
    "MAX_NODES",
    "MAX_PROFILES",
    "MAX_WALK_STEPS",
    "GraphSize",
    "ImportResult",
    "game_systems",
    "graph_size",
    "import_documents",
    "import_path",
    "import_text",
]

FORMATS: tuple[str, ...] = (*ktdash.SHAPES, battlescribe.FORMAT)
JSON_FORMATS = frozenset(ktdash.SHAPES)


def detect(text: str) -> str:
    head = text.lstrip("\ufeff \t\r\n")[:1]
    if head == "<":
        return battlescribe.FORMAT
    if head in ("{", "["):
        return ktdash.FORMAT
    raise InputError(
        "INVALID_INPUT",
        "file",
        "neither JSON nor XML; expected a ktdash or killteamjson JSON or a BattleScribe "
        ".cat/.gst file",
    )


def _decode(text: str | bytes) -> str:
    if isinstance(text, bytes):
        try:
            return text.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InputError("INVALID_INPUT", "file", f"not UTF-8 text: {exc}") from None
    return text


def import_text(
    text: str | bytes, format: str | None = None, label: str = "", limit: int | None = MAX_BYTES
) -> ImportResult:
    """Import one document's content. Raises InputError for an unreadable or oversized one."""
    if limit is not None and len(text) > limit:
        raise InputError("LIMIT_EXCEEDED", "file", f"larger than {limit} bytes", limit)
    text = _decode(text)
    if format is not None and format not in FORMATS:
        raise InputError("INVALID_INPUT", "format", f"expected one of {list(FORMATS)}")
    chosen = detect(text)
    try:
        if chosen == battlescribe.FORMAT:
            if format is not None and format != chosen:
                raise ValueError(f"format {format!r} was named, but the document is XML")
            return battlescribe.import_xml(text, label)
        data = json.loads(text.lstrip("\ufeff"))
        if format is not None and format != ktdash.detect_shape(data):
            found = ktdash.detect_shape(data)
            raise ValueError(f"format {format!r} was named, but the document is {found!r}")
        return ktdash.import_json(data)
    except ValueError as exc:  # JSONDecodeError, XML errors, unknown shapes, refused documents
        raise InputError("INVALID_INPUT", "file", str(exc)) from None
    except RecursionError:
        raise InputError("INVALID_INPUT", "file", "nested too deeply") from None


def graph_size(documents: list[tuple[str, str | bytes]]) -> GraphSize:
    """The size of an upload of `(name, content)` files in a cost model's terms: its bytes,
    and the nodes and edges of its link graph once parsed (XML and JSON parsing are C, a
    small part of an import's cost): the BattleScribe files together as the game systems
    they form, each JSON file's kill teams, operatives, weapons and profiles. Raises
    InputError for a document that cannot be parsed, as importing it would."""
    size = sum(len(content) for _, content in documents)
    nodes = edges = 0
    xml = []
    for name, content in documents:
        text = _decode(content)
        try:
            if detect(text) == battlescribe.FORMAT:
                xml.append(battlescribe.Document(name, battlescribe.parse_document(text)))
                continue
            found = ktdash.graph_size(json.loads(text.lstrip("\ufeff")))
        except ValueError as exc:
            raise InputError("INVALID_INPUT", "file", f"{name}: {exc}") from None
        except RecursionError:
            raise InputError("INVALID_INPUT", "file", f"{name}: nested too deeply") from None
        nodes, edges = nodes + found[0], edges + found[1]
    links = battlescribe.graph_size(xml)
    return GraphSize(size, nodes + links.nodes, edges + links.edges)


def _read(path: Path) -> str:
    try:
        return _decode(path.read_bytes())
    except OSError as exc:
        raise InputError("INVALID_INPUT", "file", f"{path}: {exc.strerror or exc}") from None


def _game_systems(directory: Path) -> list[ImportResult]:
    """Every game system of a directory (`game_systems` of its `.gst` and `.cat` files)."""
    files = sorted(p for p in directory.iterdir() if p.suffix in (".gst", ".cat"))
    if not files:
        raise InputError("INVALID_INPUT", "file", f"{directory}: no .gst or .cat files")
    return game_systems([(path.name, _read(path)) for path in files], f"{directory}/")


def game_systems(documents: list[tuple[str, str]], where: str = "") -> list[ImportResult]:
    """BattleScribe documents (name, XML) as game systems: each `.gst` with the catalogues
    naming it (a catalogue whose game system is absent is read on its own, its links then
    reported). A directory and an upload of several files are read alike."""
    groups: dict[str, list[battlescribe.Document]] = {}
    for name, text in documents:
        try:
            root = battlescribe.parse_document(text)
        except ValueError as exc:
            raise InputError("INVALID_INPUT", "file", f"{where}{name}: {exc}") from None
        doc = battlescribe.Document(name, root)
        system = root.get("id", "") if doc.is_game_system else root.get("gameSystemId", "")
        groups.setdefault(system, []).append(doc)
    # the game system first in each group, so links to its shared entries resolve the same
    ordered = [sorted(docs, key=lambda d: not d.is_game_system) for docs in groups.values()]
    return [battlescribe.import_system(docs) for docs in ordered]


def import_path(path: Path) -> list[ImportResult]:
    """A file (one result) or a BattleScribe directory (one result per game system)."""
    if path.is_dir():
        return _game_systems(path)
    if not path.exists():
        raise InputError("INVALID_INPUT", "file", f"{path}: no such file or directory")
    return [import_text(_read(path), label=path.name, limit=None)]


def import_documents(
    documents: list[tuple[str, str | bytes]], format: str | None = None
) -> list[tuple[str, ImportResult]]:
    """Several uploaded files, each `(name, content)`, read as `killmath import` reads the
    files of a directory: the XML ones together as BattleScribe game systems (links resolve
    across them), each JSON one on its own. Answers `(source, result)` pairs in order: a
    game system's source is its files' names joined by commas."""
    texts = [(name, _decode(content)) for name, content in documents]
    is_xml = [detect(text) == battlescribe.FORMAT for _, text in texts]
    out = [(n, import_text(t, format, n)) for (n, t), x in zip(texts, is_xml, strict=True) if not x]
    xml = [doc for doc, x in zip(texts, is_xml, strict=True) if x]
    if xml:
        if format is not None and format != battlescribe.FORMAT:
            raise InputError("INVALID_INPUT", "format", f"format {format!r}, but XML files came")
        names = ", ".join(n for n, _ in xml)
        out += [(names, result) for result in game_systems(xml)]
    return out
