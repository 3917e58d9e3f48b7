"""Resolving one strike (§9.3 S1–S11) or one parry (§9.4).

X acts against Y. `strike` returns every outcome with its odds; with `chance=False` it is the
deterministic projection of §9.6 (Saintly Relics and Feel No Pain never trigger), which the
heuristic decisions are made on.
"""

from __future__ import annotations

from .fight_state import (
    CERTAIN,
    CRIT,
    NORMAL,
    Kind,
    Odds,
    Pair,
    Status,
    oriented,
    times,
    unoriented,
)
from .fighter import Fighter

Outcome = tuple[Odds, Status, Status]
"""(odds, X's status, Y's status) after the action."""

RELIC_ODDS: dict[str, tuple[Odds, Odds]] = {
    # (at least one 6, no 6) on 1D6 or on 2D6 (INSPIRING)
    "ONE_D6": ((1, 1), (5, 1)),
    "TWO_D6": ((11, 2), (25, 2)),
}


def strike_dice(fighters: tuple[Fighter, Fighter]) -> int:
    """The most Relic and Feel No Pain dice one strike against either fighter may roll (S8,
    S9): the depth of one success's share of a fight's common denominator."""
    return max(
        (RELIC_ODDS[f.saintly_relics][0][1] if f.saintly_relics != "NONE" else 0)
        + (f.feel_no_pain is not None)
        for f in fighters
    )


def profile_damage(x: Fighter, kind: Kind) -> int:
    return x.critical_damage if kind == CRIT else x.normal_damage


