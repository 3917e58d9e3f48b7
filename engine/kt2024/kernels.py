"""The compiled inner loops of a fight over the wounds grid (numba).

A fight is flattened (`flat.Flat`, `flatten`) into nodes (wound-free moments) ordered so that
every move goes to a lower node, actions per node and outcomes per action, all as arrays. The
loops visit every (node, cell) once, a cell being (wounds A, wounds B) flattened as
a·width + b, in the order `flat.resolve` runs them: `reach` (the cells any play reaches; the
others are skipped), `decide` (the heuristic choices, §9.5 and §9.6), `solve` (OPTIMAL's
backward induction, §9.8, ordering close candidates exactly: `exact_sign`) and `push` (the
real resolution, §9.7), the last two carrying values in every lane: floats, numerators
modulo 2**64 (`solve`'s) and modulo primes (exact mode, and `solve`'s close values). They
read named records (`Graph`, `Outcomes`, `Openings`, `Values`, …: numba passes NamedTuples of
arrays as cheaply as tuples); per-cell helpers are inlined.

Why compiled: a fight has a few thousand nodes over a few hundred cells, each visited with a
handful of arithmetic steps; interpreted (or as per-node numpy calls) that is tens to hundreds
of milliseconds, compiled it is a few.
"""

from __future__ import annotations

from typing import NamedTuple, get_args

import numpy as np
from numba import njit

from .fighter import Strategy
from .precision import Garner
from .shoot import MAX_RELIC_IGNORES
from .table import Moves

Array = np.ndarray

USES = MAX_RELIC_IGNORES + 1
"""The counts of Relic uses a fighter may have made so far (0 … two a battle, as shooting's)."""
RELICS = USES**2
"""Where a sequence starts, as the relics used so far by A and by B (§9.7.2), USES·A's + B's:
per-relics arrays have RELICS rows."""


class Graph(NamedTuple):
    """The nodes of a fight (`flat.Flat`), in order: every move goes to a lower node."""

    mover: Array
    """Whose action it is."""
    optimal: Array
    """Whether the mover plays OPTIMAL (its choices are `solve`'s, else `heuristic`'s)."""
    ended: Array
    """Where a sequence ends (its relics used, a `RELICS` row), or −1."""
    exponent: Array
    """The exponent of 6 a node's values are numerators over within its sequence (0 where it
    ends: no successes are left to roll for)."""
    heuristic: Array
    """The heuristic choices per (node, cell) (`decide`; empty before it ran)."""
    act_start: Array
    """The first action of each node (one more entry: the end)."""


class Outcomes(NamedTuple):
    """Per action its outcomes (CSR), per outcome its odds, next node and damage dealt."""

    start: Array
    """The first outcome of each action (one more entry: the end)."""
    p: Array
    """The odds as floats."""
    word: Array
    """`solve`: what carries the next node's numerators to this one's, modulo 2**64."""
    res: Array
    """The odds modulo each prime (columns), or (`solve`) `word` modulo them."""
    next: Array
    damage: Array


class Moduli(NamedTuple):
    """The primes exact numerators are carried modulo, with their inverses as floats
    (`mulmod`); none in float mode."""

    primes: Array
    inverses: Array


class Exact(NamedTuple):
    """What `solve` compares close values exactly with."""

    moduli: Moduli
    word: Array
    """6**e modulo 2**64, for e up to the largest exponent."""
    res: Array
    """6**e modulo each prime (columns)."""
    garner: Garner
    """What `exact_sign` needs (`precision.garner`)."""
    step: int
    """One sequence's exponent of 6."""
    tolerance: Array
    """The gaps in U and D beyond which floats order two values as their exact values do."""


class Values(NamedTuple):
    """What the loops carry per (node or relics used, cell), `solve`'s values U and D (one
    more axis: 0, 1) or `push`'s probability mass: as floats, as numerators modulo 2**64
    (`solve`'s alone; empty in `push`) and modulo each prime (the last axis of `res`)."""

    f: Array
    w: Array
    res: Array


class Bounds(NamedTuple):
    """Where `solve` looks: what `reach` returns and `exposure`."""

    reached: Array
    """Per (sequences left − 1, node, row), the cells any play reaches (bits)."""
    ends: Array
    """Per (sequences left − 1, relics used, row), the cells where a sequence ends."""
    most: Array
    """Per (sequences left − 1, node), the most damage each fighter may still take."""


