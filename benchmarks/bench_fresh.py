"""Fresh-process benchmark: what a user waits for from a new `killmath` process.

- start-up: `killmath batch` of one shooting line, `killmath rules`, `killmath import` of a
  small ktdash file (one it cannot read, then a readable team), and
  `python -c "import service.app"` (what `serve` imports before it listens), each as a whole
  new process;
- the 600 scenarios of `bench_shoot.py` computed cold in one new process (its own timing,
  after imports), and the same process's wall time including the interpreter's start.
Run: `python benchmarks/bench_fresh.py [--root CHECKOUT] [--repeats 5]`; `--root` times another
checkout (e.g. the previous commit in a `git worktree`) with the same interpreter, so before
and after run back to back on the same machine. The header names the caller's settings of
the variables `killmath` sets for itself (`service.cli.main.START_DEFAULTS`) when there are any:
they change what a command's start costs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import seconds

from service.cli.main import START_DEFAULTS

LINE = {
    "mode": "shoot",
    "attacker": {"attacks": 4, "hit": 3, "normalDamage": 3, "criticalDamage": 4},
    "defender": {"defenceDice": 3, "save": 4, "wounds": 8},
}
KTDASH = [{"factionid": "X", "killteamid": "Y", "killteamname": "Team", "opteams": []}]
TEAM = {
    "killteamId": "BENCH",
    "killteamName": "Bench Team",
    "opTypes": [
        {
            "opTypeName": "Gunner", "MOVE": "6\"", "APL": 2, "SAVE": "4+", "WOUNDS": 8,
            "keywords": "BENCH, GUNNER",
            "weapons": [
                {"wepName": "Rifle", "wepType": "R", "profiles": [
                    {"profileName": "", "ATK": "4", "HIT": "3+", "DMG": "3/4",
                     "WR": "Lethal 5+, Prc1"}]},
                {"wepName": "Blade", "wepType": "M", "profiles": [
                    {"profileName": "", "ATK": "4", "HIT": "3+", "DMG": "4/5", "WR": "Balanced"}]},
            ],
        }
    ],
}  # fmt: skip


def run(root: Path, args: list[str], stdin: str = "") -> float:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return seconds(
        lambda: subprocess.run(
            [sys.executable, *args], input=stdin, text=True, cwd=root, env=env,
            capture_output=True, check=False,
        )
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    root = args.root.resolve()
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(KTDASH, f)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as team:
        json.dump(TEAM, team)
    cases = {
        "batch (one shoot line)": (["-m", "service.cli", "batch"], json.dumps(LINE) + "\n"),
        "shoot": (["-m", "service.cli", "shoot", json.dumps(LINE)], ""),
        "rules": (["-m", "service.cli", "rules", "Lethal 5+, Piercing 1"], ""),
        "import": (["-m", "service.cli", "import", f.name], ""),
        "import (a readable team)": (["-m", "service.cli", "import", team.name], ""),
        "serve's imports (service.app)": (["-c", "import service.app"], ""),
        "600 scenarios, whole process": (["benchmarks/bench_shoot.py", "--fresh"], ""),
    }
    caller = {name: os.environ[name] for name in START_DEFAULTS if name in os.environ}
    print(f"{root} (median of {args.repeats} new processes)" + (f" {caller}" if caller else ""))
    for label, (argv, stdin) in cases.items():
        times = [run(root, argv, stdin) for _ in range(args.repeats)]
        print(f"  {label:<32} median {statistics.median(times) * 1e3:8.1f} ms   "
              f"min {min(times) * 1e3:8.1f} ms")  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(root)}
    inner = [
        subprocess.run(
            [sys.executable, "benchmarks/bench_shoot.py", "--fresh"], cwd=root, env=env,
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        for _ in range(args.repeats)
    ]  # fmt: skip
    print(f"  compute only: {' | '.join(line.split(': ')[1] for line in inner)}")
    os.unlink(f.name)
    os.unlink(team.name)


if __name__ == "__main__":
    main()
