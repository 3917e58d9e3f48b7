"""The `killmath` CLI: single scenarios, batches of JSON lines, error lines and exit status."""

from __future__ import annotations

import contextlib
import io
import json
import os
import pty
import subprocess
import sys

from service.cli import table
from service.cli.main import main, run_batch


def test_shoot_argument_prints_the_result(capsys) -> None:
    assert main(["shoot", '{"attacker": {"attacks": 1}, "defender": {"defenceDice": 0}}']) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["killProbabilityByRound"] == [0.0]
    assert [e["value"] for e in out["damageDistribution"]] == [0, 3, 4]


def test_shoot_reads_stdin() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "shoot"],
        input='{"options": {"exact": true}}',
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(done.stdout)
    assert out["expectedDamageExact"].count("/") == 1


def test_shoot_error_goes_to_stderr_with_status_2(capsys) -> None:
    assert main(["shoot", '{"attacker": {"attacks": 99}}']) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert json.loads(captured.err)["error"]["code"] == "LIMIT_EXCEEDED"


def _on_a_terminal(args: list[str], stdin: str = "") -> tuple[int, str]:
    """Run `killmath` with its stdout and stderr on a pseudo-terminal, as a player's prompt
    is: its exit status and what the terminal showed."""
    controller, terminal = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        input=stdin.encode(),
        stdout=terminal,
        stderr=terminal,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
    )
    os.close(terminal)
    shown = b""
    with contextlib.suppress(OSError):  # EIO once the terminal is drained
        while chunk := os.read(controller, 65536):
            shown += chunk
    os.close(controller)
    return done.returncode, shown.decode()


SHOT = '{"attacker": {"attacks": 4, "hit": 3}, "defender": {"save": 3, "wounds": 8}, '


def test_a_terminal_gets_a_table_read_from_the_answer() -> None:
    scenario = SHOT + '"options": {"exact": true}}'
    status, shown = _on_a_terminal(["shoot", scenario])
    assert status == 0
    answer = json.loads(
        subprocess.check_output([sys.executable, "-m", "service.cli", "shoot", scenario])
    )
    assert (
        f"expected damage   {answer['expectedDamage']:.4f}  (= {answer['expectedDamageExact']})"
        in shown
    )
    assert f"(= {answer['killProbabilityExact']})" in shown
    rows = {
        int(line.split()[0]): line
        for line in shown.splitlines()
        if line.strip()[:1].isdigit() and line.rstrip().endswith(("%", "█", *table.EIGHTHS))
    }
    assert list(rows) == [e["value"] for e in answer["damageDistribution"]]
    top = max(answer["damageDistribution"], key=lambda e: e["probability"])
    assert rows[top["value"]].rstrip().endswith("█" * table.WIDTH)


def test_a_fight_on_a_terminal_shows_both_fighters() -> None:
    status, shown = _on_a_terminal(["fight", "-"], stdin="{}")
    assert status == 0
    assert shown.count("incapacitated chance") == 2
    assert "wounds left" in shown


def test_json_on_a_terminal_with_json_and_stdin_as_dash() -> None:
    status, shown = _on_a_terminal(["shoot", "--json", "-"], stdin=SHOT + '"options": {}}')
    assert status == 0
    assert json.loads(shown)["damageDistribution"]


def test_an_error_on_a_terminal_reads_as_lines_on_stderr() -> None:
    status, shown = _on_a_terminal(["shoot", '{"attacker": {"attacks": -1, "hit": 7}}'])
    assert status == 2
    assert "error at attacker.attacks:" in shown
    assert "error at attacker.hit: must be between 2 and 6 (INVALID_INPUT)" in shown


def test_bars_fall_back_to_ascii_and_show_small_chances() -> None:
    assert table.bar(1.0, 8) == "█" * 8
    assert table.bar(0.01, 40) == "▍"
    assert table.bar(0.5, 8, unicode=False) == "####"


def test_batch_keeps_order_reports_bad_lines_and_goes_on() -> None:
    lines = [
        json.dumps({"mode": "shoot", "attacker": {"attacks": 2}}),
        "not json",
        json.dumps({"ruleset": "kt2024", "mode": "shoot", "attacker": {"hit": 9}}),
        "",
        json.dumps({"ruleset": "nope", "mode": "shoot"}),
        json.dumps({"mode": "shoot", "options": {"exact": True}}),
    ]
    out = io.StringIO()
    assert run_batch(lines, out) is False
    results = [json.loads(x) for x in out.getvalue().splitlines()]
    assert len(results) == 5
    assert "damageDistribution" in results[0]
    assert results[1]["error"]["code"] == "INVALID_INPUT"
    assert results[2]["error"] == {
        "code": "INVALID_INPUT",
        "field": "attacker.hit",
        "message": "must be between 2 and 6",
    }
    assert results[3]["error"]["field"] == "ruleset"
    assert "expectedDamageExact" in results[4]


def test_batch_exit_status_zero_when_every_line_succeeds() -> None:
    lines = (
        json.dumps({"mode": "shoot"}) + "\n" + json.dumps({"mode": "shoot", "attacker": {}}) + "\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "batch"], input=lines, capture_output=True, text=True
    )
    assert done.returncode == 0
    first, second = (json.loads(x) for x in done.stdout.splitlines())
    assert first == second


def _modules_after(args: list[str], stdin: str) -> set[str]:
    """The modules a fresh `killmath` process has imported when it finishes `args`."""
    script = (
        "import sys, runpy\n"
        f"sys.argv = ['killmath', *{args!r}]\n"
        "try:\n"
        "    runpy.run_module('service.cli', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "print('\\n'.join(sys.modules), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], input=stdin, capture_output=True, text=True, check=True
    )
    return set(done.stderr.split())


def test_a_shooting_batch_imports_neither_fight_kernels_nor_server_nor_catalog() -> None:
    line = json.dumps({"mode": "shoot", "attacker": {"attacks": 4}, "defender": {}})
    loaded = _modules_after(["batch"], line + "\n")
    assert "engine.kt2024.shoot" in loaded
    heavy = {"numba", "engine.kt2024.kernels", "engine.kt2024.fight", "uvicorn", "strawberry"}
    assert not heavy & loaded
    assert "schema.catalog" not in loaded


def test_a_fight_line_still_finds_its_mode_and_help_lists_every_command() -> None:
    line = json.dumps({"mode": "fight", "fighterA": {"attacks": 1}, "fighterB": {}})
    assert "engine.kt2024.fight" in _modules_after(["batch"], line + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "--help"], capture_output=True, text=True, check=True
    )
    assert all(name in done.stdout for name in ("serve", "rules", "import", "batch"))