def halved(dmg: int) -> int:
    """S5a: half rounding up, never below min(dmg, 2) (5→3, 4→2, 3→2, 2→2, 1→1)."""
    return max(-(-dmg // 2), min(dmg, 2))


def blow(x: Fighter, y: Fighter, xs: Status, ys: Status, kind: Kind) -> tuple[int, Status, Status]:
    """S1–S7: the damage of the strike before Relics and Feel No Pain, and the new statuses."""
    xs = xs.take(kind)  # S1
    dmg = profile_damage(x, kind)  # S2
    if kind == CRIT and y.durable and not ys.durable_used:  # S3
        ys = ys.set(durable_used=True)
        if x.critical_damage >= 4:
            dmg -= 1
    if x.hammerhand2021 and not xs.struck:  # S4
        dmg += 1
    if y.just_a_scratch != "NONE" and not ys.jas_used and dmg > 0:  # S5
        if y.just_a_scratch == "NORMALS":
            scratched = kind == NORMAL
        else:
            big = CRIT if x.critical_damage >= x.normal_damage else NORMAL
            scratched = kind == big or not xs.has(big)
        if scratched:
            dmg = 0
            ys = ys.set(jas_used=True)
    if y.half_damage_first_strike and not ys.half_used and dmg > 0:  # S5a
        ys = ys.set(half_used=True)
        dmg = halved(dmg)
    if kind == CRIT and not xs.crit_struck:  # S6
        if x.stun2021 and ys.normals:
            ys = ys.take(NORMAL)
        if x.shock and ys.successes:
            ys = ys.take(NORMAL if ys.normals else CRIT)
    # S7, tracking only flags a rule of X reads, so that states differing in nothing that
    # matters are one state for every memo
    if x.hammerhand2021 and not xs.struck:
        xs = xs.set(struck=True)
    if kind == CRIT and not xs.crit_struck and remembers_crit_strike(x):
        xs = xs.set(crit_struck=True)
    return dmg, xs, ys


def remembers_crit_strike(x: Fighter) -> bool:
    """Whether any rule of X reads hasCritStruck (Stun, Shock, Murderous Entrance)."""
    return x.stun2021 or x.shock or x.murderous_entrance2021


def relic_applies(x: Fighter, y: Fighter, xs: Status, ys: Status, kind: Kind, dmg: int) -> bool:
    """S8's condition (`xs` is X after S1): keep the ignore for a strictly larger pending strike."""
    if y.saintly_relics == "NONE" or dmg <= 0:
        return False
    if ys.relic_used_this_sequence or ys.relics_used >= 2:
        return False
    other = NORMAL if kind == CRIT else CRIT
    return not (xs.has(other) and profile_damage(x, other) > profile_damage(x, kind))


def suffer(y: Fighter, dmg: int, chance: bool) -> list[tuple[Odds, int]]:
    """S9: one Feel No Pain die against a damaging strike (or curse instance) removes 1."""
    if not chance or y.feel_no_pain is None or dmg <= 0:
        return [(CERTAIN, dmg)]
    saved = 7 - y.feel_no_pain
    return [((saved, 1), dmg - 1), ((6 - saved, 1), dmg)]


def relic(
    x: Fighter, y: Fighter, xs: Status, ys: Status, kind: Kind, dmg: int, chance: bool
) -> list[tuple[Odds, int, Status]]:
    """S8: (odds, damage, Y after) as Y's Saintly Relics ignore the strike's damage or not."""
    if not (chance and relic_applies(x, y, xs, ys, kind, dmg)):
        return [(CERTAIN, dmg, ys)]
    ignored, kept = RELIC_ODDS[y.saintly_relics]
    spent = ys.set(relic_used_this_sequence=True, relics_used=ys.relics_used + 1)
    return [(ignored, 0, spent), (kept, dmg, ys)]


def single_strike(
    x: Fighter, y: Fighter, xs: Status, ys: Status, kind: Kind, chance: bool
) -> list[Outcome]:
    """S1–S10 of one strike."""
    dmg, xs, ys = blow(x, y, xs, ys, kind)
    outcomes: list[Outcome] = []
    for odds, dealt, y_after in relic(x, y, xs, ys, kind, dmg, chance):
        for fnp_odds, final in suffer(y, dealt, chance):  # S9
            wounds = max(0, y_after.wounds - final)  # S10
            outcomes.append((times(odds, fnp_odds), xs, y_after.with_wounds(wounds)))
    return outcomes


def strike(
    x: Fighter, y: Fighter, xs: Status, ys: Status, kind: Kind, chance: bool = True
) -> list[Outcome]:
    """S1–S11: a strike, followed at once by Murderous Entrance's automatic second strike."""
    first_crit = kind == CRIT and not xs.crit_struck
    outcomes = single_strike(x, y, xs, ys, kind, chance)
    if not (first_crit and x.murderous_entrance2021):
        return outcomes
    result: list[Outcome] = []
    for odds, xs2, ys2 in outcomes:
        if ys2.wounds > 0 and xs2.successes:  # S11
            again = CRIT if xs2.crits else NORMAL
            for odds2, xs3, ys3 in single_strike(x, y, xs2, ys2, again, chance):
                result.append((times(odds, odds2), xs3, ys3))
        else:
            result.append((odds, xs2, ys2))
    return result


def parry(x: Fighter, y: Fighter, xs: Status, ys: Status, kind: Kind) -> tuple[Status, Status]:
    """§9.4: the parrying success is spent and cancels Y's unresolved successes."""
    blocks = 2 if x.storm_shield2021 else 1
    xs = xs.take(kind)
    if kind == NORMAL:
        return xs, ys.set(normals=max(0, ys.normals - blocks))
    for _ in range(blocks):
        if ys.successes:
            ys = ys.take(CRIT if ys.crits else NORMAL)
    if x.dueller2021 and ys.normals:
        ys = ys.take(NORMAL)
    return xs, ys


def can_parry(y: Fighter, xs: Status, ys: Status, kind: Kind) -> bool:
    """A *useful* parry (§9.5, §9.8 O1): a crit against any success, a normal against a normal."""
    if kind == CRIT:
        return xs.crits > 0 and ys.successes > 0
    return xs.normals > 0 and ys.normals > 0 and not y.brutal


Action = tuple[str, Kind]
CRIT_STRIKE: Action = ("STRIKE", CRIT)
NORMAL_STRIKE: Action = ("STRIKE", NORMAL)
CRIT_PARRY: Action = ("PARRY", CRIT)
NORMAL_PARRY: Action = ("PARRY", NORMAL)
ACTIONS: tuple[Action, ...] = (CRIT_STRIKE, NORMAL_STRIKE, CRIT_PARRY, NORMAL_PARRY)
"""Every action, in the tie-break order of §9.8 O4."""


def act(
    fighters: tuple[Fighter, Fighter], x: int, pair: Pair, action: Action, chance: bool = True
) -> list[tuple[Odds, Pair]]:
    """Fighter x resolves `action` against the other: every resulting (A, B) pair with its odds."""
    y = 1 - x
    xs, ys = oriented(pair, x)
    verb, kind = action
    if verb == "PARRY":
        xs, ys = parry(fighters[x], fighters[y], xs, ys, kind)
        return [(CERTAIN, unoriented(xs, ys, x))]
    return [
        (odds, unoriented(xs2, ys2, x))
        for odds, xs2, ys2 in strike(fighters[x], fighters[y], xs, ys, kind, chance)
    ]


Move = tuple[Odds, Pair, int]
"""(odds, the pair after the action with wounds untouched, damage dealt to the opponent)."""


def moves(
    fighters: tuple[Fighter, Fighter], x: int, pair: Pair, action: Action, chance: bool
) -> tuple[Move, ...]:
    """Fighter x's action on a pair whose wounds are left alone: S1–S11 or §9.4, with the
    Relic and Feel No Pain dice (`chance`) or without (§9.6), the damage returned instead of
    dealt. Murderous Entrance's second strike is folded in: it comes only when the target
    survived the first, and when it did not, the sequence is over whatever the second strike
    would have done."""
    fx, fy = fighters[x], fighters[1 - x]
    xs, ys = oriented(pair, x)
    verb, kind = action
    if verb == "PARRY":
        xs, ys = parry(fx, fy, xs, ys, kind)
        return ((CERTAIN, unoriented(xs, ys, x), 0),)
    first_crit = kind == CRIT and not xs.crit_struck
    result = []
    for odds, xs2, ys2, dmg in _dealt(fx, fy, xs, ys, kind, chance):
        if first_crit and fx.murderous_entrance2021 and xs2.successes:  # S11
            again = CRIT if xs2.crits else NORMAL
            for odds2, xs3, ys3, dmg2 in _dealt(fx, fy, xs2, ys2, again, chance):
                result.append((times(odds, odds2), xs3, ys3, dmg + dmg2))
        else:
            result.append((odds, xs2, ys2, dmg))
    return tuple((odds, unoriented(xs2, ys2, x), dmg) for odds, xs2, ys2, dmg in result)


def _dealt(
    x: Fighter, y: Fighter, xs: Status, ys: Status, kind: Kind, chance: bool
) -> list[tuple[Odds, Status, Status, int]]:
    """S1–S9 of one strike: (odds, X, Y, damage dealt) per Relic and Feel No Pain outcome."""
    dmg, xs, ys = blow(x, y, xs, ys, kind)
    return [
        (times(odds, fnp), xs, y_after, final)
        for odds, dealt, y_after in relic(x, y, xs, ys, kind, dmg, chance)  # S8
        for fnp, final in suffer(y, dealt, chance)  # S9
    ]
