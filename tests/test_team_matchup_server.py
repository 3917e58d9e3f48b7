"""End to end: `killmath serve` with `KILLMATH_CATALOG` on our fixture data answers team
matchups over REST (JSON and CSV) and GraphQL, `unknownRules` included, the same cells as the
direct `/v1/shoot` answers of that server."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from service_harness import Server, graphql, rest, serving

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CATALOG = ",".join(
    str(FIXTURES / name)
    for name in ("battlescribe_system", "ktdash_export.json", "killteamjson_factions.json")
)
BODY = {
    "attackers": {"killTeamId": "test-raiders"},
    "defenders": {"killTeamId": "test-veterans"},
    "situations": [{"name": "open"}, {"name": "cover", "defender": {"coverSaves": 1}}],
    "options": {"unknownRules": "IGNORE", "exact": True},
}
QUERY = """
query($a: TeamSideInput!, $d: TeamSideInput!, $s: [SituationInput!], $o: Kt2024ShootOptionsInput) {
  teamMatchup(attackers: $a, defenders: $d, situations: $s, options: $o) {
    cells { weaponProfile defender situation killProbabilityExact canonicalKey ignoredRules }
    best { attacker defender situation weaponProfile ignoredRules }
  }
}"""


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    with serving(catalog=CATALOG) as running:
        yield running


def test_rest_csv_and_graphql_on_a_users_catalog(server: Server) -> None:
    answer = rest(server.url, "/v1/team-matchup", BODY)
    cells = answer["cells"]
    assert cells and {c["attacker"].split(".")[0] for c in cells} == {"test-raiders"}
    assert any(c["ignoredRules"] for c in cells)
    for cell in cells:
        situation = BODY["situations"][cell["situation"]]
        single = rest(server.url, "/v1/shoot", {
            "attacker": {"weaponProfileId": cell["weaponProfile"]},
            "defender": {"operativeId": cell["defender"], **situation.get("defender", {})},
            "options": BODY["options"]})  # fmt: skip
        assert single["canonicalKey"] == cell["canonicalKey"]
        assert single["killProbabilityExact"] == cell["killProbabilityExact"]
        assert single["ignoredRules"] == cell["ignoredRules"]
    table = httpx.post(server.url + "/v1/team-matchup", json=BODY, headers={"accept": "text/csv"})
    rows = list(csv.DictReader(io.StringIO(table.text)))
    assert [r["killProbabilityExact"] for r in rows] == [c["killProbabilityExact"] for c in cells]
    variables = {"a": BODY["attackers"], "d": BODY["defenders"], "s": BODY["situations"],
                 "o": BODY["options"]}  # fmt: skip
    found = graphql(server.url, QUERY, variables)
    assert "errors" not in found, found
    team = found["data"]["teamMatchup"]
    keep = ("weaponProfile", "defender", "situation", "killProbabilityExact", "canonicalKey",
            "ignoredRules")  # fmt: skip
    assert team["cells"] == [{k: c[k] for k in keep} for c in cells]
    assert [b["weaponProfile"] for b in team["best"]] == [
        b["weaponProfile"] for b in answer["best"]
    ]
    refuse = {**BODY, "options": {"unknownRules": "REFUSE"}}
    refused = httpx.post(server.url + "/v1/team-matchup", json=refuse)
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "attackers"
