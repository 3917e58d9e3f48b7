"""Every (ruleset, mode) the service computes, behind one envelope.

An envelope is `{"ruleset": "kt2024", "mode": "shoot", ...body}`; `ruleset` defaults to
kt2024. Each ruleset's schema module registers its modes when imported; modules are imported
on first use so a caller only pays for the rulesets it asks for. A ruleset whose modes live in
modules of their own (kt2024: shooting needs no fight kernels, numba or their tables) lists
them in MODE_MODULES, so a request imports only its own mode: a one-line shooting batch
starts without compiling the fight machinery. A mode's module is imported with the cyclic
garbage collector paused (`_load`).
"""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from engine import collector
from engine.errors import InputError

DEFAULT_RULESET = "kt2024"

# ruleset name -> module whose import registers its modes
RULESET_MODULES: dict[str, str] = {
    "kt2024": "schema.kt2024",
    "threshold": "schema.threshold",
    "kt2013": "schema.kt2013",
    "kt2018": "schema.kt2018",
}

# ruleset name -> mode name -> module whose import registers that mode alone
MODE_MODULES: dict[str, dict[str, str]] = {
    "kt2024": {"shoot": "schema.kt2024.shoot", "fight": "schema.kt2024.fight"},
}


@dataclass(frozen=True)
class Mode:
    """One computation: parse a request body, key it canonically, evaluate it.

    `parse` validates the body (the envelope without `ruleset`/`mode`) and returns the engine's
    scenario, raising InputError. `cache_key` is the engine's canonical key (it carries the
    engine version). `evaluate` returns the JSON-ready output of kt2024.md §10. `model` is the
    pydantic model of the body: the HTTP service derives its OpenAPI document and GraphQL input
    types from it (a mode without one is served, but untyped). `results` are the answer models
    (`schema.answers`) `evaluate` renders through, one per shape the mode can answer (kt2013:
    a model or a vehicle target): the OpenAPI response schemas and GraphQL output types.
    `peak_bytes` estimates the memory a scenario holds at its peak (the engine's
    `<ruleset>.memory`), held against the process's budget while it computes
    (`service.admission`); None: a small constant (`SMALL_PEAK_BYTES`). An engine that sizes
    its arrays only as it computes claims them itself (`engine.memory`) and says 0 here.
    """

    ruleset: str
    name: str
    parse: Callable[[Mapping[str, Any]], Any]
    cache_key: Callable[[Any], str]
    evaluate: Callable[[Any], dict[str, Any]]
    model: type | None = None
    results: tuple[type, ...] = ()
    peak_bytes: Callable[[Any], int] | None = None

    def peak(self, scenario: Any) -> int:
        return SMALL_PEAK_BYTES if self.peak_bytes is None else self.peak_bytes(scenario)

    def fits(self, output: Any) -> bool:
        """Whether `output` is one of this mode's answers as its models declare them (strict:
        a number is not a string; no member missing or unknown). For what the service reads
        back from a shared cache: an answer of another shape would fail whatever reads it
        (a grid cell's summary) or reach a client. ~10 µs for a plain shoot."""
        for result in self.results:
            try:
                result.model_validate(output, strict=True)  # type: ignore[attr-defined]
            except ValidationError:
                continue
            return True
        return not self.results


SMALL_PEAK_BYTES = 2 * 2**20
"""The peak of a scenario of a mode with no estimate of its own: the kt2018, kt2013 and
threshold engines' tables are a few hundred KB at most."""


_MODES: dict[tuple[str, str], Mode] = {}

_freezing = False


def freeze_imports() -> None:
    """From now on, freeze (`gc.freeze`) what is in memory once a mode's module is first
    imported: for a process that keeps its modules until it exits and has nothing before
    them worth collecting (a `killmath` command line, not a server or the tests), so that no
    later pass of the collector walks numpy's, pydantic's and the engine's objects again (the
    first one after the import walks them all: ~8 ms of a one-line batch)."""
    global _freezing
    _freezing = True


def _load(module: str) -> None:
    """Import `module`, with the cyclic collector paused while it is first imported: a mode's
    first import brings numpy, pydantic and the engine's tables, tens of thousands of
    objects few of which are garbage, and the collector's passes over them cost a fresh
    `killmath batch` ~15 ms (issue 17's start-up)."""
    if module in sys.modules:  # imported, or being imported by another thread: wait for it
        importlib.import_module(module)
        return
    with collector.paused():
        importlib.import_module(module)
        if _freezing:
            gc.freeze()


def register(mode: Mode) -> Mode:
    _MODES[(mode.ruleset, mode.name)] = mode
    return mode


def modes(ruleset: str) -> dict[str, Mode]:
    """The modes of a ruleset, importing its module on first use."""
    if ruleset not in RULESET_MODULES:
        raise InputError("INVALID_INPUT", "ruleset", f"unknown ruleset {ruleset!r}")
    _load(RULESET_MODULES[ruleset])
    for module in MODE_MODULES.get(ruleset, {}).values():
        _load(module)
    return {name: m for (rs, name), m in _MODES.items() if rs == ruleset}


def _modes_for(ruleset: str, name: str) -> dict[str, Mode]:
    """The modes of a ruleset as far as a request for mode `name` needs them: only that
    mode's module when it has one of its own, else every mode (which names the choices)."""
    module = MODE_MODULES.get(ruleset, {}).get(name)
    if module is None:
        return modes(ruleset)
    _load(module)
    return {name: _MODES[(ruleset, name)]}


def rulesets() -> dict[str, list[str]]:
    """Every ruleset with its mode names."""
    return {name: sorted(modes(name)) for name in RULESET_MODULES}


def resolve(envelope: Any, mode: str | None = None) -> tuple[Mode, Any]:
    """Validate an envelope: returns its Mode and parsed scenario, or raises InputError.

    `mode` is the mode implied by the route (REST `/v1/shoot`); an envelope naming a
    different one is rejected.
    """
    if not isinstance(envelope, Mapping):
        raise InputError("INVALID_INPUT", "", "a request must be a JSON object")
    body = dict(envelope)
    ruleset = body.pop("ruleset", DEFAULT_RULESET)
    if not isinstance(ruleset, str):
        raise InputError("INVALID_INPUT", "ruleset", "must be a string")
    named = body.pop("mode", mode)
    if named is None:
        raise InputError("INVALID_INPUT", "mode", "mode is required")
    if not isinstance(named, str) or (mode is not None and named != mode):
        raise InputError("INVALID_INPUT", "mode", f"expected mode {mode!r}")
    available = _modes_for(ruleset, named)
    if named not in available:
        raise InputError(
            "INVALID_INPUT", "mode", f"ruleset {ruleset!r} has modes {sorted(available)}"
        )
    handler = available[named]
    return handler, handler.parse(body)


def run(envelope: Any, mode: str | None = None) -> dict[str, Any]:
    """Validate and evaluate one envelope (no cache): the CLI's and the tests' entry point."""
    handler, scenario = resolve(envelope, mode)
    return handler.evaluate(scenario)
