"""The vendored specs (docs/spec) and worked examples (tests/spec) are byte-identical to the
upstream specs, when those exist beside the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SPEC_DIR

UPSTREAM = Path(__file__).resolve().parents[2] / "shared" / "spec"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "spec"
COPIES = sorted(SPEC_DIR.glob("*-examples.json")) + sorted(DOCS.glob("*.md"))
RULESETS = ("kt2024", "kt2018", "kt2013", "threshold")


def test_every_ruleset_has_its_examples() -> None:
    names = {p.name for p in COPIES}
    assert names == {f"{r}-examples.json" for r in RULESETS} | {f"{r}.md" for r in RULESETS}


@pytest.mark.skipif(not UPSTREAM.is_dir(), reason="no upstream ../shared/spec beside this checkout")
@pytest.mark.parametrize("copy", COPIES, ids=[p.name for p in COPIES])
def test_copy_matches_upstream(copy: Path) -> None:
    assert copy.read_bytes() == (UPSTREAM / copy.name).read_bytes()
