"""The heuristic strategies' decisions (§9.5) on the deterministic projection (§9.6).

Relics and Feel No Pain never trigger in a projection, so every decision is a pure function of
the state (both statuses without the relic bookkeeping, whose turn, the strategy) and is
memoised per fight, on wounds made canonical (`wounds.Alike`) so that alike states share it.
An OPTIMAL fighter is projected as STRIKE, like any opponent (§9.6).
"""

from __future__ import annotations

from .fight_state import CRIT, NORMAL, Odds, Pair, Status, oriented
from .fighter import Fighter, Strategy
from .strike import (
    CRIT_PARRY,
    CRIT_STRIKE,
    NORMAL_PARRY,
    NORMAL_STRIKE,
    Action,
    act,
    blow,
    can_parry,
    parry,
    strike,
)
from .wounds import Alike

_UNSHARED = object()
"""A projected move that is not memoised wound-free (Murderous Entrance's strikes)."""


def settled(pair: Pair) -> bool:
    """F4 stops when a fighter is at 0 wounds or neither has an unresolved success."""
    a, b = pair
    return a.wounds == 0 or b.wounds == 0 or (a.successes == 0 and b.successes == 0)


def wise_parry(y: Fighter, xs: Status, ys: Status) -> Action | None:
    """wiseParry(X, Y) of §9.5: block a crit with a crit, a normal with a normal, else any crit."""
    if ys.crits and xs.crits:
        return CRIT_PARRY
    if xs.normals and ys.normals and not y.brutal:
        return NORMAL_PARRY
    if xs.crits:
        return CRIT_PARRY
    return None


