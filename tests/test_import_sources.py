"""Issue 16: the importers on fixtures written by this project in each community format's
structure — a BattleScribe game system whose catalogues link each other and the `.gst`'s
shared entries, a ktdash export's normalised tables, killteamjson's factions generation —
with duplicate names, team rules, typos and broken links, each reported with its kind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import InputError
from schema.importers import FORMATS, import_path, import_text
from service.cli import catalog as commands_catalog
from service.cli import main as cli

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SYSTEM = FIXTURES / "battlescribe_system"
EXPORT = FIXTURES / "ktdash_export.json"
FACTIONS = FIXTURES / "killteamjson_factions.json"


def _by_team(result) -> dict[tuple[str, str], dict]:
    return {(o.kill_team.name, o.source_id): o for o in result.operatives}


def test_battlescribe_links_resolve_across_catalogues_and_the_gst() -> None:
    (result,) = import_path(SYSTEM)
    ops = _by_team(result)
    interrogator = ops[("Test Agents", "ag-interrogator")]
    names = [p.name for p in interrogator.profiles]
    # the Hellrifle lives in Troopers.cat, the knife is a shared profile of the .gst
    assert names == ["Combat knife", "Hellrifle", "Force stave"]
    assert interrogator.keywords == ("LEADER", "IMPERIUM")
    assert interrogator.stats == {"APL": 3, "MOVE": 6, "SAVE": 5, "WOUNDS": 9}
    # an operative of another catalogue drafted by a root entryLink, with a .gst entry
    drafted = ops[("Test Agents", "tr-gunner-b")]
    assert [p.name for p in drafted.profiles] == [
        "Plasma rifle (standard)",
        "Plasma rifle (supercharge)",
        "Frag charge",
    ]
    assert {p.weapon for p in drafted.profiles[:2]} == {"Plasma rifle"}
    # both Gunners of Troopers are there, told apart by their entry ids
    assert ops[("Test Troopers", "tr-gunner-a")].name == ops[("Test Troopers", "tr-gunner-b")].name
    assert ops[("Test Troopers", "tr-gunner-a")].keywords == ("IMPERIUM", "GUNNER")


def test_battlescribe_ranged_or_melee_from_the_profile_data() -> None:
    (result,) = import_path(SYSTEM)
    kinds = {p.name: p.type for o in result.operatives for p in o.profiles}
    # no glyph on either: Shock is a melee rule, Torrent a gun's
    assert kinds["Combat knife"] == "melee" and kinds["Hellrifle"] == "ranged"
    assert kinds["Force stave"] == "melee" and kinds["Fists"] == "melee"


def test_battlescribe_every_profile_imported_or_listed_with_its_kind() -> None:
    (result,) = import_path(SYSTEM)
    problems = {(p.kind, p.where) for p in result.problems}
    assert problems == {
        ("UNRESOLVED_LINK", "Agents.cat#ag-interrogator"),
        ("UNREADABLE_STATLINE", "Agents.cat#ag-bolt-profile (Interrogator/Mind bolt)"),
        ("UNKNOWN_RULE", "Agents.cat#ag-stave-profile (Interrogator/Force stave)"),
        ("UNKNOWN_RULE", "Troopers.cat#tr-melta-profile (Gunner/Melta rifle)"),
    }
    link = next(p for p in result.problems if p.kind == "UNRESOLVED_LINK")
    assert "'Psychic lance'" in link.message and "nowhere-0000" in link.message
    typo = next(p for p in result.problems if "Melta" in p.where)
    assert "did you mean Range?" in typo.message
    stave = next(p for o in result.operatives for p in o.profiles if p.name == "Force stave")
    assert stave.rules.fields == {"lethal": 5} and "PSYCHIC" in stave.rules.no_numeric_effect
    assert stave.rules.team_rules == ("*Soulstrike",)
    # 9 profile definitions: 1 unreadable, 2 with rules not understood (1 a team rule)
    assert result.counts().as_json() == {
        "profilesFound": 9,
        "importedClean": 6,
        "withTeamRules": 1,
        "problems": 4,
    }


def test_a_catalogue_alone_reports_the_links_it_cannot_follow() -> None:
    result = import_text((SYSTEM / "Agents.cat").read_bytes(), label="Agents.cat")
    unresolved = [p for p in result.problems if p.kind == "UNRESOLVED_LINK"]
    # Hellrifle and Psychic lance (entries), the knife (a profile), the drafted Gunner
    assert len(unresolved) == 4


def test_ktdash_export_tables_joined_by_ids() -> None:
    (result,) = import_path(EXPORT)
    assert result.format == "ktdash-export"
    ops = _by_team(result)
    boss = ops[("Test Raiders", "TST-RAID-BOSS")]
    assert [p.source_id for p in boss.profiles] == [
        "TST-RAID-BOSS-PP-0",
        "TST-RAID-BOSS-PP-1",
        "TST-RAID-BOSS-AX-0",
    ]  # seq order
    assert boss.profiles[1].rules.fields == {"lethal": 5, "piercing": 1}
    assert boss.profiles[2].type == "melee"
    # two operative types share a name; their ids tell them apart
    warriors = [o for o in result.operatives if o.name == "Raider Warrior"]
    assert [o.source_id for o in warriors] == ["TST-RAID-WAR", "TST-RAID-WAR2"]
    assert warriors[0].profiles[0].rules.no_numeric_effect == ('Torrent 1"',)
    kinds = sorted((p.kind, p.where) for p in result.problems)
    assert kinds == [
        ("EMPTY", "[1]"),
        ("UNKNOWN_RULE", "[0].opTypes[1].weapons[0].profiles[0] (TST-RAID-WAR-SG-0)"),
        ("UNKNOWN_RULE", "[0].opTypes[2].weapons[0].profiles[0] (TST-RAID-WAR2-SG-0)"),
        ("UNREADABLE_STATLINE", "[0].opTypes[2].weapons[1].profiles[0] (TST-RAID-WAR2-MIND-0)"),
        ("UNRESOLVED_LINK", "weaponprofiles[6]"),
        ("UNRESOLVED_LINK", "weaponprofiles[7]"),
        ("UNRESOLVED_LINK", "weapons[5]"),
    ]
    assert result.counts().as_json() == {
        "profilesFound": 8,
        "importedClean": 3,
        "withTeamRules": 2,
        "problems": 7,
    }


def test_killteamjson_factions_generation() -> None:
    (result,) = import_path(FACTIONS)
    assert result.format == "killteamjson-factions"
    sergeant, flamer_gunner, melta_gunner = result.operatives
    assert sergeant.stats == {"APL": 3, "MOVE": 6, "SAVE": 3, "WOUNDS": 13}
    assert sergeant.kill_team.name == "Test Veterans" and sergeant.kill_team.faction == "Testers"
    assert sergeant.profiles[0].rules.no_numeric_effect == ('Range 8"',)
    assert flamer_gunner.profiles[0].rules.no_numeric_effect == ('Range 8"', 'Torrent 2"')
    # the same opid in two fireteams: the fireteam makes the id unique
    assert (flamer_gunner.source_id, melta_gunner.source_id) == ("VET-VET-GNR", "VET-SPC-GNR")
    assert melta_gunner.profiles[0].rules.fields == {"devastating": 4, "piercing": 2}
    assert [p.kind for p in result.problems] == ["UNKNOWN_RULE"]


def test_both_killteamjson_generations_read_alike() -> None:
    """The newer generation (kill teams with opTypes, ATK/HIT/DMG/WR) gives the same
    profiles as the factions generation (A/BS/D/SR) for the same datacard."""
    newer = {
        "killteamId": "VET",
        "killteamName": "Test Veterans",
        "opTypes": [
            {
                "opTypeId": "VET-SGT",
                "opTypeName": "Veteran Sergeant",
                "MOVE": '6"',
                "APL": "3",
                "SAVE": "3+",
                "WOUNDS": "13",
                "weapons": [
                    {
                        "wepId": "BP",
                        "wepName": "Bolt pistol",
                        "wepType": "R",
                        "profiles": [{"ATK": "4", "HIT": "3+", "DMG": "3/4", "WR": 'Rng 8"'}],
                    }
                ],
            }
        ],
    }
    new = import_text(json.dumps(newer)).operatives[0]
    (old, *_) = import_path(FACTIONS)[0].operatives
    assert new.stats == old.stats
    assert new.profiles[0].engine_fields() == old.profiles[0].engine_fields()
    assert new.profiles[0].rules == old.profiles[0].rules


def test_unknown_shape_is_an_error_naming_the_shapes() -> None:
    with pytest.raises(InputError) as err:
        import_text('{"data": {"teams": []}}')
    assert "unrecognised JSON shape" in err.value.message and "ktdash export" in err.value.message


def test_a_directory_without_battlescribe_files(tmp_path: Path) -> None:
    with pytest.raises(InputError) as err:
        import_path(tmp_path)
    assert "no .gst or .cat files" in err.value.message


def test_cli_import_files_and_directories(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["import", str(SYSTEM), str(FACTIONS)]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["format"] for line in lines] == ["battlescribe-cat", "killteamjson-factions"]
    assert lines[0]["problemKinds"] == {
        "UNKNOWN_RULE": 2,
        "UNREADABLE_STATLINE": 1,
        "UNRESOLVED_LINK": 1,
    }
    assert lines[1]["source"] == str(FACTIONS)


def test_cli_formats_are_the_importers() -> None:
    """The CLI names them without importing the importers at start-up."""
    assert commands_catalog.FORMATS == FORMATS
