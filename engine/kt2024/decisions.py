"""The parries the heuristic strategies' decisions (§9.5) name: wiseParry and D4's last block.

The decisions themselves run on numbered moments (`kernels.decide` over the wounds grid,
`projection` cell by cell); F3's Duelist parry (`sequence`) and `table`'s D4 candidates use these.
"""

from __future__ import annotations

from .fight_state import Status
from .fighter import Fighter
from .strike import CRIT_PARRY, NORMAL_PARRY, Action, can_parry, parry


def wise_parry(y: Fighter, xs: Status, ys: Status) -> Action | None:
    """wiseParry(X, Y) of §9.5: block a crit with a crit, a normal with a normal, else any crit."""
    if ys.crits and xs.crits:
        return CRIT_PARRY
    if xs.normals and ys.normals and not y.brutal:
        return NORMAL_PARRY
    if xs.crits:
        return CRIT_PARRY
    return None


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
