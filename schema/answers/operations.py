"""Answers of the operational routes: liveness, readiness, the ruleset list."""

from __future__ import annotations

from typing import Literal

from schema.answers.base import Result


class Health(Result):
    """`GET /healthz`: the process answers."""

    status: Literal["ok"]


class Readiness(Result):
    """`GET /readyz`: 200 whenever the process serves; Redis is reported, never required."""

    status: Literal["ready"]
    redis: Literal["ok", "unavailable", "disabled"]


class Rulesets(Result):
    """`GET /v1/rulesets`: every ruleset with its mode names, and the engine revision that
    salts every answer's ETag and cache key (it changes when an engine fix changes numbers)."""

    engine_revision: int
    rulesets: dict[str, list[str]]