class Openings(NamedTuple):
    """Per `RELICS` row the joint rolls of F1 and F2 (CSR): odds as in `Outcomes`, the curse
    damage A and B take and the node F4 (or F3) starts at."""

    start: Array
    p: Array
    word: Array
    res: Array
    curse_a: Array
    curse_b: Array
    node: Array


STRATEGY = {name: code for code, name in enumerate(get_args(Strategy))}
"""Strategies as the loops know them: their codes, in `fighter.Strategy`'s order."""
MAX_DAMAGE, MIN_DAMAGE_TO_SELF, STRIKE, PARRY, OPTIMAL = STRATEGY.values()
COMPARE = -2
"""`tactical`'s answer where D5 compares two projections (`weighed` then chooses)."""

jit = njit(cache=True, nogil=True)
inline = njit(cache=True, nogil=True, inline="always")


@inline
def tactical(
    strategy: int,
    hit: int,
    plain: bool,
    block: int,
    reach: int,
    wise: int,
    target: int,
    struck: int,
) -> tuple[int, int]:
    """D0–D5 of §9.5 for mover X, Y at `target` wounds, X's strike dealing `struck` (§9.6),
    the facts of its moment given (`table.Table._facts`; `plain`: D0, D1 or D3 holds): the
    choice of a fighter playing STRIKE (what the projections of D5 have the other play) and
    X's own, or COMPARE where D5 compares its projections (`weighed`). The one home of the
    heuristic decisions, which `decide` asks at every cell."""
    if plain or target <= struck:  # D0, D1, D3; D2
        return hit, hit
    if block >= 0 and target <= reach:  # D4
        return block, block
    if wise < 0 or strategy in (STRIKE, OPTIMAL):  # D5 (OPTIMAL projected as STRIKE, §9.6)
        return hit, hit
    return hit, wise if strategy == PARRY else COMPARE


@inline
def tracked(strategy: int, x: int) -> int:
    """Whose wounds at a projection's end D5 compares for fighter x: its own
    (MIN_DAMAGE_TO_SELF) or the other's (MAX_DAMAGE)."""
    return x if strategy == MIN_DAMAGE_TO_SELF else 1 - x


@inline
def weighed(strategy: int, struck: int, parried: int, hit: int, wise: int) -> int:
    """D5's comparison: the `tracked` wounds at the end of the projection after striking and
    after parrying with wiseParry; a tie strikes."""
    if strategy == MIN_DAMAGE_TO_SELF:
        return hit if struck >= parried else wise
    return hit if struck <= parried else wise


FACTS = ("hit", "always", "stun", "block", "reach", "wise")
"""The columns of `decide`'s facts: what §9.5 asks about a node (`table.Table._facts`)."""
HIT, ALWAYS, STUN, BLOCK, REACH, WISE = range(len(FACTS))


@inline
def mulmod(a: int, b: int, p: int, inverse: float) -> int:
    """a·b modulo p (a, b < p < 2**31), without an integer division: the quotient is
    estimated in floats (`inverse` = 1 / p), off by at most one, and corrected."""
    r = a * b - np.int64(float(a) * float(b) * inverse) * p
    if r < 0:
        return r + p
    return r - p if r >= p else r


@inline
def addmod(a: int, b: int, p: int) -> int:
    s = a + b
    return s - p if s >= p else s


@inline
def struck(a: int, b: int, x: int, dmg: int) -> tuple[int, int]:
    """Wounds (a, b) after fighter x deals `dmg` to the other; where one is at 0 nothing
    moves (the sequence is over there)."""
    if a == 0 or b == 0:
        return a, b
    return (a, max(0, b - dmg)) if x == 0 else (max(0, a - dmg), b)


@inline
def hurt(a: int, b: int, width: int, x: int, dmg: int) -> int:
    """`struck` as a cell."""
    wa, wb = struck(a, b, x, dmg)
    return wa * width + wb


