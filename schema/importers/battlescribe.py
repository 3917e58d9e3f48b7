"""BattleScribe data: a game system (`.gst`) and its catalogues (`.cat`, one per kill team),
read with the standard library's ElementTree.

BattleScribe reuses entries by reference, across files: an operative's `entryLink` may name
a selection entry of another catalogue of the same game system (Inquisitorial Agents link
Imperial Navy Breachers' and Kasrkin's weapons), an `infoLink` a shared profile of the
`.gst`. So every file of the system is indexed first, and links resolve against all of
them; a link whose target no file defines is an `UNRESOLVED_LINK` problem, never a weapon
silently lost.

A kill team is a catalogue. Its operatives are the selection entries it defines that carry
an `Operative` profile, and those its root `entryLinks` bring in from other catalogues. An
operative's weapons are the weapon profiles below it (through links, cycles cut); its
keywords are the names of its category links (in capitals, as datacards print them), less
BattleScribe's structural categories. Ranged or melee comes from the profile type
(`Ranged Weapon`), the datacard glyph before the name (⌖ ranged, ⚔ melee), or, without
either, the weapon's rules (`schema.importers.result.kind_from_rules`). Weapon profiles no
operative reaches (the `.gst`'s grenades) are imported under an operative with an empty name.
Documents with a DOCTYPE are refused outright: data files never have one, and refusing it
rules out entity-expansion attacks on uploads.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass

from schema.catalog.model import WeaponType
from schema.importers import limits
from schema.importers.result import (
    UNRESOLVED_LINK,
    ImportedKillTeam,
    ImportedOperative,
    ImportedProfile,
    ImportResult,
    Problem,
    finish,
    read_profile,
    read_stats,
)

FORMAT = "battlescribe-cat"

_RANGED_MARK = "⌖"
_MELEE_MARK = "⚔"
_ENTRY_TAGS = frozenset({"selectionEntry", "selectionEntryGroup"})
_LINK_TAGS = frozenset({"entryLink", "infoLink"})
_CHILD_LISTS = frozenset(
    {"selectionEntries", "selectionEntryGroups", "entryLinks", "profiles", "infoLinks"}
)
# categories every operative of every team has: roster structure, not datacard keywords
_STRUCTURAL = frozenset({"OPERATIVE", "CONFIGURATION", "REFERENCE"})
_STAT_ALIASES = {"M": "MOVE", "SV": "SAVE", "W": "WOUNDS"}


class UnsafeDocument(ValueError):
    """The document declares a DOCTYPE or entities."""


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def parse_document(text: str) -> ET.Element:
    """The root of one `.gst` or `.cat`. Raises ValueError if it is not usable XML, or is
    nested deeper than MAX_DEPTH elements (no data file is; nothing here recurses, but a
    bound keeps every later pass over the tree cheap to reason about)."""
    if re.search(r"<!\s*(DOCTYPE|ENTITY)", text, re.IGNORECASE):
        raise UnsafeDocument("documents with a DOCTYPE or entities are not accepted")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ValueError(f"not valid XML: {exc}") from None
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        if depth > limits.MAX_DEPTH:
            raise ValueError(f"nested too deeply: more than {limits.MAX_DEPTH} levels of elements")
        stack.extend((child, depth + 1) for child in element)
    return root


@dataclass(frozen=True)
class Document:
    """One file of a game system: its label (the file name) and its root element."""

    label: str
    root: ET.Element

    @property
    def is_game_system(self) -> bool:
        return _local(self.root.tag) == "gameSystem"


@dataclass(frozen=True)
class _Operative:
    entry: ET.Element
    name: str
    cells: dict[str, str]


class _System:
    """Every file of one game system, indexed by id, so links resolve across files."""

    def __init__(self, docs: list[Document], problems: list[Problem]) -> None:
        self.docs = docs
        self.problems = problems
        self.entries: dict[str, ET.Element] = {}
        self.profiles: dict[str, ET.Element] = {}
        self.home: dict[int, str] = {}  # element → the label of the file defining it
        self.characteristic_names: dict[str, str] = {}
        self.categories: dict[str, str] = {}
        self._reported: set[tuple[str, str]] = set()
        for doc in docs:
            for el in doc.root.iter():
                tag, ident = _local(el.tag), el.get("id")
                if not ident:
                    continue
                if tag in _ENTRY_TAGS:
                    self.entries.setdefault(ident, el)
                elif tag == "profile":
                    self.profiles.setdefault(ident, el)
                elif tag == "characteristicType":
                    self.characteristic_names[ident] = el.get("name", "")
                elif tag == "categoryEntry":
                    self.categories[ident] = el.get("name", "")
                self.home.setdefault(id(el), doc.label)

    def where(self, el: ET.Element) -> str:
        """`<file>#<id>`: the element where it is defined, whoever links it."""
        return f"{self.home.get(id(el), '')}#{el.get('id', '')}"

    def _unresolved(self, link: ET.Element, owner: ET.Element) -> None:
        key = (link.get("id", ""), link.get("targetId", ""))
        if key in self._reported:
            return
        self._reported.add(key)
        message = (
            f"{_local(link.tag)} {link.get('name', '')!r} names {key[1]!r}, which no "
            "file of the game system defines"
        )
        self.problems.append(Problem(self.where(owner), message, UNRESOLVED_LINK))

    def cells(self, profile: ET.Element) -> dict[str, str]:
        """Characteristic name → text; names come from the element or its type id."""
        out = {}
        for ch in profile.iter():
            if _local(ch.tag) != "characteristic":
                continue
            name = ch.get("name") or self.characteristic_names.get(ch.get("typeId", ""), "")
            out[name.strip().upper()] = (ch.text or "").strip()
        return out

    def own_profiles(self, entry: ET.Element) -> Iterator[ET.Element]:
        """Profiles written in the entry or linked from it with an infoLink."""
        for child in entry:
            tag = _local(child.tag)
            if tag == "profiles":
                yield from (p for p in child if _local(p.tag) == "profile")
            elif tag == "infoLinks":
                for link in child:
                    if link.get("type", "profile") != "profile":
                        continue  # rules and info groups carry no stat line
                    target = self.profiles.get(link.get("targetId", ""))
                    if target is None:
                        self._unresolved(link, entry)
                    else:
                        yield target

    def children(self, entry: ET.Element) -> Iterator[ET.Element]:
        """Nested and linked selection entries."""
        for child in entry:
            if _local(child.tag) not in _CHILD_LISTS:
                continue
            for item in child:
                tag = _local(item.tag)
                if tag in _ENTRY_TAGS:
                    yield item
                elif tag == "entryLink":
                    target = self.entries.get(item.get("targetId", ""))
                    if target is None:
                        self._unresolved(item, entry)
                    else:
                        yield target

    def keywords(self, entry: ET.Element) -> tuple[str, ...]:
        found: list[str] = []
        for child in entry:
            if _local(child.tag) != "categoryLinks":
                continue
            for link in child:
                name = self.categories.get(link.get("targetId", ""), "") or link.get("name", "")
                name = name.strip().upper()
                if name and name not in _STRUCTURAL and name not in found:
                    found.append(name)
        return tuple(found)


def _is_weapon(profile: ET.Element) -> bool:
    return "weapon" in profile.get("typeName", "").lower()


def _is_operative(profile: ET.Element) -> bool:
    return profile.get("typeName", "").strip().lower() == "operative"


def _kind_and_name(profile: ET.Element) -> tuple[WeaponType | None, str]:
    name = profile.get("name", "").strip()
    type_name = profile.get("typeName", "").lower()
    kind: WeaponType | None = None
    if name.startswith(_RANGED_MARK) or "ranged" in type_name:
        kind = "ranged"
    elif name.startswith(_MELEE_MARK) or "melee" in type_name:
        kind = "melee"
    return kind, name.lstrip(_RANGED_MARK + _MELEE_MARK).strip()


def _operative_profile(system: _System, entry: ET.Element) -> ET.Element | None:
    return next((p for p in system.own_profiles(entry) if _is_operative(p)), None)


Weapons = tuple[tuple[ET.Element, str], ...]  # (profile, the entry naming its weapon)


class _Walk:
    """The weapon profiles below each operative, every entry read once and its result reused.

    An entry's weapons are its own weapon profiles, then its children's, in order, each
    profile once (where first met), other operatives' entries left out: what a depth-first
    walk from the entry meets. Walking every path instead costs 2^22 steps for a DAG of
    depth 22, so the weapons are memoised per entry and a sub-tree many entries link is
    walked once. Links may form cycles, where a memo would depend on the path: the entries
    are grouped into strongly connected components (Tarjan's algorithm), each finished
    after every component it reaches; an entry where a walk enters a cycle gets its
    weapons by a walk of its own component, the memos of the components below read as
    they are. That is exactly what the depth-first walk from the operative meets, so the
    result is the one every path gave (identical on the public BSData files). Entries are
    read lazily in the same order as before, so problems are reported as they always were.
    Both walks keep explicit stacks: a 100,000-long chain needs no recursion. Every
    reference followed and every weapon carried up one counts against MAX_WALK_STEPS.
    """

    def __init__(self, system: _System) -> None:
        self.system = system
        self.memo: dict[int, Weapons] = {}
        self.steps = 0
        self._own: dict[int, Weapons] = {}
        self._children: dict[int, list[ET.Element]] = {}
        self._is_operative: dict[int, bool] = {}
        self._index: dict[int, int] = {}
        self._component: dict[int, int] = {}  # entry → its component's number
        self._components_done = 0

    def weapons(self, entry: ET.Element) -> Weapons:
        """The weapons below `entry` (an operative's: its wargear)."""
        if id(entry) not in self._index:
            self._components(entry)
        self._memoise(entry)
        return self.memo[id(entry)]

    def _count(self, steps: int) -> None:
        self.steps += steps
        if self.steps > limits.MAX_WALK_STEPS:
            raise limits.exceeded("steps walking entry links", limits.MAX_WALK_STEPS)

    def _operative(self, entry: ET.Element) -> bool:
        key = id(entry)
        if key not in self._is_operative:
            self._is_operative[key] = _operative_profile(self.system, entry) is not None
        return self._is_operative[key]

    def _read(self, entry: ET.Element) -> Iterator[ET.Element]:
        """The entry's own weapons now, then its children as they are met (once each)."""
        name = entry.get("name", "")
        own = [(p, name) for p in self.system.own_profiles(entry) if _is_weapon(p)]
        self._own[id(entry)] = tuple(own)
        children: list[ET.Element] = []
        self._children[id(entry)] = children
        for child in self.system.children(entry):
            self._count(1)
            if not self._operative(child):  # another operative, not this one's wargear
                children.append(child)
                yield child

    def _components(self, root: ET.Element) -> None:
        """Tarjan's walk from `root`: each component finished as soon as it is complete."""
        low: dict[int, int] = {}
        pending: list[ET.Element] = []  # entries of components not yet finished
        on_pending: set[int] = set()

        def enter(entry: ET.Element) -> Iterator[ET.Element]:
            self._index[id(entry)] = low[id(entry)] = len(self._index)
            pending.append(entry)
            on_pending.add(id(entry))
            return self._read(entry)

        stack = [(root, enter(root))]
        while stack:
            entry, children = stack[-1]
            for child in children:
                if id(child) not in self._index:
                    stack.append((child, enter(child)))
                    break
                if id(child) in on_pending:
                    low[id(entry)] = min(low[id(entry)], self._index[id(child)])
            else:
                stack.pop()
                if stack:
                    parent = id(stack[-1][0])
                    low[parent] = min(low[parent], low[id(entry)])
                if low[id(entry)] == self._index[id(entry)]:
                    component = []
                    while True:
                        member = pending.pop()
                        on_pending.discard(id(member))
                        component.append(member)
                        if member is entry:
                            break
                    self._finish(component)

    def _add(self, found: list[tuple[ET.Element, str]], seen: set[int], weapons: Weapons) -> None:
        """Append the weapons not yet found, in order."""
        self._count(len(weapons))
        for pair in weapons:
            if id(pair[0]) not in seen:
                seen.add(id(pair[0]))
                found.append(pair)

    def _finish(self, component: list[ET.Element]) -> None:
        """Number a complete component, and memoise the entries it links in the components
        below (all complete), so that each memo needs only memos made before it. An entry
        is memoised only where a walk enters its component: a ring of 100,000 entries
        entered at one is walked once, not once from each of its entries."""
        self._components_done += 1
        for member in component:
            self._component[id(member)] = self._components_done
        for member in component:
            for child in self._children[id(member)]:
                if self._component[id(child)] != self._components_done:
                    self._memoise(child)

    def _memoise(self, start: ET.Element) -> None:
        """The weapons below `start`: a walk of its own component, memos past it."""
        if id(start) in self.memo:
            return
        number = self._component[id(start)]
        found: list[tuple[ET.Element, str]] = []
        seen: set[int] = set()
        self._add(found, seen, self._own[id(start)])
        visited = {id(start)}
        stack = [iter(self._children[id(start)])]
        while stack:
            for child in stack[-1]:
                self._count(1)
                if self._component[id(child)] != number:
                    self._add(found, seen, self.memo[id(child)])
                elif id(child) not in visited:  # on a cycle: walk it here
                    visited.add(id(child))
                    self._add(found, seen, self._own[id(child)])
                    stack.append(iter(self._children[id(child)]))
                    break
            else:
                stack.pop()
        self.memo[id(start)] = tuple(found)


def _team_operatives(system: _System, doc: Document) -> list[_Operative]:
    """The catalogue's own operative entries, then those its root entryLinks bring in."""
    entries: list[ET.Element] = [
        el for el in doc.root.iter() if _local(el.tag) in _ENTRY_TAGS
    ]  # fmt: skip
    listed = {id(e) for e in entries}
    for child in doc.root:
        if _local(child.tag) == "entryLinks":
            for link in child:
                target = system.entries.get(link.get("targetId", ""))
                if target is None:
                    system._unresolved(link, doc.root)
                elif id(target) not in listed:
                    listed.add(id(target))
                    entries.append(target)
    found = []
    for entry in entries:
        profile = _operative_profile(system, entry)
        if profile is not None:
            found.append(_Operative(entry, profile.get("name", "").strip(), system.cells(profile)))
    return found


def _profile(
    system: _System, profile: ET.Element, weapon: str, owner: str, problems: list[Problem]
) -> ImportedProfile | None:
    kind, name = _kind_and_name(profile)
    cells = system.cells(profile)
    wr = cells.get("WR", "")
    where = f"{system.where(profile)} ({owner}/{name})" if owner else system.where(profile)
    try:
        return read_profile(
            name,
            kind,
            cells.get("ATK"),
            cells.get("HIT"),
            cells.get("DMG"),
            "" if wr == "-" else wr,
            profile.get("id", ""),
            where,
            weapon,
        )
    except ValueError as exc:
        problems.append(Problem(where, f"{name}: {exc}"))
        return None


def _weapons(
    system: _System, weapons: Weapons, owner: str, problems: list[Problem]
) -> tuple[ImportedProfile, ...]:
    out = (_profile(system, p, weapon, owner, problems) for p, weapon in weapons)
    return tuple(p for p in out if p is not None)


def import_system(docs: list[Document]) -> ImportResult:
    """Import a game system: every catalogue a kill team, links resolved across all files."""
    problems: list[Problem] = []
    limits.check(graph_size(docs))
    system = _System(docs, problems)
    walk = _Walk(system)
    reached: set[int] = set()
    lines = 0
    operatives: list[ImportedOperative] = []
    teams = [d for d in docs if not d.is_game_system] or docs
    for doc in teams:
        team = ImportedKillTeam(doc.root.get("id", ""), doc.root.get("name", ""))
        for op in _team_operatives(system, doc):
            weapons = walk.weapons(op.entry)
            lines += len(weapons)
            if lines > limits.MAX_PROFILES:
                raise limits.exceeded("weapon profile lines", limits.MAX_PROFILES)
            reached.update(id(p) for p, _ in weapons)
            where = system.where(op.entry)
            cells = {_STAT_ALIASES.get(k, k): v for k, v in op.cells.items()}
            operatives.append(
                ImportedOperative(
                    name=op.name,
                    stats=read_stats(dict(cells), problems, where),
                    keywords=system.keywords(op.entry),
                    profiles=_weapons(system, weapons, op.name, problems),
                    source_id=op.entry.get("id", ""),
                    kill_team=team,
                    where=where,
                )
            )
    weapons = [
        p for d in docs for p in d.root.iter() if _local(p.tag) == "profile" and _is_weapon(p)
    ]
    loose = tuple((p, "") for p in weapons if id(p) not in reached)
    if loose:
        team = ImportedKillTeam(docs[0].root.get("id", ""), docs[0].root.get("name", ""))
        profiles = _weapons(system, loose, "", problems)
        operatives.append(ImportedOperative("", profiles=profiles, kill_team=team))
    name = ", ".join(d.root.get("name", "") for d in teams if d.root.get("name"))
    return finish(FORMAT, name, operatives, problems, len(weapons))


def graph_size(docs: list[Document], size: int = 0) -> limits.GraphSize:
    """The link graph of a game system's files, counted in one pass over the parsed trees:
    nodes are its selection entries and profiles, edges every reference an entry may
    follow (entry and info links, entries and profiles written inside entries). `size` is
    the documents' bytes, which the caller knows."""
    nodes = edges = 0
    for doc in docs:
        for el in doc.root.iter():
            tag = _local(el.tag)
            if tag in _ENTRY_TAGS or tag == "profile":
                nodes += 1
                edges += 1
            elif tag in _LINK_TAGS:
                edges += 1
    return limits.GraphSize(size, nodes, edges)


def import_xml(text: str, label: str = "") -> ImportResult:
    """Import the text of one `.cat` (or `.gst`) file on its own."""
    return import_system([Document(label, parse_document(text))])
