"""§5 attack-dice pipeline: which attack dice are retained, as crits or normals.

The steps A4–A11 are declared once, in the order of the spec, with when each applies
(`STEPS`), and run on counts, each as one array pass over every outcome of the roll (a
condition of the spec is a mask); A12 ends them. A normal success is ROLLED (`nr`) or LOCKED
(`nl`): retain-worded promotions (Rending, NormsToCrits, Mystic Scry) only take ROLLED normals,
change-worded ones (Severe, Elite) take any normal, LOCKED first.

Each step being per outcome, the steps of pools of up to STATE_DICE dice are also tables over
every state (c, nr, nl, f, Severe), made at import by running the step's function once over
all states (`STEP_TABLES`): a cold attack then takes one lookup a step (`retain`).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from functools import cache, lru_cache
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np

from .allocation import hit_cells
from .dice import SIMPLICES, Kept, outcomes_key, roll
from .scenario import AttackDice

Retained = tuple[int, int, int]
"""(c, n, K): retained critical successes, retained normal successes, cursed dice."""


Mask = np.ndarray | bool
"""Where a step applies: a mask over the outcomes, or True for all of them."""


class Pool(NamedTuple):
    """Counts between steps, one entry per rolled outcome (numpy arrays, or one scalar for
    all): crits, ROLLED normals, LOCKED normals, fails, Severe triggered. Every step is one
    array pass over all outcomes: a condition of the spec is a mask, and a step moves one die
    (or two) between counts where it holds, adding and subtracting the mask itself (True
    counts 1), so an outcome where it does not hold keeps its counts untouched."""

    c: np.ndarray
    nr: np.ndarray
    nl: np.ndarray | int
    f: np.ndarray
    severe: np.ndarray | np.bool_

    def fail_to_normal(self, where: Mask) -> Pool:
        return self._replace(f=self.f - where, nl=self.nl + where)

    def fail_to_crit(self, where: Mask) -> Pool:
        return self._replace(f=self.f - where, c=self.c + where)

    def rolled_to_crit(self, where: Mask) -> Pool:
        return self._replace(nr=self.nr - where, c=self.c + where)

    def any_normal_to_crit(self, where: Mask) -> Pool:
        """Change-worded promotion: a LOCKED normal if there is one, else a ROLLED one."""
        locked = where & (self.nl >= 1)
        return self._replace(nl=self.nl - locked, nr=self.nr - (where ^ locked), c=self.c + where)


def punishing(p: Pool, _: bool) -> Pool:
    """A4: a crit lets one fail be retained as a normal (LOCKED)."""
    return p.fail_to_normal((p.c >= 1) & (p.f >= 1))


def purity_seal(p: Pool, _: bool) -> Pool:
    """A5: two fails become one LOCKED normal (one discarded, the other retained)."""
    two = p.f >= 2
    return p._replace(f=p.f - 2 * two, nl=p.nl + two)


def close_assault(p: Pool, _: bool) -> Pool:
    """A6: with ≥2 successes, one fail is retained as a normal."""
    return p.fail_to_normal((p.c + p.nr + p.nl >= 2) & (p.f >= 1))


def fails_to_norms(p: Pool, x: int) -> Pool:
    """A7: up to x fails retained as LOCKED normals."""
    m = np.minimum(x, p.f)
    return p._replace(f=p.f - m, nl=p.nl + m)


def severe(p: Pool, _: bool) -> Pool:
    """A8: no crit ⇒ one normal (LOCKED first) becomes a crit; blocks Punishing and Rending."""
    promoted = (p.c == 0) & (p.nr + p.nl >= 1)
    return p.any_normal_to_crit(promoted)._replace(severe=p.severe | promoted)


def norms_to_crits(p: Pool, x: int) -> Pool:
    """A9: up to x ROLLED normals retained as crits."""
    m = np.minimum(x, p.nr)
    return p._replace(nr=p.nr - m, c=p.c + m)


def rending(p: Pool, _: bool) -> Pool:
    """A10: a crit promotes one ROLLED normal, unless Severe promoted one."""
    return p.rolled_to_crit(~p.severe & (p.c >= 1) & (p.nr >= 1))


def elite(p: Pool, kind: str) -> Pool:
    """A11: Kasrkin elite — a fail → normal (moderate) or crit (extreme); else a normal → crit.
    The kind is the attack's `AttackDice.elite`."""
    on_fail = p.f >= 1
    on_normal = ~on_fail & (p.nr + p.nl >= 1)
    p = p.fail_to_normal(on_fail) if kind == "moderate" else p.fail_to_crit(on_fail)
    return p.any_normal_to_crit(on_normal)


