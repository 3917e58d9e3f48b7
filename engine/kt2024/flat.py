"""A fight flattened into arrays for the compiled loops (`kernels`), and its resolution.

Within a sequence nothing but the wounds depends on the wounds (§9.3, §9.4): who acts, what an
action does to the unresolved successes and flags, its damage and its Relic and Feel No Pain
odds are functions of the wound-free moment. So a fight is a graph of wound-free moments
(nodes) over which the wounds grid rides:

* F4 moments are the numbers of `table` reachable from the openings (F1, F2), found for all
  of them at once over the table's arrays; F3's Duelist parries are a few extra nodes;
* nodes are ordered by unresolved successes left (both fighters), then F3 before F4, so
  every action leads to a lower node;
* per node its actions (§9.8 O1's candidates, in O4's order) and per action its outcomes:
  odds (a float, modulo some primes, and as the integer that carries numerators from the
  next node's power of 6 to this one's), the next node and the damage dealt.

`resolve` then finds the cells any play reaches (`kernels.reach`) and runs the heuristic
choices (`kernels.decide`), OPTIMAL's choices (`kernels.solve`) and the real resolution
(`kernels.push`) over them.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from math import ceil

import numpy as np

from engine import interrupt
from engine import memory as ledger

from . import budgets, kernels, memory
from . import precision as pr
from .fighter import Fight, Fighter, FightOptions
from .precision import power6
from .sequence import Duel, Roll, Sequence, Step
from .table import strike_dice

TOLERANCE = np.array([1e-9, 1e-7])
"""Gaps in U and in D beyond which the float values of two OPTIMAL candidates order them as
their exact values do. Float error stays far below: every value is a convex combination of at
most a few thousand terms of magnitude ≤ 1 for U, ≤ 30 for D, at most a few hundred levels
deep. Closer candidates are compared exactly: their numerators are also carried modulo 2**64
and, when that is not enough, modulo primes, so that the difference of two numerators within
these gaps is recovered whole."""

ROW_BITS = 63
"""The most cells in a row of the grid (B's wounds 0 … 62): `kernels.reach` keeps a row in
one int64. §12 allows 30 wounds."""

NO_WORDS = np.zeros(0, dtype=np.uint64)
"""`word` of the outcomes and openings before `solve` scales them (`solve`'s alone)."""
NO_RESIDUES = np.zeros((0, 0), dtype=np.int64)
"""`res` of the outcomes and openings before `solve` or `push` adds their residues."""

MEMORY_BUDGET = 1024 * 2**20
"""Bytes the compiled loops' arrays of one fight may take at their peak (`Flat.footprint`);
fights needing more even with one prime a pass of `push` are refused rather than left to
exhaust the process."""


def exponents(sequence: Sequence) -> tuple[int, int, int]:
    """(depth, top, step): the most Relic and Feel No Pain dice one strike may roll, the most
    unresolved successes a sequence opens with (both fighters), and the most dice one
    sequence may roll (F1 and F2, whose joint odds are all over one power of 6, and every
    strike). A value at a node with t unresolved successes and l sequences after its own is
    a fraction over 6**(depth·t + l·step); the finals over 6**(rounds·step)."""
    depth = strike_dice(sequence.fighters)
    top = sum(max(c + n for _, c, n, _ in rolls) for rolls in sequence.openings)
    roll_depth = sum(rolls[0][0][1] for rolls in sequence.openings)  # one power of 6 each
    return depth, top, roll_depth + depth * top


def primes_above(bound: int, base: int = 1) -> tuple[int, ...]:
    """The first of `PRIMES` whose product, times `base`, is above 2·`bound`."""
    product, count = base, 0
    while product <= 2 * bound:
        if count == len(pr.PRIMES):
            raise budgets.too_large(budgets.DIGITS, len(pr.PRIMES))
        product *= pr.PRIMES[count]
        count += 1
    return pr.PRIMES[:count]


class Flat:
    """The graph of one fight's wound-free moments as arrays."""

    def __init__(self, fight: Fight, sequence: Sequence) -> None:
        self.sequence = sequence
        self.table = sequence.table
        self.rounds = fight.options.rounds
        self.height, self.width = fight.fighter_a.wounds + 1, fight.fighter_b.wounds + 1
        self.cells = self.height * self.width
        self.start = fight.fighter_a.wounds * self.width + fight.fighter_b.wounds
        self.strategies = np.array([kernels.STRATEGY[f.strategy] for f in sequence.fighters])
        self.optimal = bool((self.strategies == kernels.OPTIMAL).any())
        self.depth, self.top, self.step = exponents(sequence)
        self.deepest = self.depth * self.top + (self.rounds - 1) * self.step
        """The largest exponent of 6 under a value OPTIMAL compares (an opening's, with every
        later sequence to play)."""
        self._discover()

    # ---- nodes ---------------------------------------------------------------------------
    def _discover(self) -> None:
        """Every node reachable from the openings of the sequences the fight may play, the
        relics used carried from one sequence to the next."""
        seq, table = self.sequence, self.table
        duels: dict[Duel, list[Step]] = {}  # F3 step → where its parries lead, in order
        reached = np.zeros(table.size, dtype=bool)  # per F4 moment (table number)
        nexts = table.moves.next.reshape(table.size, -1)
        openings: dict[int, list[Step] | np.ndarray] = {}
        hands = np.concatenate(joint(seq, lambda roll: roll[1:3]), axis=1)
        relics = [(0, 0)]
        while relics:
            seeds = []
            for ra, rb in relics:
                found = table.openings(seq.first, hands, (ra, rb))
                if not seq.duelists:  # F4 at once
                    openings[kernels.USES * ra + rb] = found
                    seeds.append(found)
                    continue
                steps = [seq.duel(seq.first, n) for n in found.tolist()]
                openings[kernels.USES * ra + rb] = steps
                seeds.append(self._duels(steps, duels))
            kernels.closure(nexts, np.concatenate(seeds), reached)
            numbers = np.flatnonzero(reached)
            over = table.columns["over"][numbers]
            ends = {tuple(pair) for pair in table.columns["relics_used"][numbers[over]].tolist()}
            known = {divmod(i, kernels.USES) for i in openings}
            relics = sorted(ends - known) if self.rounds > 1 else []
        self.numbers = numbers
        self.duels = duels
        self._order(openings)

    def _duels(self, found: list[Step], duels: dict[Duel, list[Step]]) -> np.ndarray:
        """F3: the Duelist steps reachable from `found` (added to `duels` with where each of
        their mover's parries leads: a parry rolls no dice, §9.4), and the table numbers of
        the F4 moments they and `found` lead to."""
        seq = self.sequence
        seeds, stack = set(), list(found)
        while stack:
            step = stack.pop()
            if isinstance(step, int):
                seeds.add(step)
                continue
            if step in duels:
                continue
            duels[step] = [seq.parried(step, c) for c in seq.parries(step)]
            stack.extend(duels[step])
        return np.array(sorted(seeds), dtype=np.int64)

    def _order(self, openings: dict[int, list[Step] | np.ndarray]) -> None:
        """Number the nodes (successes left, then F3 before F4, upwards) and build the
        arrays of nodes, actions, outcomes and openings."""
        seq, table, numbers = self.sequence, self.table, self.numbers
        columns = table.columns
        left = columns["left"][numbers]
        duel_left = columns["left"][[n for _, n in self.duels]]
        duel_stage = np.array([2 if x == seq.first else 1 for x, _ in self.duels])
        keys = np.concatenate([3 * left, 3 * duel_left + duel_stage]).astype(np.int64)
        order = np.argsort(keys, kind="stable")
        ids = np.empty(len(keys), dtype=np.int64)
        ids[order] = np.arange(len(keys))
        self.nodes = nodes = len(keys)
        f4, duel_ids = ids[: len(numbers)], ids[len(numbers) :]
        self.f4_ids = f4
        self.by_moment = dict(zip(self.duels, duel_ids.tolist(), strict=True))
        index = np.full(table.size, -1, dtype=np.int64)
        index[numbers] = f4
        self.index = index
        self.exponent = self.depth * (keys[order] // 3)
        """Per node, the exponent of 6 over which its values are fractions (`exponents`)."""

        mover = np.empty(nodes, dtype=np.int64)
        mover[f4] = columns["mover"][numbers]
        mover[duel_ids] = [x for x, _ in self.duels]
        self.mover = mover
        ended = np.full(nodes, -1, dtype=np.int64)
        over = columns["over"][numbers]
        used = columns["relics_used"][numbers]
        ended[f4[over]] = kernels.USES * used[over, 0] + used[over, 1]
        self.ended = ended
        self.tactical = np.zeros(nodes, dtype=bool)
        self.tactical[f4[~over]] = True
        # the facts of §9.5 and the projected moves of every tactical node (§9.6)
        self.facts = np.zeros((nodes, len(kernels.FACTS)), dtype=np.int64)
        for column, name in enumerate(kernels.FACTS):
            self.facts[f4, column] = columns[name][numbers]
        self.pnext = np.full((nodes, 4), -1, dtype=np.int64)
        self.pdmg = np.zeros((nodes, 4), dtype=np.int64)
        nxt = table.moves.next[numbers, :, 0]  # slot 0: the projection's outcome
        self.pnext[f4] = np.where(nxt >= 0, index[np.maximum(nxt, 0)], -1)
        self.pdmg[f4] = table.moves.damage[numbers, :, 0]
        self._actions(openings)

    def _actions(self, openings: dict[int, list[Step] | np.ndarray]) -> None:
        """Actions (per node, in O4's order) and their outcomes, as CSR arrays
        (`kernels.flatten`)."""
        source = np.empty(self.nodes, dtype=np.int64)
        source[self.f4_ids] = self.numbers
        source[list(self.by_moment.values())] = -1 - np.arange(len(self.by_moment))
        first = np.cumsum([0] + [len(moves) for moves in self.duels.values()])
        nexts = [self.node_of(step) for moves in self.duels.values() for step in moves]
        act_start, self.position, br_start, found = kernels.flatten(
            source,
            self.table.moves,
            self.index,
            self.exponent,
            first,
            np.array(nexts, dtype=np.int64),
        )
        key, nxt, damage, self.br_lift = found
        """Per outcome, the exponent of 6 its odds' numerator is raised by to carry the next
        node's numerators (over 6**exponent there) to its own node's."""
        unknown = np.zeros((0, 0), dtype=np.int8)  # the heuristic choices (`kernels.decide`)
        optimal = self.strategies[self.mover] == kernels.OPTIMAL
        self.graph = kernels.Graph(
            self.mover, optimal, self.ended, self.exponent, unknown, act_start
        )
        distinct, self.br_odds = np.unique(key, return_inverse=True)
        self.distinct = [divmod(k, 64) for k in distinct.tolist()]
        """The distinct odds of the outcomes; `br_odds` indexes them."""
        projected = self.pnext[self.tactical][self.position[self.tactical] >= 0]
        if (nxt < 0).any() or (projected < 0).any():
            raise AssertionError("an outcome leads outside the graph")
        if (self.br_lift < 0).any():
            raise AssertionError("an outcome rolls more dice than its successes allow for")
        p = pr.floats(self.distinct)[self.br_odds]
        self.branches = kernels.Outcomes(br_start, p, NO_WORDS, NO_RESIDUES, nxt, damage)
        """The outcomes' odds as floats: their residues are `solve`'s and `push`'s to add."""
        self._openings(openings)

    def _openings(self, openings: dict[int, list[Step] | np.ndarray]) -> None:
        """The openings per relics used (a `kernels.RELICS` row): every joint roll, in order,
        with the node it starts at."""
        curse_a, curse_b = joint(self.sequence, lambda roll: roll[3:])
        self.used = used = sorted(openings)
        counts = np.zeros(kernels.RELICS + 1, dtype=np.int64)
        counts[np.array(used) + 1] = len(curse_a)
        node = [
            self.index[openings[r]]
            if isinstance(openings[r], np.ndarray)
            else np.array([self.node_of(m) for m in openings[r]], dtype=np.int64)
            for r in used
        ]
        self.openings = kernels.Openings(
            np.cumsum(counts),
            roll_odds(self),
            NO_WORDS,
            NO_RESIDUES,
            *(np.tile(curse[:, 0], len(used)) for curse in (curse_a, curse_b)),
            np.concatenate(node),
        )
        """The joint rolls (as `branches`, odds as floats)."""

    def primes(self, exact: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The primes OPTIMAL's numerators (beside 2**64) and the exact masses are carried
        modulo. Close values are told apart by numerators of at most 2·TOLERANCE·6**deepest;
        masses are numerators below 6**(rounds·step)."""
        solving = ()
        if self.optimal:
            bound = ceil(2 * TOLERANCE.max() * 2**32) * power6(self.deepest) >> 32
            solving = primes_above(bound, pr.WORD)
        return solving, primes_above(power6(self.rounds * self.step)) if exact else ()

    def footprint(self, lanes: int, solving: int) -> int:
        """Bytes of the loops' arrays at their peak, with `lanes` primes carried per pass of
        `kernels.push` and `solving` beside 2**64 in `kernels.solve` (OPTIMAL): the bit rows of
        `reach` (kept throughout) and the choices, plus the largest of `decide`'s plans,
        `solve`'s values and `push`'s masses, each freed before the next loop runs."""
        nodes, cells, rounds = self.nodes, self.cells, self.rounds
        rows = 8 * (rounds + 1) * nodes * self.height  # reached, decide's region
        rows += 16 * rounds * nodes  # exposure
        choices = (1 + rounds * self.optimal) * nodes * cells
        plans = 4 * nodes * cells
        values = 16 * (2 + solving) * nodes * cells if self.optimal else 0
        masses = 8 * (1 + lanes) * (nodes + 1) * cells
        return rows + choices + max(plans, values, masses)

    def lanes(self, exact: bool) -> int:
        """How many of the exact masses' primes one pass of `kernels.push` carries: all of
        them if the arrays fit the budget, else as many as fit (the residues modulo each
        prime are independent of the others', so the passes' answers are the same as one
        pass's), at least one; 0 in float mode. The budget is `MEMORY_BUDGET`, or less where
        the process's ledger grants less (`engine.memory`, `memory.arrays_within`). A fight
        whose arrays do not fit with one lane, or whose rows exceed `ROW_BITS`, is refused."""
        solving, pushing = (len(p) for p in self.primes(exact))
        if self.width > ROW_BITS:
            raise budgets.TooLarge(
                budgets.ROW,
                ROW_BITS - 1,
                f"the wounds grid holds at most {ROW_BITS - 1} wounds a fighter",
            )
        budget = min(MEMORY_BUDGET, memory.arrays_within(ledger.capacity()))
        lanes = pushing
        while lanes > 1 and self.footprint(lanes, solving) > budget:
            lanes -= 1
        if self.footprint(lanes, solving) > budget:
            if not self.optimal:
                raise budgets.too_large(budgets.BYTES, budget)
            raise budgets.TooLarge(
                budgets.OPTIMAL_BYTES,
                budget,
                f"OPTIMAL would need more than {budget} bytes for these attacks, "
                "wounds and rounds; use fewer of them or a heuristic strategy",
                0 if self.strategies[0] == kernels.OPTIMAL else 1,
            )
        return lanes

    def node_of(self, step: Step) -> int:
        return int(self.index[step]) if isinstance(step, int) else self.by_moment[step]


def joint(sequence: Sequence, pick: Callable[[Roll], tuple[int, ...]]) -> tuple[np.ndarray, ...]:
    """Per fighter, `pick` of its own F1 and F2 outcome for every joint roll (A's outcomes
    outer, B's inner), as arrays of joint rolls × picked fields."""
    mine, theirs = (
        np.array([pick(r) for r in rolls], dtype=np.int64) for rolls in sequence.openings
    )
    return np.repeat(mine, len(theirs), axis=0), np.tile(theirs, (len(mine), 1))


def paired(
    flat: Flat, mine: np.ndarray, theirs: np.ndarray, modulus: np.ndarray | None = None
) -> np.ndarray:
    """Per opening row of `flat` (every joint roll, A's outer, once per relics used), the
    product of both fighters' own values (rows of `mine`, `theirs`), modulo `modulus` (per
    column) if given."""
    product = mine[:, None] * theirs[None, :]
    if modulus is not None:
        product %= modulus
    product = product.reshape(len(mine) * len(theirs), *mine.shape[1:])
    return np.tile(product, (len(flat.used),) + (1,) * (product.ndim - 1))


def roll_odds(flat: Flat, primes: tuple[int, ...] | None = None) -> np.ndarray:
    """The odds of every opening row of `flat` as floats, or modulo each of `primes`
    (columns)."""
    mine, theirs = ([odds for odds, *_ in rolls] for rolls in flat.sequence.openings)
    if primes is None:
        return paired(flat, pr.floats(mine), pr.floats(theirs))
    column = np.array(primes, dtype=np.int64)
    return paired(flat, pr.residues(mine, primes), pr.residues(theirs, primes), column)


def branch_scales(flat: Flat, primes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per outcome, a·6**lift (its odds a / 6**d, `Flat.br_lift`) modulo 2**64 and each
    prime: what carries the next node's numerator to its own node's."""
    key = flat.br_odds * 1024 + flat.br_lift  # lift < 1024
    distinct, index = np.unique(key, return_inverse=True)
    numbers = [flat.distinct[k // 1024][0] * power6(k % 1024) for k in distinct.tolist()]
    word, rest = pr.scales(numbers, primes)
    return word[index], rest[index]


def opening_scales(flat: Flat, primes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Per joint roll of `flat`'s openings, its odds' numerator (the product of both
    fighters' own) times 6**(depth·(top − t)), t the successes its node opens with, modulo
    2**64 and each prime: what carries that node's numerators to the sequence's start."""
    mine, theirs = (
        pr.scales([a for (a, _), *_ in rolls], primes) for rolls in flat.sequence.openings
    )
    lift = flat.depth * flat.top - flat.exponent[flat.openings.node]
    power_word, power_rest = pr.powers6(primes, lift.max())
    column = np.array(primes, dtype=np.int64)
    word = paired(flat, mine[0], theirs[0]) * power_word[lift]
    return word, paired(flat, mine[1], theirs[1], column) * power_rest[lift] % column


def resolve(flat: Flat, exact: bool) -> dict[tuple[int, int], Fraction | float]:
    """The joint distribution of both fighters' final wounds, every choice made at every cell
    of every node: heuristic ones by §9.5, OPTIMAL's by §9.8 (exactly, in both precisions).
    It runs the compiled loops in order (`reach`, `decide`, `solve`, `push`), each step
    building what the next takes."""
    lanes = flat.lanes(exact)
    solving, pushing = flat.primes(exact)
    ledger.claim(memory.fight_bytes(flat.footprint(lanes, len(solving))))
    height, width = flat.height, flat.width
    reached, ends = kernels.reach(
        flat.graph, flat.branches, flat.openings, flat.rounds, height, width
    )
    heuristic = kernels.decide(
        height,
        width,
        np.bitwise_or.reduce(reached, axis=0),
        flat.mover,
        flat.tactical,
        flat.strategies,
        flat.pnext,
        flat.pdmg,
        flat.facts,
        flat.position,
    )
    graph = flat.graph._replace(heuristic=heuristic)
    choices = np.zeros((flat.rounds, 1, 1), dtype=np.int8)
    if flat.optimal:
        most = kernels.exposure(flat.graph, flat.branches, flat.openings, flat.rounds)
        choices = solved(flat, graph, kernels.Bounds(reached, ends, most), solving)
    finals = pushed(flat, graph, choices, reached, pushing, lanes)
    if not exact:
        return {divmod(c, width): float(finals[c]) for c in np.flatnonzero(finals).tolist()}
    held = np.flatnonzero(finals.any(axis=1))
    largest = flat.rounds * flat.step
    den = power6(largest)
    return {
        divmod(c, width): pr.value(n, den, True)
        for c, n in zip(held.tolist(), pr.numerators(finals[held], pushing, largest), strict=True)
    }


def solved(
    flat: Flat, graph: kernels.Graph, bounds: kernels.Bounds, solving: tuple[int, ...]
) -> np.ndarray:
    """OPTIMAL's choices (`kernels.solve`), its outcomes' odds also as the integers that carry
    numerators from node to node, modulo 2**64 and the `solving` primes."""
    word, res = branch_scales(flat, solving)
    branches = flat.branches._replace(word=word, res=res)
    word, res = opening_scales(flat, solving)
    openings = flat.openings._replace(word=word, res=res)
    primes = np.array(solving, dtype=np.int64)
    exactly = kernels.Exact(
        kernels.Moduli(primes, 1.0 / primes),
        *pr.powers6(solving, flat.deepest),
        pr.garner(solving),
        flat.step,
        TOLERANCE,
    )
    choices = kernels.solve(
        graph,
        branches,
        openings,
        flat.rounds,
        flat.height,
        flat.width,
        bounds,
        exactly,
        interrupt.cell(),
    )
    interrupt.check()
    return choices


def pushed(
    flat: Flat,
    graph: kernels.Graph,
    choices: np.ndarray,
    reached: np.ndarray,
    pushing: tuple[int, ...],
    lanes: int,
) -> np.ndarray:
    """The finals of `kernels.push`: per cell its mass as a float (float mode), or modulo
    each of the `pushing` primes (columns), `lanes` primes a pass."""
    passes = [pushing[i : i + lanes] for i in range(0, len(pushing), max(lanes, 1))] or [()]
    found = []
    for primes in passes:
        column = np.array(primes, dtype=np.int64)
        finals_f, finals_r = kernels.push(
            graph,
            flat.branches._replace(res=pr.residues(flat.distinct, primes)[flat.br_odds]),
            flat.openings._replace(res=roll_odds(flat, primes)),
            choices,
            reached,
            flat.rounds,
            flat.start,
            flat.height,
            flat.width,
            kernels.Moduli(column, 1.0 / column),
            interrupt.cell(),
        )
        interrupt.check()
        found.append(finals_r if primes else finals_f)
    return found[0] if not pushing else np.concatenate(found, axis=1)


def warm_up() -> None:
    """Compile the loops (or load them from numba's cache) for every argument type they
    take, so that no request pays for it: one small OPTIMAL fight of two sequences, in both
    precisions."""
    side = Fighter(attacks=2, wounds=3, strategy="OPTIMAL")
    for exact in (False, True):
        fight = Fight(side, side, FightOptions(rounds=2, exact=exact))
        resolve(Flat(fight, Sequence(fight)), exact)
