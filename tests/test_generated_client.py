"""A Python client generated from a live server's `/openapi.json` (openapi-python-client),
used against that server (issue 15): shoot, fight, batch, grid and catalog reads, read
through typed fields.

The client is generated into a temporary directory, imported from there and thrown away; its
answers are compared with the raw JSON of the same requests, so a typed field that reads
the wrong member, or a member the client cannot parse, fails the test.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from types import ModuleType

import httpx
import pytest
from service_harness import Server

PACKAGE = "killmath_client"
SHOOT = {
    "attacker": {"attacks": 4, "hit": 3, "normalDamage": 3, "criticalDamage": 4, "lethal": 5},
    "defender": {"save": 3, "wounds": 8},
    "options": {"exact": True},
}
FIGHT = {
    "fighterA": {"attacks": 4, "hit": 3, "wounds": 10, "strategy": "OPTIMAL"},
    "fighterB": {"attacks": 3, "hit": 4, "wounds": 8},
}


@pytest.fixture(scope="module")
def client_package(
    server: Server, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ModuleType]:
    """The generated client package, importable for the module's tests."""
    root = tmp_path_factory.mktemp("generated")
    document = root / "openapi.json"
    document.write_bytes(httpx.get(server.url + "/openapi.json").content)
    bin_dir = Path(sys.executable).parent
    done = subprocess.run(
        [
            str(bin_dir / "openapi-python-client"),
            "generate",
            "--path",
            str(document),
            "--output-path",
            str(root / PACKAGE),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    # every operation but the XML upload's second content type is generated
    assert "Endpoint will not be generated" not in done.stdout, done.stdout
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def generated(package: ModuleType, name: str) -> ModuleType:
    return importlib.import_module(f"{package.__name__}.{name}")


@pytest.fixture(scope="module")
def api(client_package: ModuleType, server: Server) -> object:
    return client_package.Client(base_url=server.url, raise_on_unexpected_status=True)


def test_shoot_reads_typed_fields(client_package: ModuleType, api: object, server: Server) -> None:
    shoot = generated(client_package, "api.matchups.shoot")
    models = generated(client_package, "models")
    answer = shoot.sync(client=api, body=models.Kt2024ShootEnvelope.from_dict(SHOOT))
    assert isinstance(answer, models.Kt2024ShootAnswer)
    raw = httpx.post(server.url + "/v1/shoot", json=SHOOT).json()
    assert answer.expected_damage == raw["expectedDamage"]
    assert Fraction(answer.expected_damage_exact) == Fraction(raw["expectedDamageExact"])
    assert answer.kill_probability == raw["killProbability"]
    assert answer.canonical_key == raw["canonicalKey"]
    assert [(e.value, e.probability, e.exact) for e in answer.damage_distribution] == [
        (e["value"], e["probability"], e["exact"]) for e in raw["damageDistribution"]
    ]
    assert sum(Fraction(e.exact) for e in answer.damage_distribution) == 1


def test_fight_reads_typed_fields(client_package: ModuleType, api: object, server: Server) -> None:
    fight = generated(client_package, "api.matchups.fight")
    models = generated(client_package, "models")
    answer = fight.sync(client=api, body=models.Kt2024FightEnvelope.from_dict(FIGHT))
    assert isinstance(answer, models.Kt2024FightAnswer)
    raw = httpx.post(server.url + "/v1/fight", json=FIGHT).json()
    for side, typed in (("fighterA", answer.fighter_a), ("fighterB", answer.fighter_b)):
        assert typed.incapacitated_probability == raw[side]["incapacitatedProbability"]
        assert typed.expected_damage_dealt == raw[side]["expectedDamageDealt"]
        assert isinstance(
            typed.expected_damage_dealt_exact, generated(client_package, "types").Unset
        )


def test_batch_reads_results_and_errors_in_place(client_package: ModuleType, api: object) -> None:
    batch = generated(client_package, "api.matchups.batch")
    models = generated(client_package, "models")
    lines = batch.sync(
        client=api,
        body=[
            models.Kt2024ShootEnvelope.from_dict({"mode": "shoot", **SHOOT}),
            models.Kt2018NerveTestEnvelope.from_dict(
                {"ruleset": "kt2018", "mode": "nerveTest", "leadership": 7}
            ),
            models.Kt2024ShootEnvelope.from_dict(
                {"mode": "shoot", "attacker": {"eliteModerate": True, "eliteExtreme": True}}
            ),
        ],
    )
    shot, nerve, refused = lines
    assert isinstance(shot, models.Kt2024ShootResult)
    assert shot.expected_damage > 0
    assert isinstance(nerve, models.Kt2018NerveTestResult)
    assert nerve.p_shaken + nerve.p_pass == pytest.approx(1, abs=1e-12)
    assert isinstance(refused, models.Error)
    assert refused.error.field == "attacker.eliteExtreme"
    assert [e.field for e in refused.errors] == ["attacker.eliteExtreme"]


def test_grid_reads_typed_cells(client_package: ModuleType, api: object, server: Server) -> None:
    grid = generated(client_package, "api.matchups.grid")
    models = generated(client_package, "models")
    body = {
        "attackers": [{"attacks": 4}, {"weaponProfileId": "kasrkin.gunner.meltagun"}],
        "defenders": [{"operativeId": "kommandos.boy"}],
        "atLeast": [3, 6],
    }
    answer = grid.sync(client=api, body=models.GridRequest.from_dict(body))
    assert isinstance(answer, models.GridAnswer)
    assert answer.at_least == [3, 6]
    raw = httpx.post(server.url + "/v1/grid", json=body).json()
    assert [
        (c.attacker, c.expected_damage, [d.probability for d in c.damage_at_least])
        for c in answer.cells
    ] == [
        (c["attacker"], c["expectedDamage"], [d["probability"] for d in c["damageAtLeast"]])
        for c in raw["cells"]
    ]


def test_catalog_reads(client_package: ModuleType, api: object) -> None:
    get_operative = generated(client_package, "api.catalog.get_operative")
    get_profile = generated(client_package, "api.catalog.get_weapon_profile")
    list_operatives = generated(client_package, "api.catalog.list_operatives")
    models = generated(client_package, "models")
    operative = get_operative.sync("kasrkin.gunner", client=api)
    assert isinstance(operative, models.OperativeResult)
    assert operative.id == "kasrkin.gunner" and operative.wounds > 0
    assert operative.catalog_version
    profiles = [p for w in operative.weapons for p in w.profiles]
    profile = get_profile.sync(profiles[0].id, client=api)
    assert isinstance(profile, models.WeaponProfileResult)
    assert (
        profile.atk == profiles[0].atk
        and profile.fields.additional_properties["attacks"] == profile.atk
    )
    page = list_operatives.sync(client=api, first=2)
    assert len(page.operatives) == 2 and page.page_info.has_next_page
    missing = get_operative.sync("kasrkin.nobody", client=api)
    assert (
        isinstance(missing, models.Error) and missing.error.code == models.FieldErrorCode.NOT_FOUND
    )
