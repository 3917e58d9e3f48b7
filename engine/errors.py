"""The errors the engine raises: bad input named by the caller's field (spec §12), and
computations too large for the engine's budgets, named by the engine's own quantities.

Which HTTP status a refusal is, and which request field a budget is charged to, is the request
layer's business (`schema.errors`, `schema.kt2024.fight`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ErrorCode = Literal["INVALID_INPUT", "LIMIT_EXCEEDED"]


@dataclass
class InputError(Exception):
    """Bad input, named by the dotted path of the offending field (`attacker.attacks`).

    `limit` is set only for LIMIT_EXCEEDED: the maximum the field may take. Not frozen: Python
    sets `__traceback__` on exceptions it propagates (context managers, hypothesis).
    """

    code: ErrorCode
    field: str
    message: str
    limit: int | None = None

    def __str__(self) -> str:
        return f"{self.code} at {self.field or '<root>'}: {self.message}"

    def as_json(self) -> dict[str, object]:
        body: dict[str, object] = {"code": self.code, "field": self.field, "message": self.message}
        if self.limit is not None:
            body["limit"] = self.limit
        return body


@dataclass
class TooLarge(Exception):
    """A computation refused because it would need more than `limit` of `quantity`, one of the
    engine's own resources (a ruleset names them, e.g. `engine.kt2024.budgets`), rather than
    left to exhaust the process. `fighter` (0 or 1) is the side it is charged to, if one is.
    Not frozen, as `InputError`."""

    quantity: str
    limit: int
    message: str
    fighter: int | None = None

    def __str__(self) -> str:
        return f"more than {self.limit} {self.quantity}: {self.message}"