class Step(NamedTuple):
    """One rule of A4–A11 (`STEPS`): its name, the attribute of AttackDice that says how much
    of it an attack has (falsy for none: a flag, an amount x, Elite's kind); whether Obscured
    stops it; the step on a pool for that amount (None for Mystic Scry, which scores by
    damage); the amounts also tabulated."""

    rule: str
    obscurable: bool
    run: Callable[[Pool, Any], Pool] | None
    tabulated: tuple[object, ...]


TABULATED_AMOUNTS = 3
"""The largest FailsToNorms and NormsToCrits amounts whose steps are tabulated."""
_AMOUNTS = tuple(range(1, TABULATED_AMOUNTS + 1))

STEPS = (
    Step("punishing", True, punishing, (True,)),
    Step("purity_seal", False, purity_seal, (True,)),
    Step("close_assault", False, close_assault, (True,)),
    Step("fails_to_norms", False, fails_to_norms, _AMOUNTS),
    Step("severe", False, severe, (True,)),
    Step("norms_to_crits", False, norms_to_crits, _AMOUNTS),
    Step("mystic_scry", False, None, ()),
    Step("rending", True, rending, (True,)),
    Step("elite", False, elite, ("moderate", "extreme")),
)
"""A4–A11 in the order of the spec, each rule's condition once: `retain` runs them on arrays,
and (but Mystic Scry) they are tables made at import (`STEP_TABLES`)."""

Applying = list[tuple[Step, Any]]
"""The steps of `STEPS` that apply to an attack, each with its amount, in order."""
_UNSTOPPED = {ob: tuple(s for s in STEPS if not (ob and s.obscurable)) for ob in (False, True)}
_AMOUNTS_OF = {ob: attrgetter(*(s.rule for s in steps)) for ob, steps in _UNSTOPPED.items()}
"""The amounts of the steps Obscured does not stop, read at once (one C call)."""


def applying(d: AttackDice, ob: bool) -> Applying:
    """The steps of A4–A11 that `d` has and Obscured does not stop."""
    amounts = _AMOUNTS_OF[ob](d)
    if not any(amounts):  # most attacks: no step to pair
        return []
    steps = []
    for step, x in zip(_UNSTOPPED[ob], amounts, strict=False):  # a loop: no frame (3.11)
        if x:
            steps.append((step, x))
    return steps


def run_steps(d: AttackDice, steps: Applying, p: Pool, ob: bool, devastating: int) -> Pool:
    """The steps on arrays, one pass each over every outcome."""
    for at, (step, x) in enumerate(steps):
        if step.run is None:  # Mystic Scry: scored after the steps that follow it
            p = mystic_scry(d, steps[at + 1 :], p, ob, devastating)
        else:
            p = step.run(p, x)
    return p


def obscured(p: Pool, ob: bool) -> tuple[np.ndarray, np.ndarray]:
    """A12: under Obscured every crit is retained as a normal and one success is discarded."""
    n = p.nr if isinstance(p.nl, int) and not p.nl else p.nr + p.nl  # no pass for no LOCKED
    return (np.zeros_like(p.c), np.maximum(0, n + p.c - 1)) if ob else (p.c, n)


def mystic_scry(d: AttackDice, later: Applying, p: Pool, ob: bool, devastating: int) -> Pool:
    """A9a: normal→crit (X) or fail→LOCKED normal (Y), whichever scores more raw damage.

    Each option is scored after the `later` steps and A12 as c′·(CD + Devastating) + n′·ND;
    ties take X.
    """
    x, y = p.rolled_to_crit(True), p.fail_to_normal(True)

    def raw(option: Pool) -> np.ndarray:
        c, n = obscured(run_steps(d, later, option, ob, devastating), ob)
        return c * (d.critical_damage + devastating) + n * d.normal_damage

    can_x, can_y = p.nr >= 1, p.f >= 1
    take_y = can_y & (~can_x | (raw(y) > raw(x)))
    return p.rolled_to_crit(can_x & ~take_y).fail_to_normal(take_y)


def auto_retained(d: AttackDice) -> tuple[int, int, int]:
    """A1: (auto crits, Accurate normals, rolled dice); Accurate is always used in full."""
    if not (d.auto_crits or d.accurate):  # most attacks, and each is read twice a cold attack
        return 0, 0, d.attacks
    auto_crits = min(d.auto_crits, d.attacks)
    accurate = min(d.accurate, d.attacks - auto_crits)
    return auto_crits, accurate, d.attacks - auto_crits - accurate


