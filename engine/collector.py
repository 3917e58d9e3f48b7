"""The cyclic garbage collector held off while a computation builds many objects.

Reference counting frees everything these computations make; the cyclic collector's passes
over the growing tables only cost time (about a quarter of a fight, a third of a catalog
load with the service's modules in memory).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector as it was after it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
