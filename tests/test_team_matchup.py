"""Team-vs-team matchups (`POST /v1/team-matchup`, GraphQL `teamMatchup`) on the catalog.

Every cell is cross-checked against the direct `/v1/shoot` or `/v1/fight` answer of the same
referenced matchup, asked of a second app with a cache of its own, so the numbers compared
were computed twice, not read from one cache entry. The best profiles are checked against a
brute force over the cells; the tie rules (datacard order) on rows built to tie.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest
from starlette.testclient import TestClient

import schema.catalog as catalogs
from schema.answers.team_matchup import TeamMatchupAnswer
from schema.catalog import catalog
from schema.catalog.sources import load_sources
from service import team_matchup as teams
from service.app import create_app
from service.settings import Settings

SITUATIONS = [{"name": "open"}, {"name": "cover", "defender": {"coverSaves": 1}}]
KASRKIN_VS_KOMMANDOS = {
    "attackers": {"killTeamId": "kasrkin"},
    "defenders": {"killTeamId": "kommandos"},
    "situations": SITUATIONS,
    "options": {"exact": True},
}
MELEE = {
    "attackers": {"operativeIds": ["kasrkin.sergeant", "kasrkin.gunner"]},
    "defenders": {"operativeIds": ["kommandos.boss-nob", "kommandos.boy"]},
    "options": {"exact": True},
    "melee": {"strategy": "STRIKE", "defenderStrategy": "PARRY", "options": {"rounds": 2}},
}


def _client(**settings: object) -> Iterator[TestClient]:
    app = create_app(Settings(redis_url=None, log_level="WARNING", **settings))
    with TestClient(app) as client:
        yield client


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    yield from _client()


@pytest.fixture(scope="module")
def reference() -> Iterator[TestClient]:
    """Another app, with a cache of its own, for the direct single answers."""
    yield from _client()


@pytest.fixture(scope="module")
def ranged(client: TestClient) -> dict:
    response = client.post("/v1/team-matchup", json=KASRKIN_VS_KOMMANDOS)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture(scope="module")
def melee(client: TestClient) -> dict:
    response = client.post("/v1/team-matchup", json=MELEE)
    assert response.status_code == 200, response.text
    return response.json()


def _post(client: TestClient, path: str, body: dict) -> dict:
    response = client.post(path, json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_every_profile_against_every_defender_in_every_situation(ranged: dict) -> None:
    cat = catalog()
    kasrkin, kommandos = (
        cat.operatives[i].kill_team_id for i in ("kasrkin.gunner", "kommandos.boy")
    )
    attackers = [op for t in cat.kill_teams if t.id == kasrkin for op in t.operatives]
    defenders = [op for t in cat.kill_teams if t.id == kommandos for op in t.operatives]
    expected = [
        (op.id, p.id, d.id, s)
        for op in attackers
        for p in op.profiles()
        if p.type == "ranged"
        for d in defenders
        for s in range(len(SITUATIONS))
    ]
    got = [
        (c["attacker"], c["weaponProfile"], c["defender"], c["situation"]) for c in ranged["cells"]
    ]
    assert got == expected
    assert ranged["attackers"] == [op.id for op in attackers]
    assert ranged["defenders"] == [op.id for op in defenders]
    assert ranged["situations"] == ["open", "cover"]
    assert ranged["catalogVersion"] == cat.version
    assert "melee" not in ranged


def test_cells_equal_direct_shoots(ranged: dict, reference: TestClient) -> None:
    for cell in ranged["cells"]:
        situation = SITUATIONS[cell["situation"]]
        single = _post(
            reference,
            "/v1/shoot",
            {
                "attacker": {
                    "operativeId": cell["attacker"],
                    "weaponProfileId": cell["weaponProfile"],
                },
                "defender": {"operativeId": cell["defender"], **situation.get("defender", {})},
                "options": {"exact": True},
            },
        )
        assert cell["canonicalKey"] == single["canonicalKey"]
        for name in ("expectedDamage", "killProbability"):
            assert cell[name + "Exact"] == single[name + "Exact"]
            assert cell[name] == single[name]


def _brute_best(rows: list[dict], group: tuple[str, ...]) -> dict:
    """The best row of each group: sort the whole group by (kill, damage) descending with a
    stable sort, so the first listed of equals stays first."""
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault(tuple(row[g] for g in group), []).append(row)
    return {
        key: sorted(
            members,
            key=lambda r: (Fraction(r["killProbabilityExact"]), Fraction(r["expectedDamageExact"])),
            reverse=True,
        )[0]
        for key, members in groups.items()
    }


def test_best_profile_is_the_best_cell(ranged: dict) -> None:
    brute = _brute_best(ranged["cells"], ("attacker", "defender", "situation"))
    assert len(ranged["best"]) == len(brute)
    for best in ranged["best"]:
        cell = brute[(best["attacker"], best["defender"], best["situation"])]
        assert best["weaponProfile"] == cell["weaponProfile"]
        assert best["killProbabilityExact"] == cell["killProbabilityExact"]
        assert best["expectedDamageExact"] == cell["expectedDamageExact"]


def _row(profile: str, kill: str, damage: str, **more: str) -> dict:
    return {
        "attacker": "a",
        "defender": "d",
        "situation": 0,
        "weaponProfile": profile,
        "killProbability": float(Fraction(kill)),
        "killProbabilityExact": kill,
        "expectedDamage": float(Fraction(damage)),
        "expectedDamageExact": damage,
        "canonicalKey": profile,
        **more,
    }


def test_best_profile_ties() -> None:
    """Kill probability first, then expected damage; a full tie goes to the first listed."""
    rows = [_row("p1", "1/3", "2"), _row("p2", "1/2", "1"), _row("p3", "1/2", "3"),
            _row("p4", "1/2", "3")]  # fmt: skip
    assert teams.best_shots(rows)[0]["weaponProfile"] == "p3"
    assert teams.best_shots(rows[::-1])[0]["weaponProfile"] == "p4"
    # compared exactly: 1/3 and the float nearest it are not confused with a larger value
    close = [_row("p1", "1/3", "1"), _row("p2", "6004799503160661/18014398509481984", "1")]
    assert teams.best_shots(close)[0]["weaponProfile"] == "p1"


def test_tie_between_identical_catalog_profiles(client: TestClient) -> None:
    """The Kasrkin sergeant's bolt pistol and hot-shot lasgun share a statline (Range has no
    numeric effect): asked for only those two, the tie goes to the first on the datacard."""
    sergeant = catalog().operatives["kasrkin.sergeant"]
    ranged = [p for p in sergeant.profiles() if p.type == "ranged"]
    assert ranged[0].attacker_fields() == ranged[1].attacker_fields()
    answer = _post(
        client,
        "/v1/team-matchup",
        {"attackers": {"operativeIds": ["kasrkin.sergeant"]},
         "defenders": {"operativeIds": ["kommandos.boy"]}},
    )  # fmt: skip
    first, second = answer["cells"][0], answer["cells"][1]
    assert first["killProbability"] == second["killProbability"]
    assert first["expectedDamage"] == second["expectedDamage"]
    assert first["canonicalKey"] == second["canonicalKey"]
    best = answer["best"][0]
    cells = answer["cells"]
    top = max((c["killProbability"], c["expectedDamage"]) for c in cells)
    leaders = [
        c["weaponProfile"] for c in cells if (c["killProbability"], c["expectedDamage"]) == top
    ]
    assert best["weaponProfile"] == leaders[0]


def test_melee_cells_equal_direct_fights(melee: dict, reference: TestClient) -> None:
    cat = catalog()
    expected = [
        (a, p.id, d, q.id)
        for a in MELEE["attackers"]["operativeIds"]
        for d in MELEE["defenders"]["operativeIds"]
        for p in cat.operatives[a].profiles()
        if p.type == "melee"
        for q in cat.operatives[d].profiles()
        if q.type == "melee"
    ]
    cells = melee["melee"]["cells"]
    assert [(c["attacker"], c["weaponProfile"], c["defender"], c["defenderWeaponProfile"])
            for c in cells] == expected  # fmt: skip
    for cell in cells:
        single = _post(
            reference,
            "/v1/fight",
            {
                "fighterA": {"operativeId": cell["attacker"],
                             "weaponProfileId": cell["weaponProfile"], "strategy": "STRIKE"},
                "fighterB": {"operativeId": cell["defender"],
                             "weaponProfileId": cell["defenderWeaponProfile"], "strategy": "PARRY"},
                "options": {"exact": True, "rounds": 2},
            },
        )  # fmt: skip
        a, b = single["fighterA"], single["fighterB"]
        assert cell["canonicalKey"] == single["canonicalKey"]
        assert cell["expectedDamageExact"] == a["expectedDamageDealtExact"]
        assert cell["killProbabilityExact"] == b["incapacitatedProbabilityExact"]
        assert cell["expectedDamageTakenExact"] == b["expectedDamageDealtExact"]
        assert cell["attackerIncapacitatedProbabilityExact"] == a["incapacitatedProbabilityExact"]
        assert cell["killProbability"] == b["incapacitatedProbability"]


def test_melee_best_is_maximin(melee: dict) -> None:
    def order(row: dict) -> tuple[Fraction, Fraction]:
        return Fraction(row["killProbabilityExact"]), Fraction(row["expectedDamageExact"])

    cells = melee["melee"]["cells"]
    pairs = {(c["attacker"], c["defender"]) for c in cells}
    assert len(melee["melee"]["best"]) == len(pairs)
    for best in melee["melee"]["best"]:
        mine = [
            c
            for c in cells
            if (c["attacker"], c["defender"]) == (best["attacker"], best["defender"])
        ]
        profiles = list(dict.fromkeys(c["weaponProfile"] for c in mine))
        worst = {p: min(order(c) for c in mine if c["weaponProfile"] == p) for p in profiles}
        value = max(worst.values())
        assert best["weaponProfile"] == next(p for p in profiles if worst[p] == value)
        assert order(best) == value
        answers = [c for c in mine if c["weaponProfile"] == best["weaponProfile"]]
        assert best["defenderWeaponProfile"] == next(
            c["defenderWeaponProfile"] for c in answers if order(c) == value
        )


def test_melee_maximin_ties() -> None:
    """Two attacker profiles with the same worst case: the first listed; the defender's
    answers tied: its first listed."""
    rows = [
        _row("a1", "1/2", "2", defenderWeaponProfile="d1"),
        _row("a1", "1/4", "2", defenderWeaponProfile="d2"),
        _row("a2", "1/4", "2", defenderWeaponProfile="d1"),
        _row("a2", "1/4", "2", defenderWeaponProfile="d2"),
    ]
    (best,) = teams.best_fights(rows)
    assert (best["weaponProfile"], best["defenderWeaponProfile"]) == ("a1", "d2")
    (best,) = teams.best_fights(rows[2:])
    assert (best["weaponProfile"], best["defenderWeaponProfile"]) == ("a2", "d1")


def test_csv_carries_every_cell(client: TestClient, melee: dict) -> None:
    response = client.post("/v1/team-matchup", json=MELEE, headers={"accept": "text/csv"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    cells = [("ranged", c) for c in melee["cells"]] + [
        ("melee", c) for c in melee["melee"]["cells"]
    ]
    assert len(rows) == len(cells)
    for row, (kind, cell) in zip(rows, cells, strict=True):
        assert row["kind"] == kind
        assert row["weaponProfile"] == cell["weaponProfile"]
        assert row["killProbabilityExact"] == cell["killProbabilityExact"]
        assert float(row["expectedDamage"]) == cell["expectedDamage"]
        if kind == "melee":
            assert row["expectedDamageTakenExact"] == cell["expectedDamageTakenExact"]
    best = [r for r in rows if r["best"] == "true"]
    ranged_best = {(b["attacker"], b["defender"], str(b["situation"]), b["weaponProfile"])
                   for b in melee["best"]}  # fmt: skip
    assert {(r["attacker"], r["defender"], r["situation"], r["weaponProfile"])
            for r in best if r["kind"] == "ranged"} == ranged_best  # fmt: skip
    assert sum(r["kind"] == "melee" for r in best) == len(melee["melee"]["best"])


def test_warm_repeat_is_all_cached_and_the_same_bytes(client: TestClient, melee: dict) -> None:
    first = client.post("/v1/team-matchup", json=MELEE)
    again = client.post("/v1/team-matchup", json=MELEE)
    total = len(melee["cells"]) + len(melee["melee"]["cells"])
    assert again.headers["cache-status"] == f'killmath-lru; hit; detail="{total}/{total}"'
    assert again.content == first.content and again.json() == melee
    assert "cachedCells" not in melee


def test_a_repeated_operative_counts_once(client: TestClient) -> None:
    once = _post(
        client,
        "/v1/team-matchup",
        {
            "attackers": {"operativeIds": ["kommandos.boy"]},
            "defenders": {"operativeIds": ["kasrkin.trooper"]},
        },
    )
    twice = _post(client, "/v1/team-matchup", {
        "attackers": {"operativeIds": ["kommandos.boy", "kommandos.boy"]},
        "defenders": {"operativeIds": ["kasrkin.trooper"] * 3}})  # fmt: skip
    assert twice["attackers"] == ["kommandos.boy"] and twice["defenders"] == ["kasrkin.trooper"]
    assert twice["cells"] == once["cells"]


def test_answers_match_the_documented_shape(client: TestClient, ranged: dict, melee: dict) -> None:
    document = client.get("/openapi.json").json()
    operation = document["paths"]["/v1/team-matchup"]["post"]
    ok = operation["responses"]["200"]["content"]["application/json"]["schema"]
    validator = jsonschema.Draft202012Validator({**ok, "components": document["components"]})
    body = operation["requestBody"]["content"]["application/json"]["schema"]
    requests = jsonschema.Draft202012Validator({**body, "components": document["components"]})
    for request, answer in ((KASRKIN_VS_KOMMANDOS, ranged), (MELEE, melee)):
        assert list(validator.iter_errors(answer)) == []
        assert list(requests.iter_errors(request)) == []
        # the answer is what its model validates and dumps: names, types, absent members
        assert TeamMatchupAnswer.model_validate(answer, strict=True).as_json() == answer
    assert list(validator.iter_errors({**ranged, "cells": [{"attacker": 1}]}))


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        ({**MELEE, "attackers": {"killTeamId": "orks"}}, 400, "INVALID_INPUT", "attackers.killTeamId"),
        ({**MELEE, "defenders": {"operativeIds": ["kommandos.boy", "nobody"]}}, 400,
         "INVALID_INPUT", "defenders.operativeIds.1"),
        ({**MELEE, "attackers": {"killTeamId": "kasrkin", "operativeIds": ["kasrkin.gunner"]}},
         400, "INVALID_INPUT", "attackers"),
        ({**MELEE, "attackers": {}}, 400, "INVALID_INPUT", "attackers"),
        ({**MELEE, "defenders": {"operativeIds": []}}, 400, "INVALID_INPUT",
         "defenders.operativeIds"),
        ({**MELEE, "situations": [{"defender": {"save": 9}}]}, 400, "INVALID_INPUT",
         "situations.0.defender.save"),
        ({**MELEE, "options": {"rounds": 99}}, 422, "LIMIT_EXCEEDED", "options.rounds"),
        ({**MELEE, "melee": {"options": {"rounds": 99}}}, 422, "LIMIT_EXCEEDED",
         "melee.options.rounds"),
        ({**MELEE, "melee": {"strategy": "OPTIMAL"}}, 400, "INVALID_INPUT", "melee.strategy"),
        ({**MELEE, "colour": "red"}, 400, "INVALID_INPUT", "colour"),
    ],
)  # fmt: skip
def test_bad_requests_name_the_field(
    client: TestClient, body: dict, status: int, code: str, field: str
) -> None:
    response = client.post("/v1/team-matchup", json=body)
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert (error["code"], error["field"]) == (code, field), error


def test_the_cell_limit_counts_ranged_and_melee_cells() -> None:
    plan = teams.parse(MELEE, 10_000)
    cells = plan.cells()
    assert cells == len(plan.shots) * 2 + len(plan.fights) and plan.fights
    for client in _client(max_grid_cells=cells - 1):
        response = client.post("/v1/team-matchup", json=MELEE)
        assert response.status_code == 422
        error = response.json()["error"]
        assert (error["code"], error["field"], error["limit"]) == (
            "LIMIT_EXCEEDED", "attackers", cells - 1)  # fmt: skip
    for client in _client(max_grid_cells=cells):
        assert client.post("/v1/team-matchup", json=MELEE).status_code == 200


TEAM_QUERY = """
query($attackers: TeamSideInput!, $defenders: TeamSideInput!, $situations: [SituationInput!],
      $options: Kt2024ShootOptionsInput, $melee: TeamMeleeInput) {
  teamMatchup(attackers: $attackers, defenders: $defenders, situations: $situations,
              options: $options, melee: $melee) {
    catalogVersion attackers defenders situations cachedCells
    operatives { id name killTeamId wounds }
    weaponProfiles { id operativeId weapon profile type }
    cells { attacker weaponProfile defender situation expectedDamage expectedDamageExact
            killProbability killProbabilityExact canonicalKey ignoredRules }
    best { attacker defender situation weaponProfile expectedDamage expectedDamageExact
           killProbability killProbabilityExact ignoredRules }
    melee {
      cells { attacker weaponProfile defender defenderWeaponProfile expectedDamage
              expectedDamageExact killProbability killProbabilityExact expectedDamageTaken
              expectedDamageTakenExact attackerIncapacitatedProbability
              attackerIncapacitatedProbabilityExact canonicalKey ignoredRules }
      best { attacker defender weaponProfile defenderWeaponProfile expectedDamage
             expectedDamageExact killProbability killProbabilityExact expectedDamageTaken
             expectedDamageTakenExact attackerIncapacitatedProbability
             attackerIncapacitatedProbabilityExact ignoredRules }
    }
  }
}"""


def _graphql(client: TestClient, variables: dict) -> dict:
    response = client.post("/graphql", json={"query": TEAM_QUERY, "variables": variables})
    assert response.status_code == 200, response.text
    return response.json()


def _drop_none(value: object) -> object:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def test_graphql_equals_rest(client: TestClient, melee: dict) -> None:
    variables = {**MELEE, "melee": {**MELEE["melee"], "defenderStrategy": "PARRY"}}
    answer = _graphql(client, variables)
    assert "errors" not in answer, answer
    got = answer["data"]["teamMatchup"]
    assert got.pop("cachedCells") == len(melee["cells"]) + len(melee["melee"]["cells"])
    assert _drop_none(got) == melee


def test_graphql_errors_carry_the_field(client: TestClient) -> None:
    answer = _graphql(
        client, {"attackers": {"killTeamId": "nope"}, "defenders": {"killTeamId": "kasrkin"}}
    )
    (error,) = answer["errors"]
    assert error["extensions"]["field"] == "attackers.killTeamId"
    assert answer["data"] is None


USERS_CATALOG = ",".join(
    str(Path(__file__).resolve().parent / "fixtures" / name)
    for name in ("battlescribe_system", "ktdash_export.json", "killteamjson_factions.json")
)
SPLINTER = "test-raiders.raider-warrior-tst-raid-war.splinter-gun"
KNIFE = "test-veterans.gunner-vet-spc-gnr.knife"


@pytest.fixture
def users_catalog() -> Iterator[TestClient]:
    """Our fixture catalog (team rules included) served in place of the bundled one."""
    catalogs.install(load_sources(USERS_CATALOG))
    try:
        yield from _client()
    finally:
        catalogs._installed.clear()


def test_unknown_rules_ignored_by_default_refused_only_when_asked(
    users_catalog: TestClient,
) -> None:
    """A team matchup answers every cell it can (issue 33): without `unknownRules` it is
    IGNORE, each cell listing what it left out; only an explicit REFUSE refuses."""
    raiders = {"attackers": {"killTeamId": "test-raiders"},
               "defenders": {"killTeamId": "test-raiders"}}  # fmt: skip
    answer = _post(users_catalog, "/v1/team-matchup", raiders)
    ignoring = _post(users_catalog, "/v1/team-matchup",
                     {**raiders, "options": {"unknownRules": "IGNORE"}})  # fmt: skip
    assert answer == ignoring
    assert {tuple(c["ignoredRules"]) for c in answer["cells"] if c["weaponProfile"] == SPLINTER} == {
        ("*Poison",)}  # fmt: skip
    explicit = {**raiders, "options": {"unknownRules": "REFUSE"}}
    response = users_catalog.post("/v1/team-matchup", json=explicit)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "attackers"
    assert SPLINTER in error["message"] and "'*Poison'" in error["message"]
    single = {
        "attacker": {"weaponProfileId": SPLINTER},
        "defender": {"operativeId": SPLINTER.rsplit(".", 1)[0]},
    }
    assert users_catalog.post("/v1/shoot", json=single).status_code == 400  # its default kept


def test_unknown_rules_ignored_cell_by_cell(users_catalog: TestClient) -> None:
    options = {"unknownRules": "IGNORE", "exact": True}
    body = {"attackers": {"killTeamId": "test-raiders"},
            "defenders": {"killTeamId": "test-raiders"}, "options": options}  # fmt: skip
    answer = _post(users_catalog, "/v1/team-matchup", body)
    assert answer["cells"]
    for cell in answer["cells"]:
        single = _post(users_catalog, "/v1/shoot", {
            "attacker": {"operativeId": cell["attacker"], "weaponProfileId": cell["weaponProfile"]},
            "defender": {"operativeId": cell["defender"]}, "options": options})  # fmt: skip
        assert cell["ignoredRules"] == single["ignoredRules"]
        assert cell["canonicalKey"] == single["canonicalKey"]
        assert cell["killProbabilityExact"] == single["killProbabilityExact"]
    assert {tuple(c["ignoredRules"]) for c in answer["cells"] if c["weaponProfile"] == SPLINTER} == {
        ("*Poison",)}  # fmt: skip
    for best in answer["best"]:
        cell = next(c for c in answer["cells"] if c["weaponProfile"] == best["weaponProfile"])
        assert best["ignoredRules"] == cell["ignoredRules"]
    melee = {"attackers": {"killTeamId": "test-veterans"},
             "defenders": {"killTeamId": "test-veterans"}, "options": options, "melee": {}}  # fmt: skip
    fights = _post(users_catalog, "/v1/team-matchup", melee)["melee"]["cells"]
    knives = [c for c in fights if c["weaponProfile"] == KNIFE]
    assert knives and all("Blaze *" in c["ignoredRules"] for c in knives)
    refused = users_catalog.post(
        "/v1/team-matchup", json={**melee, "options": {"unknownRules": "REFUSE"}}
    )
    error = refused.json()["error"]  # the first fight refused is one the knife fights back in
    assert (
        refused.status_code == 400 and error["field"] == "defenders" and KNIFE in error["message"]
    )


def test_the_answer_names_what_it_draws_once(client: TestClient, melee: dict) -> None:
    """A client can label every row, column and cell from the answer alone (issue 29)."""
    cat = catalog()
    named = {op["id"]: op for op in melee["operatives"]}
    assert list(named) == list(dict.fromkeys(melee["attackers"] + melee["defenders"]))
    for op_id, op in named.items():
        assert (op["name"], op["killTeamId"], op["wounds"]) == (
            cat.operatives[op_id].name, cat.operatives[op_id].kill_team_id,
            cat.operatives[op_id].wounds)  # fmt: skip
    profiles = {p["id"]: p for p in melee["weaponProfiles"]}
    assert len(profiles) == len(melee["weaponProfiles"])
    used = {c["weaponProfile"] for c in melee["cells"]}
    used |= {
        c[k] for c in melee["melee"]["cells"] for k in ("weaponProfile", "defenderWeaponProfile")
    }
    assert set(profiles) == used
    for p in profiles.values():
        weapon = next(
            w
            for w in cat.operatives[p["operativeId"]].weapons
            for q in w.profiles
            if q.id == p["id"]
        )
        assert p["weapon"] == weapon.name
        assert p["type"] in ("ranged", "melee")
    assert None not in melee["situations"]


def test_unnamed_situations_are_named_for_the_answer(client: TestClient) -> None:
    body = {**MELEE, "situations": [{}, {"name": "cover", "defender": {"coverSaves": 1}},
                                    {"attacker": {"obscured": True}}]}  # fmt: skip
    body.pop("melee")
    answer = client.post("/v1/team-matchup", json=body).json()
    assert answer["situations"] == ["default", "cover", "situation 3"]
    plain = {k: v for k, v in MELEE.items() if k != "melee"}
    assert client.post("/v1/team-matchup", json=plain).json()["situations"] == ["default"]


def test_a_defender_without_a_melee_weapon_is_fought_and_cannot_strike_back(
    users_catalog: TestClient,
) -> None:
    """Issue 33: every attacking melee profile fights every defending operative; one with
    no melee weapon gets a cell without `defenderWeaponProfile`, as its `/v1/fight` with the
    operative named alone answers, and deals nothing back."""
    body = {"attackers": {"operativeIds": ["test-raiders.raider-boss"]},
            "defenders": {"killTeamId": "test-raiders"}, "options": {"exact": True},
            "melee": {}}  # fmt: skip
    answer = _post(users_catalog, "/v1/team-matchup", body)
    fights = answer["melee"]["cells"]
    assert {c["defender"] for c in fights} == set(answer["defenders"])
    unarmed = [c for c in fights if "defenderWeaponProfile" not in c]
    assert {c["defender"] for c in unarmed} == {
        "test-raiders.raider-warrior-tst-raid-war", "test-raiders.raider-warrior-tst-raid-war2"}  # fmt: skip
    for cell in unarmed:
        single = _post(users_catalog, "/v1/fight", {
            "fighterA": {"operativeId": cell["attacker"], "weaponProfileId": cell["weaponProfile"],
                         "strategy": "MAX_DAMAGE"},
            "fighterB": {"operativeId": cell["defender"], "strategy": "MAX_DAMAGE"},
            "options": {"exact": True, "unknownRules": "IGNORE"}})  # fmt: skip
        assert cell["canonicalKey"] == single["canonicalKey"]
        assert cell["killProbabilityExact"] == single["fighterB"]["incapacitatedProbabilityExact"]
        assert cell["expectedDamageTakenExact"] == "0/1"
        assert cell["attackerIncapacitatedProbabilityExact"] == "0/1"
    best = {b["defender"]: b for b in answer["melee"]["best"]}
    assert all("defenderWeaponProfile" not in best[c["defender"]] for c in unarmed)
    rows = list(csv.DictReader(io.StringIO(users_catalog.post(
        "/v1/team-matchup", json=body, headers={"accept": "text/csv"}).text)))  # fmt: skip
    assert sum(1 for r in rows if r["kind"] == "melee" and r["defenderWeaponProfile"] == "") == 2


def test_a_repeated_team_matchup_says_every_cell_was_cached() -> None:
    """The reply cache never replays a reply that computed a cell (issue 29: it replayed
    `cachedCells: 0`): the second ask executes and says all cells, the third may replay."""
    for client in _client():
        variables = {k: v for k, v in MELEE.items() if k != "melee"}
        counts = []
        for _ in range(3):
            reply = _graphql(client, variables)["data"]["teamMatchup"]
            counts.append(reply["cachedCells"])
        total = len(reply["cells"])
        assert counts == [0, total, total]