@jit
def decide(
    height: int,
    width: int,
    region: Array,
    mover: Array,
    tactical_: Array,
    strategies: Array,
    pnext: Array,
    pdmg: Array,
    facts: Array,
    position: Array,
) -> Array:
    """The heuristic movers' choices (an action's index within its node, through
    `position[i, code]`) at every (tactical node, cell), by D0–D5 of §9.5.

    `tactical_[i]`: whether node i is an F4 moment with successes left; `pnext[i, code]`/
    `pdmg[i, code]` are an action's projected next node and damage (§9.6: Relics and Feel No
    Pain never trigger), `facts[i]` what §9.5 asks about node i (columns `FACTS`); the
    decisions are `tactical` and `weighed`. A fighter p playing MAX_DAMAGE or
    MIN_DAMAGE_TO_SELF compares the projections in which it plays its strategy and the other
    STRIKE (D5), plan p, by the `tracked` fighter's wounds at their end, which `plans[p]`
    carries per node and cell. Nodes are visited upwards, so every node's
    successors are known; only the cells of `region` (those `reach` finds at any level: the
    projection's outcome is one of the real ones, so the cells it moves to are reached too).
    Long because what is left beside `tactical` and `weighed` is one loop nest: a cell's
    choice and both plans read the same successors' plans in one pass, node by node."""
    nodes, cells = len(mover), height * width
    choices = np.zeros((nodes, cells), np.int8)
    plans = np.empty((2, nodes, cells), np.int16)  # read only where written: no zeroing
    needed = np.zeros(2, np.bool_)
    follows = np.zeros(2, np.int64)
    for p in (0, 1):
        needed[p] = strategies[p] == MAX_DAMAGE or strategies[p] == MIN_DAMAGE_TO_SELF
        follows[p] = tracked(strategies[p], p)
    for i in range(nodes):
        x, strategy = mover[i], strategies[mover[i]]
        hit, plain = facts[i, HIT], facts[i, ALWAYS] or facts[i, STUN]
        block, reach, wise = facts[i, BLOCK], facts[i, REACH], facts[i, WISE]
        struck_node, struck_dmg = pnext[i, hit], pdmg[i, hit]
        parried_node = pnext[i, wise] if wise >= 0 else 0
        for a in range(height):
            row = region[i, a]
            for b in range(width if row else 0):
                if not row >> b & 1:
                    continue
                cell = a * width + b
                if not tactical_[i] or a == 0 or b == 0:
                    for p in (0, 1):
                        plans[p, i, cell] = a if follows[p] == 0 else b
                    continue
                target = b if x == 0 else a
                strike, own = tactical(strategy, hit, plain, block, reach, wise, target, struck_dmg)
                if own == COMPARE:
                    struck = plans[x, struck_node, hurt(a, b, width, x, struck_dmg)]
                    own = weighed(strategy, struck, plans[x, parried_node, cell], hit, wise)
                if strategy != OPTIMAL:
                    choices[i, cell] = position[i, own]
                for p in (0, 1):
                    if needed[p]:
                        code = own if p == x else strike
                        moved = hurt(a, b, width, x, pdmg[i, code])
                        plans[p, i, cell] = plans[p, pnext[i, code], moved]
    return choices


@jit
def closure(nexts: Array, seeds: Array, found: Array) -> None:
    """Mark in `found` every moment reachable from `seeds` by any outcome of any action
    (`nexts[moment]`: the next moments, −1 where there is none), depth first."""
    stack = np.empty(len(found), np.int64)
    top = 0
    for seed in seeds:
        if not found[seed]:
            found[seed] = True
            stack[top] = seed
            top += 1
    while top:
        top -= 1
        for nxt in nexts[stack[top]]:
            if nxt >= 0 and not found[nxt]:
                found[nxt] = True
                stack[top] = nxt
                top += 1


