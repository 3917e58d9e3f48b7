"""Real servers for the service tests: uvicorn in a subprocess on a free port, and Redis.

`Server` runs `killmath serve` exactly as a user would, with its settings in the environment,
and always stops it. `owned_redis` (conftest's `redis_url` fixture) finds the test Redis: the
machine's 127.0.0.1:6379 (db 13, or `KILLMATH_TEST_REDIS_DB` so that parallel runs in several
checkouts keep apart; flushed by the tests that use it); else a `redis-server`
started on a free port if one is installed; else the test is skipped — except under CI=true,
where a missing Redis fails.
`controlled_redis` starts a Redis of the test's own (loadtests/redis_process.py) that the test
may kill, pause, restart or fill — never the machine's shared one.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import ModuleType

import httpx
import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from service.cache import Signer

REPO = Path(__file__).resolve().parents[1]
TEST_DB = int(os.environ.get("KILLMATH_TEST_REDIS_DB", "13"))
CACHE_KEY = "killmath-tests-cache-key"
"""The `KILLMATH_CACHE_KEY` of every test server (as replicas share one), unless a test
names its own; `SIGNER` reads and writes entries as they do."""
SIGNER = Signer(CACHE_KEY.encode())


def load_loadtests_module(stem: str) -> ModuleType:
    """loadtests/<stem>.py, imported by path (once) as `loadtests_<stem>`: loadtests/ is a
    script directory, not a package."""
    name = f"loadtests_{stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, REPO / "loadtests" / f"{stem}.py")
        assert spec is not None and spec.loader is not None
        sys.modules[name] = module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    return sys.modules[name]


redis_process = load_loadtests_module("redis_process")
RedisProcess = redis_process.RedisProcess
free_port = redis_process.free_port


SERVE = [sys.executable, "-m", "service.cli", "serve"]


class Server:
    """A `killmath serve --workers N` subprocess; `url` is its base URL.

    The tests and the benchmarks start servers through this one class: `repo` is the checkout
    it runs (a benchmark times another commit's worktree with the same interpreter), `ready`
    the route whose 200 ends the wait, `spawned` the `perf_counter` at the spawn and `seconds`
    the time from it to that answer; `command` runs `killmath serve` (its arguments follow)."""

    def __init__(
        self,
        workers: int = 1,
        *,
        repo: Path = REPO,
        ready: str = "/healthz",
        timeout: float = 120.0,
        command: list[str] = SERVE,
        **settings: str | int | float,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("KILLMATH_")}
        env.update({f"KILLMATH_{k.upper()}": str(v) for k, v in settings.items()})
        env.setdefault("KILLMATH_LOG_LEVEL", "WARNING")
        env.setdefault("KILLMATH_CACHE_KEY", CACHE_KEY)
        env["PYTHONPATH"] = str(repo)
        # the log goes to a file: a pipe nobody reads would fill up and stall the server
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - closed in stop()
        self.spawned = time.perf_counter()
        self.process = subprocess.Popen(
            [*command, "--port", str(self.port), "--workers", str(workers)],
            cwd=repo,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=self.log,
        )
        self._wait_ready(ready, timeout)
        self.seconds = time.perf_counter() - self.spawned

    def _wait_ready(self, ready: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited: {self.log_text()}")
            try:
                if httpx.get(self.url + ready, timeout=0.5).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.005)  # a start-up benchmark reads `seconds`: poll finely
        self.stop()
        raise RuntimeError("server did not become ready")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def cpu_seconds(self) -> float:
        """User and system CPU the server process has spent (/proc/PID/stat)."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def vm_rss(self) -> int:
        """The server's resident set size in bytes (/proc/PID/status)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS")

    def log_text(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def metric(self, name: str, *, url: str = "", **labels: str) -> float:
        """The value of one sample of /metrics (0 when absent), read with prometheus-client's
        own parser (as loadtests/summary.py does); `url`: another metrics address."""
        text = httpx.get(url or self.url + "/metrics").text
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                if sample.name == name and sample.labels == labels:
                    return sample.value
        return 0.0


SERVICE_MEMBERS = ("canonicalKey", "cached")
"""What the service adds to the engine's answer (absent from the CLI's and the engine's):
REST adds `canonicalKey`, GraphQL both."""


def cache_tier(response: httpx.Response) -> str | None:
    """The tier a REST answer's `Cache-Status` says answered it (`lru`, `redis`), or None
    when it was computed for this request."""
    for member in response.headers["cache-status"].split(","):
        name, *params = (part.strip() for part in member.split(";"))
        if "hit" in params:
            return name.removeprefix("killmath-")
    return None


def without_service_members(answer: dict) -> dict:
    """A service answer as the engine (and the CLI) gives it."""
    return {k: v for k, v in answer.items() if k not in SERVICE_MEMBERS}


def rest(url: str, path: str, body: object) -> dict:
    """POST `body` as JSON to a REST route that must answer 200; its JSON answer."""
    response = httpx.post(url + path, json=body)
    assert response.status_code == 200, response.text
    return response.json()


def graphql(url: str, query: str, variables: dict | None = None) -> dict:
    """POST a GraphQL operation that must answer HTTP 200 (its errors ride in the body); the
    JSON answer, `data` and `errors` both."""
    response = httpx.post(url + "/graphql", json={"query": query, "variables": variables or {}})
    assert response.status_code == 200, response.text
    return response.json()


@contextmanager
def serving(workers: int = 1, **settings: str | int | float) -> Iterator[Server]:
    server = Server(workers, **settings)
    try:
        yield server
    finally:
        server.stop()


def _answers(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url, socket_connect_timeout=0.5).ping())
    except redis.RedisError:
        return False


@contextmanager
def owned_redis() -> Iterator[str]:
    """The URL of a Redis db the tests own (flushed on entry and on exit): the machine's
    Redis, else a `redis-server` of the tests' own (`controlled_redis`); under CI=true the
    machine's Redis is required."""
    url = f"redis://127.0.0.1:6379/{TEST_DB}"
    with ExitStack() as stack:
        if not _answers(url):
            if os.environ.get("CI") == "true":
                pytest.fail("CI=true and no Redis answers at 127.0.0.1:6379")
            url = stack.enter_context(controlled_redis(db=TEST_DB)).url
        client = redis.Redis.from_url(url)
        client.flushdb()
        try:
            yield url
        finally:
            client.flushdb()
            client.close()


@contextmanager
def controlled_redis(*config: str, db: int = 0) -> Iterator[RedisProcess]:
    """A running `redis-server` of the test's own, with extra `config` arguments; stopped
    (resumed first if paused) however the test ends. Without the binary the test is skipped,
    except under CI=true, where it fails."""
    try:
        server = RedisProcess(*config, db=db).start()
    except redis_process.RedisUnavailable as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and no Redis of the test's own: {exc}")
        pytest.skip(f"no Redis of the test's own: {exc}")
    try:
        yield server
    finally:
        server.stop()


def cli_batch(lines: list[str]) -> list[str]:
    """`killmath batch` on JSON lines: the CLI's answer, one line per input line."""
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "batch"],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
    )
    return done.stdout.splitlines()
