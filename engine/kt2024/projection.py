"""The heuristic strategies' decisions (§9.5) on the deterministic projection (§9.6), cell by
cell on the numbered tactical moments of `table`, for the cell-by-cell resolution
(`fight.Resolution`).

The decisions are `kernels.tactical` and `kernels.weighed`, the wounds grid's own, run here as
the plain Python they are compiled from (`py_func`); what this module adds is where a projected
rest of the sequence ends (D5 compares two), followed cell by cell and memoised per fight.
Strategies are `kernels`' codes; an OPTIMAL fighter is projected as STRIKE (§9.6).
"""

from __future__ import annotations

from . import kernels
from .table import Table

Plan = tuple[int, int]
"""The strategies A and B decide by in a projection (`kernels` codes)."""

tactical = kernels.tactical.py_func
weighed = kernels.weighed.py_func
tracked = kernels.tracked.py_func


class Projection:
    """§9.5 choices and §9.6 projected ends of one fight."""

    def __init__(self, table: Table, top: int) -> None:
        self.table = table
        self.width = top + 1
        """Wounds never exceed `top`, the larger starting wounds: cells are keyed in base
        `width`."""
        self._ends: dict[Plan, dict[int, tuple[int, int]]] = {}

    def choose(self, n: int, wa: int, wb: int, strategy: int) -> int:
        """The action code of the mover of tactical moment n (not over) at wounds (wa, wb)."""
        t = self.table
        hit, wise, x = t.hit[n], t.wise[n], t.mover[n]
        dmg = t.damage[hit][n]
        plain = t.always[n] or t.stun[n]
        _, own = tactical(strategy, hit, plain, t.block[n], t.reach[n], wise, (wa, wb)[1 - x], dmg)
        if own != kernels.COMPARE:
            return own
        plan: Plan = (strategy, kernels.STRIKE) if x == 0 else (kernels.STRIKE, strategy)
        if x == 0:
            struck = self.end(plan, t.next[hit][n], wa, wb - dmg if wb > dmg else 0)
        else:
            struck = self.end(plan, t.next[hit][n], wa - dmg if wa > dmg else 0, wb)
        parried = self.end(plan, t.next[wise][n], wa, wb)
        k = tracked(strategy, x)
        return weighed(strategy, struck[k], parried[k], hit, wise)

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
