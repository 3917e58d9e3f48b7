"""Map pydantic validation errors to the structured errors of spec §12, every one of them.

A request with three bad fields is refused once, naming all three: `from_validation_error`
returns the first as the raised InputError (what every caller and the `error` member have
always read) carrying the others (`FieldErrors.more`); `every` lists them all, and
`error_body` is the refusal body `{"error": first, "errors": [all]}` (`schema.answers.errors`).

An error reply is at most `REPLY_BYTES` (64 KiB), however many problems a request has (a
grid of a thousand bad profiles) and however long what it echoes (a field named by a
client's key, a message quoting its text): `within_reply` keeps the first problems that fit,
each text member cut at `TEXT_CHARS`, and counts the rest, which the REST body says in
`omitted` and a GraphQL reply in a final error (`service.graphql.http`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

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


REPLY_BYTES = 65_536
"""The most an error reply's errors may encode to, REST or GraphQL (issue 34)."""
TEXT_CHARS = 1_000
"""Characters kept of one problem's text member (`message`, `field`): JSON-escaped, even
the worst (`\\u0000`) stays a tenth of the reply, so the first problem always fits."""
_SLACK = 512  # the reply's own members around its errors (`omitted`, `extensions.cost`)


def shortened(text: Any) -> Any:
    """A text member cut at `TEXT_CHARS`, saying how much was left out."""
    if not isinstance(text, str) or len(text) <= TEXT_CHARS:
        return text
    return f"{text[:TEXT_CHARS]}… ({len(text) - TEXT_CHARS} more characters)"


def short_detail(detail: dict[str, Any]) -> dict[str, Any]:
    """A problem with its text members shortened, those of a nested object too (a GraphQL
    error's §12 `extensions`)."""
    return {
        k: {n: shortened(x) for n, x in v.items()} if isinstance(v, dict) else shortened(v)
        for k, v in detail.items()
    }


def within_reply(
    details: list[dict[str, Any]], budget: int = REPLY_BYTES
) -> tuple[list[dict[str, Any]], int]:
    """The first problems whose JSON fits in `budget` bytes (always the first one), each
    shortened (`short_detail`), and how many were left out."""
    kept: list[dict[str, Any]] = []
    spent = _SLACK
    for detail in details:
        short = short_detail(detail)
        size = len(orjson.dumps(short)) + 1
        if kept and spent + size > budget:
            break
        kept.append(short)
        spent += size
    return kept, len(details) - len(kept)


def error_body(error: Any) -> dict[str, Any]:
    """The refusal body of an InputError, or of any error with `as_json` (a timeout): the
    first problems within `REPLY_BYTES` (the first counted twice: it is also `error`) and,
    when some did not fit, `omitted`, their count.

    Its answer model is imported here, on the first refusal: every request imports this
    module (`from_validation_error`), and one that succeeds never builds the model."""
    from schema.answers.errors import Error

    found = every(error) if isinstance(error, InputError) else [error]
    first = short_detail(found[0].as_json())
    budget = REPLY_BYTES - len(orjson.dumps(first))
    details, omitted = within_reply([e.as_json() for e in found], budget)
    more = {"omitted": omitted} if omitted else {}
    return Error(error=details[0], errors=details, **more).as_json()
