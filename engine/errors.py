"""The errors the engine raises: bad input named by the caller's field (spec §12), and
computations too large for the engine's budgets, named by the engine's own quantities.

Which HTTP status a refusal is, and which request field a budget is charged to, is the request
layer's business (`schema.errors`, `schema.kt2024.fight`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Literal

ErrorCode = Literal["INVALID_INPUT", "LIMIT_EXCEEDED"]


class Refusal(Exception):
    """What the engine will not compute, and why (`message`): a dataclass of its members.

    Not frozen: Python sets `__traceback__` on exceptions it propagates (context managers,
    hypothesis). A dataclass's `__init__` hands Exception no text, so the one line a
    traceback shows is said here: `LINE` filled in with the refusal (`str.format`)."""

    LINE: ClassVar[str]
    message: str

    def __str__(self) -> str:
        return self.LINE.format(self)


@dataclass
class InputError(Refusal):
    """Bad input, named by the dotted path of the offending field (`attacker.attacks`).

    `limit` is set only for LIMIT_EXCEEDED: the maximum the field may take."""

    LINE = "{0.code} at {0.where}: {0.message}"
    code: ErrorCode
    field: str
    message: str
    limit: int | None = None

    @property
    def where(self) -> str:
        """The field, or `<root>` for the request as a whole (the empty field)."""
        return self.field or "<root>"

    def as_json(self) -> dict[str, object]:
        body: dict[str, object] = {"code": self.code, "field": self.field, "message": self.message}
        if self.limit is not None:
            body["limit"] = self.limit
        return body


@dataclass
class TooLarge(Refusal):
    """A computation refused because it would need more than `limit` of `quantity`, one of the
    engine's own resources (a ruleset names them, e.g. `engine.kt2024.budgets`), rather than
    left to exhaust the process. `fighter` (0 or 1) is the side it is charged to, if one is."""

    LINE = "more than {0.limit} {0.quantity}: {0.message}"
    quantity: str
    limit: int
    message: str
    fighter: int | None = None
