"""The image, built by deploy/build-image.sh and run as the manifests run it.

A Docker daemon of the test's own (`dockerd` on a private socket, data and exec roots in a
temporary directory, no bridge or iptables changes) builds the image with host networking;
the container runs with `--network host` on a free loopback port, as uid 10001, with a
read-only root file system and a tmpfs /tmp (the pod's emptyDir), all capabilities dropped.
It must answer /readyz, a shoot and a fight with the engine's own numbers, and serve that
fight from the kernels compiled into the image: no kernel is compiled in the container.
Without dockerd the test is skipped, except under CI=true, where Docker (docker.io) and
debootstrap are installed with apt-get first and a failure to get them fails the test.
The measured numbers (build time, image size, container start to first fight) are printed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest
from service_harness import REPO, free_port, without_service_members

from service.compute import prepare

CI = os.environ.get("CI") == "true"
SHOOT = {"attacker": {"attacks": 4, "hit": 3, "normalDamage": 3, "criticalDamage": 4}}
FIGHT = {
    "fighterA": {"attacks": 4, "wounds": 10, "strategy": "OPTIMAL"},
    "fighterB": {"attacks": 3, "wounds": 9},
}


def _apt_install(*packages: str) -> None:
    for command in (
        ["apt-get", "-o", "DPkg::Lock::Timeout=600", "update", "-q"],
        ["apt-get", "-o", "DPkg::Lock::Timeout=600", "install", "-y", "-q", *packages],
    ):
        subprocess.run(
            command,
            check=True,
            capture_output=True,
            timeout=900,
            env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
        )


def _tools() -> None:
    """dockerd and debootstrap on PATH: installed under CI=true, else the test is skipped."""
    missing = [tool for tool in ("dockerd", "debootstrap") if shutil.which(tool) is None]
    if not missing:
        return
    if not CI:
        pytest.skip(f"no {' or '.join(missing)} (CI unset): the image is not built")
    _apt_install("docker.io", "debootstrap")


class Daemon:
    """A private dockerd; `env` points a docker client at it."""

    def __init__(self, root: Path) -> None:
        self.socket = root / "docker.sock"
        self.env = {**os.environ, "DOCKER_HOST": f"unix://{self.socket}"}
        self.log = open(root / "dockerd.log", "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [
                "dockerd",
                "--host",
                f"unix://{self.socket}",
                "--data-root",
                str(root / "data"),
                "--exec-root",
                str(root / "exec"),
                "--pidfile",
                str(root / "docker.pid"),
                "--iptables=false",
                "--bridge=none",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while self.docker("version", check=False).returncode != 0:
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                log = (root / "dockerd.log").read_text(errors="replace")[-3000:]
                pytest.fail(f"dockerd did not start:\n{log}")
            time.sleep(0.5)

    def docker(self, *args: str, check: bool = True, timeout: float = 120):
        return subprocess.run(
            ["docker", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def daemon() -> Iterator[Daemon]:
    _tools()
    if shutil.which("docker") is None:
        pytest.fail("dockerd is installed but the docker client is not")
    root = Path(tempfile.mkdtemp(prefix="killmath-docker-"))
    running = Daemon(root)
    try:
        yield running
    finally:
        running.stop()
        shutil.rmtree(root, ignore_errors=True)


def engine_answer(envelope: dict, mode: str) -> dict:
    """The engine's answer in this process, as JSON reads it."""
    job = prepare(envelope, mode)
    return orjson.loads(orjson.dumps(job.mode.evaluate(job.scenario)))


def wait_for(url: str, seconds: float) -> httpx.Response:
    deadline = time.monotonic() + seconds
    while True:
        try:
            return httpx.get(url, timeout=1)
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_the_image_builds_and_serves_as_the_manifests_run_it(daemon: Daemon):
    tag = f"killmath-test:{uuid.uuid4().hex[:8]}"
    started = time.monotonic()
    built = subprocess.run(
        ["bash", str(REPO / "deploy" / "build-image.sh"), tag],
        env=daemon.env,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )
    build_seconds = time.monotonic() - started
    assert built.returncode == 0, built.stderr[-5000:]
    assert built.stdout.strip().splitlines()[-1] == tag
    size = int(daemon.docker("image", "inspect", "--format", "{{.Size}}", tag).stdout)

    port = free_port()
    started = time.monotonic()
    container = daemon.docker(
        "run",
        "--detach",
        "--network",
        "host",
        "--read-only",
        "--tmpfs",
        "/tmp:rw,size=96m",
        "--user",
        "10001:10001",
        "--cap-drop",
        "ALL",
        "--security-opt",
        "no-new-privileges",
        tag,
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ).stdout.strip()
    try:
        url = f"http://127.0.0.1:{port}"
        ready = wait_for(url + "/readyz", 60)
        fight = httpx.post(url + "/v1/fight", json=FIGHT, timeout=60)
        first_fight = time.monotonic() - started
        assert ready.status_code == 200, daemon.docker("logs", container).stderr[-3000:]
        assert ready.json() == {"status": "ready", "redis": "disabled"}
        assert fight.status_code == 200, fight.text
        assert without_service_members(fight.json()) == engine_answer(FIGHT, "fight")
        shoot = httpx.post(url + "/v1/shoot", json=SHOOT, timeout=60)
        assert shoot.status_code == 200, shoot.text
        assert without_service_members(shoot.json()) == engine_answer(SHOOT, "shoot")

        def cache_files(where: str) -> set[str]:
            listing = daemon.docker("exec", container, "find", where, "-name", "*.nb[ci]")
            return {line.removeprefix(where) for line in listing.stdout.split()}

        # nothing compiled in the container: its cache holds exactly the image's kernels
        baked = cache_files("/opt/killmath/numba-cache")
        assert baked, "the image carries no compiled kernels"
        assert cache_files("/tmp/numba-cache") == baked
        whoami = daemon.docker("exec", container, "id", "-u").stdout.strip()
        assert whoami == "10001"
        readonly = daemon.docker("exec", container, "touch", "/opt/x", check=False)
        assert readonly.returncode != 0 and "Read-only file system" in readonly.stderr
    finally:
        daemon.docker("rm", "--force", container, check=False)
        daemon.docker("image", "rm", "--force", tag, check=False)
    print(
        f"\nimage {tag}: built in {build_seconds:.0f} s, {size / 2**20:.0f} MiB; container "
        f"start to first fight {first_fight:.2f} s"
    )
