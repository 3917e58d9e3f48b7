"""Both importers on our own fixtures, and the `killmath rules` / `killmath import` commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.errors import InputError
from schema import registry
from schema.importers import MAX_BYTES, import_text
from schema.importers.ktdash import rule_object_text
from service.cli import main as cli

FIXTURES = Path(__file__).resolve().parent / "fixtures"
KTDASH = FIXTURES / "import_ktdash.json"
RULE_OBJECTS = FIXTURES / "import_ktdash_rule_objects.json"
BATTLESCRIBE = FIXTURES / "import_battlescribe.cat"


def _profiles(result) -> dict[str, dict]:
    return {
        f"{op['name']}/{p['name']}": p
        for op in result.as_json()["operatives"]
        for p in op["profiles"]
    }


def test_ktdash_json() -> None:
    result = import_text(KTDASH.read_text())
    data = result.as_json()
    assert data["format"] == "ktdash-json" and data["name"] == "Veteran Test Squad"
    sergeant, gunner = data["operatives"]
    assert (sergeant["APL"], sergeant["MOVE"], sergeant["SAVE"], sergeant["WOUNDS"]) == (
        3,
        6,
        3,
        13,
    )
    assert sergeant["defender"] == {"defenceDice": 3, "save": 3, "wounds": 13}
    assert gunner["keywords"] == ["TEST", "VETERAN", "GUNNER"]
    profiles = _profiles(result)
    supercharge = profiles["Veteran Sergeant/Plasma pistol (Supercharge)"]
    assert supercharge["type"] == "ranged"
    assert supercharge["fields"] == {
        "attacks": 4,
        "hit": 3,
        "normalDamage": 4,
        "criticalDamage": 5,
        "lethal": 5,
        "piercing": 1,
    }
    assert supercharge["noNumericEffect"] == ['Range 8"', "Hot"]
    assert supercharge["WR"] == 'Range 8", Hot, Lethal 5+, Piercing 1'
    sword = profiles["Veteran Sergeant/Power sword"]
    assert sword["type"] == "melee" and sword["fields"]["severe"] is True
    # the type may sit on the profile instead of the weapon
    rotor = profiles["Veteran Gunner/Rotor cannon"]
    assert rotor["type"] == "ranged"
    assert rotor["fields"]["reroll"] == "CEASELESS_AND_BALANCED"
    assert rotor["unknown"] == ["Poison"]  # reported, not dropped
    bayonet = profiles["Veteran Gunner/Bayonet"]
    assert bayonet["unknown"] == ["Lethal 7+"] and bayonet["malformed"][0]["rule"] == "Lethal"
    # an unreadable profile is a problem with its location, and the rest still imports
    assert "Veteran Gunner/Broken rifle" not in profiles
    assert data["problems"] == [
        {
            "kind": "UNREADABLE_STATLINE",
            "where": "opTypes[1].weapons[1].profiles[0]",
            "message": "Broken rifle: HIT: expected a roll such as '3+' (2+ to 6+), got '7+'",
        },
        {
            "kind": "UNKNOWN_RULE",
            "where": "opTypes[1].weapons[0].profiles[0]",
            "message": "Rotor cannon: 'Poison': unknown rule",
        },
        {
            "kind": "UNKNOWN_RULE",
            "where": "opTypes[1].weapons[2].profiles[0]",
            "message": "Bayonet: 'Lethal 7+': must be between 2 and 6",
        },
    ]
    assert data["counts"] == {"profilesFound": 6, "importedClean": 3, "withTeamRules": 0,
                              "problems": 3}  # fmt: skip
    assert data["problemKinds"] == {"UNKNOWN_RULE": 2, "UNREADABLE_STATLINE": 1}


def test_ktdash_rule_objects() -> None:
    result = import_text(RULE_OBJECTS.read_bytes())
    profiles = _profiles(result)
    snap = profiles["Marksman/Long rifle (Snap)"]
    assert snap["fields"] == {
        "attacks": 4,
        "hit": 3,
        "normalDamage": 3,
        "criticalDamage": 4,
        "lethal": 5,
        "piercingCrits": 1,
    }
    assert set(snap["noNumericEffect"]) == {
        'Range 8"',
        "Heavy (Dash only)",
        "Seek Light",
        "Concealed Position",
    }
    assert snap["unknown"] == ["Gloom"]
    assert [p.kind for p in result.problems] == ["UNKNOWN_RULE"]
    assert profiles["Marksman/Long rifle (Stationary)"]["fields"]["devastating"] == 3
    knife = profiles["Marksman/Knife"]
    assert knife["fields"] == {
        "attacks": 3,
        "hit": 4,
        "normalDamage": 2,
        "criticalDamage": 4,
        "brutal": True,
        "shock": True,
    }


@pytest.mark.parametrize(
    ("rule", "text"),
    [
        ({"id": "WR-UNIV-LETHAL", "number": 5}, "Lethal 5+"),
        ({"id": "WR-UNIV-PIERCING", "number": 1, "details": "Crits"}, "Piercing Crits 1"),
        ({"id": "WR-UNIV-RANGE", "number": 8}, 'Range 8"'),
        ({"id": "WR-UNIV-HEAVY", "details": "Reposition"}, "Heavy (Reposition only)"),
        ({"id": "WR-UNIV-DEVASTATING", "number": 2}, "Devastating 2"),
        ({"id": "WR-UNIV-CEASELESS"}, "Ceaseless"),
    ],
)
def test_rule_objects_become_datacard_text(rule: dict, text: str) -> None:
    assert rule_object_text(rule) == text


def test_battlescribe_cat() -> None:
    result = import_text(BATTLESCRIBE.read_text(encoding="utf-8"))
    data = result.as_json()
    assert data["format"] == "battlescribe-cat" and data["name"] == "Test Kill Team"
    names = [op["name"] for op in data["operatives"]]
    assert names == ["Test Trooper", "Test Brute", ""]
    trooper = data["operatives"][0]
    assert (trooper["APL"], trooper["MOVE"], trooper["SAVE"], trooper["WOUNDS"]) == (2, 6, 4, 8)
    profiles = _profiles(result)
    # reached through an entryLink, characteristics named only by typeId
    lasgun = profiles["Test Trooper/Lasgun"]
    assert lasgun["type"] == "ranged"
    assert lasgun["fields"] == {
        "attacks": 4,
        "hit": 3,
        "normalDamage": 3,
        "criticalDamage": 4,
        "piercingCrits": 1,
        "reroll": "BALANCED",
    }
    assert profiles["Test Trooper/Gun butt"]["type"] == "melee"
    assert profiles["Test Trooper/Gun butt"]["WR"] == ""
    # reached through an infoLink to a shared profile
    hammer = profiles["Test Brute/Hammer"]
    assert hammer["fields"]["brutal"] and hammer["fields"]["shock"]
    assert hammer["noNumericEffect"] == ["Stun"] and hammer["unknown"] == ["Toxic"]
    assert profiles["Test Brute/Launcher (Frag)"]["noNumericEffect"] == ['Blast 2"', 'Range 12"']
    # a weapon no operative reaches is still imported
    assert profiles["/Loose grenade"]["fields"]["saturate"] is True
    assert data["problems"] == [
        {
            "kind": "UNREADABLE_STATLINE",
            "where": "#prof-launcher-bad (Test Brute/Launcher (Misprint))",
            "message": "Launcher (Misprint): ATK: expected a whole number, got 'four'",
        },
        {
            "kind": "UNKNOWN_RULE",
            "where": "#prof-hammer (Test Brute/Hammer)",
            "message": "Hammer: 'Toxic': unknown rule",
        },
    ]


def test_imported_profiles_are_engine_inputs() -> None:
    """Every imported ranged profile shoots, every melee one fights, each operative defends."""
    shoot, fight = registry.modes("kt2024")["shoot"], registry.modes("kt2024")["fight"]
    for path in (KTDASH, RULE_OBJECTS, BATTLESCRIBE):
        for op in import_text(path.read_text(encoding="utf-8")).as_json()["operatives"]:
            if "defender" in op:
                shoot.parse({"defender": op["defender"]})
            for p in op["profiles"]:
                if p["type"] == "ranged":
                    shoot.parse({"attacker": p["fields"]})
                else:
                    fight.parse({"fighterA": p["fields"], "fighterB": p["fields"]})


@pytest.mark.parametrize(
    ("content", "code", "field", "message"),
    [
        ("hello", "INVALID_INPUT", "file", "neither JSON nor XML"),
        ("{not json", "INVALID_INPUT", "file", "Expecting"),
        ("<catalogue><unclosed></catalogue>", "INVALID_INPUT", "file", "not valid XML"),
        ('<!DOCTYPE x [<!ENTITY a "aaaa">]><catalogue/>', "INVALID_INPUT", "file", "DOCTYPE"),
        (b"\xff\xfe{}", "INVALID_INPUT", "file", "UTF-8"),
        ("x" * (MAX_BYTES + 1), "LIMIT_EXCEEDED", "file", "larger"),
        ("[" * 100_000 + "]" * 100_000, "INVALID_INPUT", "file", "nested too deeply"),
        (
            "<catalogue><selectionEntry id='op'><profiles>"
            "<profile typeName='Operative' name='x'/></profiles>"
            + "<selectionEntries><selectionEntry>" * 5000
            + "</selectionEntry></selectionEntries>" * 5000
            + "</selectionEntry></catalogue>",
            "INVALID_INPUT",
            "file",
            "nested too deeply",
        ),
    ],
)
def test_unreadable_files_are_input_errors(content, code: str, field: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        import_text(content)
    assert (err.value.code, err.value.field) == (code, field) and message in err.value.message


def test_format_can_be_named_and_is_checked() -> None:
    with pytest.raises(InputError) as err:
        import_text("{}", "csv")
    assert err.value.field == "format"
    with pytest.raises(InputError):
        import_text(KTDASH.read_text(), "battlescribe-cat")
    with pytest.raises(InputError) as err:
        import_text(KTDASH.read_text(), "ktdash-export")
    assert "the document is 'ktdash-json'" in err.value.message
    # a shape is detected, never guessed: an unknown one names the shapes expected
    for unknown in ("{}", '{"teams": []}', "[1, 2]"):
        with pytest.raises(InputError) as err:
            import_text(unknown)
        assert "unrecognised JSON shape" in err.value.message
        assert "ktdash export" in err.value.message and "killteamjson" in err.value.message
    empty = import_text('{"killteamName": "Nobody", "opTypes": []}', "ktdash-json")
    assert empty.operatives == () and [p.kind for p in empty.problems] == ["EMPTY"]


# ----------------------------------------------------------------------------- CLI


def test_cli_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["rules", "Lethal 5+, Prc1, Hot"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "fields": {"lethal": 5, "piercing": 1},
        "noNumericEffect": ["Hot"],
        "unknown": [],
        "malformed": [],
    }
    assert cli.main(["rules", "Lethal", "7+,", "Poison"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["unknown"] == ["Lethal 7+", "Poison"]


def test_cli_import(capsys: pytest.CaptureFixture[str]) -> None:
    # an unknown weapon rule is something not understood: the exit status says so
    assert cli.main(["import", str(RULE_OBJECTS)]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["operatives"][0]["name"] == "Marksman"
    assert out["problemKinds"] == {"UNKNOWN_RULE": 1}
    assert cli.main(["import", str(BATTLESCRIBE)]) == 1  # one problem profile
    assert json.loads(capsys.readouterr().out)["problems"]
    assert cli.main(["import", str(FIXTURES / "does-not-exist.json")]) == 1
    assert json.loads(capsys.readouterr().out)["error"]["field"] == "file"


def test_cli_batch_expands_references(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    lines = tmp_path / "batch.jsonl"
    lines.write_text(
        json.dumps(
            {
                "mode": "shoot",
                "attacker": {"weaponProfileId": "kasrkin.gunner.meltagun"},
                "defender": {"operativeId": "kommandos.boy"},
            }
        )
        + "\n"
        + json.dumps({"mode": "shoot", "attacker": {"weaponProfileId": "nope"}})
        + "\n"
    )
    assert cli.main(["batch", str(lines)]) == 1
    first, second = (json.loads(x) for x in capsys.readouterr().out.splitlines())
    assert first["expectedDamage"] > 0
    assert second["error"]["field"] == "attacker.weaponProfileId"