@jit
def flatten(
    source: Array, moves: Moves, index: Array, exponent: Array, duel_first: Array, duel_next: Array
) -> tuple[Array, Array, Array, Array]:
    """Every node's actions, in O4's order, and their outcomes as CSR arrays: per node its
    first action and (F4 nodes) per action code the action's index within the node (−1:
    none), per action its first outcome, and per outcome (rows) its odds a / 6**d as
    64·a + d, its next node, the damage dealt and its lift: the exponent of 6 its odds'
    numerator is raised by to carry the next node's values (over 6**exponent there) to its
    own node's.

    An F4 node (`source` ≥ 0, a table number) takes the table's `moves` (per moment, code
    and outcome slot), codes in order, slots with odds in order; an F3 node (`source` = −1 −
    its index among the duels) takes its parries in the order they were listed (CSR:
    `duel_first` per duel), each leading for certain (odds 1 / 6**0, no damage) to
    `duel_next`. Long because both kinds of node fill the same CSR arrays in one pass."""
    nodes, slots = len(source), moves.odds_a.shape[2]
    act_start = np.zeros(nodes + 1, np.int64)
    position = np.full((nodes, 4), -1, np.int64)
    br_start = np.zeros(4 * nodes + len(duel_next) + 1, np.int64)
    out = np.zeros((4, 4 * slots * nodes + len(duel_next)), np.int64)
    odds, nxt, damage, lift = out[0], out[1], out[2], out[3]
    actions = count = 0
    for i in range(nodes):
        act_start[i] = actions
        n = source[i]
        if n < 0:
            for t in range(duel_first[-1 - n], duel_first[-n]):
                br_start[actions] = count
                actions += 1
                odds[count], nxt[count] = 64, duel_next[t]
                lift[count] = exponent[i] - exponent[nxt[count]]
                count += 1
            continue
        for code in range(4):
            for slot in range(slots):
                if moves.odds_a[n, code, slot] <= 0:
                    continue
                if position[i, code] < 0:
                    position[i, code] = actions - act_start[i]
                    br_start[actions] = count
                    actions += 1
                odds[count] = 64 * moves.odds_a[n, code, slot] + moves.odds_d[n, code, slot]
                nxt[count] = index[moves.next[n, code, slot]]
                damage[count] = moves.damage[n, code, slot]
                lift[count] = exponent[i] - moves.odds_d[n, code, slot] - exponent[nxt[count]]
                count += 1
    act_start[nodes] = actions
    br_start[actions] = count
    return act_start, position, br_start[: actions + 1].copy(), out[:, :count].copy()


@jit
def reach(
    graph: Graph, branches: Outcomes, openings: Openings, rounds: int, height: int, width: int
) -> tuple[Array, Array]:
    """Which cells any play reaches, followed forward from the starting wounds (the grid's
    last cell) over every outcome of every action, sequence after sequence, as rows of bits
    (bit b of row a: the cell with A at a wounds, B at b; wounds never exceed 30):

    * per (sequences left − 1, node, row), the cells reached (those where a fighter is at 0
      included: their values are read, though nothing moves on from them);
    * per (sequences left − 1, relics used, row), the cells where a sequence ends with both
      fighters standing (the next one starts there).

    The other loops visit only these cells: often a fifth of the grid's, or less. An outcome
    moves a whole row at once: shifted when B takes the damage (what falls lands on bit 0),
    moved to a lower row when A does."""
    mover, ended, act_start = graph.mover, graph.ended, graph.act_start
    br_start, br_next, br_dmg = branches.start, branches.next, branches.damage
    nodes = len(mover)
    reached = np.zeros((rounds, nodes, height), np.int64)
    ends = np.zeros((rounds, RELICS, height), np.int64)
    starts = np.zeros((RELICS, height), np.int64)
    starts[0, height - 1] = 1 << (width - 1)
    standing = (1 << width) - 2  # every cell of a row but B's 0
    for level in range(rounds - 1, -1, -1):
        seen = reached[level]
        for relics in range(RELICS):
            for a in range(1, height):
                for b in range(1, width):
                    if starts[relics, a] >> b & 1:
                        for o in range(openings.start[relics], openings.start[relics + 1]):
                            row = max(0, a - openings.curse_a[o])
                            seen[openings.node[o], row] |= 1 << max(0, b - openings.curse_b[o])
        for i in range(nodes - 1, -1, -1):
            x = mover[i]
            for a in range(1, height):  # row 0: A is down, nothing moves on
                cells = seen[i, a] & standing
                if cells == 0:
                    continue
                if ended[i] >= 0:
                    ends[level, ended[i], a] |= cells
                    continue
                for o in range(br_start[act_start[i]], br_start[act_start[i + 1]]):
                    nxt, dmg = br_next[o], br_dmg[o]
                    if x == 1:  # A takes the damage
                        seen[nxt, max(0, a - dmg)] |= cells
                        continue
                    shift = min(dmg, width - 1)  # B takes it (from width − 1 on, B always falls)
                    falls = cells & ((1 << (shift + 1)) - 1) != 0
                    seen[nxt, a] |= cells >> shift | falls
        starts = ends[level]
    return reached, ends


