"""Catalog benchmark: the cost the catalog adds to a request, which should be negligible
next to the engine.

Measures (warm, in-process): parsing every weapon-rules text of the starter catalog,
expanding a referenced shoot envelope to its inline profile, and the one-off cold load and
validation of the catalog data files. Prints median / p95 per operation and the total.

    python benchmarks/catalog.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from timing import seconds, summary

from schema import references
from schema.catalog import DATA_DIR, catalog, load_catalog
from schema.weapon_rules import format_rules, parse_rules


def timed(label: str, calls: list[Callable[[], object]], repeat: int) -> None:
    print(summary(label, [seconds(call) for _ in range(repeat) for call in calls]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()

    cold = seconds(lambda: load_catalog(DATA_DIR / "kt2024"))
    print(f"{'cold load + validation':<34} {cold * 1e3:8.1f} ms")

    cat = catalog()
    texts = [format_rules(p.rules.fields, p.rules.no_numeric_effect) for p in cat.profiles.values()]
    timed("parse_rules (catalog texts)", [lambda t=t: parse_rules(t) for t in texts], args.repeat)

    ranged = [p.id for p in cat.profiles.values() if p.type == "ranged"]
    targets = list(cat.operatives)
    envelopes = [
        {"mode": "shoot", "attacker": {"weaponProfileId": r},
         "defender": {"operativeId": targets[i % len(targets)], "coverSaves": 1}}
        for i, r in enumerate(ranged)
    ]  # fmt: skip
    timed("references.expand (shoot)", [lambda e=e: references.expand(e) for e in envelopes],
          args.repeat)  # fmt: skip
    inline = {"mode": "shoot", "attacker": {"attacks": 4}, "defender": {}}
    timed("references.expand (inline, no-op)", [lambda: references.expand(inline)], args.repeat)


if __name__ == "__main__":
    main()
