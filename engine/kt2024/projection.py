"""The heuristic strategies' decisions (§9.5) on the deterministic projection (§9.6), cell by
cell on the numbered tactical moments of `table`.

Relics and Feel No Pain never trigger in a projection, so a decision is a pure function of the
tactical moment, the wounds and the strategy, and where a projected rest of the sequence ends
is one too: both are plain integers here, memoised per fight. An OPTIMAL fighter is projected
as STRIKE, like any opponent (§9.6).
"""

from __future__ import annotations

from .fighter import Strategy
from .table import Table

Plan = tuple[Strategy, Strategy]
"""The strategies A and B decide by in a projection."""


class Projection:
    """§9.5 choices and §9.6 projected ends of one fight."""

    def __init__(self, table: Table, top: int) -> None:
        self.table = table
        self.width = top + 1
        """Wounds never exceed `top`, the larger starting wounds: cells are keyed in base
        `width`."""
        self._ends: dict[Plan, dict[int, tuple[int, int]]] = {}

    def choose(self, n: int, wa: int, wb: int, strategy: Strategy) -> int:
        """The action code of the mover of tactical moment n (not over) at wounds (wa, wb)."""
        t = self.table
        hit = t.hit[n]
        if t.always[n] or t.stun[n]:  # D0, D1, D3 (D3's CRIT strike is the mover's "strike")
            return hit
        x = t.mover[n]
        wy = wb if x == 0 else wa
        dmg = t.damage[hit][n]
        if wy <= dmg:  # D2
            return hit
        block = t.block[n]
        if block >= 0 and wy <= t.reach[n]:  # D4
            return block
        wise = t.wise[n]
        if strategy == "STRIKE" or wise < 0:  # D5
            return hit
        if strategy == "PARRY":
            return wise
        plan: Plan = (strategy, "STRIKE") if x == 0 else ("STRIKE", strategy)
        if x == 0:
            struck = self.end(plan, t.next[hit][n], wa, wb - dmg if wb > dmg else 0)
        else:
            struck = self.end(plan, t.next[hit][n], wa - dmg if wa > dmg else 0, wb)
        parried = self.end(plan, t.next[wise][n], wa, wb)
        if strategy == "MIN_DAMAGE_TO_SELF":  # X's wounds at the end
            return hit if struck[x] >= parried[x] else wise
        return hit if struck[1 - x] <= parried[1 - x] else wise  # MAX_DAMAGE: Y's wounds

    def end(self, plan: Plan, n: int, wa: int, wb: int) -> tuple[int, int]:
        """Both fighters' wounds where the projected rest of F4 from tactical moment n ends,
        both deciding by `plan`.

        The projection is followed in a loop up to a memoised or settled cell, and every cell
        on the way is then memoised with the same end (the projection is deterministic)."""
        memo = self._ends.get(plan)
        if memo is None:
            memo = self._ends[plan] = {}
        t, width = self.table, self.width
        over, movers, nexts, damages = t.over, t.mover, t.next, t.damage
        path = []
        while wa and wb and not over[n]:
            key = (n * width + wa) * width + wb
            found = memo.get(key)
            if found is not None:
                wa, wb = found
                break
            path.append(key)
            x = movers[n]
            code = self.choose(n, wa, wb, plan[x])
            dmg = damages[code][n]
            n = nexts[code][n]
            if dmg:
                if x == 0:
                    wb = wb - dmg if wb > dmg else 0
                else:
                    wa = wa - dmg if wa > dmg else 0
        end = (wa, wb)
        for key in path:
            memo[key] = end
        return end