@jit
def exposure(graph: Graph, branches: Outcomes, openings: Openings, rounds: int) -> Array:
    """Per (sequences left − 1, node): the most damage each fighter may still take from there
    to the battle's end, by any action and outcome, later sequences and their curse damage
    included. A cell whose wounds exceed both is safe: no one can fall from it, so U is
    exactly 0 for every candidate there and OPTIMAL needs no residues of U."""
    ended, act_start = graph.ended, graph.act_start
    nodes = len(ended)
    most = np.zeros((rounds, nodes, 2), np.int64)
    starts = np.zeros((RELICS, 2), np.int64)
    for level in range(rounds):
        for i in range(nodes):
            if ended[i] >= 0:
                if level > 0:
                    most[level, i, 0], most[level, i, 1] = starts[ended[i], 0], starts[ended[i], 1]
                continue
            y = 1 - graph.mover[i]
            for j in range(act_start[i], act_start[i + 1]):
                for o in range(branches.start[j], branches.start[j + 1]):
                    nxt, dmg = branches.next[o], branches.damage[o]
                    most[level, i, y] = max(most[level, i, y], dmg + most[level, nxt, y])
                    most[level, i, 1 - y] = max(most[level, i, 1 - y], most[level, nxt, 1 - y])
        for relics in range(RELICS):
            starts[relics, 0] = starts[relics, 1] = 0
            for o in range(openings.start[relics], openings.start[relics + 1]):
                node, curse = openings.node[o], (openings.curse_a[o], openings.curse_b[o])
                for x in range(2):
                    starts[relics, x] = max(starts[relics, x], curse[x] + most[level, node, x])
    return most


@jit
def exact_sign(word: np.uint64, residues: Array, primes: Array, garner: Garner) -> int:
    """The sign of the integer n with |n| < M / 2, M = 2**64 times the product of `primes`,
    from n modulo 2**64 (`word`) and modulo each prime: its mixed-radix digits (Garner, the
    word the lowest digit) compared with those of (M − 1) / 2 (`precision.Garner`)."""
    k = len(primes)
    if k == 0:  # |n| < 2**63: the word is n in two's complement
        n = np.int64(word)
        return 1 if n > 0 else (-1 if n < 0 else 0)
    digits = residues.copy()
    for j in range(k):
        low = np.int64(word % np.uint64(primes[j]))
        digits[j] = (digits[j] - low) % primes[j] * garner.inverse_word[j] % primes[j]
        for i in range(j):
            digits[j] = (digits[j] - digits[i]) % primes[j] * garner.inverses[i, j] % primes[j]
    if word == np.uint64(0) and not digits.any():
        return 0
    for i in range(k - 1, -1, -1):
        if digits[i] != garner.half[i]:
            return -1 if digits[i] > garner.half[i] else 1
    if word != garner.half_word:
        return -1 if word > garner.half_word else 1
    return 1


@inline
def _carry(
    into: Values,
    row: int,
    cell: int,
    odds: Outcomes | Openings,
    o: int,
    source: Values,
    node: int,
    moved: int,
    first: int,
    moduli: Moduli,
) -> None:
    """`solve`'s one step: into[row, cell] += the odds of outcome (or opening) o × the
    values of `source` at (node, moved), from value `first` on (U, D: 1 skips U), in every
    lane: as floats, modulo 2**64 and modulo each prime."""
    primes, inverses = moduli.primes, moduli.inverses
    for v in range(first, 2):
        into.f[row, cell, v] += odds.p[o] * source.f[node, moved, v]
        into.w[row, cell, v] += odds.word[o] * source.w[node, moved, v]
        for q in range(len(primes)):
            term = mulmod(odds.res[o, q], source.res[node, moved, v, q], primes[q], inverses[q])
            into.res[row, cell, v, q] = addmod(into.res[row, cell, v, q], term, primes[q])


