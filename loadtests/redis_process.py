"""A throw-away `redis-server` that a test or a soak run starts, breaks and always stops.

Fault injection needs a Redis of its own: the machine's shared Redis at 127.0.0.1:6379 must
never be killed, paused or reconfigured. `RedisProcess` starts `redis-server` on a free
loopback port with no persistence (plus any extra configuration, e.g. `maxmemory 1mb` with
`noeviction`), and can kill it (SIGKILL, a crash), pause it (SIGSTOP, a Redis that accepts
connections but never answers), resume it (SIGCONT) and restart it on the same port, so
clients configured with its URL reconnect to the new process.

It never leaves a process behind: `stop()` (also run by the context manager and at
interpreter exit) resumes a paused server before ending it, and on Linux every server asks
the kernel to SIGKILL it when the process that started it dies, so even a killed test run
leaves nothing behind.

The kernel's parent-death signal follows the *thread* that started the server, so call
`start` and `restart` from a thread that outlives the server (the main thread in the tests).

Used by the tests (imported by path) and by `loadtests/run.sh --soak`, which runs this file:

    python loadtests/redis_process.py --url-file F [--restart-at 200 ...] [--down 5] [-- ARGS]

starts a server, writes its URL to F, and stops it on SIGTERM or SIGINT. The restart clock
starts at SIGUSR1 (the script sends it when the load starts): each `--restart-at` is seconds
after that signal, when the server is killed and, `--down` seconds later, started again
("restarted at" in the log is when it answers again). Extra `redis-server` arguments follow
`--`.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from types import TracebackType

PR_SET_PDEATHSIG = 1  # prctl(2): the signal this process gets when its parent thread dies


class RedisUnavailable(RuntimeError):
    """No `redis-server` binary, or the server did not start."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL this server when the process that started it dies."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _answers(port: int, timeout: float = 0.5) -> bool:
    """A raw PING, so this module needs nothing beyond the standard library."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class RedisProcess:
    """One `redis-server` on a fixed free port; `url` stays valid across restarts."""

    def __init__(self, *config: str, port: int | None = None, db: int = 0) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisUnavailable("no redis-server binary on PATH")
        self.binary = binary
        self.config = list(config)
        self.port = port or free_port()
        self.url = f"redis://127.0.0.1:{self.port}/{db}"
        self._dir = tempfile.TemporaryDirectory(prefix="killmath-redis-")
        self.process: subprocess.Popen[bytes] | None = None
        self.paused = False
        atexit.register(self.stop)

    def start(self, timeout: float = 10.0) -> RedisProcess:
        """Start the server and wait until it answers PING."""
        self.process = subprocess.Popen(
            [
                self.binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                self._dir.name,
                *self.config,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,  # only a prctl call between fork and exec
        )
        self.paused = False
        deadline = time.monotonic() + timeout
        while not _answers(self.port):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.kill()
                raise RedisUnavailable(f"redis-server did not start on port {self.port}")
            time.sleep(0.02)
        return self

    def kill(self) -> None:
        """SIGKILL: a crash, connections reset, nothing flushed."""
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait()
            self.process = None
        self.paused = False

    def pause(self) -> None:
        """SIGSTOP: the port still accepts connections, but nothing is answered."""
        assert self.process is not None, "redis-server is not running"
        self.process.send_signal(signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        if self.process is not None and self.paused:
            self.process.send_signal(signal.SIGCONT)
        self.paused = False

    def restart(self) -> None:
        """Kill and start again at once on the same port, empty."""
        self.kill()
        self.start()

    def stop(self) -> None:
        """End the server, whatever its state (a paused one is resumed first)."""
        if self.process is not None and self.process.poll() is None:
            self.resume()
            self.process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        self.kill()
        self._dir.cleanup()

    def __enter__(self) -> RedisProcess:
        return self.start() if self.process is None else self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def _say(what: str) -> None:
    stamp = time.strftime("%H:%M:%S", time.gmtime())
    print(f"redis_process: {stamp} UTC {what}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one server for a soak: restart it on schedule, stop it on SIGTERM or SIGINT."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url-file", required=True, help="where to write the server's URL")
    parser.add_argument(
        "--restart-at",
        type=float,
        action="append",
        default=[],
        metavar="SECONDS",
        help="restart the server this many seconds after SIGUSR1 (repeatable)",
    )
    parser.add_argument(
        "--down", type=float, default=0.0, metavar="SECONDS", help="downtime of each restart"
    )
    parser.add_argument("--db", type=int, default=0)
    parser.add_argument("config", nargs="*", help="extra redis-server arguments, after --")
    args = parser.parse_args(argv)

    def finish(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, finish)
    signal.signal(signal.SIGINT, finish)
    go: list[float] = []
    signal.signal(signal.SIGUSR1, lambda _signum, _frame: go.append(time.monotonic()))
    with RedisProcess(*args.config, db=args.db) as server:
        tmp = args.url_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(server.url + "\n")
        os.replace(tmp, args.url_file)  # whole or absent: the script polls for it
        _say(f"{server.url} started")
        while not go:
            signal.pause()
        for at in sorted(args.restart_at):
            time.sleep(max(0.0, at - (time.monotonic() - go[0])))
            server.kill()
            _say(f"killed at {time.monotonic() - go[0]:.1f} s of the load")
            time.sleep(args.down)
            server.start()
            _say(f"restarted at {time.monotonic() - go[0]:.1f} s of the load")
        while True:
            signal.pause()


if __name__ == "__main__":
    sys.exit(main())