STATE_DICE = 8
"""The most dice (crits, normals, fails) of the states whose steps are tabulated: every attack
of the fight and nine in ten of bench_shoot's shots."""
_RADIX = STATE_DICE + 1


def state_codes(
    c: np.ndarray, nr: np.ndarray, nl: np.ndarray, f: np.ndarray, severe: np.ndarray
) -> np.ndarray:
    """Each state (crits, ROLLED normals, LOCKED normals, fails, Severe triggered) as one
    integer, a digit each in base STATE_DICE + 1 (Severe the highest)."""
    return (((severe * _RADIX + c) * _RADIX + nr) * _RADIX + nl) * _RADIX + f


def _every_state() -> Pool:
    """Every state of at most STATE_DICE dice, as the columns of one pool."""
    c, nr, nl, f = (a.ravel() for a in np.indices((_RADIX,) * 4))
    inside = c + nr + nl + f <= STATE_DICE
    columns = [np.tile(column[inside], 2) for column in (c, nr, nl, f)]
    return Pool(*columns, np.repeat([False, True], np.count_nonzero(inside)))


_STATES = _every_state()
_STATE_INDEX = np.full(2 * _RADIX**4, len(_STATES.c))
_STATE_INDEX[state_codes(*_STATES)] = np.arange(len(_STATES.c))
"""A state's row in `_STATES` from its code; a code of no state points past every table."""


def _step_table(step: Step, x: object) -> np.ndarray:
    """The row of the state that each state becomes in one step of amount `x` (the step's
    own function, run once over every state: a step works per outcome)."""
    after = step.run(_STATES, x)
    table = _STATE_INDEX[state_codes(after.c, after.nr, after.nl, after.f, after.severe)]
    table.flags.writeable = False
    return table


def _step_tables() -> dict[str, dict[object, np.ndarray]]:
    """Each tabulated step of `STEPS` as a table, by its rule and amount; built at
    import (about 0.5 ms)."""
    return {s.rule: {x: _step_table(s, x) for x in s.tabulated} for s in STEPS}


STEP_TABLES = _step_tables()


_RETAINED = {ob: obscured(_STATES, ob) for ob in (False, True)}
"""A12 on every state, not obscured and obscured: the retained (crits, normals) of each."""
_RETAINED_CELLS = {ob: hit_cells(*retained) for ob, retained in _RETAINED.items()}
"""The allocation cells of those (crits, normals) as hits (`allocation.hit_cells`)."""
for _table in (_STATE_INDEX, *_STATES, *_RETAINED[False], *_RETAINED[True],
               *_RETAINED_CELLS.values()):  # fmt: skip
    _table.flags.writeable = False  # shared by every attack

_ROLL_CODES = {
    key: state_codes(outcomes.crits, outcomes.normals, 0, outcomes.fails, 0)
    for key, outcomes in SIMPLICES.items()
    if key[0] <= STATE_DICE
}
"""The state code of each outcome of every roll of up to STATE_DICE dice, keyed as its
outcomes (`dice.outcomes_key`), before A1 adds auto crits and Accurate normals."""
_ROLL_STATES = {key: _STATE_INDEX[codes] for key, codes in _ROLL_CODES.items()}
"""The same outcomes' rows in `_STATES`: the state tables' input for an attack without A1."""
for _table in (*_ROLL_CODES.values(), *_ROLL_STATES.values()):
    _table.flags.writeable = False


def tabulated_steps(d: AttackDice, steps: Applying) -> list[np.ndarray] | None:
    """The tables of the `applying` steps of `d` (none for a plain attack); None when one is
    not tabulated (Mystic Scry, an amount above TABULATED_AMOUNTS, more than STATE_DICE dice):
    the steps then run on arrays."""
    if d.attacks > STATE_DICE:
        return None
    tables = []
    for step, x in steps:
        table = STEP_TABLES[step.rule].get(x)
        if table is None:
            return None
        tables.append(table)
    return tables


