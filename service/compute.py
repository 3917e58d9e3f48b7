"""Turning envelopes into answers: validate, key, look up, compute once, store.

Engine work runs in a bounded thread pool so the event loop keeps answering (health checks,
cache hits) while a grid computes. Misses are single-flight per process: the first request to
miss a key starts its computation (a `Flight`: a task of its own) and every concurrent request
for that key awaits the same future. A flight counts the requests waiting on it; when the last
one leaves (its client disconnected and `service.disconnect` cancelled it, or its time budget
ran out) the flight's stop flag is set (`engine.interrupt`): the engine's loops poll it and the
pool thread is free again within a fraction of a second. A request that runs out of its budget
waits for that before it answers TIMEOUT, so a TIMEOUT means the work has stopped; a flight
another request still waits on goes on for that one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

import orjson

from engine import collector, cost, interrupt
from engine.errors import InputError
from schema import references, registry
from schema.registry import Mode
from service import metrics
from service.admission import Admission
from service.cache import Cache, Output, SizedLRU, Tier, digest, footprint

T = TypeVar("T")

# scenarios per pool task: amortises the hand-off without starving other requests for long
CHUNK = 32
# how long a request that gave up waits for its abandoned flight's pool thread to stop: the
# engine polls its flag every node of its loops and between scenarios, well within this
STOP_GRACE = 5.0


class BudgetExceeded(Exception):
    """The request's time budget ran out (HTTP 503, code TIMEOUT)."""

    def __init__(self, budget: float) -> None:
        super().__init__(f"the computation exceeded the time budget of {budget:g} s")
        self.budget = budget

    def as_json(self) -> dict[str, object]:
        return {"code": "TIMEOUT", "field": "", "message": str(self)}


@dataclass(frozen=True)
class Job:
    """A validated scenario and its canonical cache key."""

    mode: Mode
    scenario: Any
    key: str
    ignored: tuple[str, ...] | None = None  # rules left out under unknownRules IGNORE

    @cached_property
    def work(self) -> cost.Work:
        """The engine's estimate of the evaluation (`engine.cost`), from the scenario alone."""
        return cost.estimate(self.mode.ruleset, self.mode.name, self.scenario)


@dataclass(frozen=True)
class Result:
    key: str
    output: Output
    tier: Tier | None
    """The cache tier that had the answer; None when it was computed for this request."""
    ignored: tuple[str, ...] | None = None

    @property
    def cached(self) -> bool:
        return self.tier is not None

    def body(self) -> Output:
        """The engine's answer, with `ignoredRules` when the request asked for IGNORE."""
        return references.with_ignored(self.output, self.ignored)


def prepare(envelope: Any, mode: str | None = None) -> Job:
    """Expand catalog references, validate, key. Raises InputError.

    The cache key is that of the scenario with the rules applied; the rules ignored belong
    to this request, not to the cached answer, so they travel on the job."""
    expanded, ignored = references.expand_rules(envelope)
    handler, scenario = registry.resolve(expanded, mode)
    job = Job(handler, scenario, handler.cache_key(scenario), ignored)
    job.work  # noqa: B018 - estimated here, where preparing runs (the pool, for bulk requests)
    return job


LOOP_BODY_BYTES = 8192
"""Bodies up to this size are prepared on the event loop (memoised: microseconds, less than a
hop to the pool); larger ones in the pool (`Computer.prepare`, `service.http.parsed_body`)."""
PREPARED_BYTES = 32 * 2**20
"""The byte budget of `prepare_raw`'s memo: a prepared job is one or two KB."""
LARGEST_JOB = 64 * 1024
"""A job above this is not memoised: one that big holds many ignored rules' names, a body
that is rare and parsed at a cost its memo would not repay in memory."""
_PREPARED = SizedLRU(PREPARED_BYTES, LARGEST_JOB)


def prepare_raw(raw: bytes, mode: str | None = None) -> Job:
    """`prepare` for a JSON body, memoised on a digest of its bytes: a repeated body skips
    parsing, validation and canonicalisation (catalog data is fixed for the process's life).
    The memo holds the job and the digest, never the body, within `PREPARED_BYTES`.

    The bytes are the only safe memo key: engine scenarios may leave fields out of their
    equality (kt2024's Defender ignores `wounds`, which only the kill probability reads), so
    equal scenarios can still have different canonical keys.
    """
    memo = digest(mode or "", raw)
    found: Job | None = _PREPARED.get(memo)
    if found is None:
        found = _prepare_body(raw, mode)
        _PREPARED.keep(memo, found, job_size(found))
    return found


