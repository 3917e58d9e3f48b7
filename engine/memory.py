"""The process's memory as the engine sees it: a ledger its caller may install, from which a
computation claims the bytes its arrays will need before it allocates them.

A server runs several computations at once in one process under one memory limit; only the
engine knows, once it has sized a scenario (a fight's nodes, cells and primes), how much its
compiled loops will allocate. So the engine asks the thread's ledger (`claim`) right before
allocating, and sizes what it can to `capacity` (a fight carries fewer primes a pass). The
ledger is the service's (`service.admission`): it may block until the bytes fit, or raise
`engine.interrupt.Stopped` if the computation is abandoned while it waits. A thread with no
ledger installed (the batch CLI, tests) has unlimited capacity and every claim granted.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Protocol

from engine.threadlocal import ThreadValue


class Ledger(Protocol):
    def capacity(self) -> int:
        """The most bytes one computation could ever be granted."""
        ...

    def claim(self, nbytes: int) -> None:
        """Hold `nbytes` more for this computation (until its ledger is closed), waiting
        until they fit; the caller checked `nbytes <= capacity()`."""
        ...


UNLIMITED = 1 << 62
_BOOK: ThreadValue[Ledger | None] = ThreadValue(None)


def ledger(book: Ledger) -> AbstractContextManager[Ledger | None]:
    """Make `book` the ledger of this thread's engine calls, until the block ends."""
    return _BOOK.bound(book)


def capacity() -> int:
    book = _BOOK.get()
    return UNLIMITED if book is None else book.capacity()


def claim(nbytes: int) -> None:
    book = _BOOK.get()
    if book is not None:
        book.claim(nbytes)
