"""Map pydantic validation errors to the structured errors of spec §12."""

from __future__ import annotations

from pydantic import ValidationError

from engine.errors import InputError


def dotted(loc: tuple[int | str, ...], prefix: str = "") -> str:
    """('attacker', 'attacks') -> 'attacker.attacks'; list indexes become path segments."""
    parts = [prefix] if prefix else []
    parts.extend(str(p) for p in loc)
    return ".".join(parts)


def from_validation_error(exc: ValidationError, prefix: str = "") -> InputError:
    """The first error of a pydantic ValidationError, as INVALID_INPUT or LIMIT_EXCEEDED.

    Only a maximum (`le`) violation is a LIMIT_EXCEEDED: rule ranges raise `rule_range`
    (see `schema.fields`), so they stay INVALID_INPUT.
    """
    first = exc.errors(include_url=False)[0]
    field = dotted(tuple(first["loc"]), prefix)
    kind = first["type"]
    if kind == "less_than_equal":
        limit = first["ctx"]["le"]
        return InputError("LIMIT_EXCEEDED", field, f"must be at most {limit}", int(limit))
    if kind == "extra_forbidden":
        return InputError("INVALID_INPUT", field, "unknown field")
    return InputError("INVALID_INPUT", field, first["msg"])