KEY_BYTES = 2
JOB_BYTES = 1024
"""A job holds at most `KEY_BYTES` per character of its canonical key plus `JOB_BYTES`
(then the rules it ignores): the key spells every field the scenario has, and over every
spec example and 2,300 random shoots and fights (`footprint` of job, scenario and key) the
most was 2 per character plus 661 bytes. Sizing a job so never under-counts it and costs
nothing: walking the scenario with `footprint` cost ~30 µs a fresh body, as much as the
shoot's engine work."""


def job_size(job: Job) -> int:
    """The bytes a memoised job holds of its own (its mode is the registry's, shared), bounded
    from its canonical key and the rules it ignores."""
    return JOB_BYTES + KEY_BYTES * len(job.key) + footprint(job.ignored)


def loads(raw: bytes) -> Any:
    """The parsed JSON of a body, or INVALID_INPUT naming what is wrong with it."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise InputError("INVALID_INPUT", "", f"the body is not valid JSON: {exc}") from None


def _prepare_body(raw: bytes, mode: str | None) -> Job:
    return prepare(loads(raw), mode)


def encode(envelope: Any) -> bytes:
    """A decoded envelope as JSON bytes again (`prepare_raw`'s input and memo key).

    orjson reads 1024 levels of nesting but writes 254, and writes 64-bit integers only
    where GraphQL's JSON scalar takes any: what cannot be written is the client's error.
    """
    try:
        return orjson.dumps(envelope)
    except orjson.JSONEncodeError as exc:
        raise InputError("INVALID_INPUT", "", f"the envelope cannot be read: {exc}") from None


def prepare_each(envelopes: Sequence[Any], mode: str | None = None) -> list[Job | InputError]:
    """`prepare` for many envelopes; a bad one yields its error in place."""
    jobs: list[Job | InputError] = []
    for envelope in envelopes:
        try:
            jobs.append(prepare_raw(encode(envelope), mode))
        except InputError as exc:
            jobs.append(exc)
    return jobs


def evaluate_chunk(
    jobs: Sequence[Job],
    flag: interrupt.Flag | None = None,
    admission: Admission | None = None,
) -> list[Output | InputError]:
    """Evaluate in a pool thread, timing each scenario for the compute metric. The cyclic
    collector waits meanwhile: the engines' memo tables grow by many small acyclic objects,
    and each full pass over them would cost more than a scenario (`engine.collector`).
    Raises `interrupt.Stopped` once `flag` is set, between scenarios or inside one. With an
    `admission`, each scenario computes only once its memory fits (`service.admission`)."""
    outputs: list[Output | InputError] = []
    mode: Mode | None = None  # the mode of the jobs before, and its histogram: a chunk has one
    timer: Any = None
    flag = flag or interrupt.Flag()
    with collector.paused(), interrupt.watching(flag):
        for job in jobs:
            interrupt.check()
            started = time.perf_counter()
            try:
                if admission is None:
                    outputs.append(job.mode.evaluate(job.scenario))
                else:
                    with admission.holding(job.mode.peak(job.scenario), flag):
                        outputs.append(job.mode.evaluate(job.scenario))
            except InputError as exc:  # a cross-field rule only the engine checks
                outputs.append(exc)
            if job.mode is not mode:
                mode, timer = job.mode, metrics.COMPUTE.labels(job.mode.ruleset, job.mode.name)
            timer.observe(time.perf_counter() - started)
    return outputs


@dataclass(eq=False)
class Flight:
    """One computation in flight: its stop flag, its task and how many requests wait on it."""

    keys: list[str]
    flag: interrupt.Flag = field(default_factory=interrupt.Flag)
    waiters: int = 0
    task: asyncio.Task[None] | None = None

    @property
    def stopped(self) -> bool:
        return self.flag.is_set


@dataclass(eq=False)
class Pending:
    """A key being computed: the future its waiters await and the flight computing it."""

    future: asyncio.Future[Output]
    flight: Flight


class Computer:
    """The cache, the pool, the single-flight table and the time budget of one process."""

    def __init__(
        self,
        cache: Cache,
        *,
        pool_size: int,
        time_budget: float,
        admission: Admission | None = None,
    ) -> None:
        self.cache = cache
        self.admission = admission
        self.time_budget = time_budget
        self.pool_size = pool_size
        self.pool = ThreadPoolExecutor(pool_size, thread_name_prefix="killmath-engine")
        self.inflight: dict[str, Pending] = {}
        self._tasks: set[asyncio.Task[None]] = set()

    async def in_pool(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def within_budget(self, work: Awaitable[T]) -> T:
        """Await `work`, raising BudgetExceeded once the time budget is spent."""
        try:
            async with asyncio.timeout(self.time_budget):
                return await work
        except TimeoutError:
            raise BudgetExceeded(self.time_budget) from None

    async def results(self, jobs: Sequence[Job]) -> list[Result | InputError]:
        """The answer of every job, in order: from the cache, a running computation or a new one.

        This request waits on the flights that compute its misses; when it leaves early
        (cancelled: its client is gone or its budget ran out) a flight it was the last to wait
        on is stopped, and the request waits for the engine to have let go of it."""
        keys = list(dict.fromkeys(job.key for job in jobs))
        by_key = {job.key: job for job in jobs}
        found = await self.cache.get_many(keys, lambda key, out: by_key[key].mode.fits(out))
        waiting: dict[str, asyncio.Future[Output]] = {}
        mine: dict[str, Job] = {}
        loop = asyncio.get_running_loop()
        flights: dict[int, Flight] = {}
        fresh = Flight([])
        for key in keys:
            if key in found:
                continue
            pending = self.inflight.get(key)
            if pending is None:
                pending = self.inflight[key] = Pending(loop.create_future(), fresh)
                fresh.keys.append(key)
                mine[key] = by_key[key]
            waiting[key] = pending.future
            flights[id(pending.flight)] = pending.flight
        for flight in flights.values():
            flight.waiters += 1
        if mine:
            task = fresh.task = asyncio.create_task(self._compute(list(mine.values()), fresh))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        computed: dict[str, Output | InputError] = {}
        try:
            for key, future in waiting.items():
                try:
                    computed[key] = await asyncio.shield(future)
                except InputError as exc:
                    computed[key] = exc
        finally:
            await self._leave(flights.values())
        answers: list[Result | InputError] = []
        for job in jobs:
            if job.key in found:
                answers.append(Result(job.key, *found[job.key], job.ignored))
            elif isinstance(computed[job.key], InputError):
                answers.append(computed[job.key])
            else:
                answers.append(Result(job.key, computed[job.key], None, job.ignored))
        return answers

    async def _leave(self, flights: Iterable[Flight]) -> None:
        """One waiter fewer on each flight; stop those nobody waits on any more, and wait
        (shielded, up to `STOP_GRACE`) until their engine work has let go of the pool."""
        stopping = []
        for flight in flights:
            flight.waiters -= 1
            if flight.waiters == 0 and flight.task is not None and not flight.task.done():
                self._stop(flight)
                stopping.append(flight.task)
        if stopping:
            await asyncio.shield(asyncio.wait(stopping, timeout=STOP_GRACE))

    def _stop(self, flight: Flight) -> None:
        """Set the flight's flag and forget its keys, so a request arriving now starts afresh
        instead of joining work that is being abandoned."""
        flight.flag.set()
        metrics.ABANDONED.inc()
        for key in flight.keys:
            self._release(key, flight, interrupt.Stopped())

    def _release(self, key: str, flight: Flight, outcome: Output | BaseException) -> None:
        """Settle `key`'s future with `outcome` if `flight` is still the one computing it."""
        pending = self.inflight.get(key)
        if pending is None or pending.flight is not flight:
            return
        del self.inflight[key]
        if pending.future.done():
            return
        if isinstance(outcome, BaseException):
            pending.future.set_exception(outcome)
            pending.future.exception()  # retrieved: waiters re-raise it, nobody else logs it
        else:
            pending.future.set_result(outcome)

    async def _compute(self, jobs: list[Job], flight: Flight) -> None:
        """Compute chunk by chunk, settling futures and filling the cache as chunks finish.

        One chunk of a computation is in the pool at a time (the next is submitted as soon as
        one is done, before it is settled), so a big grid neither queues its work ahead of a
        request that arrives after it nor takes a second engine thread: the engines run
        under the GIL, and a cold 10,000-cell grid computed by two threads at once took a
        quarter longer than by one (benchmarks/bench_grid_http.py). No chunk is submitted
        once the flight is stopped.
        """
        loop = asyncio.get_running_loop()
        chunks = iter([jobs[i : i + CHUNK] for i in range(0, len(jobs), CHUNK)])
        pending: dict[asyncio.Future[list[Output | InputError]], list[Job]] = {}

        def submit() -> None:
            chunk = None if flight.stopped else next(chunks, None)
            if chunk is not None:
                work = loop.run_in_executor(
                    self.pool, evaluate_chunk, chunk, flight.flag, self.admission
                )
                pending[work] = chunk

        submit()
        try:
            while pending:
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for finished in done:
                    chunk = pending.pop(finished)
                    submit()
                    await self._settle(chunk, finished, flight)
        finally:
            for chunk in [*pending.values(), *chunks]:
                self._fail(chunk, RuntimeError("computation abandoned"), flight)

    async def _settle(
        self, chunk: list[Job], finished: asyncio.Future[Any], flight: Flight
    ) -> None:
        if finished.exception() is not None:
            self._fail(chunk, finished.exception(), flight)
            return
        store: dict[str, Output] = {}
        for job, output in zip(chunk, finished.result(), strict=True):
            self._release(job.key, flight, output)
            if not isinstance(output, InputError):
                store[job.key] = output
        await self.cache.put_many(store)

    def _fail(self, chunk: list[Job], exc: BaseException, flight: Flight) -> None:
        for job in chunk:
            self._release(job.key, flight, exc)

    async def prepare(self, raw: bytes, mode: str | None = None) -> Job:
        """`prepare_raw` of one JSON body: a small body on the loop (memoised: microseconds,
        and a hop to the pool would cost more), a larger one in the pool, so that reading a
        big body's JSON and weapon-rule text never holds the loop (health checks, cache
        hits) while it is parsed."""
        if len(raw) <= LOOP_BODY_BYTES:
            return prepare_raw(raw, mode)
        return await self.in_pool(prepare_raw, raw, mode)

    async def one(self, raw: bytes, mode: str | None = None) -> Result:
        """One JSON body, prepared (`prepare`) and answered within the budget."""
        return await self.answer(await self.prepare(raw, mode))

    async def answer(self, job: Job) -> Result:
        """One prepared job, answered within the budget."""
        hot = self.cache.l1.get(job.key)  # the common case, without the machinery below
        if hot is not None:
            metrics.L1_HIT.inc()
            return Result(job.key, hot, "lru", job.ignored)
        (answer,) = await self.within_budget(self.results([job]))
        if isinstance(answer, InputError):
            raise answer
        return answer

    async def many(
        self, envelopes: Sequence[Any], mode: str | None = None
    ) -> list[Result | InputError]:
        """Many envelopes: validated in the pool (it adds up), answered within one budget."""

        async def work() -> list[Result | InputError]:
            return await self.answer_many(await self.in_pool(prepare_each, envelopes, mode))

        return await self.within_budget(work())

    async def answer_many(self, prepared: Sequence[Job | InputError]) -> list[Result | InputError]:
        """The answers of prepared envelopes, in order; a bad one keeps its error in place."""
        jobs = [p for p in prepared if isinstance(p, Job)]
        answers = iter(await self.results(jobs))
        return [p if isinstance(p, InputError) else next(answers) for p in prepared]

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        self.pool.shutdown(wait=False, cancel_futures=True)
        await self.cache.close()


def result_body(result: Result, *, minimal: bool = False) -> dict[str, Any]:
    """An answer with the service's `canonicalKey` added, unless the client asked for the
    minimal answer. Whether it came from a cache is said by `Cache-Status`, not the body, so
    one input's body is the same bytes on every call."""
    return {**result.body(), **key_member(result, minimal)}


def key_member(result: Result, minimal: bool) -> dict[str, str]:
    """`canonicalKey` as a member of an answer (or of a team matchup's cell), left out of the
    minimal answer (`Prefer: return=minimal`, `validators.wants_minimal`)."""
    return {} if minimal else {"canonicalKey": result.key}
