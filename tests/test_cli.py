"""The `killmath` CLI: single scenarios, batches of JSON lines, error lines and exit status."""

from __future__ import annotations

import io
import json
import subprocess
import sys

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


def test_shoot_error_exits_non_zero(capsys) -> None:
    assert main(["shoot", '{"attacker": {"attacks": 99}}']) == 1
    assert json.loads(capsys.readouterr().out)["error"]["code"] == "LIMIT_EXCEEDED"


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
