"""A real Redis Cluster of the test's own: six `redis-server --cluster-enabled yes` nodes on
loopback, three masters with one replica each, joined by `redis-cli --cluster create`.

Each node is a `RedisProcess` (loadtests/redis_process.py), so it dies with the test run and
can be killed like any test Redis. A cluster node also listens on its bus port, its port +
10000, so ports are drawn where both are free and the bus port stays ≤ 65535. A short
`cluster-node-timeout` makes a killed master's replica take over in about two seconds.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis
from redis.cluster import ClusterNode
from service_harness import redis_process

BUS_OFFSET = 10_000
NODE_TIMEOUT_MS = 1_000


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_ports(count: int) -> list[int]:
    """`count` ports whose bus ports (+10000) are free too, all ≤ 55535."""
    rng = random.Random()
    ports: list[int] = []
    while len(ports) < count:
        port = rng.randrange(20_000, 55_535)
        taken = {p for q in ports for p in (q, q + BUS_OFFSET)}
        if {port, port + BUS_OFFSET} & taken:
            continue
        if _free(port) and _free(port + BUS_OFFSET):
            ports.append(port)
    return ports


class Cluster:
    """Six running nodes; `url` is the seed node the service is given."""

    def __init__(self, nodes: list[redis_process.RedisProcess]) -> None:
        self.nodes = nodes
        self.url = f"redis://127.0.0.1:{nodes[0].port}/0"

    def client(self) -> redis.RedisCluster:
        """The test's own view of the cluster, through whichever nodes are alive."""
        live = [ClusterNode("127.0.0.1", n.port) for n in self.nodes if n.process is not None]
        return redis.RedisCluster(startup_nodes=live)

    def node(self, port: int) -> redis_process.RedisProcess:
        return next(node for node in self.nodes if node.port == port)

    def masters(self) -> list[int]:
        """The ports of the masters serving the slots, as the first live node sees them."""
        with redis.Redis(port=self.live()[0], socket_timeout=1) as one:
            return sorted({r[2][1] for r in one.cluster("slots")})

    def live(self) -> list[int]:
        return [node.port for node in self.nodes if node.process is not None]

    def healthy(self, replicated: bool) -> bool:
        """Every live node says cluster_state:ok and maps every slot to a live master; with
        `replicated`, every master also has a live replica whose replication link is up."""
        live = set(self.live())
        try:
            for port in live:
                with redis.Redis(port=port, socket_timeout=1) as one:
                    if one.cluster("info")["cluster_state"] != "ok":
                        return False
                    ranges = one.cluster("slots")  # [[first, last, [host, port, id], *replicas]]
                    if sum(r[1] - r[0] + 1 for r in ranges) != 16384:
                        return False
                    for r in ranges:
                        replicas = [rep[1] for rep in r[3:] if rep[1] in live]
                        if r[2][1] not in live or (replicated and not replicas):
                            return False
                    link = one.info("replication").get("master_link_status", "up")
                    if replicated and link != "up":  # a replica still syncing
                        return False
            return True
        except redis.RedisError:
            return False

    def wait_healthy(self, replicated: bool = False, seconds: float = 30.0) -> float:
        """Seconds until the cluster is healthy (again); fails the test past `seconds`."""
        started = time.monotonic()
        while not self.healthy(replicated):
            if time.monotonic() - started > seconds:
                raise AssertionError(f"cluster not healthy after {seconds} s")
            time.sleep(0.1)
        return time.monotonic() - started

    def stored(self, names: list[str]) -> int:
        """How many of these Redis keys the cluster holds (asked of each key's master)."""
        with self.client() as client:
            return sum(client.exists(name) for name in names)


@contextmanager
def redis_cluster() -> Iterator[Cluster]:
    """A healthy six-node cluster, stopped however the test ends. Without `redis-server` or
    `redis-cli` the test is skipped, except under CI=true, where it fails."""
    cli = shutil.which("redis-cli")
    if cli is None or shutil.which("redis-server") is None:
        message = "redis-server and redis-cli are needed for a Redis Cluster"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true: {message}")
        pytest.skip(message)
    nodes = [
        redis_process.RedisProcess(
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            str(NODE_TIMEOUT_MS),
            port=port,
        )
        for port in cluster_ports(6)
    ]
    try:
        for node in nodes:
            node.start()
        subprocess.run(
            [
                cli,
                "--cluster",
                "create",
                *(f"127.0.0.1:{node.port}" for node in nodes),
                "--cluster-replicas",
                "1",
                "--cluster-yes",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
        cluster = Cluster(nodes)
        cluster.wait_healthy(replicated=True)
        yield cluster
    finally:
        for node in nodes:
            node.stop()
