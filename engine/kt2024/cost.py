"""The estimated CPU of a kt2024 shoot or fight, from its canonical scenario (`engine.cost`).

A fight (`flat.resolve`) runs its compiled loops over every wound-free moment (`table`'s, the
nodes) at every cell of the wounds grid the fight can reach, once per sequence (`rounds`), and
every action there branches over its Relic and Feel No Pain dice (`exponents`' depth): its work
is moments × reachable cells × (1 + depth), summed over the sequences. Exact precision carries
the masses modulo the primes their denominator (6**(rounds·step)) needs, an OPTIMAL fighter
adds `kernels.solve`, which scores each candidate (as many as the successes, `top`) at each
cell modulo its own primes beside 2**64: those terms are the grid's times primes times `top`.
A sequence starts at the cells the earlier ones reach, which grow with the damage one sequence
can deal (the most successes times the larger damage), capped by the grid, and spreads each
over `SPREAD` cells.

The moments and exponents come from the fight's own `Sequence` (its openings and table are
memoised, on exactly the fields they read, and shared with the evaluation that follows), so
the estimate reads the fight's real size, not a guess from its fields.

A shoot is dice statistics (memoised per attacker and defender) and one convolution of the
round's damage per round, over the damage the rounds can total.

The constants are milliseconds per unit of each term, fitted by
`benchmarks/calibrate_costs.py` (cold evaluations on this machine's kind; see its docstring).
"""

from __future__ import annotations

from engine.cost import Work, linear
from engine.errors import TooLarge

from . import flat
from .fighter import Fight, Fighter
from .precision import PRIMES, power6
from .scenario import Shoot
from .sequence import Sequence

FIGHT = {
    "base": 0.674,
    "moments": 0.00131,
    "grid": 4.05e-06,
    "exact": 1.81e-07,
    "optimal": 2.12e-07,
}
"""ms per unit of each fight term (`fight_terms`)."""

SHOOT = {
    "base": 0.12,
    "dice": 2.04e-05,
    "rounds": 0.000106,
}
"""ms per unit of each shoot term (`shoot_terms`)."""

DRIVERS = {
    "base": "",
    "moments": "attacks",
    "grid": "rounds",
    "exact": "exact",
    "optimal": "strategy",
    "dice": "attacks",
    "rounds": "rounds",
}
"""The quantity each term grows with: what a client reduces to make the request cheaper."""


def _primes(bound: int) -> int:
    """How many of `PRIMES` carry numerators below `bound` (`flat.primes_above`'s count)."""
    try:
        return len(flat.primes_above(bound))
    except TooLarge:
        return len(PRIMES)


SPREAD = 32
"""The cells one sequence spreads a starting cell over, at a moment (its Feel No Pain and
Relic dice and the damage already struck), fitted with the constants."""


def _reach(dealt: int, wounds: int, sequences: int) -> int:
    """Cells of one fighter's wounds (0 … wounds) that `sequences` sequences can reach."""
    return min(wounds + 1, 1 + sequences * dealt)


def _dealt(me: Fighter, successes: int) -> int:
    """The most damage `me` deals in one sequence: every success struck at its larger damage."""
    return successes * max(me.normal_damage, me.critical_damage, 1)


def fight_terms(fight: Fight) -> dict[str, float]:
    """The fight's work in the engine's quantities, per term of `FIGHT`."""
    a, b = fight.fighter_a, fight.fighter_b
    rounds, exact = fight.options.rounds, fight.options.exact
    try:
        sequence = Sequence(fight)
        moments = sequence.table.size
        depth, top, step = flat.exponents(sequence)
    except TooLarge:  # refused by the evaluation at once: no loop runs
        return {"base": 1.0}
    most = [max(c + n for _, c, n, _ in rolls) for rolls in sequence.openings]
    openings = len(sequence.openings[0]) * len(sequence.openings[1])
    whole = (a.wounds + 1) * (b.wounds + 1)
    cells = sum(
        min(
            whole,
            SPREAD
            * _reach(_dealt(b, most[1]), a.wounds, r)
            * _reach(_dealt(a, most[0]), b.wounds, r),
        )
        for r in range(rounds)
    )
    grid = moments * cells * (1 + depth) + openings * rounds
    optimal = "OPTIMAL" in (a.strategy, b.strategy)
    solving = _primes(power6(depth * top + (rounds - 1) * step)) + 2 if optimal else 0
    pushing = _primes(power6(rounds * step)) if exact else 0
    return {
        "base": 1.0,
        "moments": float(moments),
        "grid": float(grid),
        "exact": float(grid * pushing * top),
        "optimal": float(grid * solving * top),
    }


def shoot_terms(shoot: Shoot) -> dict[str, float]:
    """The shoot's work, per term of `SHOOT`: the dice statistics grow with the attack dice
    (crits × normals retained) times the defence dice's saves; the rounds with the damage
    they can total, times the rounds (exact rounds multiply big integers)."""
    a, d, rounds = shoot.attacker, shoot.defender, shoot.options.rounds
    dice = (a.attacks + 1) ** 2 * (d.defence_dice + 1) ** 2
    if d.feel_no_pain is not None or d.saintly_relics != "NONE":
        dice *= 2
    damage = a.attacks * (max(a.normal_damage, a.critical_damage) + a.devastating)
    total = damage * rounds
    work = (rounds - 1) * total * (4 if shoot.options.exact else 1)
    return {"base": 1.0, "dice": float(dice), "rounds": float(work)}


SERVED = 1.6
"""The fight loops' CPU in a serving process over the calibration's, the fixed part aside:
`benchmarks/bench_costs.py` measured the median fight at 1.84 ms a token through the app
against 1.15 for a shoot (a pool thread beside the event loop and the other requests' work)."""


def _work(constants: dict[str, float], terms: dict[str, float]) -> Work:
    found = linear(constants, terms)
    return Work(found.ms, DRIVERS[found.driver])


def fight(scenario: Fight) -> Work:
    terms = fight_terms(scenario)
    return _work(FIGHT, {k: v if k == "base" else SERVED * v for k, v in terms.items()})


def shoot(scenario: Shoot) -> Work:
    return _work(SHOOT, shoot_terms(scenario))
