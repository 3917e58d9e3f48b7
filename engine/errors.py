"""The one error type the engine and the request layer raise for bad input (spec §12)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ErrorCode = Literal["INVALID_INPUT", "LIMIT_EXCEEDED"]

HTTP_STATUS: dict[str, int] = {"INVALID_INPUT": 400, "LIMIT_EXCEEDED": 422}


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
