"""Caches that cannot be poisoned (issue 34, findings 7–9): ETags, shared caches, Redis.

* One ETag per body: bodies that differ only in `ignoredRules` (or in a grid's shape) have
  different tags, and one body's tag revalidates no other.
* A keyed answer is `private` with `Vary: Authorization`; without keys, `public` as before.
* What Redis holds is not trusted: an entry not signed with `KILLMATH_CACHE_KEY` (a forged
  expectedDamage 999, the old unkeyed checksum) or signed but not of its answer's shape (an
  empty answer) is a miss, recomputed and overwritten, never a 5xx, and never kept in L1.

Against a real Redis (the tests' own db) and real servers; the canonical keys the entries
are planted under are computed here, by the same code the server runs.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import orjson
import pytest
import redis
from conftest import load_examples
from service_harness import SIGNER, Server, owned_redis, serving, without_service_members

from service import grid as grids
from service.cache import Signer, redis_key
from service.compute import prepare

IDENTITY = {"accept-encoding": "identity"}  # the body's own bytes, not a coding of them


@pytest.fixture(scope="module")
def stack() -> Iterator[tuple[Server, redis.Redis]]:
    """A server with Redis (and its L1) and a client of that Redis db."""
    with owned_redis() as url, serving(redis_url=url) as server:
        client = redis.Redis.from_url(url)
        yield server, client
        client.close()


def shoot(attacks: int, rules: str = "", **options: Any) -> dict[str, Any]:
    attacker: dict[str, Any] = {"attacks": attacks}
    if rules:
        attacker["weaponRules"] = rules
    return {"attacker": attacker, "defender": {"wounds": 9}, "options": options}


def post(server: Server, path: str, body: Any, **headers: str) -> httpx.Response:
    return httpx.post(server.url + path, json=body, headers={**IDENTITY, **headers})


# ------------------------------------------------------------------ one ETag per body


def test_bodies_that_differ_only_in_ignored_rules_have_their_own_etags(stack):
    """The issue's three bodies: one scenario, with no rules ignored, with `Bogus` ignored,
    with `Other 2` ignored (one canonical key). Each has its own tag; each tag gets a 304
    for its own body and a 200 for the others'."""
    server, _ = stack
    bodies = [
        shoot(4, "Lethal 5+"),
        shoot(4, "Lethal 5+", unknownRules="IGNORE"),
        shoot(4, "Lethal 5+, Bogus", unknownRules="IGNORE"),
        shoot(4, "Lethal 5+, Other 2", unknownRules="IGNORE"),
    ]
    answers = [post(server, "/v1/shoot", body) for body in bodies]
    assert all(a.status_code == 200 for a in answers)
    assert len({a.json()["canonicalKey"] for a in answers}) == 1
    assert len({a.content for a in answers}) == 4
    tags = [a.headers["etag"] for a in answers]
    assert len(set(tags)) == 4
    for i, body in enumerate(bodies):
        for j, tag in enumerate(tags):
            again = post(server, "/v1/shoot", body, **{"if-none-match": tag})
            assert again.status_code == (304 if i == j else 200), (i, j)
            if i != j:
                assert again.content == answers[i].content


def test_etags_are_one_to_one_with_bodies(stack):
    """Over REST shoot, fight, batch and grid, JSON and CSV, full and minimal: equal tags,
    equal bytes; different bytes, different tags."""
    server, _ = stack
    requests: list[tuple[str, Any, dict[str, str]]] = []
    for options in ({}, {"unknownRules": "IGNORE"}):
        for rules in ("Piercing 1", "Piercing 1, Bogus"):
            if "Bogus" in rules and not options:
                continue  # refused: unknown rule
            body = shoot(3, rules, **options)
            requests += [("/v1/shoot", body, {}), ("/v1/shoot", body, {"prefer": "return=minimal"})]
            requests.append(("/v1/batch", [{"mode": "shoot", **body}], {}))
            grid = {"attackers": [body["attacker"]], "defenders": [{}], "options": options}
            requests += [("/v1/grid", grid, {}), ("/v1/grid", grid, {"accept": "text/csv"})]
    fight = {"fighterA": {"attacks": 3, "weaponRules": "Brutal"}, "fighterB": {"wounds": 8}}
    requests.append(("/v1/fight", fight, {}))
    ignoring = {**fight, "fighterA": {"attacks": 3, "weaponRules": "Brutal, Bogus"}}
    requests.append(("/v1/fight", {**ignoring, "options": {"unknownRules": "IGNORE"}}, {}))
    by_tag: dict[str, bytes] = {}
    by_body: dict[tuple[str, bytes], str] = {}
    for path, body, headers in requests:
        answer = post(server, path, body, **headers)
        assert answer.status_code == 200, (path, answer.text)
        tag = answer.headers["etag"]
        assert by_tag.setdefault(tag, answer.content) == answer.content, (path, body)
        assert by_body.setdefault((path, answer.content), tag) == tag, (path, body)
    assert len(by_tag) == len(requests) - 2  # the CSV of a grid has no ignoredRules column