@jit
def solve(
    graph: Graph,
    branches: Outcomes,
    openings: Openings,
    rounds: int,
    height: int,
    width: int,
    bounds: Bounds,
    exact: Exact,
    stop: Array,
) -> Array:
    """OPTIMAL's choice (an action's index within its node) at every (sequences left − 1,
    node, cell) where an OPTIMAL fighter moves.

    `branches` and `openings` carry each outcome's odds also as the integer that carries the
    numerator of its next node's value (over that node's power of 6) to its own node's
    (`flat.branch_scales`, `flat.opening_scales`), modulo 2**64 (`word`) and modulo each prime
    (`res`); only the cells some sequence reaches are solved (`bounds`).

    Every value is carried as a float and as its numerator modulo 2**64 (native, wrapping
    arithmetic) and modulo the primes, if any (`Values`). Candidates are compared on U, then
    D (§9.8 O4): floats decide wide gaps; a close pair's numerators (both over the node's
    power of 6) differ by less than half the moduli's product, so that difference, recovered
    from its residues, is zero for equal values and otherwise has the sign of theirs. A
    sequence's start is `_rolled`'s (once a sequence). The rest is one loop nest on purpose:
    with its per-cell steps as inlined functions numba ran it slower, by 40 % with the
    candidates' values and comparison apart, by 30 % with only the battle's ends apart
    (`_ended`: 291 ms against 222 ms for bench_fight's 60 OPTIMAL fights in both precisions,
    each `solve` call's least of 5). A non-zero `stop[0]` (`engine.interrupt`) ends the loops
    early: what they return then is the caller's to discard."""
    mover, optimal, ended, heuristic = graph.mover, graph.optimal, graph.ended, graph.heuristic
    exponents, act_start = graph.exponent, graph.act_start
    reached, ends, most = bounds.reached, bounds.ends, bounds.most
    br_start, br_next, br_dmg = branches.start, branches.next, branches.damage
    primes, tolerance = exact.moduli.primes, exact.tolerance
    nodes, k, cells = len(mover), len(primes), height * width
    choices = np.zeros((rounds, nodes, cells), np.int8)
    # every value read is of a reached cell, written first at the same level: no zeroing
    values = Values(
        np.empty((nodes, cells, 2)),
        np.empty((nodes, cells, 2), np.uint64),
        np.empty((nodes, cells, 2, k), np.int64),
    )
    f, w, r = values.f, values.w, values.res
    starts = Values(
        np.zeros((RELICS, cells, 2)),
        np.zeros((RELICS, cells, 2), np.uint64),
        np.zeros((RELICS, cells, 2, k), np.int64),
    )
    cf, cw, cr = np.zeros((4, 2)), np.zeros((4, 2), np.uint64), np.zeros((4, 2, k), np.int64)
    mod = exact.moduli
    candidates = Values(cf.reshape((4, 1, 2)), cw.reshape((4, 1, 2)), cr.reshape((4, 1, 2, k)))
    diff = np.zeros(k, np.int64)
    zero = np.uint64(0)
    for level in range(rounds):  # sequences left − 1
        if stop[0]:
            break
        for i in range(nodes):
            if stop[0]:  # `engine.interrupt`: the caller gave up; a load a node costs nothing
                break
            x, first, count = mover[i], act_start[i], act_start[i + 1] - act_start[i]
            exponent = exponents[i] + level * exact.step
            sign = 1 if x == 0 else -1
            for a in range(height):
                row = reached[level, i, a]
                for b in range(width if row else 0):
                    if not row >> b & 1:
                        continue
                    cell = a * width + b
                    if a == 0 or b == 0 or (ended[i] >= 0 and level == 0):  # the battle's end
                        u = (1 if b == 0 else 0) - (1 if a == 0 else 0)
                        f[i, cell, 0], f[i, cell, 1] = u, a - b
                        power = exact.word[exponent]
                        w[i, cell, 0] = (power if b == 0 else zero) - (power if a == 0 else zero)
                        w[i, cell, 1] = np.uint64(a) * power - np.uint64(b) * power
                        for q in range(k):
                            r[i, cell, 0, q] = u * exact.res[exponent, q] % primes[q]
                            r[i, cell, 1, q] = (a - b) * exact.res[exponent, q] % primes[q]
                        continue
                    if ended[i] >= 0:  # the next sequence's start (no successes: 6**0)
                        relics = ended[i]
                        for v in range(2):  # not slices: numba compiles those for seconds
                            f[i, cell, v] = starts.f[relics, cell, v]
                            w[i, cell, v] = starts.w[relics, cell, v]
                            for q in range(k):
                                r[i, cell, v, q] = starts.res[relics, cell, v, q]
                        continue
                    tried = count if optimal[i] else 1
                    safe = a > most[level, i, 0] and b > most[level, i, 1]  # U ≡ 0 here
                    lowest = 1 if safe else 0  # where safe, D alone
                    for c in range(tried):
                        j = first + (c if optimal[i] else heuristic[i, cell])
                        for v in range(2):
                            cf[c, v], cw[c, v] = 0.0, zero
                            for q in range(k):
                                cr[c, v, q] = 0
                        for o in range(br_start[j], br_start[j + 1]):
                            nxt, moved = br_next[o], hurt(a, b, width, x, br_dmg[o])
                            _carry(candidates, c, 0, branches, o, values, nxt, moved, lowest, mod)
                    best = 0
                    for c in range(1, tried):
                        wins = False
                        for v in range(lowest, 2):  # safe: both U exactly 0
                            gap = (cf[c, v] - cf[best, v]) * sign
                            if abs(gap) > tolerance[v]:
                                wins = gap > 0
                                break
                            word, tie = cw[c, v] - cw[best, v], cw[c, v] == cw[best, v]
                            for q in range(k):
                                d = cr[c, v, q] - cr[best, v, q]
                                diff[q] = d + primes[q] if d < 0 else d
                                tie = tie and d == 0
                            if not tie:
                                wins = exact_sign(word, diff, primes, exact.garner) * sign > 0
                                break
                        if wins:
                            best = c
                    if optimal[i]:
                        choices[level, i, cell] = best
                    for v in range(2):
                        f[i, cell, v] = cf[best, v]
                        w[i, cell, v] = cw[best, v]
                        for q in range(k):
                            r[i, cell, v, q] = cr[best, v, q]
        if level < rounds - 1:
            _rolled(starts, values, openings, ends[level + 1], height, width, exact.moduli)
    return choices


