"""Wounds that play alike: shared work across fights' many starting wounds.

Within a sequence, wounds matter only through kills: a decision asks whether damage takes a
fighter to 0 (D2, D4) or compares wounds after damage, clamped at 0 (D5), and the sequence
stops at 0. If every total damage the opponent could still deal is either below both w and w′
or at least both, then w and w′ decide and end alike: a survivor ends `shift` higher. So a
fighter's wounds can be replaced by the least wounds of its class, w* = (largest reachable
total below w) + 1, and the outcome shifted back by w − w* for a survivor.
"""

from __future__ import annotations

from .fight_state import CRIT, NORMAL, Kind, Pair, Status
from .fighter import Fighter
from .strike import halved


def strike_damages(x: Fighter, y: Fighter, kind: Kind) -> frozenset[int]:
    """Every damage one strike of `kind` by x could deal y (a superset: each rule optional)."""
    values = {x.critical_damage if kind == CRIT else x.normal_damage}
    if kind == CRIT and y.durable and x.critical_damage >= 4:  # S3
        values |= {d - 1 for d in values}
    if x.hammerhand2021:  # S4
        values |= {d + 1 for d in values}
    if y.just_a_scratch != "NONE" or y.saintly_relics != "NONE":  # S5, S8
        values.add(0)
    if y.half_damage_first_strike:  # S5a
        values |= {halved(d) for d in values}
    if y.feel_no_pain is not None:  # S9
        values |= {d - 1 for d in values if d > 0}
    return frozenset(values)


class Alike:
    """Canonical wounds for one pair of fighters, memoised on the strikers' successes."""

    def __init__(self, fighters: tuple[Fighter, Fighter]) -> None:
        self.fighters = fighters
        self._per_strike = {
            (x, kind): strike_damages(fighters[x], fighters[1 - x], kind)
            for x in (0, 1)
            for kind in (CRIT, NORMAL)
        }
        self._totals: dict[tuple[int, int, int], tuple[int, ...]] = {}

    def totals(self, x: int, status: Status) -> tuple[int, ...]:
        """Every total damage x's unresolved successes could deal, ascending (0 included)."""
        return self.sums(x, status.crits, status.normals)

    def sums(self, x: int, crits: int, normals: int) -> tuple[int, ...]:
        key = (x, crits, normals)
        found = self._totals.get(key)
        if found is None:
            sums = {0}
            for kind, count in ((CRIT, crits), (NORMAL, normals)):
                for _ in range(count):
                    sums |= {s + d for s in sums for d in self._per_strike[(x, kind)]}
            found = self._totals[key] = tuple(sorted(sums))
        return found

    @staticmethod
    def least(wounds: int, totals: tuple[int, ...]) -> int:
        """w*: the least wounds that every reachable total kills or spares exactly as `wounds`
        (0 stays 0: an incapacitated fighter is in a class of its own)."""
        if wounds == 0:
            return 0
        below = 0
        for total in totals:
            if total >= wounds:
                break
            below = total
        return below + 1

    def canonical(self, pair: Pair) -> Pair:
        """Both fighters' wounds replaced by their class's least member."""
        a, b = pair
        wa = self.least(a.wounds, self.totals(1, b))
        wb = self.least(b.wounds, self.totals(0, a))
        if wa != a.wounds:
            a = a.with_wounds(wa)
        if wb != b.wounds:
            b = b.with_wounds(wb)
        return (a, b)

    def capped(self, pair: Pair) -> Pair:
        """Only wounds beyond every reachable total lowered (to the largest total + 1).

        Coarser than `canonical`, but no branch of the rest of the sequence can then kill
        either fighter, so expected wounds too (OPTIMAL's D) are merely shifted.
        """
        a, b = pair
        wa = min(a.wounds, self.totals(1, b)[-1] + 1)
        wb = min(b.wounds, self.totals(0, a)[-1] + 1)
        if wa != a.wounds:
            a = a.with_wounds(wa)
        if wb != b.wounds:
            b = b.with_wounds(wb)
        return (a, b)


def wound_map(totals: tuple[int, ...], top: int, how: str) -> tuple[int, ...]:
    """w → the wounds to look a sequence up with, for w = 0..top, against these damage totals:
    "canonical" (`Alike.least`), "capped" (`Alike.capped`) or "exact" (w itself)."""
    if how == "canonical":
        return tuple(Alike.least(w, totals) for w in range(top + 1))
    if how == "capped":
        return tuple(min(w, totals[-1] + 1) for w in range(top + 1))
    return tuple(range(top + 1))


def restore(final: int, start: int, start_canonical: int) -> int:
    """A final wounds value back from canonical to real terms: survivors shift, 0 stays 0."""
    return final + start - start_canonical if final else 0
