"""Issue 34, finding 1: imports bounded by what they cost.

The BattleScribe importer used to walk every path through entry links: a 5 KB `.cat` whose
links form a DAG of depth 22 cost 13–15 s of CPU (on the event loop, through GraphQL), and a
2,000-long link chain was a RecursionError, a 500. Every hostile document here is generated
by the test: the DAG's profiles are imported once each, chains of any length are answers,
graphs over the node and edge budgets are LIMIT_EXCEEDED on `file`, and the import runs off
the event loop (/healthz answers while one is under way), over real REST and GraphQL.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
from service_harness import Server

from engine.errors import InputError
from schema.importers import (
    MAX_EDGES,
    MAX_NODES,
    MAX_PROFILES,
    MAX_WALK_STEPS,
    battlescribe,
    graph_size,
    import_documents,
    import_text,
)

IMPORT_QUERY = """query($c: String!) { importProfiles(content: $c) {
  format counts { profilesFound problems } operatives { name profiles { name } } } }"""


# --------------------------------------------------------------------------- documents


def _weapon(ident: str, rules: str = "-") -> str:
    return (
        f'<profile id="w-{ident}" name="Gun {ident}" typeName="Ranged Weapon"><characteristics>'
        '<characteristic name="ATK">4</characteristic><characteristic name="HIT">3+</characteristic>'
        '<characteristic name="DMG">3/4</characteristic>'
        f'<characteristic name="WR">{rules}</characteristic></characteristics></profile>'
    )


def _links(targets: list[str]) -> str:
    return "".join(f'<entryLink targetId="{t}"/>' for t in targets)


def _entry(ident: str, targets: list[str], weapon: bool = False) -> str:
    profiles = f"<profiles>{_weapon(ident)}</profiles>" if weapon else ""
    return (
        f'<selectionEntry id="{ident}" name="{ident}" type="upgrade">{profiles}'
        f"<entryLinks>{_links(targets)}</entryLinks></selectionEntry>"
    )


def _catalogue(operative_links: list[str], shared: list[str], extra: str = "") -> str:
    """One operative (its Operative profile, its links), and the shared entries."""
    operative = (
        '<selectionEntry id="op" name="Gunner" type="model"><profiles>'
        '<profile id="op-p" name="Gunner" typeName="Operative"><characteristics>'
        '<characteristic name="APL">2</characteristic><characteristic name="MOVE">6"</characteristic>'
        '<characteristic name="SAVE">3+</characteristic><characteristic name="WOUNDS">10</characteristic>'
        f"</characteristics></profile>{extra}</profiles>"
        f"<entryLinks>{_links(operative_links)}</entryLinks></selectionEntry>"
    )
    return (
        '<catalogue id="cat" name="Hostile" gameSystemId="gst">'
        f"<selectionEntries>{operative}</selectionEntries>"
        f"<sharedSelectionEntries>{''.join(shared)}</sharedSelectionEntries></catalogue>"
    )


def dag(depth: int) -> str:
    """Two entries a level, each linking both of the next level and carrying a weapon:
    2^depth paths from the operative to the bottom, 2 * depth entries."""
    shared = [
        _entry(f"{side}{level}", [f"a{level + 1}", f"b{level + 1}"] if level < depth - 1 else [],
               weapon=True)
        for level in range(depth)
        for side in "ab"
    ]  # fmt: skip
    return _catalogue(["a0", "b0"], shared)


def chain(length: int) -> str:
    """Entry k links entry k + 1; the last carries the weapon."""
    shared = [
        _entry(f"e{k}", [f"e{k + 1}"] if k < length - 1 else [], weapon=k == length - 1)
        for k in range(length)
    ]
    return _catalogue(["e0"], shared)


def fan_out(links: int) -> str:
    """The operative links one weapon entry `links` times."""
    return _catalogue(["w"] * links, [_entry("w", [], weapon=True)])


def heavy(profiles: int) -> str:
    """A legitimate but large document: one operative with many weapon profiles, each
    with rule text to parse (about a second of CPU at 19,000)."""
    extra = "".join(
        _weapon(str(i), 'Lethal 5+, Piercing 1, Balanced, Range 8"') for i in range(profiles)
    )
    return _catalogue([], [], extra)


def _names(result) -> list[str]:
    (operative,) = result.operatives
    return [p.name for p in operative.profiles]


# --------------------------------------------------------------------------- in process


def test_the_dag_of_depth_22_imports_each_profile_once(monkeypatch) -> None:
    reads: list[str] = []
    children = battlescribe._System.children

    def counted(self, entry):
        reads.append(entry.get("id", ""))
        return children(self, entry)

    monkeypatch.setattr(battlescribe._System, "children", counted)
    document = dag(22)
    assert len(document) < 25_000  # a small file: 44 entries, 4 million paths
    result = import_text(document)
    names = _names(result)
    # depth first from the operative: a0, a1, ... a21, then b21 back up to b0
    expected = [f"Gun a{k}" for k in range(22)] + [f"Gun b{k}" for k in reversed(range(22))]
    assert names == expected
    assert result.counts().as_json()["profilesFound"] == 44
    # every entry's links were read once, however many paths lead to it
    assert sorted(reads) == sorted(["op", *(f"{s}{k}" for k in range(22) for s in "ab")])


def test_a_cycle_is_cut_and_its_weapons_imported_once() -> None:
    shared = [_entry("x", ["y"], weapon=True), _entry("y", ["z", "x"], weapon=True),
              _entry("z", ["x", "y"], weapon=True)]  # fmt: skip
    result = import_text(_catalogue(["y", "x"], shared))
    assert _names(result) == ["Gun y", "Gun z", "Gun x"]


@pytest.mark.parametrize("length", [2_000, 50_000])
def test_long_chains_are_answers(length: int) -> None:
    document = chain(length)
    size = graph_size([("chain.cat", document)])
    assert (size.nodes, size.bytes) == (length + 3, len(document))
    assert size.nodes <= MAX_NODES and size.edges <= MAX_EDGES
    result = import_text(document)
    assert _names(result) == [f"Gun e{length - 1}"]


def test_a_fan_out_beyond_the_edge_budget_is_refused() -> None:
    within = import_text(fan_out(1_000))
    assert _names(within) == ["Gun w"]
    document = fan_out(MAX_EDGES)
    assert graph_size([("fan.cat", document)]).edges > MAX_EDGES
    with pytest.raises(InputError) as refused:
        import_text(document)
    error = refused.value
    assert (error.code, error.field, error.limit) == ("LIMIT_EXCEEDED", "file", MAX_EDGES)


def test_a_chain_beyond_the_node_budget_is_refused() -> None:
    # the node budget alone: the chain's bytes are within MAX_BYTES only as a name-less file
    document = chain(MAX_NODES)
    with pytest.raises(InputError) as refused:
        import_text(document, limit=None)
    assert (refused.value.code, refused.value.limit) == ("LIMIT_EXCEEDED", MAX_NODES)


def test_a_ring_entered_everywhere_is_bounded_by_the_walk_budget() -> None:
    # a ring of n entries, each linked by the operative: every entry point of the cycle is
    # walked round the whole ring, n * n steps, refused once over the walk budget
    n = 2_000
    assert n * n > MAX_WALK_STEPS
    ring = [_entry(f"r{k}", [f"r{(k + 1) % n}"], weapon=k == 0) for k in range(n)]
    with pytest.raises(InputError) as refused:
        import_text(_catalogue([f"r{k}" for k in range(n)], ring))
    assert (refused.value.code, refused.value.limit) == ("LIMIT_EXCEEDED", MAX_WALK_STEPS)
    # entered once, the same ring is walked once
    assert _names(import_text(_catalogue(["r5"], ring))) == ["Gun r0"]


def test_profile_lines_beyond_the_budget_are_refused() -> None:
    # 30 operatives each carrying the same 1,000 weapons: 30,000 lines to parse
    extra = "".join(_weapon(str(i)) for i in range(1_000))
    arsenal = (
        f'<selectionEntry id="arsenal" name="arsenal"><profiles>{extra}</profiles></selectionEntry>'
    )
    operatives = "".join(
        f'<selectionEntry id="op{k}" name="Op {k}"><profiles><profile id="op{k}-p" '
        f'name="Op {k}" typeName="Operative"/></profiles>'
        f"<entryLinks>{_links(['arsenal'])}</entryLinks></selectionEntry>"
        for k in range(30)
    )
    document = (
        f'<catalogue id="c" name="C"><selectionEntries>{operatives}</selectionEntries>'
        f"<sharedSelectionEntries>{arsenal}</sharedSelectionEntries></catalogue>"
    )
    with pytest.raises(InputError) as refused:
        import_text(document)
    assert (refused.value.code, refused.value.limit) == ("LIMIT_EXCEEDED", MAX_PROFILES)


def test_a_ktdash_export_whose_ids_multiply_is_refused() -> None:
    # rows sharing ids join under every parent of that id: 60^4 rows from 240
    rows = 60
    export = {
        "killteams": [{"killteamId": "k", "killteamName": f"T{i}"} for i in range(rows)],
        "optypes": [{"opTypeId": "o", "killteamId": "k", "opTypeName": "Op"}] * rows,
        "weapons": [{"wepId": "w", "opTypeId": "o", "wepName": "Gun"}] * rows,
        "weaponprofiles": [{"wepId": "w", "ATK": 4, "HIT": 3, "DMG": "3/4"}] * rows,
    }
    assert graph_size([("export.json", json.dumps(export))]).nodes > MAX_NODES
    with pytest.raises(InputError) as refused:
        import_text(json.dumps(export))
    assert (refused.value.code, refused.value.limit) == ("LIMIT_EXCEEDED", MAX_NODES)


# --------------------------------------------------------------------------- real servers


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    server = Server(workers=1)
    try:
        yield server
    finally:
        server.stop()


def _graphql(server: Server, content: str) -> httpx.Response:
    return httpx.post(
        server.url + "/graphql",
        json={"query": IMPORT_QUERY, "variables": {"c": content}},
        timeout=120,
    )


def _multipart(server: Server, name: str, content: str) -> httpx.Response:
    files = {"file": (name, content.encode(), "application/xml")}
    return httpx.post(server.url + "/v1/import", files=files, timeout=120)


@pytest.mark.parametrize("door", ["rest", "graphql"])
def test_the_dag_imports_within_two_cpu_seconds(server: Server, door: str) -> None:
    document = dag(22)
    before = server.cpu_seconds()
    if door == "rest":
        response = _multipart(server, "dag.cat", document)
        assert response.status_code == 200, response.text[:300]
        (source,) = response.json()["sources"]
        profiles = source["operatives"][0]["profiles"]
    else:
        response = _graphql(server, document)
        assert response.status_code == 200 and "errors" not in response.json(), response.text[:300]
        profiles = response.json()["data"]["importProfiles"]["operatives"][0]["profiles"]
    assert len(profiles) == 44 == len({p["name"] for p in profiles})
    # the figure: within 2 s (it was 13–15 s of CPU)
    assert server.cpu_seconds() - before < 2.0


def test_the_long_chain_is_an_answer_over_rest_and_graphql(server: Server) -> None:
    document = chain(2_000)
    rest = _multipart(server, "chain.cat", document)
    assert rest.status_code == 200, rest.text[:300]
    ((_, expected),) = import_documents([("chain.cat", document)])
    assert rest.json()["sources"] == [{"source": "chain.cat", **expected.as_json()}]
    single = httpx.post(server.url + "/v1/import", content=chain(50_000), timeout=120)
    assert single.status_code == 200, single.text[:300]
    graphql = _graphql(server, document)
    assert graphql.status_code == 200
    (operative,) = graphql.json()["data"]["importProfiles"]["operatives"]
    assert operative["profiles"] == [{"name": "Gun e1999"}]


def test_a_graph_over_budget_is_422_limit_exceeded(server: Server) -> None:
    document = fan_out(MAX_EDGES)
    rest = _multipart(server, "fan.cat", document)
    assert rest.status_code == 422, rest.text[:300]
    error = rest.json()["error"]
    assert (error["code"], error["field"], error["limit"]) == ("LIMIT_EXCEEDED", "file", MAX_EDGES)
    graphql = _graphql(server, document)
    assert graphql.status_code == 200
    extensions = graphql.json()["errors"][0]["extensions"]
    assert (extensions["code"], extensions["field"], extensions["limit"]) == (
        "LIMIT_EXCEEDED",
        "file",
        MAX_EDGES,
    )


@pytest.mark.parametrize("door", ["rest", "graphql"])
def test_healthz_answers_while_an_import_runs(server: Server, door: str) -> None:
    """The order of events, not their timing: /healthz is asked once the server has spent
    CPU on the import (it is under way), and answers before the import does."""
    document = heavy(19_000)
    events: list[str] = []
    start = server.cpu_seconds()

    def run() -> None:
        if door == "rest":
            response = httpx.post(server.url + "/v1/import", content=document, timeout=120)
        else:
            response = _graphql(server, document)
        assert response.status_code == 200
        events.append("import")

    importing = threading.Thread(target=run)
    importing.start()
    while server.cpu_seconds() - start < 0.3 and importing.is_alive():
        time.sleep(0.01)
    assert not events, "the import ended before /healthz could be asked"
    assert httpx.get(server.url + "/healthz", timeout=120).status_code == 200
    events.append("healthz")
    importing.join()
    assert events == ["healthz", "import"]
