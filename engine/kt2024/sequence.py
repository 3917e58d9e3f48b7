"""One fight sequence (§9.2), its steps in order.

F1 and F2 (the roll and the curse damage) produce the opening hands (`opening`); F3
(Duelist) and F4 (alternation) are moves between the numbered moments of `table`: an F4 step
is a table moment (an int, its mover to act), an F3 step a `Duel`. Who may do what is decided
here and in `table`; what a mover chooses is the strategies' business (`kernels.decide` for
the heuristics, `kernels.solve` for OPTIMAL).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property, lru_cache
from math import lcm

from . import attack
from .damage import feel_no_pain_chance
from .fighter import Fight, Fighter
from .precision import Odds, binomials, odds_of, power6
from .scenario import AttackDice
from .table import NONE, PARRIES, Table, table_for

Roll = tuple[Odds, int, int, int]
"""(odds, crits, normals, curse damage taken) of one fighter's F1 + F2."""


def opening(fighter: Fighter, opponent: Fighter) -> tuple[Roll, ...]:
    """F1 (§5 with ob = false, cursed by the opponent's Curse of Rot) and F2 for one fighter.

    Curse damage is K instances of 1, each with its own Feel No Pain die. All entries share one
    denominator, so the joint roll of both fighters does too.
    """
    return _opening(attack.attack_dice(fighter), opponent.curse_of_rot, fighter.feel_no_pain)


@lru_cache(maxsize=4096)
def _opening(dice: AttackDice, cursed: bool, fnp: int | None) -> tuple[Roll, ...]:
    """`opening` memoised across fights on exactly what it reads: the attack dice, whether
    they are cursed and the fighter's Feel No Pain."""
    retained = attack.retained(dice, obscured=False, cursed=cursed)
    entries = [(p, c, n, k) for (c, n, k), p in retained.items() if p]
    # the least power of 6 every chance is over: that of their common denominator
    depth = odds_of(Fraction(1, lcm(*(p.denominator for p, *_ in entries))))[1]
    curses = max(k for *_, k in entries)
    extra = curses if fnp is not None else 0
    # per curse damage k, the chance that s of its k instances are saved, over 6**extra
    saved = [[1]] * (curses + 1)  # no Feel No Pain: none
    if fnp is not None:  # an FNP die per instance (R8)
        chance = binomials(feel_no_pain_chance(fnp), extra, exact=True)
        scale = power6(extra) // chance.den  # the binomials' denominator divides 6**extra
        saved = [[w * scale for w in row[: k + 1]] for k, row in enumerate(chance.num.tolist())]
    rolls: dict[tuple[int, int, int], int] = {}
    for p, c, n, k in entries:
        a = p.numerator * (power6(depth) // p.denominator)
        for s, ways in enumerate(saved[k]):
            rolls[(c, n, k - s)] = rolls.get((c, n, k - s), 0) + a * ways
    return tuple(((a, depth + extra), c, n, loss) for (c, n, loss), a in rolls.items())


Duel = tuple[int, int]
"""An F3 step: (the Duelist x whose parry is next, the table moment of the pair with x to act)."""
Step = Duel | int
"""An F3 step, or an F4 one (a table moment)."""


class Sequence:
    """The transitions of one fight's sequences."""

    def __init__(self, fight: Fight) -> None:
        a, b = fight.fighter_a, fight.fighter_b
        self.fighters = (a, b)
        self.first = 0 if fight.options.first_to_act == "A" else 1
        self.duelists = a.duelist or b.duelist
        self.openings = (opening(a, b), opening(b, a))
        """Each fighter's own F1 and F2 outcomes (`flat.joint` pairs them up)."""

    @cached_property
    def table(self) -> Table:
        """The tactical F4 moments of the fight, up to the most successes either fighter
        rolls, with their projected options (§9.5, §9.6)."""
        most = tuple(
            (max(r[1] for r in rolls), max(r[2] for r in rolls), max(r[1] + r[2] for r in rolls))
            for rolls in self.openings
        )
        return table_for(self.fighters, most)

    def duel(self, x: int | None, n: int) -> Step:
        """F3 from fighter x's Duelist parry on (None: F4) at the hands of table moment n. A
        fighter that is no Duelist has no F3 step at all, so fights without Duelists start
        straight at F4."""
        while x is not None and not self.fighters[x].duelist:
            x = 1 - x if x == self.first else None
        table = self.table
        return (x, table.turned[x][n]) if x is not None else table.turned[self.first][n]

    def parries(self, duel: Duel) -> tuple[int, ...]:
        """The parry codes the Duelist may choose: OPTIMAL's candidates (§9.8 O1), else its
        wiseParry (§9.5); (NONE,) where it has none: it or its opponent holds no unresolved
        success, or no parry is useful (wiseParry names none)."""
        x, n = duel
        table = self.table
        if table.mover[n] != x or table.wise[n] == NONE:
            return (NONE,)
        if self.fighters[x].strategy == "OPTIMAL":
            return tuple(code for code in PARRIES if table.next[code][n] != NONE)
        return (table.wise[n],)

    def parried(self, duel: Duel, code: int) -> Step:
        """The step after the Duelist parries with `code` (§9.4, no chance; NONE: no parry):
        the other's F3 after the first fighter's, then F4."""
        x, n = duel
        after = self.table.next[code][n] if code != NONE else n
        return self.duel(1 - x if x == self.first else None, after)