def test_grids_of_one_cell_list_but_another_shape_have_their_own_etags(stack):
    """Two attackers against one defender and one attacker against two defenders, all the
    same profiles: the same cells in the same order, but other indices in the body."""
    server, _ = stack
    a, d = {"attacks": 5}, {"wounds": 11}
    tall = {"attackers": [a, a], "defenders": [d]}
    wide = {"attackers": [a], "defenders": [d, d]}
    first, second = post(server, "/v1/grid", tall), post(server, "/v1/grid", wide)
    assert first.content != second.content
    assert first.headers["etag"] != second.headers["etag"]
    crossed = post(server, "/v1/grid", wide, **{"if-none-match": first.headers["etag"]})
    assert crossed.status_code == 200 and crossed.content == second.content


def test_catalog_reads_of_other_bodies_have_other_etags(stack):
    server, _ = stack
    a = httpx.get(server.url + "/v1/operatives?killTeam=kasrkin")
    b = httpx.get(server.url + "/v1/operatives?killTeam=kommandos")
    assert a.content != b.content and a.headers["etag"] != b.headers["etag"]
    crossed = httpx.get(
        server.url + "/v1/operatives?killTeam=kommandos",
        headers={"if-none-match": a.headers["etag"]},
    )
    assert crossed.status_code == 200


# ------------------------------------------------------------------ shared caches


def test_answers_without_keys_stay_public(stack):
    server, _ = stack
    answer = post(server, "/v1/shoot", shoot(2))
    assert answer.headers["cache-control"] == "public, max-age=86400, immutable"
    assert "authorization" not in answer.headers["vary"].lower()


KEY = "private-test-key-" + "x" * 16


def test_keyed_answers_are_private_and_vary_by_authorization():
    """With API keys, every answer and catalog read (200 and 304, plain and compressed) is
    `private` and varies by `Authorization`: no shared cache hands it to another caller."""
    auth = {"authorization": f"Bearer {KEY}"}
    requests = [
        ("POST", "/v1/shoot", shoot(2)),
        ("POST", "/v1/fight", {}),
        ("POST", "/v1/batch", [{"mode": "shoot"}]),
        ("POST", "/v1/grid", {"attackers": [{"attacks": n} for n in range(1, 9)],
                              "defenders": [{}]}),
        ("GET", "/v1/catalog", None),
    ]  # fmt: skip
    with serving(api_keys=KEY) as server, httpx.Client(base_url=server.url, headers=auth) as c:
        for method, path, body in requests:
            for encoding in ("identity", "gzip"):
                answer = c.request(method, path, json=body, headers={"accept-encoding": encoding})
                assert answer.status_code == 200, path
                again = c.request(
                    method, path, json=body,
                    headers={"accept-encoding": encoding, "if-none-match": answer.headers["etag"]},
                )  # fmt: skip
                assert again.status_code == 304, path
                for response in (answer, again):
                    control = response.headers["cache-control"]
                    assert control.startswith("private"), (path, control)
                    assert "public" not in control
                    vary = [v.strip().lower() for v in response.headers["vary"].split(",")]
                    assert "authorization" in vary, (path, vary)
        grid = c.post(path := "/v1/grid", json=requests[3][2], headers={"accept-encoding": "gzip"})
        assert grid.headers["content-encoding"] == "gzip", path
        assert {"accept", "authorization", "accept-encoding"} <= {
            v.strip().lower() for v in grid.headers["vary"].split(",")
        }
        described = c.get("/openapi.json").json()["paths"]["/v1/shoot"]["post"]["responses"]
        assert described["200"]["headers"]["Cache-Control"]["schema"]["const"].startswith("private")


# ------------------------------------------------------------------ Redis entries


def _checksummed(cache_key: str, output: dict[str, Any]) -> bytes:
    """An entry in the format before the MAC: an unkeyed blake2b anyone can compute."""
    payload = orjson.dumps({"k": cache_key, "v": output})
    return hashlib.blake2b(payload, digest_size=16).hexdigest().encode() + payload


def _refused(server: Server, kind: str) -> float:
    return server.metric("killmath_redis_refused_total", kind=kind)


FORGERIES = {
    "unkeyed checksum": (6, _checksummed),  # what anyone could write at 332adde
    "another secret": (7, Signer(b"not the secret").encode),
    "made-up MAC": (8, lambda key, output: b"0" * 32 + orjson.dumps({"k": key, "v": output})),
}


