"""Every tactical moment of a fight's alternation (F4) at once: what each action does there.

Within a sequence, what an action does to the unresolved successes and flags, and its damage,
never depend on the wounds (§9.3, §9.4). The tactical part of a moment (both fighters'
unresolved successes and the flags their rules read, without the relic bookkeeping no decision
looks at, §9.6; and whose turn it is) is a point of a product space (its key). Most of that
space no sequence reaches, so the moments reachable from every opening are found by running
the strike and parry rules on whole frontiers of them as numpy arrays, then numbered densely
in the order of their keys. The §9.5 decisions (`kernels.decide`) only look numbers up.

The rules here are all of §9.3 (S1–S11, Relics and Feel No Pain as outcome slots with their
odds) and §9.4, written once over arrays, with what §9.5 asks about a moment (wiseParry, D4's
last block). F3's Duelist parries are table moves too (`sequence.Sequence.duel`). The
die-by-die oracle they are checked against is `tests/kt2024_fight_oracle.py`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from functools import cached_property, lru_cache
from math import prod
from operator import itemgetter
from typing import Any, NamedTuple

import numpy as np

from . import budgets
from .allocation import durable_applies
from .damage import RELIC_IGNORE, feel_no_pain_faces
from .fighter import Fighter
from .precision import Odds, odds_of
from .scenario import AttackDice
from .shoot import MAX_RELIC_IGNORES

CRIT_STRIKE, NORMAL_STRIKE, CRIT_PARRY, NORMAL_PARRY = range(4)
"""The action codes, in the tie-break order of §9.8 O4."""
PARRIES = (CRIT_PARRY, NORMAL_PARRY)
NONE = -1
"""No action: where an action is not useful (`next`) or a fighter has no such parry (`wise`,
`block`)."""

RELIC_ODDS: dict[str, tuple[Odds, Odds]] = {
    relic: (odds_of(p), odds_of(1 - p)) for relic, p in RELIC_IGNORE.items()
}
"""S8's Relic die (or dice): (ignored, kept) as odds a / 6**d."""


def strike_dice(fighters: tuple[Fighter, Fighter]) -> int:
    """The most Relic and Feel No Pain dice one strike against either fighter may roll (S8,
    S9): the depth of one success's share of a fight's common denominator."""
    return max(
        (RELIC_ODDS[f.saintly_relics][0][1] if f.saintly_relics != "NONE" else 0)
        + (f.feel_no_pain is not None)
        for f in fighters
    )


def remembers_crit_strike(x: Fighter) -> bool:
    """Whether any rule of X reads hasCritStruck (Stun, Shock, Murderous Entrance)."""
    return x.stun2021 or x.shock or x.murderous_entrance2021


TABLE_BUDGET = 3_000_000
"""The most reachable moments × outcome slots (3, or 9 with Murderous Entrance) a fight's
table may hold; beyond it a fight is refused rather than left to exhaust the process. The
largest §12 fight, 8 attacks a side with Feel No Pain, Relics (2D6), Murderous Entrance,
Hammerhand and Durable on both sides, reaches 281,840 moments (× 9): about 3 s, 850 MB."""


class Flag(NamedTuple):
    """One flag of §9.1's state beyond the unresolved successes."""

    values: int
    read: Callable[[Fighter], bool]
    """Whether a fighter's rules read it (else it stays false all sequence and the moments do
    not carry it)."""


FLAGS = {
    "struck": Flag(2, lambda f: f.hammerhand2021),
    "crit_struck": Flag(2, remembers_crit_strike),
    "jas_used": Flag(2, lambda f: f.just_a_scratch != "NONE"),
    "durable_used": Flag(2, lambda f: f.durable),
    "half_used": Flag(2, lambda f: f.half_damage_first_strike),
    "relic_used_this_sequence": Flag(2, lambda f: f.saintly_relics != "NONE"),
    "relics_used": Flag(MAX_RELIC_IGNORES + 1, lambda f: f.saintly_relics != "NONE"),
}
"""The flags, as `Status` names them."""

