"""The moments of a sequence's alternation (F4), numbered, with what each action does there.

Within a sequence, what an action does to the unresolved successes and flags, its damage and
the odds of its Relic and Feel No Pain dice never depend on the wounds (§9.3, §9.4). So the
*wound-free* part of a moment (both statuses with wounds 0, whose turn it is) gets a number the
first time it is met, and its moves are worked out once, with the rules of `strike`, into plain
tuples of numbers. Everything cell by cell (`projection`, `fight`) then runs on integers: a
cell is (moment number, wounds A, wounds B), and an action moves it to the next moment's
number with the damage subtracted.
"""

from __future__ import annotations

from .fight_state import Odds, Pair
from .fighter import Fighter
from .strike import ACTIONS, moves
from .table import Table

Branch = tuple[Odds, int, int]
"""(odds, the next moment's number, damage dealt to the opponent) of one outcome."""


class States:
    """The numbered F4 moments of one fight and their moves, worked out on first use."""

    def __init__(self, fighters: tuple[Fighter, Fighter], table: Table) -> None:
        self.fighters = fighters
        self.table = table
        self._numbers: dict[tuple[int, Pair], int] = {}
        self.moments: list[tuple[int, Pair]] = []
        self.left: list[int] = []
        """Per moment: both fighters' unresolved successes, which every action lessens."""
        self.over: list[bool] = []
        """Per moment: neither fighter has an unresolved success (F4 stops)."""
        self._tactical: list[int] = []
        self._branches: dict[int, tuple[Branch, ...]] = {}

    def number(self, active: int, pair: Pair) -> int:
        """The number of the F4 moment with `active` to act on a wound-free pair. A fighter
        without unresolved successes passes at once, so the moment is the other's turn."""
        if not (pair[active][0] or pair[active][1]):
            active = 1 - active
        key = (active, pair)
        found = self._numbers.get(key)
        if found is None:
            found = self._numbers[key] = len(self.moments)
            self.moments.append(key)
            self.left.append(pair[0][0] + pair[0][1] + pair[1][0] + pair[1][1])
            self.over.append(not self.left[-1])
            self._tactical.append(-1)
        return found

    def tactical(self, n: int) -> int:
        """Moment n's number in `table` (the tactical moments, §9.6)."""
        found = self._tactical[n]
        if found < 0:
            found = self._tactical[n] = self.table.number(*self.moments[n])
        return found

    def branches(self, n: int, code: int) -> tuple[Branch, ...]:
        """The outcomes of the mover's action `code` at moment n, Relic and Feel No Pain dice
        rolled (the real resolution, §9.7)."""
        key = 4 * n + code
        found = self._branches.get(key)
        if found is None:
            x, pair = self.moments[n]
            found = self._branches[key] = tuple(
                (odds, self.number(1 - x, after), dmg)
                for odds, after, dmg in moves(self.fighters, x, pair, ACTIONS[code], True)
            )
        return found