def retain(
    d: AttackDice,
    steps: Applying,
    crits: np.ndarray,
    normals: np.ndarray,
    fails: np.ndarray,
    ob: bool,
    devastating: int,
    outcomes: tuple[int, bool, bool] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A3–A12 on the rolled counts of every outcome, `steps` being `applying(d, ob)`: the
    retained (crits, normals), and their allocation cells when a table gives them. Given the
    roll's `outcomes` (`dice.outcomes_key`, of up to STATE_DICE dice) and steps that are
    tabulated, each of A4–A12 is one lookup from the outcomes' states (`_ROLL_STATES`,
    `tabulated_steps`, `_RETAINED`, `_RETAINED_CELLS`)."""
    auto_crits, accurate, _ = auto_retained(d)
    state = _ROLL_STATES.get(outcomes)
    tables = tabulated_steps(d, steps) if state is not None and (steps or ob) else None
    if tables is not None:
        if auto_crits or accurate:  # the state (c + auto crits, ROLLED n, LOCKED Accurate, f)
            shift = (auto_crits * _RADIX * _RADIX + accurate) * _RADIX
            state = _STATE_INDEX[_ROLL_CODES[outcomes] + shift]
        for table in tables:
            state = table[state]
        crits_after, normals_after = _RETAINED[ob]
        return crits_after[state], normals_after[state], _RETAINED_CELLS[ob][state]
    # LOCKED normals and Severe start as scalars, the same for every outcome: a step that
    # changes them makes arrays of them, and a scenario without one pays for no arrays
    p = Pool(crits + auto_crits if auto_crits else crits, normals, accurate, fails, np.False_)
    return (*obscured(run_steps(d, steps, p, ob, devastating) if steps else p, ob), None)


@cache
def beyond_dice(cls: type[AttackDice]) -> tuple[str, ...]:
    """The fields `cls` adds to AttackDice's (an attacker's, a fighter's), read from the
    dataclasses' own fields: what `attack_dice` drops. One entry a class."""
    dice = AttackDice.__dataclass_fields__
    return tuple(name for name in cls.__dataclass_fields__ if name not in dice)


@lru_cache(maxsize=4096)
def attack_dice(d: AttackDice) -> AttackDice:
    """`d` reduced to the fields of §5, so other fields (wounds, piercing, ...) never split a memo.

    `d` is an AttackDice or one of its subclasses (a shooting attacker or a fighter).
    Curse of Rot is dropped: it curses the *opponent's* dice, passed to `retained` as `cursed`.
    Built past the frozen `__init__` (19 `object.__setattr__` calls, about 6 µs of a cold
    shot's 70), as a copy of `d`'s attributes without the fields its class adds
    (`beyond_dice`) and its kept hash: one C copy of a dict (0.1 µs) where setting
    each field costs 0.8 µs. AttackDice has no `__post_init__` to run.
    """
    values = d.__dict__.copy()  # every field of d, set by its __init__ or copied as here
    for name in beyond_dice(type(d)):
        del values[name]
    values.update(curse_of_rot=False, _kept_hash=None)
    reduced = object.__new__(AttackDice)
    object.__setattr__(reduced, "__dict__", values)
    return reduced  # its hash is kept on first use (`scenario.hashed_once`): it keys every memo


def kept_counts(d: AttackDice, ob: bool, cursed: bool, devastating: int) -> Kept:
    """(c, n, K) of one attack (§4 + §5) as face sequences over one denominator, an entry per
    rolled outcome. Not memoised: `damage.attack_pool` is, on the same dice fields, so a cold
    shot fills one memo for its attack, not two."""
    auto_crits, accurate, dice = auto_retained(d)
    rolled = roll(dice, d.hit, d.lethal, d.reroll, cursed)
    steps = applying(d, ob)
    if not (steps or ob or auto_crits or accurate):  # most attacks: A1–A12 keep the roll
        return rolled.as_hits()
    outcomes = outcomes_key(dice, d.hit, d.lethal, cursed)
    kept = retain(d, steps, rolled.crits, rolled.normals, rolled.fails, ob, devastating, outcomes)
    return rolled.kept(*kept)


@lru_cache(maxsize=4096)
def retained_counts(d: AttackDice, ob: bool, cursed: bool, devastating: int) -> Kept:
    """`kept_counts` memoised, for `retained` (the fight's attacks); `d` is already reduced by
    `attack_dice`, so the memo is keyed on the dice fields alone."""
    return kept_counts(d, ob, cursed, devastating)


def retained(
    d: AttackDice, *, obscured: bool, cursed: bool, devastating: int = 0
) -> dict[Retained, Fraction]:
    """Exact distribution of (c, n, K) for one attack (§4 + §5), memoised on the dice fields:
    the outcomes that occur, each once."""
    kept = retained_counts(attack_dice(d), obscured, cursed, devastating)
    keys = zip(kept.crits.tolist(), kept.normals.tolist(), kept.cursed.tolist(), strict=True)
    ways: dict[Retained, int] = {}
    for key, w in zip(keys, kept.ways.tolist(), strict=True):
        if w:
            ways[key] = ways.get(key, 0) + w
    return {key: Fraction(w, kept.den) for key, w in ways.items()}
