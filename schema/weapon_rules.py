"""Weapon-rule strings ⇄ engine attacker fields (issue 5).

List builders hold weapons as text — `"Range 8", Hot, Lethal 5+, Piercing 1"` — and the
engine wants fields (`lethal: 5`, `piercing: 1`). `parse_rules` reads such text, tolerant of
case, spacing, stray quotes and the common abbreviations (`Prc1`, `Dev2`, `Bal`, ...), and
sorts every rule into three buckets so nothing is ever silently dropped:

* `fields` — engine attacker/fighter fields under their API names (kt2024.md §2.1, §2.2;
  `brutal` and `shock` exist in fights only, `for_shooting`/`for_fighting` pick per mode);
* `noNumericEffect` — recognised rules that cannot change a single-target result (`Hot`,
  `Range 8"`, `Torrent 1"`, ...), in canonical spelling. A distance Devastating
  (`1" Devastating 2`) is the one rule in two buckets: Devastating 2 for the target in
  `fields`, the whole rule here, because its reach to other operatives is out of scope;
* `unknown` — everything else, as written. A recognised rule with a bad value (`Lethal 7+`,
  `Piercing x`) or one that contradicts an earlier rule (`Piercing 1, Piercing 2`) is also
  listed in `unknown`, and `malformed` says why.

`format_rules` writes fields (and no-effect rules) back as canonical text, so that
`parse_rules(format_rules(...))` gives back the same fields.

Re-roll rules combine into the single `reroll` field [choice, documented here and tested]:
Balanced + Ceaseless ⇒ CEASELESS_AND_BALANCED (spec §4.3, decision 25); Relentless with
anything ⇒ RELENTLESS, because re-rolling every fail already does all the others would.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from engine.errors import InputError

FieldValue = int | bool | str
INCH = '"'


@dataclass(frozen=True)
class _Numeric:
    """A rule with a number: `Piercing 1`, `Lethal 5+`. Bounds are the engine's (§2.1, §12)."""

    field: str
    canonical: str
    low: int
    high: int
    plus: bool = False  # written with a trailing '+' (`Lethal 5+`)

    def text(self, value: int) -> str:
        return f"{self.canonical} {value}{'+' if self.plus else ''}"


@dataclass(frozen=True)
class _Distance:
    """A no-effect rule with a distance or count: `Range 8"`, `Limited 1`."""

    canonical: str
    inches: bool

    def text(self, value: int) -> str:
        return f"{self.canonical} {value}{INCH if self.inches else ''}"


NUMERIC: dict[str, _Numeric] = {
    "accurate": _Numeric("accurate", "Accurate", 0, 20),
    "devastating": _Numeric("devastating", "Devastating", 0, 10),
    "lethal": _Numeric("lethal", "Lethal", 2, 6, plus=True),
    "piercing": _Numeric("piercing", "Piercing", 0, 9),
    "piercingCrits": _Numeric("piercingCrits", "Piercing Crits", 0, 9),
}

# boolean engine fields, by canonical rule name
FLAGS: dict[str, str] = {
    "Brutal": "brutal",
    "Punishing": "punishing",
    "Rending": "rending",
    "Saturate": "saturate",
    "Severe": "severe",
    "Shock": "shock",
}

REROLLS = ("Balanced", "Ceaseless", "Relentless")

DISTANCES: dict[str, _Distance] = {
    "Range": _Distance("Range", inches=True),
    "Blast": _Distance("Blast", inches=True),
    "Torrent": _Distance("Torrent", inches=True),
    "Limited": _Distance("Limited", inches=False),
}


# Aliases: lower-case, spaces removed. Each maps to a canonical rule name.
_ALIASES: dict[str, str] = {
    "accurate": "accurate", "acc": "accurate",
    "devastating": "devastating", "dev": "devastating",
    "lethal": "lethal",
    "piercing": "piercing", "prc": "piercing", "p": "piercing",
    "piercingcrits": "piercingCrits", "piercingcrit": "piercingCrits",
    "prccrits": "piercingCrits", "prccrit": "piercingCrits",
    "balanced": "Balanced", "bal": "Balanced",
    "ceaseless": "Ceaseless", "cea": "Ceaseless",
    "relentless": "Relentless", "rel": "Relentless",
    "brutal": "Brutal", "brut": "Brutal",
    "punishing": "Punishing", "pun": "Punishing",
    "rending": "Rending", "rend": "Rending",
    "saturate": "Saturate", "sat": "Saturate",
    "severe": "Severe", "sev": "Severe",
    "shock": "Shock",
    "range": "Range", "rng": "Range",
    "blast": "Blast",
    "torrent": "Torrent",
    "limited": "Limited", "lim": "Limited",
    "heavy": "Heavy", "hvy": "Heavy",
    "hot": "Hot",
    "silent": "Silent", "sil": "Silent",
    "seek": "Seek",
    "seeklight": "Seek Light",
    "stun": "Stun",
    "concealedposition": "Concealed Position", "concealed": "Concealed Position",
    "tor": "Torrent",  # ktdash and killteamjson: `Tor 2"`
    "psychic": "PSYCHIC",  # a weapon keyword other rules refer to (Anti-PSYKER, ...)
}  # fmt: skip

