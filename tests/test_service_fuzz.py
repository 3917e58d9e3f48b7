"""Fuzzing a real `killmath serve` (issue 8): schemathesis over `/openapi.json` and over
`/graphql`, at least 10,000 requests in all.

Every answer must be below 500, and every error well formed:

* REST: an error body matches the document's own `Error` schema (`service_errors`), and every
  answer conforms to the document (declared status, content type and response schema: the
  typed answer models of `schema.answers`, issue 15);
  negative examples (data the document forbids) must be refused with a 4xx;
* GraphQL: the answer is a JSON object; an error raised while executing (it has a `path`)
  carries the §12 members in `extensions` — one without them is a resolver fault that
  graphql-core turned into an error, i.e. a hidden 500; a document refused before execution
  (syntax, validation, depth/alias/token limits) has a message and no `data`.

Generation is derandomised and no example database is written, so every run sends the same
requests. Operations run as separate jobs in a few worker processes: generating examples is
CPU-bound Python, and one sequential client would leave the server idle half the time. The
examples per operation are weighted by what an example costs (a grid is generated and
computed far more slowly than a query string); the test asserts the request total, so a
change that makes generation run dry fails instead of silently fuzzing less.
"""

from __future__ import annotations

import functools
import multiprocessing
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

import requests
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import Case, GenerationMode, Response
from schemathesis.checks import (
    content_type_conformance,
    negative_data_rejection,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from service_errors import ErrorShape
from service_harness import Server

MIN_REQUESTS = 10_000
WORKERS = 3

# (positive, negative) examples per operation, weighted by what an example costs to generate
# (client CPU dominates: a query string takes ~3 ms, a grid ~25 ms, a negative example 2-3x
# its positive one); operations not named get DEFAULT_EXAMPLES. About 11,100 requests.
DEFAULT_EXAMPLES = (120, 120)
EXAMPLES: dict[str, tuple[int, int]] = {
    # cheap, and parsers of free text: fuzzed hardest
    "GET /v1/weapon-rules": (1800, 200),
    "GET /v1/operatives": (1200, 300),
    "GET /v1/operatives/{id}": (500, 0),  # a free string: nothing to negate
    "GET /v1/weapon-profiles/{id}": (500, 0),
    "POST /v1/import": (800, 150),
    "POST /v1/shoot": (800, 300),
    "POST /v1/fight": (500, 100),
    # arrays of arbitrary objects: slow to generate, and answered by real computation
    "POST /v1/batch": (150, 60),
    "POST /v1/grid": (120, 80),
    "Query.killTeams": (100, 100),
    "Query.weaponRules": (200, 200),
    "Query.importProfiles": (200, 200),
    "Query.matchups": (100, 100),
    "Query.matchupGrid": (60, 40),
}
MODES = (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)

# a batch answers 200 with each bad envelope's error in its place (the CLI's contract)
IN_PLACE_ERRORS = {"/v1/batch"}
REST_CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


def fuzz_settings(examples: int) -> settings:
    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate, Phase.shrink],
        # generating big bodies is slow, and big bodies are the point
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.filter_too_much,
        ],
    )


@dataclass(frozen=True)
class Job:
    """One operation fuzzed in one generation mode."""

    api: str  # "rest" or "graphql"
    label: str
    mode: GenerationMode
    examples: int


@dataclass
class Outcome:
    job: Job
    sent: Counter[int]  # requests by status
    seconds: float
    failure: str | None


@functools.cache
def load(api: str, url: str) -> tuple[schemathesis.BaseSchema, ErrorShape]:
    """The schema of one API and the error shape, once per process."""
    if api == "rest":
        schema = schemathesis.openapi.from_url(url + "/openapi.json")
    else:
        schema = schemathesis.graphql.from_url(url + "/graphql")
    return schema, ErrorShape(requests.get(url + "/openapi.json", timeout=10).json())


@functools.cache
def session() -> requests.Session:
    return requests.Session()


