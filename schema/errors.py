"""Map pydantic validation errors to the structured errors of spec §12, every one of them.

A request with three bad fields is refused once, naming all three: `from_validation_error`
returns the first as the raised InputError (what every caller and the `error` member have
always read) carrying the others (`FieldErrors.more`); `every` lists them all, and
`error_body` is the refusal body `{"error": first, "errors": [all]}` (`schema.answers.errors`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.errors import InputError

if TYPE_CHECKING:  # only named in annotations: `killmath rules` never imports pydantic
    from pydantic import ValidationError
    from pydantic_core import ErrorDetails

HTTP_STATUS: dict[str, int] = {"INVALID_INPUT": 400, "LIMIT_EXCEEDED": 422, "REQUEST_TIMEOUT": 408}
"""The HTTP status of a refusal, by its code (§12)."""


@dataclass
class FieldErrors(InputError):
    """The first of several errors of one request, with the rest in request order."""

    more: tuple[InputError, ...] = ()


def dotted(loc: tuple[int | str, ...], prefix: str = "") -> str:
    """('attacker', 'attacks') -> 'attacker.attacks'; list indexes become path segments."""
    parts = [prefix] if prefix else []
    parts.extend(str(p) for p in loc)
    return ".".join(parts)


def field_error(error: ErrorDetails, prefix: str = "") -> InputError:
    """One pydantic error as INVALID_INPUT or LIMIT_EXCEEDED.

    Only a maximum (`le`) violation is a LIMIT_EXCEEDED: rule ranges raise `rule_range`
    (see `schema.fields`), so they stay INVALID_INPUT.
    """
    field = dotted(tuple(error["loc"]), prefix)
    kind = error["type"]
    if kind == "less_than_equal":
        limit = error["ctx"]["le"]
        return InputError("LIMIT_EXCEEDED", field, f"must be at most {limit}", int(limit))
    if kind == "extra_forbidden":
        return InputError("INVALID_INPUT", field, "unknown field")
    return InputError("INVALID_INPUT", field, error["msg"])


def gathered(errors: list[InputError]) -> InputError:
    """Several errors as one raisable InputError: the first, carrying the others. A field
    named twice (a union's branches both refusing it) is reported once, first reason kept."""
    unique: dict[str, InputError] = {}
    for error in errors:
        unique.setdefault(error.field, error)
    first, *more = unique.values()
    if not more:
        return first
    return FieldErrors(first.code, first.field, first.message, first.limit, tuple(more))


def from_validation_error(
    exc: ValidationError,
    prefix: str = "",
    convert: Callable[[ErrorDetails, str], InputError] = field_error,
) -> InputError:
    """Every error of a pydantic ValidationError (`convert` maps each one)."""
    return gathered([convert(error, prefix) for error in exc.errors(include_url=False)])


def every(error: InputError) -> list[InputError]:
    """The errors an InputError stands for: itself, then those it carries."""
    first = InputError(error.code, error.field, error.message, error.limit)
    return [first, *getattr(error, "more", ())]


def each(error: InputError, change: Callable[[InputError], InputError]) -> InputError:
    """`change` applied to every error an InputError stands for (re-pointing fields)."""
    return gathered([change(e) for e in every(error)])


def error_body(error: Any) -> dict[str, Any]:
    """The refusal body of an InputError, or of any error with `as_json` (a timeout).

    Its answer model is imported here, on the first refusal: every request imports this
    module (`from_validation_error`), and one that succeeds never builds the model."""
    from schema.answers.errors import Error

    found = every(error) if isinstance(error, InputError) else [error]
    details = [e.as_json() for e in found]
    return Error(error=details[0], errors=details).as_json()
