"""One fight sequence (§9.2) as transitions between `Moment`s.

F1 and F2 (the roll and the curse damage) produce the opening pairs; F3 (Duelist) and F4
(alternation) are moments whose mover takes one action. Who may do what is decided here; what a
mover chooses is the strategies' business (`decisions` and `kernels.decide` for the
heuristics, `kernels.solve` for OPTIMAL).
"""

from __future__ import annotations

from functools import cached_property, lru_cache
from math import comb

from . import attack
from .decisions import wise_parry
from .fight_state import CERTAIN, Moment, Odds, Pair, oriented, times
from .fighter import Fight, Fighter
from .scenario import AttackDice
from .strike import ACTIONS, CRIT_PARRY, NORMAL_PARRY, Action, act, can_parry
from .table import Table, table_for
from .weights import odds_of, power6

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
    entries = [(odds_of(p), c, n, k) for (c, n, k), p in retained.items() if p]
    depth = max(odds[1] for odds, *_ in entries)
    extra = max(k for *_, k in entries) if fnp is not None else 0
    rolls: dict[tuple[int, int, int], int] = {}
    for (a, d), c, n, k in entries:
        a *= power6(depth - d)
        if fnp is None:
            rolls[(c, n, k)] = rolls.get((c, n, k), 0) + a * power6(extra)
            continue
        saved = 7 - fnp
        for s in range(k + 1):
            ways = comb(k, s) * saved**s * (6 - saved) ** (k - s) * power6(extra - k)
            rolls[(c, n, k - s)] = rolls.get((c, n, k - s), 0) + a * ways
    return tuple(((a, depth + extra), c, n, loss) for (c, n, loss), a in rolls.items())


def turn(active: int, pair: Pair) -> Moment:
    """An F4 moment; a fighter without unresolved successes passes at once, so that moments
    differing only in who passes are one."""
    return Moment(False, active if pair[active].successes else 1 - active, pair)


class Sequence:
    """The transitions of one fight's sequences."""

    def __init__(self, fight: Fight) -> None:
        a, b = fight.fighter_a, fight.fighter_b
        self.fighters = (a, b)
        self.first = 0 if fight.options.first_to_act == "A" else 1
        self.strategies = (a.strategy, b.strategy)
        self.duelists = a.duelist or b.duelist
        self.relics = a.saintly_relics != "NONE" or b.saintly_relics != "NONE"
        self.openings = (opening(a, b), opening(b, a))
        """Each fighter's own F1 and F2 outcomes; `rolls` pairs them up."""

    @cached_property
    def rolls(self) -> list[tuple[Odds, tuple[int, int, int], tuple[int, int, int]]]:
        """Every joint roll of F1 and F2: (odds, A's crits, normals and curse damage taken,
        B's), A's outcomes outer."""
        return [
            (times(oa, ob), (ca, na, la), (cb, nb, lb))
            for oa, ca, na, la in self.openings[0]
            for ob, cb, nb, lb in self.openings[1]
        ]

    @cached_property
    def table(self) -> Table:
        """The tactical F4 moments of the fight, up to the most successes either fighter
        rolls, with their projected options (§9.5, §9.6)."""
        most = tuple(
            (max(r[1] for r in rolls), max(r[2] for r in rolls), max(r[1] + r[2] for r in rolls))
            for rolls in self.openings
        )
        return table_for(self.fighters, most)

    def opening_moment(self, pair: Pair) -> Moment:
        return self.duel(self.first, pair)

    @cached_property
    def certain(self) -> bool:
        """Whether no strike is a chance step: no Feel No Pain, no Relics, no OPTIMAL. Then a
        sequence is fixed once its dice are rolled: its projection (§9.6) with both real
        strategies is its resolution."""
        return all(
            f.feel_no_pain is None and f.saintly_relics == "NONE" and f.strategy != "OPTIMAL"
            for f in self.fighters
        )

    def duel(self, x: int | None, pair: Pair) -> Moment:
        """F3 from fighter x's Duelist parry on (None: F4). A fighter that is no Duelist has
        no F3 step at all, so fights without Duelists start straight at F4."""
        while x is not None and not self.fighters[x].duelist:
            x = 1 - x if x == self.first else None
        return Moment(True, x, pair) if x is not None else turn(self.first, pair)

    @staticmethod
    def mover(moment: Moment) -> int:
        """Whose action it is: during F4 a fighter without unresolved successes passes."""
        if moment.duel or moment.pair[moment.active].successes:
            return moment.active
        return 1 - moment.active

    def candidates(self, moment: Moment) -> tuple[Action | None, ...]:
        """What the mover may do (§9.8 O1); `None` is no Duelist parry."""
        x = self.mover(moment)
        y = 1 - x
        xs, ys = oriented(moment.pair, x)
        if moment.duel:
            if not (self.fighters[x].duelist and xs.successes and ys.successes):
                return (None,)
            parries = (CRIT_PARRY, NORMAL_PARRY)
            return tuple(p for p in parries if can_parry(self.fighters[y], xs, ys, p[1])) or (None,)
        return tuple(
            action
            for action in ACTIONS
            if (action[0] == "STRIKE" and xs.has(action[1]))
            or (action[0] == "PARRY" and can_parry(self.fighters[y], xs, ys, action[1]))
        )

    def duelist_parry(self, moment: Moment) -> Action | None:
        """F3: the Duelist's wiseParry (§9.5) at a duel moment, if it has a useful one."""
        if self.candidates(moment) == (None,):
            return None
        x = moment.active
        xs, ys = oriented(moment.pair, x)
        return wise_parry(self.fighters[1 - x], xs, ys)

    def after(self, moment: Moment, action: Action | None) -> list[tuple[Odds, Moment]]:
        """The moments after the mover's action, with their odds."""
        x = self.mover(moment)
        if action is None:
            outcomes = [(CERTAIN, moment.pair)]
        else:
            outcomes = act(self.fighters, x, moment.pair, action)
        if moment.duel:  # F3: the first fighter's Duelist parry, then the other's, then F4
            following = 1 - x if x == self.first else None
            return [(odds, self.duel(following, pair)) for odds, pair in outcomes]
        return [(odds, turn(1 - x, pair)) for odds, pair in outcomes]
