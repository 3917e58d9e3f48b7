"""Issue 16: catalogs from users' data (`KILLMATH_CATALOG`): ids, dedup, digest, problems,
and `options.unknownRules` on references to a catalog whose profiles carry team rules."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

import schema.catalog as catalogs
from engine.errors import InputError
from schema.catalog.sources import SourceError, load_sources, slug, unique_ids
from service.cli import main as cli
from service.compute import prepare, result_body

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SPEC = ",".join(
    str(FIXTURES / name)
    for name in ("battlescribe_system", "ktdash_export.json", "killteamjson_factions.json")
)


@pytest.fixture
def installed() -> Iterator[catalogs.Catalog]:
    """The fixture catalog served in place of the bundled one for one test."""
    cat = load_sources(SPEC)
    catalogs.install(cat)
    try:
        yield cat
    finally:
        catalogs._installed.clear()


def test_ids_are_readable_slugs_made_unique_by_source_ids() -> None:
    cat = load_sources(SPEC)
    assert [t.id for t in cat.kill_teams] == [
        "test-agents", "test-troopers", "test-raiders", "test-veterans"]  # fmt: skip
    ops = set(cat.operatives)
    # alike names: every one of a clash gets its source id, whatever the order
    assert {"test-troopers.gunner-tr-gunner-a", "test-troopers.gunner-tr-gunner-b"} <= ops
    assert {"test-raiders.raider-warrior-tst-raid-war",
            "test-raiders.raider-warrior-tst-raid-war2"} <= ops  # fmt: skip
    assert {"test-veterans.gunner-vet-vet-gnr", "test-veterans.gunner-vet-spc-gnr"} <= ops
    # a name without a clash stays plain
    assert "test-agents.gunner" in ops and "test-agents.interrogator" in ops
    plasma = cat.profiles["test-agents.gunner.plasma-rifle-supercharge"]
    assert (plasma.weapon, plasma.profile, plasma.type) == ("Plasma rifle", "supercharge", "ranged")
    weapons = {w.name: len(w.profiles) for w in cat.operatives["test-agents.gunner"].weapons}
    assert weapons == {"Plasma rifle": 2, "Frag charge": 1}


def test_unique_ids_are_deterministic_in_any_order() -> None:
    items = [("Gunner", "b"), ("Gunner", "a"), ("Sergeant", "c")]
    ids = unique_ids(items, lambda i: slug(i[0]), lambda i: i[1])
    assert ids == ["gunner-b", "gunner-a", "sergeant"]
    assert unique_ids(items[::-1], lambda i: slug(i[0]), lambda i: i[1]) == ids[::-1]
    # without distinct source ids, the position in the clash
    assert unique_ids(["x", "x"], slug, lambda i: "") == ["x-1", "x-2"]
    assert slug("T'au Empire: Pathfinder (Gunner)") == "t-au-empire-pathfinder-gunner"


def test_the_same_data_reloads_to_the_same_catalog(tmp_path: Path) -> None:
    first, second = load_sources(SPEC), load_sources(SPEC)
    assert first.version == second.version and first.digest == second.digest
    assert list(first.profiles) == list(second.profiles)
    # a changed stat changes the version; the ids stay
    changed = tmp_path / "export.json"
    changed.write_text((FIXTURES / "ktdash_export.json").read_text().replace('"5/7"', '"5/8"'))
    other = load_sources(f"{FIXTURES / 'ktdash_export.json'}")
    edited = load_sources(str(changed))
    assert edited.version != other.version and list(edited.profiles) == list(other.profiles)


def test_report_lists_sources_counts_and_every_problem_with_its_location() -> None:
    report = load_sources(SPEC).report()
    assert report["counts"] == {"killTeams": 4, "operatives": 10, "weaponProfiles": 21,
                                "problems": 12}  # fmt: skip
    formats = [(s["format"], s["profilesFound"], s["importedClean"], s["withTeamRules"])
               for s in report["sources"]]  # fmt: skip
    assert formats == [("battlescribe-cat", 9, 6, 1), ("ktdash-export", 8, 3, 2),
                       ("killteamjson-factions", 5, 4, 1)]  # fmt: skip
    kinds = {(p["source"].rsplit("/", 1)[-1], p["kind"]) for p in report["problems"]}
    assert ("battlescribe_system", "UNRESOLVED_LINK") in kinds
    assert ("ktdash_export.json", "UNREADABLE_STATLINE") in kinds
    assert all(p["where"] or p["kind"] == "EMPTY" for p in report["problems"])


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("/nowhere/at/all.json", "/nowhere/at/all.json: no such file"),
        ("tests/fixtures/import_battlescribe.cat", "expected a BattleScribe directory"),
        ("", "no catalog source given"),
    ],
)
def test_a_source_that_cannot_be_read_is_an_error_naming_it(spec: str, message: str) -> None:
    with pytest.raises(SourceError, match=message):
        load_sources(spec)


def test_an_unknown_json_shape_stops_the_load(tmp_path: Path) -> None:
    bad = tmp_path / "teams.json"
    bad.write_text('{"teams": []}')
    with pytest.raises(SourceError, match="unrecognised JSON shape"):
        load_sources(f"{FIXTURES / 'ktdash_export.json'},{bad}")


def test_a_directory_that_is_not_a_game_system(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "import_ktdash.json", tmp_path)
    with pytest.raises(SourceError, match=r"no \.gst or \.cat files"):
        load_sources(str(tmp_path))


def test_serve_refuses_to_start_on_an_unreadable_source(capsys) -> None:
    assert cli.main(["serve", "--catalog", "/nowhere.json", "--port", "1"]) == 2
    assert "killmath serve: catalog: /nowhere.json" in capsys.readouterr().err


SPLINTER = "test-raiders.raider-warrior-tst-raid-war.splinter-gun"
TARGET = "test-raiders.raider-boss"


def _shoot(options: dict | None = None, **attacker) -> dict:
    envelope = {"mode": "shoot", "attacker": attacker, "defender": {"operativeId": TARGET}}
    if options is not None:
        envelope["options"] = options
    return envelope


def test_references_into_a_users_catalog(installed) -> None:
    job = prepare(_shoot(weaponProfileId="test-agents.gunner.plasma-rifle-supercharge"))
    inline = prepare({"mode": "shoot",
                      "attacker": {"attacks": 4, "hit": 4, "normalDamage": 5,
                                   "criticalDamage": 6, "lethal": 5, "piercing": 1},
                      "defender": {"defenceDice": 3, "save": 3, "wounds": 12}})  # fmt: skip
    assert job.key == inline.key and job.ignored is None


def test_unknown_rules_refused_by_default_naming_them(installed) -> None:
    for options in (None, {"unknownRules": "REFUSE"}):
        with pytest.raises(InputError) as err:
            prepare(_shoot(options, weaponProfileId=SPLINTER))
        assert err.value.field == "attacker.weaponProfileId"
        assert "'*Poison'" in err.value.message and "IGNORE" in err.value.message


def test_unknown_rules_ignored_on_request(installed) -> None:
    job = prepare(_shoot({"unknownRules": "IGNORE"}, weaponProfileId=SPLINTER,
                         weaponRules="Balanced, *Blaze, Rang 3"))  # fmt: skip
    assert job.ignored == ("*Poison", "*Blaze", "Rang 3")
    # the key is that of the rules applied: the profile plus Balanced, nothing else
    applied = prepare({"mode": "shoot",
                       "attacker": {"attacks": 4, "hit": 3, "normalDamage": 3,
                                    "criticalDamage": 4, "reroll": "BALANCED"},
                       "defender": {"operativeId": TARGET}})  # fmt: skip
    assert job.key == applied.key and applied.ignored is None


def test_ignore_with_nothing_to_ignore_lists_none(installed) -> None:
    job = prepare(_shoot({"unknownRules": "IGNORE", "exact": True}, attacks=4,
                         weaponRules="Lethal 5+"))  # fmt: skip
    assert job.ignored == ()
    assert prepare(_shoot({"exact": True}, attacks=4, weaponRules="Lethal 5+")).key == job.key


def test_inline_rule_text_under_both_policies(installed) -> None:
    with pytest.raises(InputError) as err:
        prepare(_shoot(None, attacks=4, weaponRules="Lethal 5+, *Poison"))
    assert err.value.field == "attacker.weaponRules"
    job = prepare(_shoot({"unknownRules": "IGNORE"}, attacks=4, weaponRules="Lethal 5+, *Poison"))
    assert job.ignored == ("*Poison",) and job.scenario.attacker.lethal == 5


def test_the_policy_is_validated(installed) -> None:
    with pytest.raises(InputError) as err:
        prepare(_shoot({"unknownRules": "MAYBE"}, attacks=4))
    assert err.value.field == "options.unknownRules" and "IGNORE" in err.value.message


def test_fights_and_the_cli_batch_answer_ignored_rules(installed) -> None:
    fight = {"mode": "fight", "options": {"unknownRules": "IGNORE"},
             "fighterA": {"weaponProfileId": "test-veterans.gunner-vet-spc-gnr.knife"},
             "fighterB": {"weaponProfileId": "test-veterans.veteran-sergeant.chainsword"}}  # fmt: skip
    assert prepare(fight).ignored == ("Blaze *",)
    result, ok = cli.evaluate_line(json.dumps(fight))
    assert ok and result["ignoredRules"] == ["Blaze *"] and "fighterA" in result
    refused, ok = cli.evaluate_line(json.dumps({**fight, "options": {}}))
    assert not ok and refused["error"]["field"] == "fighterA.weaponProfileId"


def test_the_answer_body_carries_ignored_rules(installed) -> None:
    from service.compute import Result

    job = prepare(_shoot({"unknownRules": "IGNORE"}, weaponProfileId=SPLINTER))
    body = result_body(Result(job.key, {"expectedDamage": 1.0}, False, job.ignored))
    assert body["ignoredRules"] == ["*Poison"] and body["canonicalKey"] == job.key
