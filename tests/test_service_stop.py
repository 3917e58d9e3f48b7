"""Work that stops (issue 34, finding 4): a computation nobody waits for any more is abandoned.

The engine polls a stop flag (`engine.interrupt`); a flight counts its waiters
(`service.compute`); a client gone before its answer cancels its request
(`service.disconnect`). Behaviour is checked by counts (computations abandoned, scenarios
computed) and by the server's CPU seconds with generous bounds where the issue names a figure
(at most 1 s more CPU once the client is gone)."""

from __future__ import annotations

import asyncio
import socket
import time

import httpx
import orjson
import pytest
from service_harness import serving

from engine import interrupt
from engine.kt2024 import flat
from engine.kt2024.fighter import Fight, Fighter, FightOptions
from engine.kt2024.sequence import Sequence
from service.admission import Admission
from service.cache import LRU, Cache
from service.compute import Computer, prepare

SIDE = {"attacks": 8, "strategy": "OPTIMAL", "reroll": "CEASELESS_AND_BALANCED", "feelNoPain": 5}
HEAVY_FIGHT = {
    "fighterA": {**SIDE, "wounds": 30},
    "fighterB": {**SIDE, "wounds": 29},
    "options": {"rounds": 5, "exact": True},
}
"""The issue's heavy fight: about 9 s of CPU in `kernels.solve` and `kernels.push`, and
~0.9 GB: the default memory budget refuses it, these tests give the server room for it."""
ROOMY = 2**31


def abandoned(server) -> float:
    return server.metric("killmath_engine_abandoned_total")


def computed(server) -> float:
    return server.metric("killmath_engine_compute_seconds_count", ruleset="kt2024", mode="fight")


