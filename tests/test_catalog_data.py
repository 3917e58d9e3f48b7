"""The bundled catalog loads, validates, keeps stable ids, and refuses bad data files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from schema import registry
from schema.catalog import DATA_DIR, CatalogError, catalog, load_catalog

KT2024 = DATA_DIR / "kt2024"
ID = re.compile(r"^[a-z0-9-]+(\.[a-z0-9-]+)+$")


def test_starter_catalog_loads_once_with_a_version() -> None:
    cat = catalog()
    assert cat is catalog("kt2024")  # cached: validated once per process
    manifest = json.loads((KT2024 / "catalog.json").read_text())
    assert cat.version == manifest["catalogVersion"]
    assert cat.key == f"kt2024@{manifest['catalogVersion']}"
    assert len(cat.kill_teams) >= 3
    assert [t.id for t in cat.kill_teams] == [
        json.loads((KT2024 / f).read_text())["killTeam"]["id"] for f in manifest["killTeams"]
    ]


def test_ids_are_stable_dotted_slugs() -> None:
    cat = catalog()
    for op_id, op in cat.operatives.items():
        assert ID.match(op_id) and op_id.startswith(op.kill_team_id + ".")
        for profile in op.profiles():
            assert profile.id.startswith(op_id + ".") and ID.match(profile.id)
            assert cat.profiles[profile.id] is profile
    # ids are data, not names: these are promised to clients and must not drift
    assert "kasrkin.gunner.plasma-gun.supercharge" in cat.profiles
    assert "kasrkin.gunner.meltagun" in cat.profiles
    assert "kommandos.boss-nob.power-klaw" in cat.profiles


def test_every_team_has_ranged_and_melee_weapons() -> None:
    for team in catalog().kill_teams:
        kinds = {p.type for op in team.operatives for p in op.profiles()}
        assert kinds == {"ranged", "melee"}, team.id


def test_every_profile_is_a_valid_engine_input() -> None:
    """Each ranged profile is a valid shooting attacker, each melee profile a valid fighter,
    and each operative a valid target and fighter."""
    cat = catalog()
    shoot, fight = registry.modes("kt2024")["shoot"], registry.modes("kt2024")["fight"]
    for op in cat.operatives.values():
        shoot.parse({"defender": op.defender_fields()})
        for profile in op.profiles():
            if profile.type == "ranged":
                shoot.parse({"attacker": profile.attacker_fields()})
            else:
                fighter = {**op.fighter_fields(), **profile.attacker_fields()}
                fight.parse({"fighterA": fighter, "fighterB": fighter})


def test_profile_fields_follow_the_datacard() -> None:
    cat = catalog()
    melta = cat.profiles["kasrkin.gunner.meltagun"]
    assert melta.attacker_fields() == {
        "attacks": 4,
        "hit": 3,
        "normalDamage": 6,
        "criticalDamage": 3,
        "devastating": 4,
        "piercing": 2,
    }
    assert melta.rules.no_numeric_effect == ('Range 6"',)
    klaw = cat.profiles["kommandos.boss-nob.power-klaw"]
    assert klaw.attacker_fields()["brutal"] is True and klaw.attacker_fields()["shock"] is True
    assert cat.operatives["kommandos.boy"].defender_fields() == {
        "defenceDice": 3,
        "save": 5,
        "wounds": 10,
    }


def test_json_views() -> None:
    cat = catalog()
    op = cat.operatives["kasrkin.gunner"].as_json()
    assert op["SAVE"] == "4+" and op["MOVE"] == '6"' and op["killTeamId"] == "kasrkin"
    plasma = next(w for w in op["weapons"] if w["name"] == "Plasma gun")
    assert [p["id"] for p in plasma["profiles"]] == [
        "kasrkin.gunner.plasma-gun.standard",
        "kasrkin.gunner.plasma-gun.supercharge",
    ]
    supercharge = plasma["profiles"][1]
    assert supercharge["WR"] == "Hot, Lethal 5+, Piercing 1"
    assert supercharge["DMG"] == "5/6" and supercharge["name"] == "Plasma gun (Supercharge)"


# ---------------------------------------------------------------- bad data is refused


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    target = tmp_path / "kt2024"
    shutil.copytree(KT2024, target)
    return target


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_copy_of_the_data_loads(copy: Path) -> None:
    assert load_catalog(copy).profiles.keys() == catalog().profiles.keys()


def _first_profile(**cells: str):
    return lambda d: d["killTeam"]["operatives"][0]["weapons"][0]["profiles"][0].update(cells)


def _first_operative(**members: object):
    return lambda d: d["killTeam"]["operatives"][0].update(members)


def _duplicate_operative(d: dict) -> None:
    d["killTeam"]["operatives"].append(d["killTeam"]["operatives"][0])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_first_profile(WR="Lethal 5+, Poison"), "unknown weapon rules"),
        (_first_profile(WR="Lethal 9+"), "between 2 and 6"),
        (_first_profile(HIT="7+"), "HIT"),
        (_first_profile(DMG="4"), "DMG"),
        (_first_operative(id="Not A Slug"), "id"),
        (_duplicate_operative, "unique"),
        (_first_operative(colour="red"), "colour"),
        (
            _first_operative(defensiveRules=[{"name": "Tough", "effect": {"feelNoPain": 3}}]),
            "feelNoPain",
        ),
    ],
)
def test_bad_data_files_fail_loudly(copy: Path, change, message: str) -> None:
    _edit(copy / "kasrkin.json", change)
    with pytest.raises(CatalogError) as err:
        load_catalog(copy)
    assert "kasrkin.json" in str(err.value) and message in str(err.value)


def test_bad_manifest(copy: Path) -> None:
    _edit(copy / "catalog.json", lambda d: d.update(catalogVersion="latest"))
    with pytest.raises(CatalogError, match=r"catalog\.json"):
        load_catalog(copy)
    (copy / "catalog.json").write_text("{not json")
    with pytest.raises(CatalogError, match=r"catalog\.json"):
        load_catalog(copy)
    with pytest.raises(CatalogError, match="no catalog"):
        catalog("kt1999")


def test_defensive_rules_become_defender_and_fighter_fields(copy: Path) -> None:
    """Fields that exist in one mode only go to that mode only (§2.1 vs §2.2)."""
    rules = [
        {"name": "Tough", "effect": {"feelNoPain": 5, "durable": True}},
        {"name": "Shield", "effect": {"critSave": 5, "halfDamageFirstStrike": True}},
    ]
    _edit(copy / "kasrkin.json", _first_operative(defensiveRules=rules))
    op = load_catalog(copy).operatives["kasrkin.sergeant"]
    assert op.defender_fields() == {
        "defenceDice": 3,
        "save": 4,
        "wounds": 9,
        "feelNoPain": 5,
        "durable": True,
        "critSave": 5,
    }
    assert op.fighter_fields() == {
        "wounds": 9,
        "feelNoPain": 5,
        "durable": True,
        "halfDamageFirstStrike": True,
    }
