"""Shared test helpers: where the specs and their worked examples live."""

from __future__ import annotations

import json
from pathlib import Path

SPEC_DIR = Path(__file__).resolve().parent / "spec"
"""The specs' worked examples, vendored so a fresh clone tests on its own.

`test_spec_copies.py` checks them against the upstream `../shared/spec` when that exists."""


def load_examples(name: str) -> list[dict]:
    """The worked examples of `<name>-examples.json` (spec test vectors, never copied)."""
    data = json.loads((SPEC_DIR / f"{name}-examples.json").read_text())
    return data["examples"] if isinstance(data, dict) else data
