"""The process admits computations only while the memory they hold at their peak fits its
budget (`KILLMATH_MEMORY_BUDGET`, below the container's limit: issue 34, finding 3).

Every scenario holds its estimate (`Mode.peak`: the engine's own quantities) while a pool
thread computes it, and an engine that sizes its arrays only once it has built its graph (a
kt2024 fight) claims those bytes itself right before allocating them (`engine.memory`). A
claim that does not fit now waits in its pool thread until others finish; the wait ends with
`engine.interrupt.Stopped` if the computation is abandoned meanwhile (its requests left or ran
out of time). A scenario that could never fit is refused: a fight sizes its arrays to
`capacity` and is refused by the engine (LIMIT_EXCEEDED on the field it names) when even its
smallest arrays do not fit; any other claim above the budget is LIMIT_EXCEEDED here.

Holding and waiting happen one scenario at a time, in the thread computing it, with at most
two claims a scenario (its estimate, then the engine's): the first is 0 for a mode whose engine
claims for itself, so no scenario waits while it holds anything, and none can deadlock another.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from engine import interrupt
from engine import memory as ledger
from engine.errors import InputError

POLL = 0.05  # seconds between a waiting claim's looks at its stop flag


class Admission:
    """The bytes held by the computations in flight, against `budget`."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.held = 0
        self.peak = 0  # the most ever held at once, for tests and the soak benchmark
        self._changed = threading.Condition()

    def acquire(self, nbytes: int, flag: interrupt.Flag) -> None:
        """Hold `nbytes` once they fit; `Stopped` if `flag` is set while waiting."""
        with self._changed:
            while self.held + nbytes > self.budget:
                if flag.is_set:
                    raise interrupt.Stopped
                self._changed.wait(POLL)
            self.held += nbytes
            self.peak = max(self.peak, self.held)

    def release(self, nbytes: int) -> None:
        with self._changed:
            self.held -= nbytes
            self._changed.notify_all()

    @contextmanager
    def holding(self, nbytes: int, flag: interrupt.Flag) -> Iterator[Account]:
        """One scenario's account: `nbytes` held at once, the engine's claims added, all of it
        released when the block ends; the engine's claims go to it meanwhile."""
        account = Account(self, flag)
        try:
            account.claim(nbytes)
            with ledger.ledger(account):
                yield account
        finally:
            account.close()


class Account:
    """What one scenario holds (`engine.memory.Ledger`)."""

    def __init__(self, admission: Admission, flag: interrupt.Flag) -> None:
        self.admission = admission
        self.flag = flag
        self.held = 0

    def capacity(self) -> int:
        return self.admission.budget - self.held

    def claim(self, nbytes: int) -> None:
        if nbytes <= 0:
            return
        if nbytes > self.capacity():
            raise never_fits(self.admission.budget)
        self.admission.acquire(nbytes, self.flag)
        self.held += nbytes

    def close(self) -> None:
        if self.held:
            self.admission.release(self.held)
            self.held = 0


def never_fits(budget: int) -> InputError:
    return InputError(
        "LIMIT_EXCEEDED",
        "",
        f"this computation would need more memory than the {budget} bytes this server "
        "gives its computations (KILLMATH_MEMORY_BUDGET)",
        budget,
    )
