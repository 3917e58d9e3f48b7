"""The `killmath` process's start (issue 17): what a fresh command imports, the environment
defaults it runs with, and the collector around its imports and its exit. No timings: the
modules loaded, the threads started and the collector's state, each of which a change can
break."""

from __future__ import annotations

import gc
import importlib
import json
import os
import subprocess
import sys
import threading
import types
from pathlib import Path

import pytest

from schema import registry
from service.cli import main as cli

SHOOT = json.dumps({"mode": "shoot", "attacker": {"attacks": 4}, "defender": {"wounds": 8}})


def _fresh(args: list[str], stdin: str = "", env: dict[str, str] | None = None) -> dict:
    """Run `killmath args` as a fresh process's command line (main() with no argv) and report
    what it left: its output, status, modules, native threads and frozen objects."""
    script = (
        "import gc, json, os, sys, runpy\n"
        f"sys.argv = ['killmath', *{args!r}]\n"
        "status = tasks = None\n"
        "try:\n"
        "    runpy.run_module('service.cli', run_name='__main__')\n"
        "except SystemExit as exc:\n"
        "    status = exc.code\n"
        "if os.path.isdir('/proc/self/task'):\n"
        "    tasks = len(os.listdir('/proc/self/task'))\n"
        "print(json.dumps({'status': status, 'modules': sorted(sys.modules), 'tasks': tasks,\n"
        "    'frozen': gc.get_freeze_count(), 'env': {k: os.environ.get(k) for k in\n"
        "    ('OPENBLAS_NUM_THREADS', 'PYDANTIC_DISABLE_PLUGINS')}}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    report = json.loads(done.stderr.splitlines()[-1])
    return {**report, "stdout": done.stdout, "modules": set(report["modules"])}


@pytest.fixture
def plain_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in cli.START_DEFAULTS:
        monkeypatch.delenv(name, raising=False)


def test_a_one_line_shooting_batch_imports_neither_numba_nor_graphql_nor_the_server(
    plain_environment,
) -> None:
    run = _fresh(["batch"], SHOOT + "\n")
    assert run["status"] == 0 and "damageDistribution" in json.loads(run["stdout"])
    assert {"numpy", "pydantic", "engine.kt2024.shoot"} <= run["modules"]
    heavy = {"numba", "strawberry", "uvicorn", "starlette", "engine.kt2024.fight"}
    assert not heavy & run["modules"]
    assert not {m for m in run["modules"] if m.startswith(("numba.", "strawberry.", "graphql"))}


def test_the_shoot_command_imports_no_fight_and_rules_no_numpy_or_pydantic(
    plain_environment,
) -> None:
    shoot = _fresh(["shoot", SHOOT])
    assert shoot["status"] == 0
    assert not {"numba", "strawberry", "engine.kt2024.fight"} & shoot["modules"]
    rules = _fresh(["rules", "Lethal 5+, Piercing 1"])
    assert rules["status"] == 0 and json.loads(rules["stdout"])["fields"]
    assert not {"numpy", "pydantic", "numba", "strawberry"} & rules["modules"]


def test_import_loads_no_engine_numba_or_graphql(plain_environment, tmp_path: Path) -> None:
    path = tmp_path / "team.json"
    path.write_text(json.dumps([{"factionid": "X", "killteamid": "Y", "opteams": []}]))
    run = _fresh(["import", str(path)])
    assert run["status"] == 1 and json.loads(run["stdout"])["error"]["code"] == "INVALID_INPUT"
    assert not {"numpy", "numba", "strawberry", "engine.kt2024"} & run["modules"]


def test_importing_a_readable_file_needs_no_pydantic(plain_environment) -> None:
    """The importers take the catalog's model and stats, not its pydantic file models."""
    fixture = Path(__file__).parent / "fixtures" / "import_ktdash.json"
    run = _fresh(["import", str(fixture)])
    assert json.loads(run["stdout"].splitlines()[0])["counts"]
    assert "schema.importers" in run["modules"]
    assert not {"pydantic", "schema.catalog.files", "numpy"} & run["modules"]


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_a_fresh_batch_starts_no_blas_worker_thread(plain_environment) -> None:
    """OpenBLAS would start its workers when numpy loads; the command asks for none, and
    hands the environment back as it found it."""
    run = _fresh(["batch"], SHOOT + "\n")
    assert run["tasks"] == 1
    assert run["env"] == dict.fromkeys(cli.START_DEFAULTS)


def test_a_callers_own_settings_win(plain_environment) -> None:
    env = {"OPENBLAS_NUM_THREADS": "2", "PYDANTIC_DISABLE_PLUGINS": ""}
    run = _fresh(["batch"], SHOOT + "\n", env)
    assert run["env"] == env
    if run["tasks"] is not None:
        assert run["tasks"] == 2


def test_start_defaults_apply_to_a_command_and_are_removed_after_it(plain_environment) -> None:
    with cli.start_defaults("batch"):
        assert {name: os.environ[name] for name in cli.START_DEFAULTS} == cli.START_DEFAULTS
    assert not set(cli.START_DEFAULTS) & set(os.environ)
    with cli.start_defaults("serve"):  # a server keeps the environment it was deployed with
        assert not set(cli.START_DEFAULTS) & set(os.environ)


def test_start_defaults_keep_a_callers_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    monkeypatch.delenv("PYDANTIC_DISABLE_PLUGINS", raising=False)
    with cli.start_defaults("shoot"):
        assert os.environ["OPENBLAS_NUM_THREADS"] == "3"
        assert os.environ["PYDANTIC_DISABLE_PLUGINS"] == "__all__"
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"
    assert "PYDANTIC_DISABLE_PLUGINS" not in os.environ


def test_only_the_process_command_line_freezes_its_objects(plain_environment, capsys) -> None:
    assert _fresh(["batch"], SHOOT + "\n")["frozen"] > 0
    before = gc.get_freeze_count()
    assert cli.main(["shoot", SHOOT]) == 0  # an in-process caller: nothing frozen
    assert json.loads(capsys.readouterr().out)["damageDistribution"]
    assert gc.get_freeze_count() == before


@pytest.mark.parametrize("enabled", [True, False])
def test_a_mode_import_leaves_the_collector_as_it_found_it(
    monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    seen: list[bool] = []
    monkeypatch.setattr(
        registry.importlib, "import_module", lambda name: seen.append(gc.isenabled())
    )
    monkeypatch.delitem(sys.modules, "schema.kt2024.threshold_probe", raising=False)
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        registry._load("schema.kt2024.threshold_probe")
        assert seen == [False]  # paused while importing
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_freezing_imports_freezes_what_a_mode_import_leaves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[object] = []
    monkeypatch.setattr(registry.importlib, "import_module", lambda name: built.append([{}]))
    monkeypatch.delitem(sys.modules, "schema.kt2024.threshold_probe", raising=False)
    monkeypatch.setattr(registry, "_freezing", False)
    before = gc.get_freeze_count()
    registry._load("schema.kt2024.threshold_probe")
    assert gc.get_freeze_count() == before  # not asked to: the tests' heap stays collectable
    monkeypatch.setattr(registry, "_freezing", True)
    try:
        registry._load("schema.kt2024.threshold_probe")
        assert len(built) == 2 and gc.get_freeze_count() > before
    finally:
        gc.unfreeze()


def test_a_mode_module_another_thread_is_importing_is_waited_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's start imports the older rulesets in a thread of its own while requests are
    answered: a request for one of them waits for its import, never reads it half-done."""
    gate = types.SimpleNamespace(started=threading.Event(), release=threading.Event())
    monkeypatch.setitem(sys.modules, "killmath_probe_gate", gate)
    (tmp_path / "killmath_probe_mode.py").write_text(
        "import killmath_probe_gate as gate\ngate.started.set()\ngate.release.wait(60)\nDONE = 1\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    importer = threading.Thread(target=importlib.import_module, args=("killmath_probe_mode",))
    importer.start()
    try:
        assert gate.started.wait(60)
        seen: list[int] = []
        waiter = threading.Thread(
            target=lambda: (
                registry._load("killmath_probe_mode"),
                seen.append(sys.modules["killmath_probe_mode"].DONE),
            )
        )
        waiter.start()
        waiter.join(0.5)
        assert waiter.is_alive() and not seen  # waiting for the import, not past it
    finally:
        gate.release.set()
        importer.join(60)
    waiter.join(60)
    assert seen == [1]
    monkeypatch.delitem(sys.modules, "killmath_probe_mode")
