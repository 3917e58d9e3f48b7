"""Shared test helpers: where the specs and their worked examples live, the in-process batch,
and the fixtures the service tests share (a default `killmath serve` per module, the tests'
own Redis db)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from service_harness import Server, owned_redis, serving

from service.cli.main import run_batch

SPEC_DIR = Path(__file__).resolve().parent / "spec"
"""The specs' worked examples, vendored so a fresh clone tests on its own.

`test_spec_copies.py` checks them against the upstream `../shared/spec` when that exists."""


def batch(lines: list[str]) -> tuple[bool, list[dict]]:
    """`killmath batch` in process (`run_batch`): whether every line succeeded, and the
    answers, one per non-blank input line."""
    out = io.StringIO()
    ok = run_batch(lines, out)
    return ok, [json.loads(line) for line in out.getvalue().splitlines()]


def load_examples(name: str) -> list[dict]:
    """The worked examples of `<name>-examples.json` (spec test vectors, never copied)."""
    data = json.loads((SPEC_DIR / f"{name}-examples.json").read_text())
    return data["examples"] if isinstance(data, dict) else data


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    """A `killmath serve` with default settings, shared by one test module's tests."""
    with serving() as running:
        yield running


@pytest.fixture(scope="module")
def url(server: Server) -> str:
    return server.url


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A Redis db of the tests' own, flushed before and after the test (`owned_redis`)."""
    with owned_redis() as owned:
        yield owned


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One Chromium per browser-test module (`browser_harness`)."""
    from browser_harness import launched

    with launched() as found:
        yield found


@pytest.fixture
def browsing(chromium: Any) -> Iterator[Any]:
    """A fresh browser profile per test, 1280 × 900."""
    from browser_harness import profile

    with profile(chromium) as browser:
        yield browser