def wait_for(predicate, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def send_fight(port: int, body: dict) -> socket.socket:
    """POST `body` to /v1/fight on a raw socket, not reading the answer."""
    data = orjson.dumps(body)
    sock = socket.create_connection(("127.0.0.1", port))
    head = (
        f"POST /v1/fight HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    )
    sock.sendall(head.encode() + data)
    return sock


def busy(server, threshold: float = 0.3) -> bool:
    """The server burnt CPU over the last 0.2 s (its engine thread is computing)."""
    before = server.cpu_seconds()
    time.sleep(0.2)
    return server.cpu_seconds() - before >= threshold * 0.2


def test_engine_stops_when_its_flag_is_set():
    side = Fighter(attacks=8, wounds=30, strategy="OPTIMAL", reroll="CEASELESS_AND_BALANCED")
    fight = Fight(side, side, FightOptions(rounds=5, exact=True))
    flag = interrupt.Flag()
    flag.set()
    with interrupt.watching(flag), pytest.raises(interrupt.Stopped):
        flat.resolve(flat.Flat(fight, Sequence(fight)), True)


def test_a_client_gone_stops_its_computation():
    with serving(pool_size=1, log_level="INFO", memory_budget=ROOMY) as server:
        sock = send_fight(server.port, HEAVY_FIGHT)
        assert wait_for(lambda: busy(server))  # the engine is at work
        sock.close()
        gone = server.cpu_seconds()
        assert wait_for(lambda: abandoned(server) == 1)
        time.sleep(2)
        assert server.cpu_seconds() - gone < 2.0  # the issue: at most 1 s more CPU
        assert computed(server) == 0  # it never finished
        # the only pool thread is free again: a small fight is answered
        small = httpx.post(server.url + "/v1/fight", json={"fighterA": {"attacks": 2}}, timeout=60)
        assert small.status_code == 200
        assert computed(server) == 1
        statuses = server.metric(
            "killmath_http_requests_total", route="/v1/fight", method="POST", status="500"
        )
        assert statuses == 0
        assert "client gone" in server.log_text()


def test_a_timed_out_request_stops_its_computation():
    with serving(pool_size=1, time_budget=1, memory_budget=ROOMY) as server:
        response = httpx.post(server.url + "/v1/fight", json=HEAVY_FIGHT, timeout=60)
        assert response.status_code == 503
        assert response.json()["error"]["code"] == "TIMEOUT"
        # answered TIMEOUT only once the work had stopped
        assert abandoned(server) == 1
        after = server.cpu_seconds()
        time.sleep(2)
        assert server.cpu_seconds() - after < 1.0
        assert computed(server) == 0


def test_a_shared_flight_goes_on_while_one_waiter_remains():
    job = prepare(HEAVY_FIGHT | {"options": {"rounds": 2, "exact": True}}, "fight")

    async def run() -> tuple[object, int]:
        computer = Computer(Cache(LRU(0), None), pool_size=1, time_budget=600)
        first = asyncio.create_task(computer.answer(job))
        second = asyncio.create_task(computer.answer(job))
        while job.key not in computer.inflight or computer.inflight[job.key].flight.waiters < 2:
            await asyncio.sleep(0.01)
        flight = computer.inflight[job.key].flight
        first.cancel()
        with pytest.raises(asyncio.CancelledError):
            await first
        assert not flight.stopped  # one waiter remains
        result = await second
        assert flight.waiters == 0 and not flight.stopped
        await computer.close()
        return result, len(computer.inflight)

    result, left = asyncio.run(run())
    assert result.output["fighterA"]["incapacitatedProbability"] >= 0
    assert left == 0


def test_a_flight_stops_when_its_last_waiter_leaves():
    job = prepare(HEAVY_FIGHT, "fight")

    async def run() -> None:
        computer = Computer(Cache(LRU(0), None), pool_size=1, time_budget=600)
        tasks = [asyncio.create_task(computer.answer(job)) for _ in range(2)]
        while job.key not in computer.inflight or computer.inflight[job.key].flight.waiters < 2:
            await asyncio.sleep(0.01)
        flight = computer.inflight[job.key].flight
        await asyncio.sleep(0.3)
        for task in tasks:
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
        assert flight.stopped and flight.task is not None and flight.task.done()
        assert job.key not in computer.inflight
        # the pool's one thread is free: another job runs at once
        small = prepare({"fighterA": {"attacks": 2}}, "fight")
        assert (await asyncio.wait_for(computer.answer(small), 60)).output
        await computer.close()

    asyncio.run(run())


MID_FIGHT = {
    "fighterA": {"attacks": 6, "wounds": 20, "strategy": "OPTIMAL", "reroll": "CEASELESS"},
    "fighterB": {"attacks": 6, "wounds": 19, "strategy": "OPTIMAL", "reroll": "CEASELESS"},
    "options": {"rounds": 3, "exact": True},
}
"""About 80 MB at its peak (benchmarks/bench_memory_peaks.py), a second or two of CPU."""


def test_admission_refuses_a_request_that_could_never_fit():
    with serving(memory_budget=32 * 2**20) as server:
        response = httpx.post(server.url + "/v1/fight", json=MID_FIGHT, timeout=60)
        assert response.status_code == 422
        error = response.json()["error"]
        assert error["code"] == "LIMIT_EXCEEDED"
        assert error["field"] == "fighterA.strategy"
        assert 0 < error["limit"] <= 32 * 2**20


def test_admission_queues_work_that_fits_later():
    """Two fights of ~80 MB each under a 120 MB budget, two pool threads: the second waits
    for the first's memory, both are answered, and no more than the budget is ever held."""
    other = {**MID_FIGHT, "fighterB": {**MID_FIGHT["fighterB"], "wounds": 18}}
    jobs = [prepare(body, "fight") for body in (MID_FIGHT, other)]
    admission = Admission(120 * 2**20)

    async def run() -> list:
        computer = Computer(Cache(LRU(0), None), pool_size=2, time_budget=600, admission=admission)
        try:
            return await asyncio.gather(*(computer.answer(job) for job in jobs))
        finally:
            await computer.close()

    results = asyncio.run(run())
    assert [r.key for r in results] == [j.key for j in jobs]
    assert 60 * 2**20 < admission.peak <= 120 * 2**20  # one fight's memory at a time
    assert admission.held == 0
    alone = [job.mode.evaluate(job.scenario) for job in jobs]
    assert [r.output for r in results] == alone  # queued, not changed


def test_a_queued_claim_stops_when_its_computation_is_abandoned():
    admission = Admission(100)
    admission.acquire(80, interrupt.Flag())
    flag = interrupt.Flag()
    flag.set()
    with pytest.raises(interrupt.Stopped):
        admission.acquire(40, flag)
    assert admission.held == 80