_ROLLS = {f.name for f in dataclasses.fields(AttackDice)} - {"normal_damage", "critical_damage"}
MELEE = tuple(
    f.name
    for f in dataclasses.fields(Fighter)
    if f.name not in _ROLLS | {"wounds", "strategy", "duelist"}
)
"""The fighter fields the table's rules read: its damage and its rules of §2.2 but Duelist
(F3, `sequence`), not what decides its dice (`_ROLLS`, `sequence.opening`'s); fights whose
fighters agree on these (whatever their dice, wounds or strategies) share one table."""


def table_for(fighters: tuple[Fighter, Fighter], most: tuple[tuple[int, int, int], ...]) -> Table:
    """The table of a fight, shared across fights (the wounds grid's cells, repeated
    matchups) on exactly the fields it depends on."""
    melee = tuple(Fighter(**{k: getattr(f, k) for k in MELEE}) for f in fighters)
    return _table(melee, most)


class Side(NamedTuple):
    """One fighter's part of every moment: unresolved crits and normals, and its flags."""

    crits: np.ndarray
    normals: np.ndarray
    flags: dict[str, np.ndarray]

    def flag(self, name: str) -> np.ndarray:
        """A flag's values (false everywhere for a flag the fighter does not keep)."""
        if name not in self.flags:
            return np.zeros(self.crits.shape, dtype=int if name == "relics_used" else bool)
        return self.flags[name]

    def once(self, name: str, where: np.ndarray) -> tuple[np.ndarray, Side]:
        """Where `where` holds and flag `name` is still clear (a rule's first time in the
        sequence), and the side with the flag set there."""
        first = where & ~self.flag(name)
        return first, self.set(**{name: self.flag(name) | first})

    def set(self, **changes: np.ndarray) -> Side:
        """A copy with some fields changed (flags a fighter does not keep are dropped)."""
        flags = self.flags
        if any(k in flags for k in changes):
            flags = {k: changes.get(k, v) for k, v in flags.items()}
        return Side(changes.get("crits", self.crits), changes.get("normals", self.normals), flags)

    @property
    def successes(self) -> np.ndarray:
        return self.crits + self.normals

    @staticmethod
    def joined(sides: list[Side]) -> Side:
        """The moments of several sides, one after another."""
        return sides[0].map(lambda *v: np.concatenate(v), *sides[1:])

    def map(self, fn: Callable[..., np.ndarray], *others: Side) -> Side:
        """`fn` of each of the side's arrays (and the same array of each of `others`)."""
        return Side(
            fn(self.crits, *(o.crits for o in others)),
            fn(self.normals, *(o.normals for o in others)),
            {k: fn(v, *(o.flags[k] for o in others)) for k, v in self.flags.items()},
        )


def distinct(keys: np.ndarray) -> np.ndarray:
    """The distinct keys, ascending (`np.unique`'s hashing is slower on these)."""
    keys = np.sort(keys)
    first = np.ones(len(keys), dtype=bool)
    np.not_equal(keys[1:], keys[:-1], out=first[1:])
    return keys[first]


