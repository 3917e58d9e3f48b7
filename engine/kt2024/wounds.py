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
    """Canonical wounds for one pair of fighters, memoised on the striker's successes.

    For a striker x with given unresolved successes, `map(x, crits, normals)[w]` is the
    wounds its opponent is looked up with for real wounds w (0 ≤ w ≤ the larger starting
    wounds, which no fighter ever exceeds): the least of w's class.
    """

    def __init__(self, fighters: tuple[Fighter, Fighter]) -> None:
        self.fighters = fighters
        self.top = max(f.wounds for f in fighters)
        self._per_strike = {
            (x, kind): strike_damages(fighters[x], fighters[1 - x], kind)
            for x in (0, 1)
            for kind in (CRIT, NORMAL)
        }
        self._totals: dict[tuple[int, int, int], tuple[int, ...]] = {}
        self._maps: dict[tuple[int, int, int], tuple[int, ...]] = {}

    def totals(self, x: int, status: Status) -> tuple[int, ...]:
        """Every total damage x's unresolved successes could deal, ascending (0 included)."""
        key = (x, status.crits, status.normals)
        found = self._totals.get(key)
        if found is None:
            sums = {0}
            for kind, count in ((CRIT, status.crits), (NORMAL, status.normals)):
                for _ in range(count):
                    sums |= {s + d for s in sums for d in self._per_strike[(x, kind)]}
            found = self._totals[key] = tuple(sorted(sums))
        return found

    def map(self, x: int, crits: int, normals: int) -> tuple[int, ...]:
        key = (x, crits, normals)
        found = self._maps.get(key)
        if found is None:
            totals = self.totals(x, Status(crits, normals, 0))
            found = self._maps[key] = tuple(least(w, totals) for w in range(self.top + 1))
        return found

    def canonical(self, pair: Pair) -> Pair:
        """Both fighters' wounds looked up in the opponent's map."""
        a, b = pair
        maps = self._maps
        map_a = maps.get((1, b.crits, b.normals)) or self.map(1, b.crits, b.normals)
        map_b = maps.get((0, a.crits, a.normals)) or self.map(0, a.crits, a.normals)
        wa, wb = map_a[a.wounds], map_b[b.wounds]
        if wa != a.wounds:
            a = a.with_wounds(wa)
        if wb != b.wounds:
            b = b.with_wounds(wb)
        return (a, b)


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


def restore(final: int, start: int, start_canonical: int) -> int:
    """A final wounds value back from canonical to real terms: survivors shift, 0 stays 0."""
    return final + start - start_canonical if final else 0
