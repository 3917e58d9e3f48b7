"""The `killmath` CLI: single scenarios, batches of JSON lines, error lines and exit status."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from service.cli import main, run_batch


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
