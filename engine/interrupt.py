"""A cooperative stop for long computations: the caller raises a flag, the engine's long
loops poll it and give up.

A thread computing an answer cannot be killed from outside, so the service asks it to stop:
it sets the flag of the computation (its client left, or its time budget ran out) and the
engine, which reads the flag every node of its compiled loops and between the steps of its
Python ones, returns early and raises `Stopped`. The flag only stops work, never changes a
number: a computation that is not stopped answers exactly as without it.

The flag is a one-element int64 array so the numba kernels take it as an ordinary argument
(one type, one compilation) and read it with a plain load. It reaches the engine through a
thread-local (`watching`), so no engine signature between the service and the kernels has to
carry it; a thread with no flag watched polls one that is never set.
"""

from __future__ import annotations

from contextlib import AbstractContextManager

import numpy as np

from engine.threadlocal import ThreadValue


class Stopped(Exception):
    """The computation was stopped by its caller before it finished: there is no answer."""

    def __init__(self) -> None:
        super().__init__("the computation was stopped before it finished")


class Flag:
    """One computation's stop flag; `cell` is what the kernels poll (non-zero: stop)."""

    __slots__ = ("cell",)

    def __init__(self) -> None:
        self.cell = np.zeros(1, dtype=np.int64)

    def set(self) -> None:
        self.cell[0] = 1

    @property
    def is_set(self) -> bool:
        return bool(self.cell[0])


_NEVER = Flag()  # polled by computations nobody can stop (batch CLI, tests, warm-up)
_WATCHED: ThreadValue[Flag] = ThreadValue(_NEVER)


def watching(flag: Flag) -> AbstractContextManager[Flag]:
    """Make `flag` the one this thread's engine calls poll, until the block ends."""
    return _WATCHED.bound(flag)


def cell() -> np.ndarray:
    """The array the kernels poll: the watched flag's, or one never set."""
    return _WATCHED.get().cell


def check() -> None:
    """Raise `Stopped` if this thread's flag is set: called between steps of long work."""
    if _WATCHED.get().cell[0]:
        raise Stopped
