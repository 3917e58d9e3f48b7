"""End to end (issue 16): `killmath serve` started with `KILLMATH_CATALOG` on our fixture data
answers catalog queries, operativeId/weaponProfileId references and `options.unknownRules`
over REST and GraphQL; a source it cannot read stops it before it listens."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.service_harness import REPO, Server

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SPEC = ",".join(
    str(FIXTURES / name)
    for name in ("battlescribe_system", "ktdash_export.json", "killteamjson_factions.json")
)
SPLINTER = "test-raiders.raider-warrior-tst-raid-war.splinter-gun"
BOSS = "test-raiders.raider-boss"
PLASMA = "test-agents.gunner.plasma-rifle-supercharge"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    server = Server(catalog=SPEC)
    try:
        yield server.url
    finally:
        server.stop()


def _gql(url: str, query: str, variables: dict | None = None) -> dict:
    reply = httpx.post(f"{url}/graphql", json={"query": query, "variables": variables or {}})
    assert reply.status_code == 200, reply.text
    return reply.json()


def test_rest_catalog_report(url: str) -> None:
    report = httpx.get(f"{url}/v1/catalog").json()
    assert report["counts"] == {"killTeams": 4, "operatives": 10, "weaponProfiles": 21,
                                "problems": 12}  # fmt: skip
    assert len(report["digest"]) == 64 and report["catalogVersion"] == report["digest"][:16]
    assert [s["path"] for s in report["sources"]] == SPEC.split(",")
    link = next(p for p in report["problems"] if p["kind"] == "UNRESOLVED_LINK")
    assert link["where"] == "Agents.cat#ag-interrogator"
    teams = httpx.get(f"{url}/v1/kill-teams").json()
    assert teams["catalogVersion"] == report["catalogVersion"]
    assert [t["id"] for t in teams["killTeams"]] == [
        "test-agents", "test-troopers", "test-raiders", "test-veterans"]  # fmt: skip


def test_rest_catalog_queries(url: str) -> None:
    page = httpx.get(f"{url}/v1/operatives", params={"killTeam": "test-troopers"}).json()
    assert [o["id"] for o in page["operatives"]] == [
        "test-troopers.gunner-tr-gunner-a", "test-troopers.gunner-tr-gunner-b"]  # fmt: skip
    leaders = httpx.get(f"{url}/v1/operatives", params={"keyword": "leader"}).json()
    assert {o["id"] for o in leaders["operatives"]} == {
        "test-agents.interrogator",
        "test-raiders.raider-boss",
        "test-veterans.veteran-sergeant",
    }
    splinter = httpx.get(f"{url}/v1/weapon-profiles/{SPLINTER}").json()
    assert splinter["unknown"] == ["*Poison"] and splinter["noNumericEffect"] == ['Torrent 1"']
    assert httpx.get(f"{url}/v1/operatives/kasrkin.gunner").status_code == 404  # not served


def test_rest_references_and_unknown_rules(url: str) -> None:
    body = {"attacker": {"weaponProfileId": PLASMA}, "defender": {"operativeId": BOSS},
            "options": {"exact": True}}  # fmt: skip
    shot = httpx.post(f"{url}/v1/shoot", json=body).json()
    inline_response = httpx.post(f"{url}/v1/shoot", json={
        "attacker": {"attacks": 4, "hit": 4, "normalDamage": 5, "criticalDamage": 6,
                     "lethal": 5, "piercing": 1},
        "defender": {"defenceDice": 3, "save": 3, "wounds": 12}, "options": {"exact": True},
    })  # fmt: skip
    # the reference's answer was cached under the inline profile's key: the same body
    assert "hit" in inline_response.headers["cache-status"]
    assert shot == inline_response.json()
    assert "ignoredRules" not in shot
    poison = {"attacker": {"weaponProfileId": SPLINTER}, "defender": {"operativeId": BOSS}}
    refused = httpx.post(f"{url}/v1/shoot", json=poison)
    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "attacker.weaponProfileId"
    ignored = httpx.post(f"{url}/v1/shoot", json={**poison, "options": {"unknownRules": "IGNORE"}})
    answer = ignored.json()
    assert ignored.status_code == 200 and answer["ignoredRules"] == ["*Poison"]
    plain = httpx.post(f"{url}/v1/shoot", json={"attacker": {"attacks": 4, "hit": 3,
        "normalDamage": 3, "criticalDamage": 4}, "defender": {"operativeId": BOSS}}).json()  # fmt: skip
    assert plain["canonicalKey"] == answer["canonicalKey"]
    assert plain["expectedDamage"] == answer["expectedDamage"]


def test_rest_batch_and_grid_with_unknown_rules(url: str) -> None:
    envelopes = [
        {"mode": "shoot", "attacker": {"weaponProfileId": SPLINTER},
         "defender": {"operativeId": BOSS}, "options": {"unknownRules": "IGNORE"}},
        {"mode": "shoot", "attacker": {"weaponProfileId": SPLINTER},
         "defender": {"operativeId": BOSS}},
    ]  # fmt: skip
    lines = httpx.post(f"{url}/v1/batch", json=envelopes).json()
    assert lines[0]["ignoredRules"] == ["*Poison"] and "error" in lines[1]
    grid = {"attackers": [{"weaponProfileId": SPLINTER}, {"weaponProfileId": PLASMA}],
            "defenders": [{"operativeId": BOSS}], "options": {"unknownRules": "IGNORE"}}  # fmt: skip
    cells = httpx.post(f"{url}/v1/grid", json=grid).json()["cells"]
    assert [c["ignoredRules"] for c in cells] == [["*Poison"], []]
    refused = httpx.post(f"{url}/v1/grid", json={**grid, "options": {}})
    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "attackers.0.weaponProfileId"


def test_graphql_catalog_and_unknown_rules(url: str) -> None:
    data = _gql(url, """query($id: String!) {
      catalog { version digest counts { killTeams operatives problems }
        sources { format profilesFound importedClean withTeamRules problems }
        problems { source kind where } }
      weaponProfile(id: $id) { id unknown noNumericEffect }
      operatives(filter: {killTeamId: "test-raiders"}) { totalCount edges { node { id } } } }""",
                {"id": SPLINTER})["data"]  # fmt: skip
    assert data["catalog"]["counts"] == {"killTeams": 4, "operatives": 10, "problems": 12}
    assert [s["format"] for s in data["catalog"]["sources"]] == [
        "battlescribe-cat", "ktdash-export", "killteamjson-factions"]  # fmt: skip
    assert data["weaponProfile"]["unknown"] == ["*Poison"]
    assert data["operatives"]["totalCount"] == 3
    query = """query($rules: UnknownRules, $profile: String, $target: String) {
      shoot(input: {attacker: {weaponProfileId: $profile}, defender: {operativeId: $target},
                    options: {unknownRules: $rules}}) { expectedDamage ignoredRules canonicalKey } }
    """
    ids = {"profile": SPLINTER, "target": BOSS}
    ignored = _gql(url, query, {"rules": "IGNORE", **ids})["data"]["shoot"]
    assert ignored["ignoredRules"] == ["*Poison"]
    refused = _gql(url, query, {"rules": "REFUSE", **ids})
    assert refused["errors"][0]["extensions"]["field"] == "attacker.weaponProfileId"
    rest = httpx.post(f"{url}/v1/shoot", json={"attacker": {"weaponProfileId": SPLINTER},
        "defender": {"operativeId": BOSS}, "options": {"unknownRules": "IGNORE"}}).json()  # fmt: skip
    assert rest["canonicalKey"] == ignored["canonicalKey"]
    assert rest["expectedDamage"] == ignored["expectedDamage"]
    fight = _gql(url, """{ fight(input: {
        fighterA: {weaponProfileId: "test-veterans.gunner-vet-spc-gnr.knife"},
        fighterB: {weaponProfileId: "test-veterans.veteran-sergeant.chainsword"},
        options: {unknownRules: IGNORE}}) { ignoredRules } }""")["data"]["fight"]  # fmt: skip
    assert fight["ignoredRules"] == ["Blaze *"]


def test_an_unreadable_source_stops_the_start() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KILLMATH_")}
    env.update(PYTHONPATH=str(REPO), KILLMATH_CATALOG=f"{FIXTURES / 'ktdash_export.json'},/no.json")
    done = subprocess.run([sys.executable, "-m", "service.cli", "serve", "--port", "1"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip() == "killmath serve: catalog: /no.json: no such file or directory"


def test_openapi_examples_are_answers_of_the_served_catalog(url: str) -> None:
    """The document's examples come from the catalog being served: every id they name is
    one this server answers, and the team matchup example is its real answer."""
    document = httpx.get(f"{url}/openapi.json")
    assert document.status_code == 200
    paths = document.json()["paths"]
    for path in ("/v1/operatives/{id}", "/v1/weapon-profiles/{id}"):
        (parameter,) = [p for p in paths[path]["get"]["parameters"] if p["name"] == "id"]
        one = httpx.get(f"{url}{path.replace('{id}', parameter['example'])}")
        assert one.status_code == 200, one.text
        example = paths[path]["get"]["responses"]["200"]["content"]["application/json"]
        assert example["example"]["id"] == parameter["example"] == one.json()["id"]
    post = paths["/v1/team-matchup"]["post"]
    body = post["requestBody"]["content"]["application/json"]["example"]
    assert body["attackers"]["operativeIds"][0].startswith("test-")
    answer = httpx.post(f"{url}/v1/team-matchup", json=body)
    assert answer.status_code == 200, answer.text
    assert post["responses"]["200"]["content"]["application/json"]["example"] == answer.json()
