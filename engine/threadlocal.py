"""A value each thread gives the engine calls it makes within a block.

The service hands the engine per-computation context (a stop flag, a memory ledger) without
threading it through every signature between its pool and the compiled kernels: the pool
thread sets it for the block that computes, the engine reads it where it needs it, and a
thread that set nothing reads the default.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class ThreadValue(Generic[T]):
    def __init__(self, default: T) -> None:
        self._default = default
        self._local = threading.local()

    def get(self) -> T:
        return getattr(self._local, "value", self._default)

    @contextmanager
    def bound(self, value: T) -> Iterator[T]:
        """`value` for this thread's engine calls until the block ends (then the one before)."""
        previous = self.get()
        self._local.value = value
        try:
            yield value
        finally:
            self._local.value = previous