def judge_rest(errors: ErrorShape, case: Case, response: Response) -> None:
    assert response.status_code < 500, response.text[:1000]
    if response.status_code >= 400:
        assert response.headers["content-type"] == ["application/json"], response.headers
        problems = errors.body_problems(response.json())
        assert not problems, f"{response.status_code} {response.text[:1000]}: {problems}"
    checks = REST_CHECKS
    negative = case.meta is not None and case.meta.generation.mode.is_negative
    if negative and case.operation.path not in IN_PLACE_ERRORS:
        checks = [*checks, negative_data_rejection]
    case.validate_response(response, checks=checks)


def judge_graphql(errors: ErrorShape, case: Case, response: Response) -> None:
    assert response.status_code < 500, response.text[:1000]
    answer: Any = response.json()
    assert isinstance(answer, dict), answer
    assert set(answer) <= {"data", "errors", "extensions"}, answer
    for error in answer.get("errors", []):
        assert isinstance(error.get("message"), str), error
        if "path" in error:
            # raised by a resolver: only the service's own errors may come out of one
            problems = errors.members_problems(error.get("extensions"))
            assert not problems, f"{error}: {problems}"
        else:
            assert answer.get("data") is None, answer
    if not answer.get("errors"):
        assert isinstance(answer.get("data"), dict), answer


JUDGES: dict[str, Callable[[ErrorShape, Case, Response], None]] = {
    "rest": judge_rest,
    "graphql": judge_graphql,
}


def run_job(url: str, job: Job) -> Outcome:
    """Fuzz one operation in one mode (in a worker process)."""
    schema, errors = load(job.api, url)
    (operation,) = [r.ok() for r in schema.get_all_operations() if r.ok().label == job.label]
    judge = JUDGES[job.api]
    sent: Counter[int] = Counter()

    @given(case=operation.as_strategy(generation_mode=job.mode))
    @fuzz_settings(job.examples)
    def run(case: Case) -> None:
        response = case.call(session=session(), timeout=60)
        sent[response.status_code] += 1
        try:
            judge(errors, case, response)
        except AssertionError as exc:  # schemathesis' own failures carry the curl already
            raise AssertionError(f"{exc}\nReproduce with: {case.as_curl_command()}") from None

    started = time.perf_counter()
    failure = None
    try:
        run()
    except Unsatisfiable:
        pass  # nothing to negate (no parameters, or only free strings): what could be, was sent
    except (Exception, BaseExceptionGroup) as exc:  # reported with hypothesis' reproduction
        failure = f"{job.label} ({job.mode.value}):\n{exc}"
    return Outcome(job, sent, time.perf_counter() - started, failure)


def jobs(url: str) -> list[Job]:
    """Every operation of both APIs in both modes, the longest first (for the pool)."""
    found = []
    for api in ("rest", "graphql"):
        schema, _ = load(api, url)
        for result in schema.get_all_operations():
            label = result.ok().label
            for mode, examples in zip(MODES, EXAMPLES.get(label, DEFAULT_EXAMPLES), strict=True):
                if examples:
                    found.append(Job(api, label, mode, examples))
    return sorted(found, key=lambda job: -job.examples)


def test_openapi_document_is_valid_openapi_31(server: Server) -> None:
    """schemathesis refuses a document that is not valid OpenAPI 3.1 (its meta-schema)."""
    schema, _ = load("rest", server.url)
    schema.validate()
    labels = {result.ok().label for result in schema.get_all_operations()}
    assert {"POST /v1/shoot", "POST /v1/grid", "GET /v1/operatives/{id}"} <= labels


def test_fuzz_rest_and_graphql(server: Server) -> None:
    started = time.perf_counter()
    todo = jobs(server.url)
    # fork: the workers inherit this module (and the server's URL) without re-importing
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(WORKERS, mp_context=context) as pool:
        outcomes = list(pool.map(run_job, [server.url] * len(todo), todo))
    elapsed = time.perf_counter() - started
    failures = [o.failure for o in outcomes if o.failure]
    assert not failures, "\n\n".join(failures)
    totals = Counter[str]()
    for outcome in outcomes:
        totals[outcome.job.api] += sum(outcome.sent.values())
        print(
            f"{outcome.job.label} {outcome.job.mode.value}: {dict(outcome.sent)} "
            f"in {outcome.seconds:.1f} s"
        )
    print(f"fuzz: {dict(totals)} requests in {elapsed:.1f} s")
    assert totals.total() >= MIN_REQUESTS
    assert min(totals.values()) >= 2_000  # neither API is left out