@pytest.mark.parametrize("forgery", FORGERIES)
def test_a_forged_entry_is_recomputed_overwritten_and_never_kept(stack, forgery):
    """The issue's figure: an answer with expectedDamage 999 planted in Redis before the
    scenario was ever asked for. Written without the secret it is not served: the answer
    is computed, correct, overwrites the entry, and is what L1 keeps (after FLUSHDB the L1
    answers the right numbers: at 332adde it answered 999)."""
    server, client = stack
    attacks, forge = FORGERIES[forgery]
    body = shoot(attacks)
    key = prepare({"mode": "shoot", **body}).key
    right = _expected(body)
    forged = {**right, "expectedDamage": 999.0}
    refused = _refused(server, "entry")
    client.set(redis_key(key), forge(key, forged))
    answer = post(server, "/v1/shoot", body)
    assert answer.status_code == 200
    assert answer.headers["cache-status"] == "killmath-redis; fwd=miss, killmath-lru; fwd=miss"
    assert without_service_members(answer.json()) == right
    assert _refused(server, "entry") == refused + 1
    assert eventually(lambda: SIGNER.decode(key, client.get(redis_key(key))) == right)
    client.flushdb()
    kept = post(server, "/v1/shoot", body)
    assert kept.headers["cache-status"] == "killmath-lru; hit"
    assert kept.content == answer.content


@pytest.mark.parametrize(
    "bad",
    [
        {},  # the empty answer
        {"expectedDamage": 999.0},  # members missing
        {"expectedDamage": "999", "killProbability": 1, "killProbabilityByRound": [1],
         "damageDistribution": []},  # a string for a number
    ],
    ids=["empty", "partial", "mistyped"],
)  # fmt: skip
def test_a_signed_entry_of_the_wrong_shape_is_a_miss(stack, bad):
    """Right MAC, wrong shape: on /v1/shoot and on /v1/grid (which read `expectedDamage`
    and the distribution of every cell: a 500 KeyError at 332adde), the answer is computed
    and correct, never a 5xx, and the entry is overwritten."""
    server, client = stack
    attacks = 14 + len(bad)  # a scenario of this test's own: nothing in L1 has it
    body = shoot(attacks)
    key = prepare({"mode": "shoot", **body}).key
    grid = {"attackers": [{"attacks": attacks}], "defenders": [{"wounds": 5}, {"wounds": 6}]}
    spec = grids.parse(grid, 100)
    cells = [job.key for job in grids.prepare_cells(spec)]
    assert len({key, *cells}) == 3
    for planted in (key, *cells):
        client.set(redis_key(planted), SIGNER.encode(planted, bad))
    refused = _refused(server, "shape")
    answer = post(server, "/v1/shoot", body)
    assert answer.status_code == 200
    assert without_service_members(answer.json()) == _expected(body)
    answered = post(server, "/v1/grid", grid)
    assert answered.status_code == 200, answered.text
    expected = [_expected(envelope)["expectedDamage"] for _, envelope in grids.envelopes(spec)]
    assert [cell["expectedDamage"] for cell in answered.json()["cells"]] == expected
    assert _refused(server, "shape") == refused + 3
    for planted in (key, *cells):
        assert eventually(
            lambda planted=planted: (
                SIGNER.decode(planted, client.get(redis_key(planted))) not in (None, bad)
            )
        )


def test_every_modes_answers_fit_their_models():
    """What the service stores, it reads back: every mode's answers (plain and exact) pass
    the shape check the Redis tier applies."""
    envelopes = [
        {"mode": "shoot", "options": {"exact": True, "rounds": 2}},
        {"mode": "shoot", "attacker": {"weaponRules": "Saturate"},
         "options": {"unknownRules": "IGNORE"}},
        {"mode": "fight", "options": {"exact": True}},
    ]  # fmt: skip
    for ruleset in ("kt2013", "kt2018", "threshold"):
        envelopes += [example["scenario"] for example in load_examples(ruleset)]
    for envelope in envelopes:
        job = prepare(envelope)
        output = job.mode.evaluate(job.scenario)
        assert job.mode.fits(output), envelope
        assert job.mode.fits(orjson.loads(orjson.dumps(output))), envelope
        assert not job.mode.fits({}), envelope


def eventually(condition: Callable[[], bool]) -> bool:
    """Poll, for at most 3 s: an answer is written to Redis just after it is sent."""
    deadline = time.monotonic() + 3.0
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _expected(body: dict[str, Any]) -> dict[str, Any]:
    """The engine's own answer to a shoot body, computed here without any cache."""
    job = prepare({"mode": "shoot", **body})
    return job.mode.evaluate(job.scenario)


def test_the_cache_key_is_a_secret_and_never_empty(monkeypatch):
    from service.settings import Settings

    monkeypatch.setenv("KILLMATH_CACHE_KEY", "hunter2-cache")
    settings = Settings()
    assert settings.cache_key is not None
    assert settings.cache_key.get_secret_value() == "hunter2-cache"
    assert "hunter2" not in repr(settings)
    monkeypatch.setenv("KILLMATH_CACHE_KEY", "")
    with pytest.raises(ValueError, match="cache_key") as error:
        Settings()
    assert "hunter2" not in str(error.value)
