"""The state of a fight (§9.1) and the probabilities that move it.

A fighter's `Status` is everything §9.1 tracks for it; a `Moment` is both statuses plus whose
step it is. Probabilities of the chance events are `Odds` (a, d) = a / 6**d: every die of the
fight has six faces, so integer numerators over powers of 6 represent them exactly and cheaply.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Kind = Literal["CRIT", "NORMAL"]
CRIT: Kind = "CRIT"
NORMAL: Kind = "NORMAL"

Odds = tuple[int, int]
"""(a, d): the probability a / 6**d."""
CERTAIN: Odds = (1, 0)


def times(p: Odds, q: Odds) -> Odds:
    return (p[0] * q[0], p[1] + q[1])


class Status(NamedTuple):
    """One fighter's part of the §9.1 state; the flags reset at the start of each sequence."""

    crits: int
    normals: int
    wounds: int
    struck: bool = False
    crit_struck: bool = False
    jas_used: bool = False
    durable_used: bool = False
    half_used: bool = False
    relic_used_this_sequence: bool = False
    relics_used: int = 0

    def set(self, **changes: int | bool) -> Status:
        """A copy with some fields changed (`_replace`, several times faster on the hot path)."""
        values = list(self)
        for name, value in changes.items():
            values[_INDEX[name]] = value
        return _new(Status, values)

    def with_wounds(self, wounds: int) -> Status:
        return _new(Status, (self[0], self[1], wounds, *self[3:]))

    @property
    def successes(self) -> int:
        return self.crits + self.normals

    def has(self, kind: Kind) -> bool:
        return (self.crits if kind == CRIT else self.normals) > 0

    def take(self, kind: Kind) -> Status:
        """One unresolved success of `kind` is used up (struck with, parried with or cancelled)."""
        if kind == CRIT:
            return _new(Status, (self[0] - 1, *self[1:]))
        return _new(Status, (self[0], self[1] - 1, *self[2:]))

    def tactical(self) -> Status:
        """The state without the relic bookkeeping, which no decision looks at (§9.6)."""
        if self.relic_used_this_sequence or self.relics_used:
            return self.set(relic_used_this_sequence=False, relics_used=0)
        return self


_new = tuple.__new__
_INDEX = {name: i for i, name in enumerate(Status._fields)}

Pair = tuple[Status, Status]
"""(fighter A's status, fighter B's status)."""


class Moment(NamedTuple):
    """A point inside a sequence: both statuses and whose step it is.

    `duel` is true during F3 (the Duelist parries, `active` being the fighter whose parry is
    next); otherwise `active` is the fighter whose turn of F4 it is.
    """

    duel: bool
    active: int
    pair: Pair


def oriented(pair: Pair, x: int) -> Pair:
    """(X's status, Y's status) for fighter index x."""
    return pair if x == 0 else (pair[1], pair[0])


def unoriented(xs: Status, ys: Status, x: int) -> Pair:
    """Back from (X, Y) to (A, B)."""
    return (xs, ys) if x == 0 else (ys, xs)
