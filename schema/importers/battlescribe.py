"""BattleScribe `.cat` XML: operatives and their weapon profiles (characteristics ATK, HIT,
DMG, WR), read with the standard library's ElementTree.

BattleScribe data reuses entries by reference, so the walk follows `entryLink`s to shared
selection entries and `infoLink`s to shared profiles. An operative is any selection entry
with an `Operative` profile; its weapons are the weapon profiles found below it. Weapon
profiles no operative reaches are still imported, under an operative with an empty name.
Ranged or melee comes from the profile type (`Ranged Weapon`) or the datacard symbols that
prefix the name (⌖ ranged, ⚔ melee). Documents with a DOCTYPE are refused outright: catalogue
files never have one, and refusing it rules out entity-expansion attacks on uploads.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field

from schema.importers.result import (
    ImportedOperative,
    ImportedProfile,
    ImportResult,
    Problem,
    WeaponType,
    read_profile,
    read_stats,
)

FORMAT = "battlescribe-cat"

_RANGED_MARK = "⌖"
_MELEE_MARK = "⚔"
_ENTRY_TAGS = frozenset({"selectionEntry", "selectionEntryGroup"})
_CHILD_LISTS = frozenset(
    {"selectionEntries", "selectionEntryGroups", "entryLinks", "profiles", "infoLinks"}
)


class UnsafeDocument(ValueError):
    """The document declares a DOCTYPE or entities."""


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


@dataclass
class _Operative:
    name: str
    cells: dict[str, str]
    weapons: list[ET.Element] = field(default_factory=list)


class _Document:
    def __init__(self, root: ET.Element) -> None:
        self.root = root
        self.entries: dict[str, ET.Element] = {}
        self.profiles: dict[str, ET.Element] = {}
        self.characteristic_names: dict[str, str] = {}
        for el in root.iter():
            tag, ident = _local(el.tag), el.get("id")
            if tag in _ENTRY_TAGS and ident:
                self.entries[ident] = el
            elif tag == "profile" and ident:
                self.profiles[ident] = el
            elif tag == "characteristicType" and ident:
                self.characteristic_names[ident] = el.get("name", "")

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
                    target = self.profiles.get(link.get("targetId", ""))
                    if target is not None and link.get("type", "profile") == "profile":
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
                    if target is not None:
                        yield target


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


def _collect(doc: _Document) -> tuple[list[_Operative], list[ET.Element]]:
    """Operatives with the weapon profiles below each, and the weapons no operative reaches."""
    operatives: dict[int, _Operative] = {}
    reached: set[int] = set()

    def walk(entry: ET.Element, owner: _Operative | None, path: set[int]) -> None:
        if id(entry) in path:  # a link cycle
            return
        path = path | {id(entry)}
        for profile in doc.own_profiles(entry):
            if _is_operative(profile) and owner is None:
                owner = operatives.setdefault(
                    id(entry), _Operative(profile.get("name", "").strip(), doc.cells(profile))
                )
        for profile in doc.own_profiles(entry):
            if _is_weapon(profile) and owner is not None and profile not in owner.weapons:
                owner.weapons.append(profile)
                reached.add(id(profile))
        for child in doc.children(entry):
            walk(child, owner, path)

    for entry in doc.entries.values():
        if any(_is_operative(p) for p in doc.own_profiles(entry)):
            walk(entry, None, set())
    loose = [
        p for p in doc.root.iter()
        if _local(p.tag) == "profile" and _is_weapon(p) and id(p) not in reached
    ]  # fmt: skip
    return list(operatives.values()), loose


_STAT_ALIASES = {"M": "MOVE", "SV": "SAVE", "W": "WOUNDS"}


def _operative_cells(cells: dict[str, str]) -> dict[str, object]:
    """Operative characteristics under their KT2024 names (older files write M, SV, W)."""
    return {_STAT_ALIASES.get(k, k): v for k, v in cells.items()}


def _profiles(
    doc: _Document, weapons: list[ET.Element], where: str, problems: list[Problem]
) -> tuple[ImportedProfile, ...]:
    out = []
    for profile in weapons:
        kind, name = _kind_and_name(profile)
        cells = doc.cells(profile)
        wr = cells.get("WR", "")
        try:
            out.append(read_profile(name, kind, cells.get("ATK"), cells.get("HIT"),
                                    cells.get("DMG"), "" if wr == "-" else wr))  # fmt: skip
        except ValueError as exc:
            problems.append(Problem(f"{where}/{name}", str(exc)))
    return tuple(out)


def import_xml(text: str) -> ImportResult:
    """Import the text of a `.cat` file. Raises ValueError if it is not usable XML."""
    if re.search(r"<!\s*(DOCTYPE|ENTITY)", text, re.IGNORECASE):
        raise UnsafeDocument("documents with a DOCTYPE or entities are not accepted")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ValueError(f"not valid XML: {exc}") from None
    doc = _Document(root)
    problems: list[Problem] = []
    found, loose = _collect(doc)
    operatives = []
    for op in found:
        where = op.name or "operative"
        operatives.append(
            ImportedOperative(
                name=op.name,
                stats=read_stats(_operative_cells(op.cells), problems, where),
                profiles=_profiles(doc, op.weapons, where, problems),
            )
        )
    if loose:
        operatives.append(ImportedOperative("", profiles=_profiles(doc, loose, "", problems)))
    if not operatives:
        problems.append(Problem("", "no Operative or weapon profiles found"))
    return ImportResult(FORMAT, root.get("name", ""), tuple(operatives), tuple(problems))