@jit
def _rolled(
    starts: Values,
    values: Values,
    openings: Openings,
    ends: Array,
    height: int,
    width: int,
    moduli: Moduli,
) -> None:
    """`solve`'s value of a sequence about to be rolled (F1, F2), per relics used and cell
    where the previous one ends (`ends`, `reach`'s rows of bits): its openings' values
    weighed by their odds, over 6**0."""
    for relics in range(RELICS):
        for a in range(height):
            for b in range(width):
                if not ends[relics, a] >> b & 1:
                    continue
                cell = a * width + b
                starts.f[relics, cell] = 0.0
                starts.w[relics, cell] = np.uint64(0)
                starts.res[relics, cell] = 0
                for o in range(openings.start[relics], openings.start[relics + 1]):
                    moved = max(0, a - openings.curse_a[o]) * width + max(
                        0, b - openings.curse_b[o]
                    )
                    node = openings.node[o]
                    _carry(starts, relics, cell, openings, o, values, node, moved, 0, moduli)


@inline
def _holds(mass: Values, row: int, cell: int) -> bool:
    """Whether (row, cell) holds mass (exact mode: a float may underflow where the
    residues do not)."""
    if mass.f[row, cell] != 0.0:
        return True
    for q in range(mass.res.shape[2]):  # noqa: SIM110 - numba compiles no generators
        if mass.res[row, cell, q] != 0:
            return True
    return False


@inline
def _move(
    mass: Values,
    node: int,
    moved: int,
    source: Values,
    row: int,
    cell: int,
    odds: Outcomes | Openings,
    o: int,
    moduli: Moduli,
) -> None:
    """mass[node, moved] += the odds of outcome (or opening) o, as a float and modulo each
    prime, × the mass of `source` at (row, cell)."""
    primes, inverses = moduli.primes, moduli.inverses
    mass.f[node, moved] += odds.p[o] * source.f[row, cell]
    for q in range(len(primes)):
        term = mulmod(odds.res[o, q], source.res[row, cell, q], primes[q], inverses[q])
        mass.res[node, moved, q] = addmod(mass.res[node, moved, q], term, primes[q])