class Tactics:
    """§9.5 decisions and §9.6 projections for one pair of fighters, memoised on the state."""

    def __init__(self, fighters: tuple[Fighter, Fighter]) -> None:
        self.fighters = fighters
        self.alike = Alike(fighters)
        self._choices: dict[tuple[int, Pair, Strategy], Action] = {}
        self._ends: dict[tuple[int, Pair, Strategy, Strategy], tuple[int, int]] = {}
        self._moves: dict[tuple, tuple[Pair, int] | object] = {}

    def choose(self, x: int, pair: Pair, strategy: Strategy) -> Action:
        """The action of fighter x (active, with ≥1 unresolved success) under a heuristic."""
        return self._choose(
            x, self.alike.canonical((pair[0].tactical(), pair[1].tactical())), strategy
        )

    def _choose(self, x: int, alike: Pair, strategy: Strategy) -> Action:
        """`choose` on a pair already tactical and canonical (canonical wounds are their own
        canonical wounds), as projections produce them."""
        key = (x, alike, strategy)
        choice = self._choices.get(key)
        if choice is None:
            choice = self._choices[key] = self._decide(x, alike, strategy)
        return choice

    def resolve(
        self, x: int, pair: Pair, action: Action, chance: bool = True
    ) -> list[tuple[Odds, Pair]]:
        """Fighter x's action, with Relics and Feel No Pain (`chance`) or without (§9.6)."""
        return act(self.fighters, x, pair, action, chance)

    def project(self, x: int, pair: Pair, action: Action) -> Pair:
        """Fighter x's action without Relics or Feel No Pain (§9.6).

        What an action does to the successes and flags, and its damage, never depend on the
        wounds, so they are memoised on the wound-free pair and the damage applied after
        (except for Murderous Entrance, whose second strike needs the target standing)."""
        a, b = pair
        key = (x, action, a[0], a[1], a[3:], b[0], b[1], b[3:])
        move = self._moves.get(key)
        if move is None:
            move = self._moves[key] = self._move(x, pair, action)
        if move is _UNSHARED:
            return self._project(x, pair, action)
        (na, nb), dmg = move
        if x == 0:
            return (na.with_wounds(a[2]), nb.with_wounds(max(0, b[2] - dmg)))
        return (na.with_wounds(max(0, a[2] - dmg)), nb.with_wounds(b[2]))

    def _move(self, x: int, pair: Pair, action: Action) -> tuple[Pair, int] | object:
        """(the pair after fighter x's projected action, wounds untouched; its damage)."""
        fx, fy = self.fighters[x], self.fighters[1 - x]
        verb, kind = action
        xs, ys = oriented(pair, x)
        if verb == "PARRY":
            xs, ys = parry(fx, fy, xs, ys, kind)
            dmg = 0
        elif fx.murderous_entrance2021:
            return _UNSHARED
        else:
            dmg, xs, ys = blow(fx, fy, xs, ys, kind)
        return ((xs, ys) if x == 0 else (ys, xs)), dmg

    def _project(self, x: int, pair: Pair, action: Action) -> Pair:
        """`project` resolved in full, wounds and all."""
        verb, kind = action
        xs, ys = oriented(pair, x)
        if verb == "PARRY":
            xs, ys = parry(self.fighters[x], self.fighters[1 - x], xs, ys, kind)
        else:
            ((_, xs, ys),) = strike(self.fighters[x], self.fighters[1 - x], xs, ys, kind, False)
        return (xs, ys) if x == 0 else (ys, xs)

    def end_of_sequence(
        self, active: int, pair: Pair, strategies: tuple[Strategy, Strategy]
    ) -> tuple[int, int]:
        """Both fighters' wounds at the end of the projected rest of F4 from `pair`, with
        `active` to act (passing when it can't); memoised on canonical wounds.

        The projection is followed in a loop up to a memoised or settled state and the ends
        are then memoised back along the path (a hot path: no recursion per step)."""
        ends, maps, alike_map = self._ends, self.alike._maps, self.alike.map
        path: list[tuple[tuple, int, int, int, int]] = []
        while True:
            a, b = pair
            wa, wb = a[2], b[2]
            if not wa or not wb or not (a[0] or a[1] or b[0] or b[1]):  # settled
                end = (wa, wb)
                break
            map_a = maps.get((1, b[0], b[1])) or alike_map(1, b[0], b[1])
            map_b = maps.get((0, a[0], a[1])) or alike_map(0, a[0], a[1])
            ka, kb = map_a[wa], map_b[wb]
            alike = (a if ka == wa else a.with_wounds(ka), b if kb == wb else b.with_wounds(kb))
            key = (active, alike, strategies)
            end = ends.get(key)
            if end is not None:
                end = (end[0] + wa - ka if end[0] else 0, end[1] + wb - kb if end[1] else 0)
                break
            path.append((key, wa, wb, ka, kb))
            mover = active if alike[active][0] or alike[active][1] else 1 - active
            pair = self.project(mover, alike, self._choose(mover, alike, strategies[mover]))
            active = 1 - mover
        for key, wa, wb, ka, kb in reversed(path):  # `end` is where alike's step leads
            ends[key] = end
            end = (end[0] + wa - ka if end[0] else 0, end[1] + wb - kb if end[1] else 0)
        return end

    def _decide(self, x: int, pair: Pair, strategy: Strategy) -> Action:
        y = 1 - x
        fx, fy = self.fighters[x], self.fighters[y]
        xs, ys = oriented(pair, x)
        hit = CRIT_STRIKE if xs.crits else NORMAL_STRIKE
        if not ys.successes:  # D0
            return hit
        if not (can_parry(fy, xs, ys, CRIT) or can_parry(fy, xs, ys, NORMAL)):  # D1
            return hit
        # every damage total X could still deal is below Y's wounds: D2 and D4 can't apply
        in_reach = ys.wounds <= self.alike.totals(x, xs)[-1]
        struck_now = self.project(x, pair, hit)
        if in_reach and oriented(struck_now, x)[1].wounds == 0:  # D2
            return hit
        if (fx.stun2021 or fx.shock) and not xs.crit_struck and xs.crits and not ys.crits:  # D3
            return CRIT_STRIKE
        last_block = self._last_block(x, xs, ys) if in_reach else None  # D4
        if last_block is not None:
            return last_block
        if strategy == "STRIKE":  # D5
            return hit
        wise = wise_parry(fy, xs, ys)
        if wise is None:
            return hit
        if strategy == "PARRY":
            return wise
        plan: tuple[Strategy, Strategy] = (strategy, "STRIKE") if x == 0 else ("STRIKE", strategy)
        struck = self.end_of_sequence(y, struck_now, plan)
        parried = self.end_of_sequence(y, self.project(x, pair, wise), plan)
        if strategy == "MIN_DAMAGE_TO_SELF":
            return hit if struck[x] >= parried[x] else wise
        return hit if struck[y] <= parried[y] else wise

    def _last_block(self, x: int, xs: Status, ys: Status) -> Action | None:
        """D4: a parry that leaves Y nothing, if X's remaining strikes then take Y's last wound."""
        block = last_block_parry(self.fighters[x], self.fighters[1 - x], xs, ys)
        if block is None:
            return None
        action, xs2, ys2 = block
        y, pair = 1 - x, ((xs2, ys2) if x == 0 else (ys2, xs2))
        while pair[x].successes and pair[y].wounds > 0:
            pair = self.project(x, pair, CRIT_STRIKE if pair[x].crits else NORMAL_STRIKE)
        return action if pair[y].wounds == 0 else None


def last_block_parry(
    fx: Fighter, fy: Fighter, xs: Status, ys: Status
) -> tuple[Action, Status, Status] | None:
    """D4's candidate: the first parry (normal, then critical) that leaves Y no successes, with
    both fighters' states after it; whether X's strikes then finish Y is the caller's to say."""
    for action in (NORMAL_PARRY, CRIT_PARRY):
        if can_parry(fy, xs, ys, action[1]):
            xs2, ys2 = parry(fx, fy, xs, ys, action[1])
            if not ys2.successes:
                return action, xs2, ys2
    return None