def blow(fx: Fighter, fy: Fighter, xs: Side, ys: Side, crit: np.ndarray) -> tuple:
    """S1–S7 of one strike per moment (`crit`: a CRIT strike, else a NORMAL one): the damage
    before Relics and Feel No Pain, and both sides after it."""
    xs = xs.set(crits=xs.crits - crit, normals=xs.normals - ~crit)  # S1
    dmg = np.where(crit, fx.critical_damage, fx.normal_damage)  # S2
    if fy.durable:  # S3
        durable, ys = ys.once("durable_used", crit)
        if durable_applies(fy.durable, fx.critical_damage):
            dmg = dmg - durable
    if fx.hammerhand2021:  # S4
        dmg = dmg + ~xs.flag("struck")
    if fy.just_a_scratch != "NONE":  # S5
        if fy.just_a_scratch == "NORMALS":
            scratches = ~crit
        else:
            big_crit = fx.critical_damage >= fx.normal_damage
            big = crit if big_crit else ~crit
            scratches = big | ((xs.crits if big_crit else xs.normals) == 0)
        scratched, ys = ys.once("jas_used", scratches & (dmg > 0))
        dmg = np.where(scratched, 0, dmg)
    if fy.half_damage_first_strike:  # S5a
        halves, ys = ys.once("half_used", dmg > 0)  # half rounding up, not below min(dmg, 2)
        dmg = np.where(halves, np.maximum(-(-dmg // 2), np.minimum(dmg, 2)), dmg)
    first_crit = crit & ~xs.flag("crit_struck")
    if fx.stun2021:  # S6
        ys = ys.set(normals=ys.normals - (first_crit & (ys.normals > 0)))
    if fx.shock:
        shocked = first_crit & (ys.successes > 0)
        from_normals = shocked & (ys.normals > 0)
        ys = ys.set(normals=ys.normals - from_normals, crits=ys.crits - (shocked & ~from_normals))
    if fx.hammerhand2021:  # S7
        xs = xs.set(struck=np.ones_like(crit))
    if remembers_crit_strike(fx):
        xs = xs.set(crit_struck=xs.flag("crit_struck") | crit)
    return dmg, xs, ys


Slot = tuple[np.ndarray, np.ndarray, np.ndarray, Side, Side]
"""One outcome of an action at every moment: (odds a, odds d, damage, X after, Y after), the
odds being a / 6**d (0 where the outcome cannot happen)."""


def dealt(fx: Fighter, fy: Fighter, xs: Side, ys: Side, crit: np.ndarray) -> list[Slot]:
    """S1–S9 of one strike: [Relic kept and Feel No Pain failed (the projection of §9.6),
    Relic kept and Feel No Pain saved, Relic ignored]."""
    dmg, xs, ys = blow(fx, fy, xs, ys, crit)
    ones, zeros = np.ones_like(dmg), np.zeros_like(dmg)
    kept_a, kept_d = ones, zeros
    ignored: Slot = (zeros, zeros, zeros, xs, ys)
    if fy.saintly_relics != "NONE":  # S8: keep it for a strictly larger pending strike
        (ia, id_), (ka, kd) = RELIC_ODDS[fy.saintly_relics]
        larger = np.where(
            crit,
            (xs.normals > 0) & (fx.normal_damage > fx.critical_damage),
            (xs.crits > 0) & (fx.critical_damage > fx.normal_damage),
        )
        left = (dmg > 0) & (ys.flag("relics_used") < MAX_RELIC_IGNORES) & ~larger
        applies, spent = ys.once("relic_used_this_sequence", left)
        spent = spent.set(relics_used=ys.flag("relics_used") + applies)
        kept_a, kept_d = np.where(applies, ka, 1), np.where(applies, kd, 0)
        ignored = (np.where(applies, ia, 0), np.where(applies, id_, 0), zeros, xs, spent)
    if fy.feel_no_pain is None:
        return [(kept_a, kept_d, dmg, xs, ys), (zeros, zeros, dmg, xs, ys), ignored]
    saved = feel_no_pain_faces(fy.feel_no_pain)  # S9
    rolls = dmg > 0
    return [
        (kept_a * np.where(rolls, 6 - saved, 1), kept_d + rolls, dmg, xs, ys),
        (kept_a * np.where(rolls, saved, 0), kept_d + rolls, dmg - rolls, xs, ys),
        ignored,
    ]


def strike(fx: Fighter, fy: Fighter, xs: Side, ys: Side, crit: np.ndarray) -> list[Slot]:
    """S1–S11: `dealt`, and Murderous Entrance's automatic second strike after each outcome
    (slot 0 stays the projection). The second comes only when the target survives the
    first; where it does not, the sequence is over whatever the second would have done, so it
    is folded in by the damage alone."""
    again = crit & ~xs.flag("crit_struck")
    first = dealt(fx, fy, xs, ys, crit)
    if not fx.murderous_entrance2021:
        return first
    slots: list[Slot] = []
    for a, d, dmg, xs1, ys1 in first:
        go = again & (xs1.successes > 0)
        for j, (a2, d2, dmg2, xs2, ys2) in enumerate(dealt(fx, fy, xs1, ys1, xs1.crits > 0)):
            slots.append(
                (
                    a * np.where(go, a2, 1 if j == 0 else 0),
                    d + np.where(go, d2, 0),
                    dmg + np.where(go, dmg2, 0),
                    pick(go, xs2, xs1),
                    pick(go, ys2, ys1),
                )
            )
    return slots


def parry(fx: Fighter, xs: Side, ys: Side, crit: bool) -> tuple[Side, Side]:
    """§9.4 over arrays: the parrying success is spent and cancels Y's unresolved successes."""
    blocks = 2 if fx.storm_shield2021 else 1
    if not crit:
        return xs.set(normals=xs.normals - 1), ys.set(normals=np.maximum(0, ys.normals - blocks))
    xs = xs.set(crits=xs.crits - 1)
    for _ in range(blocks):
        from_crits = ys.crits > 0
        ys = ys.set(
            crits=ys.crits - from_crits,
            normals=ys.normals - (~from_crits & (ys.normals > 0)),
        )
    if fx.dueller2021:
        ys = ys.set(normals=ys.normals - (ys.normals > 0))
    return xs, ys


def to_act(active: Any, has_a: Any, has_b: Any) -> Any:
    """F4: who acts at a moment: `active`, unless it holds no unresolved success (`has_a`,
    `has_b`: whether A, B hold one). Arrays of moments or a single one alike."""
    return np.where(np.where(active == 0, has_a, has_b), active, 1 - active)


def pick(where: np.ndarray, a: Side, b: Side) -> Side:
    """Side a where `where`, else b."""
    return a.map(lambda u, v: np.where(where, u, v), b)


def useful_parries(fy: Fighter, xs: Side, ys: Side) -> tuple[np.ndarray, np.ndarray]:
    """Where X's CRIT and its NORMAL parry are useful actions (§9.4: a success to parry
    with, and one of Y's it may cancel; Brutal: only crits parry)."""
    crit = (xs.crits > 0) & (ys.successes > 0)
    return crit, (xs.normals > 0) & (ys.normals > 0) & (not fy.brutal)


class Moves(NamedTuple):
    """What every action does at every moment: arrays per (moment, action code, outcome
    slot), slot 0 the projection's outcome (§9.6), the others the Relic and Feel No Pain
    dice's (and Murderous Entrance's second strike's)."""

    odds_a: np.ndarray
    """The outcome's odds a / 6**d: a (0 where the outcome cannot happen)."""
    odds_d: np.ndarray
    """… and d."""
    next: np.ndarray
    """The moment after it (−1 where the action is not useful or the outcome cannot
    happen)."""
    damage: np.ndarray
    """The damage the mover deals."""


class Table:
    """The F4 moments of one fight, numbered densely, with what each action does there.

    A moment's number packs whose turn it is, both fighters' hands (unresolved crits and
    normals, up to what each can roll) and the flags their rules read, relic bookkeeping
    included. `moves` holds what every action (§9.8 O4's order of codes: CRIT strike, NORMAL
    strike, CRIT parry, NORMAL parry) does at every moment, outcome by outcome with its odds
    (slot 0 the projection of §9.6), `columns` what the moments are and what §9.5 asks about
    a moment's mover, all as arrays over whole fights at once (`flat`).
    The few lists (`mover`, `wise`, `next`, `turned`) are F3's, which looks one moment up at a
    time (`sequence.Sequence.duel`), made when first read.
    """

    def __init__(self, fighters: tuple[Fighter, Fighter], most: tuple[tuple[int, int, int], ...]):
        """`most[x]`: the most crits, normals and successes fighter x rolls."""
        self.fighters = fighters
        self.kept = tuple(tuple(k for k, flag in FLAGS.items() if flag.read(f)) for f in fighters)
        """Per fighter, the flags some rule of it reads (the others stay false all sequence)."""
        # a fighter's hand: its unresolved (crits, normals), as they can occur
        self.hands = hands = [
            [(c, n) for c in range(crits + 1) for n in range(normals + 1) if c + n <= successes]
            for crits, normals, successes in most
        ]
        self._held = [np.array(h, dtype=np.int64).reshape(-1, 2) for h in hands]
        """Per fighter, its hands as rows of (crits, normals)."""
        self._lookup = [np.zeros((c + 1, n + 1), dtype=np.int64) for c, n, _ in most]
        """Per fighter, its hands' indices by (crits, normals) (`take` reads them flat)."""
        for held, lookup in zip(self._held, self._lookup, strict=True):
            lookup[held[:, 0], held[:, 1]] = np.arange(len(held))
        digits = {"active": 2}
        for x in (0, 1):
            digits[f"hand{x}"] = len(hands[x])
            digits.update({f"{k}{x}": FLAGS[k].values for k in self.kept[x]})
        self.digits = digits
        """The digits of a moment's key (its mixed-radix number), most significant first, with
        the values each takes."""
        self.slots = 9 if any(f.murderous_entrance2021 for f in fighters) else 3
        self.keys, columns = self._reachable()
        self.size = len(self.keys)
        nexts = columns["next"]  # keys, numbered densely in their order
        columns["next"] = np.where(nexts >= 0, np.searchsorted(self.keys, nexts), -1)
        self.moves = Moves(**{k: columns.pop(k) for k in Moves._fields})
        self.columns = columns
        """What the moments are and what §9.5 asks there, per moment."""

    def _sides(self, keys: np.ndarray) -> tuple[np.ndarray, list[Side]]:
        """Whose turn it is and both sides at moments given by their keys (`digits`)."""
        values = np.unravel_index(keys, tuple(self.digits.values()))
        fields = dict(zip(self.digits, values, strict=True))
        sides = []
        for x in (0, 1):
            held = self._held[x][fields[f"hand{x}"]]
            flags = {
                k: fields[f"{k}{x}"] if FLAGS[k].values > 2 else fields[f"{k}{x}"].astype(bool)
                for k in self.kept[x]
            }
            sides.append(Side(held[:, 0], held[:, 1], flags))
        return fields["active"], sides

    def _reachable(self) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The keys of every moment a sequence can reach, in order, with `_rules` at each:
        from every pair of hands with either fighter to act, flags clear and any relics
        used, by every outcome of every action (the dense product of hands and flags is
        mostly unreachable). The rules run once per moment, on each frontier as it is found;
        `seen` marks the keys found over the whole key space (a byte per key: 149 MB at most,
        8 attacks a side keeping every flag, whose table itself is 850 MB)."""
        relics = [FLAGS["relics_used"].values if "relics_used" in kept else 1 for kept in self.kept]
        hands = (len(self.hands[0]), len(self.hands[1]))
        active, a, b, ra, rb = np.indices((2, *hands, *relics)).reshape(5, -1)
        sides = self._opening_sides([self._held[0][a], self._held[1][b]], [ra, rb])
        frontier = self._encode(active, sides)
        seen = np.zeros(prod(self.digits.values()), dtype=bool)
        found, size = [], 0
        while len(frontier := distinct(frontier[~seen[frontier]])):
            size += len(frontier)
            if size * self.slots > TABLE_BUDGET:
                raise budgets.TooLarge(
                    budgets.MOMENTS,
                    TABLE_BUDGET,
                    f"these attacks and rules make more than {TABLE_BUDGET} tactical moments "
                    "(× outcomes); use fewer attacks or fewer of the rules that keep flags",
                )
            seen[frontier] = True
            rules = self._rules(*self._sides(frontier))
            found.append((frontier, rules))
            frontier = rules["next"][rules["next"] >= 0]
        if len(found) == 1:  # the openings are every moment (no flag set): already in order
            return found[0]
        order = np.argsort(keys := np.concatenate([k for k, _ in found]))
        return keys[order], {
            k: np.concatenate([rules[k] for _, rules in found]).take(order, axis=0)
            for k in found[0][1]
        }

    def _opening_sides(self, hands: list[np.ndarray], relics: list[np.ndarray]) -> list[Side]:
        """Both sides as a sequence's F4 opens: per fighter, its hands as rows of (crits,
        normals) and the relics it has used, every other flag clear."""
        clear = np.zeros(len(hands[0]), dtype=bool)
        return [
            Side(hand[:, 0], hand[:, 1], {k: used if k == "relics_used" else clear for k in kept})
            for hand, used, kept in zip(hands, relics, self.kept, strict=True)
        ]

    def openings(self, first: int, hands: np.ndarray, relics: tuple[int, int]) -> np.ndarray:
        """`number` of sequences' first F4 moments from both hands (rows of crits A,
        normals A, crits B, normals B), every flag clear but the relics used carried in;
        `first` acts first unless it has no unresolved successes."""
        used = [np.full(len(hands), r, dtype=np.int64) for r in relics]
        sides = self._opening_sides([hands[:, :2], hands[:, 2:]], used)
        return np.searchsorted(self.keys, self._encode(np.full(len(hands), first), sides))

    def _encode(self, active: np.ndarray, sides: list[Side]) -> np.ndarray:
        """Moment keys of arrays of moments (a fighter without unresolved successes passes at
        once); where a count went below 0 (an action that is not useful there) the key is
        meaningless, though within the key space (`take` clips)."""
        digits = {"active": to_act(active, *(s.successes > 0 for s in sides))}
        for x in (0, 1):
            width = self._lookup[x].shape[1]
            index = sides[x].crits * width + sides[x].normals
            digits[f"hand{x}"] = self._lookup[x].take(index, mode="clip")
            digits.update({f"{k}{x}": sides[x].flags[k] for k in self.kept[x]})
        return np.ravel_multi_index(list(digits.values()), tuple(self.digits.values()))

    def _rules(self, active: np.ndarray, sides: list[Side]) -> dict[str, np.ndarray]:
        """S1–S11 and §9.4 at the moments (`active`, `sides`): per action code and outcome
        slot the next moment's key (−1 where it is not a useful action or the outcome cannot
        happen), the damage and the odds a / 6**d; and what the moments are, whose action it
        is and what §9.5 asks about it."""
        size = len(active)
        mover = to_act(active, *(s.successes > 0 for s in sides))
        shape = (size, 4, self.slots)
        nexts = np.full(shape, NONE, dtype=np.int64)
        damage, odds_a, odds_d = (np.zeros(shape, dtype=np.int64) for _ in range(3))
        successes = sides[0].successes + sides[1].successes
        facts = {
            "mover": mover,
            "has": np.stack([sides[x].successes > 0 for x in (0, 1)], axis=1),
            "left": successes,
            "over": successes == 0,
            "relics_used": np.stack([sides[x].flag("relics_used") for x in (0, 1)], axis=1),
        }
        for x in (0, 1):
            rows = np.flatnonzero(mover == x)  # only the mover's rules are asked
            if not len(rows):
                continue
            fx, fy = self.fighters[x], self.fighters[1 - x]
            # both strikes at once (CRIT on the first copy of the rows, NORMAL on the second)
            twice = np.concatenate([rows, rows])
            xs2, ys2 = (sides[z].map(itemgetter(twice)) for z in (x, 1 - x))
            xs, ys = (s.map(itemgetter(slice(len(rows)))) for s in (xs2, ys2))
            useful = useful_parries(fy, xs, ys)
            parried = [parry(fx, xs, ys, code == CRIT_PARRY) for code in PARRIES]
            # every outcome of every action: (rows, codes, slot, where it happens, `Slot`)
            crit = np.repeat([True, False], len(rows))
            strikes = np.where(crit, CRIT_STRIKE, NORMAL_STRIKE)
            struck = np.concatenate([xs.crits > 0, xs.normals > 0])
            one, zero = np.ones(len(rows), dtype=np.int64), np.zeros(len(rows), dtype=np.int64)
            outcomes = [
                (twice, strikes, np.full(len(twice), slot), happens, outcome)
                for slot, outcome in enumerate(strike(fx, fy, xs2, ys2, crit))
                if (happens := struck & (outcome[0] > 0)).any()  # not slots no moment has
            ] + [
                (rows, np.full(len(rows), code), zero, use, (one, zero, zero, *after))
                for code, use, after in zip(PARRIES, useful, parried, strict=True)
            ]
            self._store(x, outcomes, (nexts, damage, odds_a, odds_d))
            for k, values in self._facts(fx, fy, xs, ys, useful, parried).items():
                facts.setdefault(k, np.zeros(size, dtype=values.dtype))[rows] = values
        return {"next": nexts, "damage": damage, "odds_a": odds_a, "odds_d": odds_d, **facts}

    def _store(self, x: int, outcomes: list[tuple], moves: tuple[np.ndarray, ...]) -> None:
        """Write mover x's outcomes (rows, codes, slots, where they happen, `Slot`) into
        `moves` (`Moves`' next keys, damage, odds a and d), their next moments encoded at once."""
        at, codes, slots, here, a, d, dmg = (
            np.concatenate(v) for v in zip(*(o[:4] + o[4][:3] for o in outcomes), strict=True)
        )
        xs, ys = (Side.joined([o[4][z] for o in outcomes]) for z in (3, 4))
        nxt = self._encode(np.full(len(a), 1 - x), [xs, ys] if x == 0 else [ys, xs])
        here = np.flatnonzero(here)
        where = (at[here] * 4 + codes[here]) * self.slots + slots[here]  # in the flat moves
        for out, values in zip(moves, (nxt, dmg, a, d), strict=True):
            out.reshape(-1)[where] = values[here]

    @cached_property
    def turned(self) -> list[list[int]]:
        """Per fighter x, the number of every moment's hands and flags with x to act (`to_act`):
        F3 looks at one pair from either side, at moments with every flag clear but the relics
        used, whose other side is an opening too (elsewhere the number is meaningless)."""
        unit = prod(self.digits.values()) // 2  # keys per mover (the first digit's unit)
        turn = [to_act(x, *self.columns["has"].T) * unit + self.keys % unit for x in (0, 1)]
        return [np.searchsorted(self.keys, keys).tolist() for keys in turn]

    @cached_property
    def mover(self) -> list[int]:
        """Per moment, whose action it is (F3 asks one moment at a time)."""
        return self.columns["mover"].tolist()

    @cached_property
    def wise(self) -> list[int]:
        """Per moment, the mover's wiseParry (§9.5; NONE: no useful parry)."""
        return self.columns["wise"].tolist()

    @cached_property
    def next(self) -> list[list[int]]:
        """Per action code, the projected next moment of every moment (−1: not useful)."""
        return [self.moves.next[:, code, 0].tolist() for code in range(4)]

    def _facts(
        self, fx: Fighter, fy: Fighter, xs: Side, ys: Side, useful: tuple, parried: list
    ) -> dict[str, np.ndarray]:
        """What §9.5 asks about a moment, for mover X, given where its parries are useful and
        what they leave (`useful_parries`, `parry`: CRIT, NORMAL)."""
        crit_parry, normal_parry = useful
        wise = np.where(
            (ys.crits > 0) & crit_parry,
            CRIT_PARRY,
            np.where(normal_parry, NORMAL_PARRY, np.where(crit_parry, CRIT_PARRY, NONE)),
        )
        # D4: a parry leaving Y nothing (normal first), then X strikes out, unanswered
        after_crit, after_normal = parried
        normal_block = normal_parry & (after_normal[1].successes == 0)
        crit_block = crit_parry & (after_crit[1].successes == 0)
        block = np.where(normal_block, NORMAL_PARRY, np.where(crit_block, CRIT_PARRY, NONE))
        left = pick(normal_block, after_normal[0], after_crit[0])
        plain = not (
            fy.durable
            or fx.hammerhand2021
            or fy.just_a_scratch != "NONE"
            or fy.half_damage_first_strike
        )
        if plain:  # every strike deals its profile damage
            reach = left.crits * fx.critical_damage + left.normals * fx.normal_damage
        else:  # strike by strike: S3–S5a change the first strikes' damage
            target = pick(normal_block, after_normal[1], after_crit[1])
            reach = np.zeros(len(xs.crits), dtype=np.int64)
            for _ in range(int(left.successes.max(initial=0))):
                going = left.successes > 0
                dmg, left, target = blow(fx, fy, left, target, left.crits > 0)
                reach += np.where(going, dmg, 0)
                left = left.set(
                    crits=np.maximum(left.crits, 0), normals=np.maximum(left.normals, 0)
                )
        reach = np.where(block != NONE, reach, 0)
        return {
            "hit": np.where(xs.crits > 0, CRIT_STRIKE, NORMAL_STRIKE),
            "always": (ys.successes == 0) | ~(crit_parry | normal_parry),
            "stun": (fx.stun2021 or fx.shock)
            & ~xs.flag("crit_struck")
            & (xs.crits > 0)
            & (ys.crits == 0),
            "block": block,
            "reach": reach,
            "wise": wise,
        }


_table = lru_cache(maxsize=64)(Table)
"""Tables by melee profiles and the most each fighter rolls (a few hundred kB each)."""
