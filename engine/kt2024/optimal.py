"""OPTIMAL (§9.8): backward induction over the whole battle on exact values.

The value of a moment, from fighter A's side, is the pair (U, D) with U = P(B ends at 0) −
P(A ends at 0) and D = E[A's final wounds − B's final wounds]. A maximises it, B minimises it
(its own U and D are the negatives, so OPTIMAL vs OPTIMAL is zero-sum expectiminimax); a
heuristic mover plays its §9.5 choice. Ties fall to the earlier candidate of §9.8 O4. Values are
exact integers over powers of 6 in both precisions, so the policy never depends on `exact`.
"""

from __future__ import annotations

from engine.errors import InputError

from .fight_state import Moment, Odds
from .sequence import Sequence
from .strike import Action
from .weights import power6

STATE_BUDGET = 600_000
"""The most moments OPTIMAL may solve in one fight. The §12 limits bound the state space but
not well enough for backward induction over every later sequence: 8 dice a side, 30 wounds
and 5 sequences would need tens of millions of solved moments (many gigabytes). Past this
budget (some 700 MB) the request is refused rather than left to exhaust the process."""

Value = tuple[int, int, int]
"""(U numerator, D numerator, exponent): U and D over 6**exponent, from A's side."""


def terminal(wounds_a: int, wounds_b: int) -> Value:
    return ((wounds_b == 0) - (wounds_a == 0), wounds_a - wounds_b, 0)


def expectation(branches: list[tuple[Odds, Value]]) -> Value:
    depth = max(d + e for (_, d), (_, _, e) in branches)
    u = dd = 0
    for (a, d), (bu, bd, e) in branches:
        factor = a * power6(depth - d - e)
        u += factor * bu
        dd += factor * bd
    return (u, dd, depth)


def better(v: Value, w: Value) -> bool:
    """Is v strictly better than w for A, comparing U, then D, exactly?"""
    shift_v, shift_w = power6(max(0, w[2] - v[2])), power6(max(0, v[2] - w[2]))
    return (v[0] * shift_v, v[1] * shift_v) > (w[0] * shift_w, w[1] * shift_w)


class Optimal:
    """The OPTIMAL fighters' choices in one fight, solved on demand and memoised."""

    def __init__(self, sequence: Sequence) -> None:
        self.sequence = sequence
        self._values: dict[tuple[Moment, int], Value] = {}
        self._choices: dict[tuple[Moment, int], Action | None] = {}
        self._starts: dict[tuple[tuple[int, int], tuple[int, int], int], Value] = {}

    def choice(self, moment: Moment, left: int) -> Action | None:
        """The OPTIMAL mover's action at `moment`, `left` sequences to play (this one included)."""
        moment = self.lookup(moment, left)
        key = (moment, left)
        if key not in self._choices:
            self.value(moment, left)
        return self._choices[key]

    def lookup(self, moment: Moment, left: int) -> Moment:
        """In the last sequence, wounds out of every reachable damage total only shift D, so
        the moment is solved with them capped (`wounds.Alike.capped`)."""
        if left != 1:
            return moment
        return Moment(moment.duel, moment.active, self.sequence.tactics.alike.capped(moment.pair))

    def value(self, moment: Moment, left: int) -> Value:
        looked = self.lookup(moment, left)
        if looked.pair != moment.pair:
            u, d, e = self.value(looked, left)
            (a, b), (a_, b_) = moment.pair, looked.pair
            return (u, d + (a.wounds - a_.wounds - b.wounds + b_.wounds) * power6(e), e)
        key = (moment, left)
        known = self._values.get(key)
        if known is not None:
            return known
        seq = self.sequence
        if seq.over(moment):
            a, b = moment.pair
            if a.wounds == 0 or b.wounds == 0 or left == 1:
                value = terminal(a.wounds, b.wounds)
            else:
                value = self.start((a.wounds, b.wounds), (a.relics_used, b.relics_used), left - 1)
            self._values[key] = value
            return value
        if len(self._values) >= STATE_BUDGET:
            raise self.too_large()
        x = seq.mover(moment)
        if seq.fighters[x].strategy == "OPTIMAL":
            best: Action | None = None
            value = None
            for action in seq.candidates(moment):
                v = self._after(moment, action, left)
                if value is None or (better(v, value) if x == 0 else better(value, v)):
                    best, value = action, v
            self._choices[key] = best
        else:
            value = self._after(moment, seq.heuristic(moment), left)
        self._values[key] = value
        return value

    def too_large(self) -> InputError:
        side = "fighterA" if self.sequence.fighters[0].strategy == "OPTIMAL" else "fighterB"
        return InputError(
            "LIMIT_EXCEEDED",
            f"{side}.strategy",
            f"OPTIMAL would have to solve more than {STATE_BUDGET} fight states for these "
            "attacks, wounds and rounds; use fewer of them or a heuristic strategy",
            STATE_BUDGET,
        )

    def _after(self, moment: Moment, action: Action | None, left: int) -> Value:
        return expectation(
            [(odds, self.value(nxt, left)) for odds, nxt in self.sequence.after(moment, action)]
        )

    def start(self, wounds: tuple[int, int], relics: tuple[int, int], left: int) -> Value:
        """The value of a sequence about to be rolled (F1)."""
        key = (wounds, relics, left)
        known = self._starts.get(key)
        if known is None:
            seq = self.sequence
            branches = []
            for odds, pair in seq.begin(wounds, relics):
                if pair[0].wounds == 0 or pair[1].wounds == 0:
                    branches.append((odds, terminal(pair[0].wounds, pair[1].wounds)))
                else:
                    branches.append((odds, self.value(seq.opening_moment(pair), left)))
            known = self._starts[key] = expectation(branches)
        return known