# Longest alias first, so `piercingcrits` wins over `piercing` and `prccrit` over `prc`;
# each alias matches with any spacing between its letters (`Piercing  Crits`, `Dev2`).
_ALIAS_PATTERNS = [
    (re.compile(r"\s*".join(re.escape(ch) for ch in alias)), _ALIASES[alias])
    for alias in sorted(_ALIASES, key=len, reverse=True)
]

# Separators between rules. Commas inside `Heavy (Dash only, ...)` stay inside the parentheses.
_SPLIT = re.compile(r"[,;·•|\n]")
# The marks datacards put beside a rule the kill team's own rules clarify (`*Concealed
# Position`, `Torrent 0"*`, `Blaze†`), and markdown emphasis (`**PSYCHIC**`).
_MARKERS = "*†‡'"
_QUOTES = str.maketrans({"“": '"', "”": '"', "″": '"', "‘": "'", "’": "'", "＂": '"'})
_SPLASH = re.compile(r'(\d+)\s*"\s*(.+)')  # a distance before the rule: 1" Devastating 2
_HEAVY = re.compile(r"^\(?\s*(?P<what>[a-z ]*?)\s*(?:only)?\s*\)?$")

_REROLL_FIELD: dict[frozenset[str], str] = {
    frozenset({"Balanced"}): "BALANCED",
    frozenset({"Ceaseless"}): "CEASELESS",
    frozenset({"Balanced", "Ceaseless"}): "CEASELESS_AND_BALANCED",
}
_REROLL_TEXT: dict[str, tuple[str, ...]] = {
    "BALANCED": ("Balanced",),
    "CEASELESS": ("Ceaseless",),
    "RELENTLESS": ("Relentless",),
    "CEASELESS_AND_BALANCED": ("Balanced", "Ceaseless"),
}

# fields a shooting attacker has but a fighter has not, and the reverse (§2.2)
SHOOT_ONLY = frozenset({"devastating", "piercing", "piercingCrits", "saturate"})
FIGHT_ONLY = frozenset({"brutal", "shock"})


