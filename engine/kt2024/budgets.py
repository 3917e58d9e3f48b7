"""The fight's budgets, named by what they count: past one, a fight is refused (`TooLarge`)
rather than left to exhaust the process. The limits live beside the code that spends them
(`table.TABLE_BUDGET`, `flat.MEMORY_BUDGET`, `flat.ROW_BITS`, `precision.PRIMES`); which
request field each is charged to is `schema.kt2024.fight`'s."""

from __future__ import annotations

from engine.errors import TooLarge

MOMENTS = "tactical moments"
"""Reachable tactical moments × outcome slots of a fight's table."""
BYTES = "bytes"
"""Bytes of the wounds grid's arrays of a heuristic fight."""
DIGITS = "exact digits"
"""Primes exact numerators are carried modulo."""
ROW = "wounds a row"
"""Wounds of B one row of the grid holds."""
OPTIMAL_BYTES = "bytes for OPTIMAL"
"""Bytes of the wounds grid's arrays of a fight with an OPTIMAL fighter."""


def too_large(what: str, limit: int) -> TooLarge:
    """The refusal of a fight whose resolution would need more than `limit` of `what`."""
    return TooLarge(
        what,
        limit,
        f"the exact resolution of this fight needs more than {limit} {what}; "
        "use fewer rounds, attacks or wounds",
    )