@jit
def _roll(
    mass: Values, ends: Values, openings: Openings, height: int, width: int, moduli: Moduli
) -> None:
    """F1 and F2 of a sequence: the mass where the last one ended (`ends`, per relics used)
    moved to the nodes its openings start at, the curse damage moving cells (to the finals,
    `mass`'s last row, where a fighter falls)."""
    fallen = len(mass.f) - 1
    for relics in range(RELICS):
        first, last = openings.start[relics], openings.start[relics + 1]
        for a in range(1, height):
            for b in range(1, width):
                cell = a * width + b
                if not _holds(ends, relics, cell):
                    continue
                for o in range(first, last):
                    wa, wb = max(0, a - openings.curse_a[o]), max(0, b - openings.curse_b[o])
                    node = fallen if wa == 0 or wb == 0 else openings.node[o]
                    _move(mass, node, wa * width + wb, ends, relics, cell, openings, o, moduli)


@jit
def push(
    graph: Graph,
    branches: Outcomes,
    openings: Openings,
    choices: Array,
    reached: Array,
    rounds: int,
    start: int,
    height: int,
    width: int,
    moduli: Moduli,
    stop: Array,
) -> tuple[Array, Array]:
    """The joint distribution of both fighters' final wounds over the cells: as floats, and
    modulo each prime of `moduli`, none in float mode.

    Each sequence takes the mass of its starting cells per relics used, rolls (`_roll`) and
    pushes it down the nodes, each (node, cell) split by the mover's choice there and by its
    action's odds; mass where a fighter falls leaves for the finals (the extra last row of
    `mass`) at once, the rest ends the sequence per relics used and starts the next. Only
    the cells `reach` found are visited (and zeroed before each sequence). Long because a
    sequence's passes (zero, roll, push) share its arrays and run in order; the push is one
    loop nest, its per-outcome step inlined (`_move`: called, not inlined, push took 5 times
    as long on bench_fight's heuristic fights). `stop` as in `solve`."""
    mover, optimal, ended, heuristic = graph.mover, graph.optimal, graph.ended, graph.heuristic
    primes = moduli.primes
    nodes, k, cells = len(mover), len(primes), height * width
    unused = np.zeros((0, 0), np.uint64)  # no words: masses are not compared
    mass = Values(np.empty((nodes + 1, cells)), unused, np.empty((nodes + 1, cells, k), np.int64))
    mass.f[nodes] = 0.0
    mass.res[nodes] = 0
    ends = Values(np.zeros((RELICS, cells)), unused, np.zeros((RELICS, cells, k), np.int64))
    ends.f[0, start] = 1.0
    ends.res[0, start] = 1
    standing = (1 << width) - 2  # every cell of a row but B's 0
    for played in range(rounds):
        if stop[0]:
            break
        level = rounds - 1 - played
        for i in range(nodes):
            for a in range(1, height):
                row = reached[level, i, a] & standing
                for b in range(width if row else 0):
                    if row >> b & 1:
                        mass.f[i, a * width + b] = 0.0
                        mass.res[i, a * width + b] = 0
        _roll(mass, ends, openings, height, width, moduli)
        ends.f[:] = 0.0
        ends.res[:] = 0
        for i in range(nodes - 1, -1, -1):
            if stop[0]:  # `engine.interrupt`, as in `solve`
                break
            x, end = mover[i], ended[i]
            for a in range(1, height):
                row = reached[level, i, a] & standing
                for b in range(width if row else 0):
                    cell = a * width + b
                    if not row >> b & 1 or not _holds(mass, i, cell):
                        continue
                    if end >= 0:
                        ends.f[end, cell] += mass.f[i, cell]
                        for q in range(k):
                            ends.res[end, cell, q] = addmod(
                                ends.res[end, cell, q], mass.res[i, cell, q], primes[q]
                            )
                        continue
                    choice = choices[level, i, cell] if optimal[i] else heuristic[i, cell]
                    j = graph.act_start[i] + choice
                    target = b if x == 0 else a
                    for o in range(branches.start[j], branches.start[j + 1]):
                        dmg = branches.damage[o]
                        node = nodes if target <= dmg else branches.next[o]
                        wa, wb = struck(a, b, x, dmg)
                        _move(mass, node, wa * width + wb, mass, i, cell, branches, o, moduli)
    finals_f, finals_r = mass.f[nodes].copy(), mass.res[nodes].copy()  # not views: mass goes
    for relics in range(RELICS):
        for cell in range(cells):
            finals_f[cell] += ends.f[relics, cell]
            for q in range(k):
                finals_r[cell, q] = addmod(finals_r[cell, q], ends.res[relics, cell, q], primes[q])
    return finals_f, finals_r