@dataclass(frozen=True)
class Malformed:
    """A recognised rule whose value is missing, out of range or contradicts an earlier one."""

    text: str
    rule: str
    message: str

    def as_json(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class ParsedRules:
    """The three buckets of issue 5 (plus the reasons for malformed rules)."""

    fields: dict[str, FieldValue] = field(default_factory=dict)
    no_numeric_effect: tuple[str, ...] = ()
    unknown: tuple[str, ...] = ()
    malformed: tuple[Malformed, ...] = ()

    @property
    def understood(self) -> bool:
        """True when every rule was turned into fields or recognised as having no effect."""
        return not self.unknown

    @property
    def team_rules(self) -> tuple[str, ...]:
        """Unknown rules written with a team-rule mark (`*Poison`, `Blaze*`): a kill team's
        own rules, defined on its rules card, which no core-rules engine can apply."""
        return tuple(u for u in self.unknown if marked(u))

    def as_json(self) -> dict[str, Any]:
        return {
            "fields": dict(self.fields),
            "noNumericEffect": list(self.no_numeric_effect),
            "unknown": list(self.unknown),
            "malformed": [m.as_json() for m in self.malformed],
        }


class _BadValue(ValueError):
    """A recognised rule with a value that cannot be used; the message says why."""


def split_rules(text: str) -> list[str]:
    """Split a weapon-rules string into single rules, keeping parenthesised commas together.

    An unclosed parenthesis would swallow every later rule into one unknown item, so then
    the text is split on every separator instead.
    """
    items, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and _SPLIT.match(ch):
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    if depth:
        items = _SPLIT.split(text)
    # a datacard prints '-' for "no rules"
    return [item for item in (_clean(i) for i in items) if item.strip("-–—")]


def _clean(item: str) -> str:
    """Trim whitespace and the quotes a WR cell wraps around itself (`"Range 8", Hot"`)."""
    item = item.translate(_QUOTES).strip()
    item = item.lstrip("\"'").strip()
    return re.sub(r"\s+", " ", item[: _unquoted_end(item)])


def _unquoted_end(item: str) -> int:
    """Where `item` ends without its closing quotes: a trailing quote after a number is an
    inch mark, which only distance rules keep; any other trailing quote closes the cell.

    One walk back from the end, so a run of quotes costs its length, not its square."""
    end = len(item)
    while end and item[end - 1] in "'\"":
        before = end - 1
        while before and item[before - 1].isspace():
            before -= 1
        if item[end - 1] == '"' and before and item[before - 1].isdecimal():
            break
        end = before
    return end


def _identify(item: str) -> tuple[str, str] | None:
    """(canonical rule name, the argument after it), or None for an unknown rule.

    The name must be followed by the end, a space, a digit or punctuation: `Pun` is Punishing,
    never `P` with argument `un`, and `Devastating` is not `Dev` + `astating`.
    """
    lowered = item.lower()
    for pattern, rule in _ALIAS_PATTERNS:
        m = pattern.match(lowered)
        if m is None:
            continue
        rest = item[m.end() :]
        if rest and rest[0].isalpha():
            continue
        return rule, rest.strip()
    return None


def _number(arg: str, allow_plus: bool, inches: bool) -> int:
    """The integer of a rule argument: '5+' (Lethal), '8"' (Range), '1'."""
    pattern = r"(\d+)"
    if allow_plus:
        pattern += r"\s*\+?"
    # an inch mark on a distance, or the closing quote of a WR cell on anything else
    pattern += r"\s*(?:\"|in(?:ch(?:es)?)?)?" if inches else r"\s*\"?"
    m = re.fullmatch(pattern, arg)
    if m is None:
        raise _BadValue(f"expected a number, got {arg!r}" if arg else "a number is required")
    return int(m.group(1))


def _heavy(arg: str) -> str:
    """`Heavy`, `Heavy (Dash only)`, `Heavy (Reposition only)` in canonical spelling."""
    if not arg:
        return "Heavy"
    m = _HEAVY.fullmatch(arg.lower())
    if m is None or not m.group("what"):
        raise _BadValue(f"expected '(Dash only)' or similar, got {arg!r}")
    return f"Heavy ({m.group('what').strip().capitalize()} only)"


class _Collector:
    """Accumulates one string's rules, rejecting contradictions rather than picking one."""

    def __init__(self, report: bool = True) -> None:
        self.report = report  # False: only the buckets, no typo or run-together hints
        self.fields: dict[str, FieldValue] = {}
        self.sources: dict[str, str] = {}
        self.rerolls: set[str] = set()
        self.no_effect: dict[str, None] = {}  # an ordered set: each rule once, in order
        self.unknown: list[str] = []
        self.malformed: list[Malformed] = []

    def bad(self, item: str, rule: str, message: str) -> None:
        self.unknown.append(item)
        self.malformed.append(Malformed(item, rule, message))

    def set_field(self, item: str, rule: str, name: str, value: FieldValue) -> None:
        if name in self.fields and self.fields[name] != value:
            earlier = self.sources[name]
            self.bad(item, rule, f"contradicts the earlier {earlier!r}")
            return
        self.fields[name] = value
        self.sources.setdefault(name, item)

    def add(self, item: str) -> None:
        """One rule as written. A team-rule mark beside a known rule is not part of its name
        (`*Torrent 0"` is Torrent 0"); an unknown rule is kept verbatim, mark included."""
        bare = unmarked(item)
        splash = _SPLASH.fullmatch(bare)
        after = _identify(splash.group(2)) if splash else None
        if splash and after and after[0] == "devastating":
            self._splash(item, int(splash.group(1)), after[1])
            return
        found = _identify(bare)
        if found is None:
            self.unknown.append(item)
            if bare == item and self.report:
                self._typo(item)
            return
        rule, arg = found
        try:
            self._add_known(item, rule, arg)
        except _BadValue as exc:
            self.unknown.append(item)
            if not (self.report and self._run_together(item)):
                name = NUMERIC[rule].canonical if rule in NUMERIC else rule
                self.malformed.append(Malformed(item, name, str(exc)))

    def _add_known(self, item: str, rule: str, arg: str) -> None:
        if rule in NUMERIC:
            spec = NUMERIC[rule]
            value = _number(arg, allow_plus=spec.plus, inches=False)
            if not spec.low <= value <= spec.high:
                raise _BadValue(f"must be between {spec.low} and {spec.high}")
            self.set_field(item, spec.canonical, spec.field, value)
        elif rule in DISTANCES:
            spec_d = DISTANCES[rule]
            self._no_effect(spec_d.text(_number(arg, allow_plus=False, inches=spec_d.inches)))
        elif rule == "Heavy":
            self._no_effect(_heavy(arg))
        elif arg:
            raise _BadValue(f"{rule} takes no value, got {arg!r}")
        elif rule in FLAGS:
            self.set_field(item, rule, FLAGS[rule], True)
        elif rule in REROLLS:
            self.rerolls.add(rule)
        else:
            self._no_effect(rule)

    def _run_together(self, item: str) -> bool:
        """`Lethal 5+ Piercing 1`: reported as two rules missing their comma, not split."""
        joined = _joined(item)
        if joined is not None:
            first, second = joined
            message = f"two rules without a separator? {first!r} and {second!r}"
            self.malformed.append(Malformed(item, "", message))
        return joined is not None

    def _typo(self, item: str) -> None:
        """An unmarked unknown rule that looks like a known one is reported with what it
        resembles; it is never corrected, since a wrong guess would change the numbers."""
        if self._run_together(item):
            return
        lowered = item.lower()
        end = len(lowered)
        while end and (lowered[end - 1].isdecimal() or lowered[end - 1] in _NAME_TAIL):
            end -= 1
        name = lowered[:end].replace(" ", "")
        if not 4 <= len(name) <= _LONGEST_NAME * 2:
            return  # far longer than any rule name: nothing it could be a typo of
        close = difflib.get_close_matches(name, _NAMES, n=1, cutoff=0.8)
        if close:
            rule = _NAMES[close[0]]
            self.malformed.append(
                Malformed(item, rule, f"not a known rule; did you mean {rule}? (not corrected)")
            )

    def _splash(self, item: str, inches: int, arg: str) -> None:
        """`1" Devastating 2`: the target takes Devastating 2 like any other; the distance only
        adds other operatives, outside a single-target engine, so the whole rule is also kept
        under noNumericEffect (which lets `format_rules` write it back as it was)."""
        try:
            value = _number(arg, allow_plus=False, inches=False)
        except _BadValue as exc:
            self.bad(item, "Devastating", str(exc))
            return
        spec = NUMERIC["devastating"]
        if not spec.low <= value <= spec.high:
            self.bad(item, "Devastating", f"must be between {spec.low} and {spec.high}")
            return
        self.set_field(item, "Devastating", "devastating", value)
        if self.fields.get("devastating") == value:
            self._no_effect(f'{inches}" {spec.text(value)}')

    def _no_effect(self, text: str) -> None:
        self.no_effect.setdefault(text)

    def result(self) -> ParsedRules:
        if self.rerolls:
            if "Relentless" in self.rerolls:
                self.fields["reroll"] = "RELENTLESS"
            else:
                self.fields["reroll"] = _REROLL_FIELD[frozenset(self.rerolls)]
        return ParsedRules(
            fields=dict(sorted(self.fields.items())),
            no_numeric_effect=tuple(self.no_effect),
            unknown=tuple(self.unknown),
            malformed=tuple(self.malformed),
        )


def unmarked(item: str) -> str:
    """The rule without the marks a datacard sets beside it (`*`, `†`, `'`, `**bold**`)."""
    return item.strip(_MARKERS + " ").strip()


def marked(item: str) -> bool:
    """True for a rule written with a team-rule mark: `*Poison`, `Blaze*`."""
    return unmarked(item) != item.strip()


_NAME_TAIL = ' "+()'  # what a typo's name is read without, with the digits (`Lethl 5+`)

# every alias and canonical name of four letters or more, for typo reports
_NAMES: dict[str, str] = {
    alias: (NUMERIC[rule].canonical if rule in NUMERIC else rule)
    for alias, rule in _ALIASES.items()
    if len(alias) >= 4
}
_LONGEST_NAME = max(map(len, _NAMES))


_JOIN_CUTS = 4
"""Cuts `_joined` tries at most, each where a known rule's name starts a word. A hint costs
a few parses of the item however many words it has: trying every cut with a full parse
of each half (which looked for hints in turn) was exponential in the words of one item."""
_NAME_HEAD = 40  # characters enough to read any rule's name (`Concealed Position`)


def _joined(item: str) -> tuple[str, str] | None:
    """`Lethal 5+ Piercing 1`: two known rules run together without a separator."""
    words = item.split(" ")
    starts = (
        cut
        for cut in range(1, len(words))
        if _starts_rule(" ".join(words[cut : cut + 3])[:_NAME_HEAD])
    )
    for cut in itertools.islice(starts, _JOIN_CUTS):
        first, second = " ".join(words[:cut]), " ".join(words[cut:])
        parts = [_parse(first, report=False), _parse(second, report=False)]
        if all(p.understood and (p.fields or p.no_numeric_effect) for p in parts):
            return first, second
    return None


def _starts_rule(head: str) -> bool:
    """True when `head` begins with a rule's name, as `_Collector.add` would read it (marks,
    quotes and a distance before Devastating left out)."""
    items = split_rules(head)
    bare = unmarked(items[0]) if items else ""
    splash = _SPLASH.fullmatch(bare)
    return _identify(splash.group(2) if splash else bare) is not None


def parse_rules(text: str | Iterable[str]) -> ParsedRules:
    """Parse a weapon-rules string (or a list of single rules) into fields and reports.

    Linear in the text: each rule is split, cleaned and identified by walks of bounded
    passes over it (`benchmarks/bench_weapon_rules.py`); the size of what is accepted is
    capped before this is called (`schema.limits.check_rules_text`)."""
    return _parse(text, report=True)


def _parse(text: str | Iterable[str], report: bool) -> ParsedRules:
    items = (
        split_rules(text)
        if isinstance(text, str)
        else [piece for part in text for piece in split_rules(part)]
    )
    collector = _Collector(report)
    for item in items:
        collector.add(item)
    return collector.result()


def _rule_texts(fields: Mapping[str, FieldValue]) -> list[str]:
    texts = []
    for name, value in fields.items():
        where = f"fields.{name}"
        if name in NUMERIC:
            spec = NUMERIC[name]
            if isinstance(value, bool) or not isinstance(value, int):
                raise InputError("INVALID_INPUT", where, "must be an integer")
            if not spec.low <= value <= spec.high:
                raise InputError(
                    "INVALID_INPUT", where, f"must be between {spec.low} and {spec.high}"
                )
            texts.append(spec.text(value))
        elif name == "reroll":
            if value == "NONE":
                continue
            if value not in _REROLL_TEXT:
                raise InputError(
                    "INVALID_INPUT",
                    where,
                    f"{value!r} has no weapon rule; expected one of {sorted(_REROLL_TEXT)}",
                )
            texts.extend(_REROLL_TEXT[str(value)])
        elif name in FLAGS.values():
            if not isinstance(value, bool):
                raise InputError("INVALID_INPUT", where, "must be a boolean")
            if value:
                texts.append(next(rule for rule, f in FLAGS.items() if f == name))
        else:
            raise InputError("INVALID_INPUT", where, "not a weapon-rule field")
    return texts


def format_rules(fields: Mapping[str, FieldValue], no_numeric_effect: Iterable[str] = ()) -> str:
    """Canonical text: `Range` first (as on datacards), then every other rule alphabetically.

    Fields at their engine default are still written when present (`Lethal 6+`), so the
    text says what the caller gave; absent fields are not written.
    """
    texts = _rule_texts(fields)
    extra = list(dict.fromkeys(no_numeric_effect))
    # a distance Devastating (`1" Devastating 2`) already says "Devastating 2"
    splash = [t for t in extra if _SPLASH.fullmatch(t)]
    texts = [t for t in texts if not any(s.endswith(f'" {t}') for s in splash)]
    ranged = sorted(t for t in extra if t.startswith("Range "))
    rest = sorted({*texts, *(t for t in extra if not t.startswith("Range "))})
    return ", ".join([*ranged, *rest])


def for_shooting(fields: Mapping[str, FieldValue]) -> dict[str, FieldValue]:
    """The fields a shooting attacker takes: Brutal and Shock only act in a fight."""
    return {k: v for k, v in fields.items() if k not in FIGHT_ONLY}


def for_fighting(fields: Mapping[str, FieldValue]) -> dict[str, FieldValue]:
    """The fields a fighter takes: Devastating, Piercing (Crits) and Saturate act on defence
    dice and cover, which a fight has none of (§2.2), so they cannot change a fight."""
    return {k: v for k, v in fields.items() if k not in SHOOT_ONLY}
