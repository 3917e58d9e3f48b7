"""Access control end to end: API keys, per-key token buckets (in-process and in Redis, shared
by replicas), the introspection switch and CORS — against real uvicorn servers and the real
Redis. Buckets refill at 0.01 token/s here, so no test depends on how fast the machine is:
a drained bucket stays drained for the length of the file.
"""

from __future__ import annotations

import asyncio
import math
import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import redis
import yaml
from service_harness import controlled_redis, free_port, serving

from service import costs
from service.auth import Buckets, key_id, sane
from service.compute import prepare
from service.settings import Settings

# one key per test of the shared server, so each test's bucket is its own
KEYS = {name: f"{name}-{'k' * 24}" for name in ("rest", "graphql", "cors", "limit", "spare")}
SLOW = {"rate_limit": 0.01}  # a token per 100 s: nothing refills during the tests
SHOOT = {"attacker": {"attacks": 4}, "defender": {"save": 3}}
SHOOT_TOKENS = costs.of_job(prepare(SHOOT, "shoot")).tokens  # its estimate (service.costs)
RULESETS = "{ rulesets { name } }"
INTROSPECTION = "{ __schema { queryType { name } } }"
APP = "https://app.example"


def bearer(name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {KEYS[name]}"}


def graphql(url: str, query: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(url + "/graphql", json={"query": query}, headers=headers)


def assert_error(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    body = response.json()
    if "error" not in body:  # on /graphql, a GraphQL response carrying the same members
        (graphql_error,) = body["errors"]
        error = graphql_error["extensions"]
        assert graphql_error["message"] == error["message"]
    else:
        error = body["error"]
    assert error["code"] == code
    assert set(error) == {"code", "field", "message"}
    return error


@pytest.fixture(scope="module")
def guarded() -> Iterator:
    """One server with everything on: keys, in-process buckets of 5, no introspection, CORS."""
    with serving(
        api_keys=",".join(KEYS.values()),
        rate_limit_burst=5,
        graphql_introspection="false",
        cors_origins=f"{APP}, http://localhost:3000",
        log_level="INFO",
        **SLOW,
    ) as server:
        yield server


def test_access_control_is_off_by_default():
    with serving() as server:
        assert httpx.post(server.url + "/v1/shoot", json=SHOOT).status_code == 200
        reply = graphql(server.url, INTROSPECTION).json()
        assert reply["data"] == {"__schema": {"queryType": {"name": "Query"}}}
        assert reply["extensions"] == {"cost": {"charged": 1}}  # reported, never charged
        response = httpx.get(server.url + "/v1/rulesets", headers={"Origin": APP})
        assert response.status_code == 200
        assert "access-control-allow-origin" not in response.headers
        document = httpx.get(server.url + "/openapi.json").json()
        assert "security" not in document
        assert "securitySchemes" not in document["components"]
        # the codes are the service's, whatever its settings: a client generated from a
        # server without keys still reads the 401 of one with keys
        error = document["components"]["schemas"]["FieldError"]
        assert "UNAUTHORIZED" in error["properties"]["code"]["enum"]
        assert "401" not in document["paths"]["/v1/shoot"]["post"]["responses"]


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [("POST", "/v1/shoot", SHOOT), ("POST", "/graphql", {"query": RULESETS})],
)
def test_a_missing_or_wrong_key_is_401(guarded, method, path, body):
    cases = [
        ({}, "missing", 'Bearer realm="killmath"'),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, "missing", 'Bearer realm="killmath"'),
        ({"Authorization": "Bearer " + KEYS["rest"][:-1]}, "invalid", "invalid_token"),
        ({"Authorization": "Bearer " + KEYS["rest"] + "x"}, "invalid", "invalid_token"),
    ]
    for headers, reason, challenge in cases:
        before = guarded.metric("killmath_auth_failures_total", reason=reason)
        response = httpx.request(method, guarded.url + path, json=body, headers=headers)
        error = assert_error(response, 401, "UNAUTHORIZED")
        assert error["field"] == "Authorization"
        assert challenge in response.headers["www-authenticate"]
        assert response.headers["www-authenticate"].startswith("Bearer")
        assert guarded.metric("killmath_auth_failures_total", reason=reason) == before + 1


def test_the_right_key_is_served(guarded):
    shot = httpx.post(guarded.url + "/v1/shoot", json=SHOOT, headers=bearer("rest"))
    assert shot.status_code == 200
    assert shot.json()["expectedDamage"] > 0
    # the scheme is case-insensitive (RFC 7235)
    lower = {"Authorization": "bearer " + KEYS["rest"]}
    assert httpx.get(guarded.url + "/v1/rulesets", headers=lower).status_code == 200


def test_probes_metrics_and_the_api_document_need_no_key(guarded):
    for path in ("/healthz", "/readyz", "/metrics", "/openapi.json"):
        assert httpx.get(guarded.url + path).status_code == 200, path
    # anything else is protected, even a path no route serves
    assert_error(httpx.get(guarded.url + "/v1/no-such-route"), 401, "UNAUTHORIZED")


def test_the_api_document_declares_the_bearer_scheme(guarded):
    document = httpx.get(guarded.url + "/openapi.json").json()
    assert document["components"]["securitySchemes"]["apiKey"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "KILLMATH_API_KEYS",
    }
    assert document["security"] == [{"apiKey": []}]
    shoot = document["paths"]["/v1/shoot"]["post"]["responses"]
    assert {"401", "429"} <= shoot.keys()
    assert "Retry-After" in shoot["429"]["headers"]
    assert document["paths"]["/healthz"]["get"]["security"] == []
    codes = document["components"]["schemas"]["FieldError"]["properties"]
    assert {"UNAUTHORIZED", "RATE_LIMITED"} <= set(codes["code"]["enum"])


def test_an_empty_bucket_is_429_with_retry_after(guarded):
    for _ in range(5):
        response = httpx.get(guarded.url + "/v1/rulesets", headers=bearer("limit"))
        assert response.status_code == 200
    limited = httpx.post(guarded.url + "/v1/shoot", json=SHOOT, headers=bearer("limit"))
    assert_error(limited, 429, "RATE_LIMITED")
    # whole seconds, rounded up: the shoot's tokens are about 100 s each away at 0.01 token/s
    assert 1 <= int(limited.headers["retry-after"]) <= 100 * SHOOT_TOKENS
    assert graphql(guarded.url, RULESETS, bearer("limit")).status_code == 429
    # buckets are per key
    assert httpx.get(guarded.url + "/v1/rulesets", headers=bearer("spare")).status_code == 200
    name = key_id(KEYS["limit"])
    assert guarded.metric("killmath_rate_limited_total", key=name) == 2
    # probes never queue behind a bucket
    assert httpx.get(guarded.url + "/healthz", headers=bearer("limit")).status_code == 200


def test_introspection_can_be_switched_off(guarded):
    headers = bearer("graphql")
    for query in (INTROSPECTION, '{ __type(name: "Query") { name } }'):
        reply = graphql(guarded.url, query, headers).json()
        assert "data" not in reply  # a request error: refused before execution
        assert "introspection has been disabled" in reply["errors"][0]["message"]
    fine = graphql(guarded.url, "{ rulesets { name } __typename }", headers).json()
    assert "errors" not in fine
    assert {"name": "kt2024"} in fine["data"]["rulesets"]
    # GraphiQL needs introspection, so it is gone too
    page = httpx.get(guarded.url + "/graphql", headers={**headers, "Accept": "text/html"})
    assert page.status_code == 404
    assert "/graphql/schema.graphql" in page.json()["errors"][0]["message"]


def test_cors_allows_listed_origins_only(guarded):
    preflight = {"Access-Control-Request-Method": "POST"}
    preflight["Access-Control-Request-Headers"] = "authorization, content-type"
    # a preflight carries no key, and is answered all the same
    allowed = httpx.options(guarded.url + "/graphql", headers={"Origin": APP, **preflight})
    assert allowed.status_code == 200
    assert allowed.headers["access-control-allow-origin"] == APP
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    refused = httpx.options(
        guarded.url + "/graphql", headers={"Origin": "https://evil.example", **preflight}
    )
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers

    ok = graphql(guarded.url, RULESETS, {"Origin": APP, **bearer("cors")})
    assert ok.status_code == 200
    assert ok.headers["access-control-allow-origin"] == APP
    other = graphql(guarded.url, RULESETS, {"Origin": "https://evil.example", **bearer("cors")})
    assert "access-control-allow-origin" not in other.headers
    # a refusal reaches the page too, with the header it needs to read Retry-After
    denied = httpx.get(guarded.url + "/v1/rulesets", headers={"Origin": APP})
    assert denied.status_code == 401
    assert denied.headers["access-control-allow-origin"] == APP
    assert "retry-after" in denied.headers["access-control-expose-headers"].lower()


def test_keys_are_never_logged(guarded):
    """Runs last against `guarded`: every earlier test's requests are in its log."""
    httpx.get(guarded.url + "/v1/rulesets", headers=bearer("spare"))
    text = guarded.log_text()
    assert "access control on" in text
    assert key_id(KEYS["rest"]) in text  # the start-up line names keys by id
    for key in KEYS.values():
        assert key not in text
        assert key[:-1] not in text  # nor the wrong key the 401 test sent


def test_replicas_share_one_bucket_in_redis(redis_url):
    # a generous Redis timeout: this is about sharing one bucket, and a call slower than the
    # default 0.1 s (a loaded machine) would rightly fall back to the replica's own bucket
    settings = {
        "api_keys": f"{KEYS['limit']},{KEYS['spare']}",
        "rate_limit_burst": 4,
        "redis_timeout": 5,
        **SLOW,
    }
    with (
        serving(redis_url=redis_url, **settings) as one,
        serving(redis_url=redis_url, **settings) as two,
    ):
        for server in (one, two):  # each replica done starting and answered by Redis first
            assert httpx.get(server.url + "/readyz").json()["redis"] == "ok"
            started = httpx.post(server.url + "/graphql", json={"query": RULESETS},
                                 headers=bearer("spare"))  # fmt: skip
            assert started.status_code == 200, started.text
        for server in (one, two, one, two):
            response = httpx.get(server.url + "/v1/rulesets", headers=bearer("limit"))
            assert response.status_code == 200
        # four tokens taken, two from each replica: the bucket both share is empty
        for server in (one, two):
            limited = httpx.post(server.url + "/v1/shoot", json=SHOOT, headers=bearer("limit"))
            assert_error(limited, 429, "RATE_LIMITED")
            assert 1 <= int(limited.headers["retry-after"]) <= 100 * SHOOT_TOKENS
        assert httpx.get(two.url + "/v1/rulesets", headers=bearer("spare")).status_code == 200
        for server in (one, two):
            assert server.metric("killmath_redis_errors_total", kind="circuit_open") == 0
            # a call that failed was rightly taken from the replica's own bucket: say so
            assert "redis rate limit" not in server.log_text(), server.log_text()
    with redis.Redis.from_url(redis_url) as client:
        buckets = sorted(client.keys("killmath:rate:*"))
        assert buckets == sorted(
            f"killmath:rate:{{{key_id(KEYS[name])}}}".encode() for name in ("limit", "spare")
        )
        # a bucket lives until it would be full again (burst / rate = 400 s), then expires
        assert all(0 < client.ttl(bucket) <= 401 for bucket in buckets)
        stored = b"".join(k + b"".join(client.hgetall(k).values()) for k in client.keys("*"))
    assert not any(key.encode() in stored for key in KEYS.values())


def test_an_unreachable_redis_falls_back_to_the_process_bucket():
    dead = f"redis://127.0.0.1:{free_port()}/0"
    burst = SHOOT_TOKENS + 1  # the shoot, then one catalog read
    with serving(redis_url=dead, api_keys=KEYS["limit"], rate_limit_burst=burst, **SLOW) as server:
        shot = httpx.post(server.url + "/v1/shoot", json=SHOOT, headers=bearer("limit"))
        assert shot.status_code == 200  # neither the cache nor the limiter needs Redis
        assert httpx.get(server.url + "/v1/rulesets", headers=bearer("limit")).status_code == 200
        limited = httpx.get(server.url + "/v1/rulesets", headers=bearer("limit"))
        assert_error(limited, 429, "RATE_LIMITED")
        errors = [
            server.metric("killmath_redis_errors_total", kind=kind)
            for kind in ("ConnectionError", "circuit_open")
        ]
        assert sum(errors) >= 3


def test_a_paused_redis_falls_back_and_the_shared_bucket_comes_back():
    """A Redis that accepts connections but never answers costs a request one time limit
    and the process's bucket decides meanwhile; once Redis answers again (after the
    breaker's cool-down) the shared buckets decide again. (A call that timed out may still
    take its token when Redis wakes, so the shared bucket's count is not checked after.)"""

    def status(key: str) -> int:
        return httpx.get(server.url + "/v1/rulesets", headers=bearer(key)).status_code

    settings = {
        "api_keys": f"{KEYS['limit']},{KEYS['spare']}",
        "rate_limit_burst": 3,
        "breaker_cooldown": 0.5,
    }
    with controlled_redis() as rp, serving(redis_url=rp.url, **settings, **SLOW) as server:
        client = redis.Redis.from_url(rp.url)
        assert status("limit") == 200
        rp.pause()
        try:
            # the process's own bucket, full (3), decides while Redis sleeps
            assert [status("limit") for _ in range(4)] == [200, 200, 200, 429]
            assert server.metric("killmath_redis_errors_total", kind="TimeoutError") >= 1
        finally:
            rp.resume()
        time.sleep(1.0)  # past the cool-down: the next call probes Redis again
        assert client.keys(f"killmath:rate:{{{key_id(KEYS['spare'])}}}") == []
        assert status("spare") == 200
        assert client.exists(f"killmath:rate:{{{key_id(KEYS['spare'])}}}") == 1
        client.close()


def test_lists_are_comma_separated_and_keys_stay_secret(monkeypatch):
    monkeypatch.setenv("KILLMATH_API_KEYS", " first-key , second-key,,")
    monkeypatch.setenv("KILLMATH_CORS_ORIGINS", "https://a.example,http://localhost:3000")
    settings = Settings()
    assert [k.get_secret_value() for k in settings.api_keys] == ["first-key", "second-key"]
    assert settings.cors_origins == ["https://a.example", "http://localhost:3000"]
    assert "first-key" not in repr(settings)
    monkeypatch.setenv("KILLMATH_CORS_ORIGINS", "https://a.example/")
    with pytest.raises(ValueError, match="not an origin"):
        Settings()
    monkeypatch.setenv("KILLMATH_CORS_ORIGINS", "")
    # a settings error names the field, never the value given (keys, Redis URLs)
    monkeypatch.setenv("KILLMATH_REDIS_TIMEOUT", "redis://:hunter2@example")
    with pytest.raises(ValueError, match="redis_timeout") as error:
        Settings()
    assert "hunter2" not in str(error.value)


def test_prod_turns_introspection_off_and_may_take_keys_from_the_secret():
    if shutil.which("kubectl") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("CI=true and kubectl is missing")
        pytest.skip("kubectl is not installed")
    overlay = Path(__file__).resolve().parents[1] / "deploy" / "k8s" / "overlays" / "prod"
    rendered = subprocess.run(
        ["kubectl", "kustomize", str(overlay)], capture_output=True, text=True, check=True
    ).stdout
    docs = [doc for doc in yaml.safe_load_all(rendered) if doc]
    (config,) = [d for d in docs if d["kind"] == "ConfigMap"]
    assert config["data"]["KILLMATH_GRAPHQL_INTROSPECTION"] == "false"
    (deployment,) = [d for d in docs if d["kind"] == "Deployment"]
    env = {e["name"]: e for e in deployment["spec"]["template"]["spec"]["containers"][0]["env"]}
    source = env["KILLMATH_API_KEYS"]["valueFrom"]["secretKeyRef"]
    assert source["optional"] is True


POISONS = {
    "tokens -inf": ("-inf", None),  # the figure: every request a 500 at 332adde
    "tokens nan": ("nan", None),
    "tokens inf": ("inf", None),
    "tokens negative": ("-5", None),
    "tokens not a number": ("lots", None),
    "time in the future": ("0", 1e6),  # at 332adde: an empty bucket that never refills
    "time nan": ("0", "nan"),
    "time -inf": ("0", "-inf"),
}


def test_a_poisoned_shared_bucket_is_reset_to_full_never_a_500(redis_url):
    """A bucket state in Redis that no take could have left is read as a full bucket: the
    request is answered (200, finite RateLimit fields), the state stored is sane again, and
    the bucket then limits as it should (a 429 with a finite Retry-After once drained)."""
    name = key_id(KEYS["limit"])
    bucket = f"killmath:rate:{{{name}}}"
    settings = {"api_keys": KEYS["limit"], "rate_limit_burst": 3}
    with serving(redis_url=redis_url, **settings, **SLOW) as server:
        client = redis.Redis.from_url(redis_url)

        def status() -> httpx.Response:
            return httpx.get(server.url + "/v1/rulesets", headers=bearer("limit"))

        for poison, (tokens, at) in POISONS.items():
            seconds, micros = client.time()
            now = seconds + micros / 1e6
            stamp = now + at if isinstance(at, float) else (at or now)
            client.hset(bucket, mapping={"tokens": tokens, "at": str(stamp)})
            answers = [status() for _ in range(4)]
            assert [a.status_code for a in answers] == [200, 200, 200, 429], poison
            assert [a.headers["ratelimit"].split(";")[1] for a in answers] == [
                "r=2", "r=1", "r=0", "r=0"
            ], poison  # fmt: skip
            assert int(answers[-1].headers["retry-after"]) >= 1, poison
            stored = float(client.hget(bucket, "tokens"))
            assert 0 <= stored < 1, poison
        assert server.metric("killmath_redis_refused_total", kind="bucket") == len(POISONS)
        client.close()


def test_a_poisoned_local_bucket_is_reset_to_full():
    """The process's own buckets read their state by the same rule."""
    now = time.monotonic()
    assert sane(2.5, now - 1, now, 3) == (2.5, now - 1)
    assert sane(4.0, now, now, 3) == (4.0, now)  # a lowered burst: the take clamps it
    for tokens, at in ((-math.inf, now), (math.nan, now), (math.inf, now), (1.0, now + 60),
                       (1.0, math.nan), (-1.0, now)):  # fmt: skip
        assert sane(tokens, at, now, 3) == (3.0, now)

    async def drained() -> list[float]:
        buckets = Buckets(rate=0.01, burst=3)
        buckets._state["k"] = (-math.inf, time.monotonic())  # as a bug might leave it
        return [(await buckets.take("k")).remaining for _ in range(3)]

    assert [math.floor(r) for r in asyncio.run(drained())] == [2, 1, 0]
