"""Real redis-server processes for the tests, on free loopback ports in
temporary folders: one server, or a Cluster of three masters.

redis-server comes from the system (Debian's package ``redis-server``;
``.ci/run`` installs it). Without it, the tests that need it are skipped
with a message saying so, unless MEEPLE_REQUIRE_REDIS=1 (as CI sets), which
makes its absence a failure.
"""

from __future__ import annotations

import random
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from tests.system_tools import require_installed

REDIS_SERVER = shutil.which("redis-server")
REDIS_CLI = shutil.which("redis-cli")


def require_redis() -> None:
    """Skips the test (or fails it, under MEEPLE_REQUIRE_REDIS=1) without redis-server."""
    message = "redis-server is not installed (apt-get install redis-server)"
    require_installed(bool(REDIS_SERVER and REDIS_CLI), message, "MEEPLE_REQUIRE_REDIS")


def free_port(cluster: bool = False) -> int:
    """A free loopback port; for a Cluster node, one whose bus port (+10000)
    is free too (so at most 55535)."""
    if not cluster:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            return int(probe.getsockname()[1])
    for port in random.sample(range(20000, 45000), 200):
        try:
            with socket.socket() as probe, socket.socket() as bus:
                probe.bind(("127.0.0.1", port))
                bus.bind(("127.0.0.1", port + 10000))
                return port
        except OSError:
            continue
    raise RuntimeError("no free port pair for a Redis Cluster node")


def wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"redis-server on port {port} exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2) as connection:
                connection.sendall(b"PING\r\n")
                if connection.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"redis-server did not answer on port {port} within {seconds} s")


class RedisServer:
    """One redis-server; ``stop()``, ``start()`` again (same port and data)."""

    def __init__(self, folder: Path, appendonly: bool = False, cluster: bool = False) -> None:
        require_redis()
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port(cluster)
        self.appendonly = appendonly
        self.cluster = cluster
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        assert REDIS_SERVER is not None
        command = [
            REDIS_SERVER,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.folder),
            "--save", "",
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", "always",
            "--daemonize", "no",
            "--logfile", str(self.folder / "redis.log"),
        ]  # fmt: skip
        if self.cluster:
            command += ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL)
        wait_for_port(self.port, self.process)

    def flush(self) -> None:
        """Empties it (FLUSHALL)."""
        assert REDIS_CLI is not None
        subprocess.run(
            [REDIS_CLI, "-p", str(self.port), "flushall"], check=True, capture_output=True
        )

    def stop(self, kill: bool = False) -> None:
        """Shuts the server down (SIGTERM: it writes its append-only file
        first), or kills it (SIGKILL)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            self.process.wait(timeout=30)
        self.process = None


class RedisCluster:
    """Three masters joined with ``redis-cli --cluster create``; with
    ``appendonly``, a master restarted by ``restart`` comes back with its
    data (and its identity: ``nodes.conf`` stays in its folder)."""

    def __init__(self, folder: Path, appendonly: bool = False) -> None:
        require_redis()
        self.nodes = [
            RedisServer(folder / f"node{i}", appendonly=appendonly, cluster=True) for i in range(3)
        ]
        assert REDIS_CLI is not None
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        subprocess.run(
            [REDIS_CLI, "--cluster", "create", *addresses, "--cluster-yes"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        self.wait_ok()

    def wait_ok(self, seconds: float = 30.0) -> None:
        """Until every node says ``cluster_state:ok``."""
        assert REDIS_CLI is not None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            states = [
                subprocess.run(
                    [REDIS_CLI, "-p", str(node.port), "cluster", "info"],
                    capture_output=True,
                    text=True,
                    timeout=10,
                ).stdout
                for node in self.nodes
            ]
            if all("cluster_state:ok" in state for state in states):
                return
            time.sleep(0.05)
        raise RuntimeError(f"the Redis Cluster was not ok again within {seconds} s")

    def node_of(self, key: str) -> RedisServer:
        """The master that serves ``key``'s slot."""
        assert REDIS_CLI is not None
        port = str(self.nodes[0].port)
        slot = int(
            subprocess.run(
                [REDIS_CLI, "-p", port, "cluster", "keyslot", key],
                capture_output=True, text=True, check=True, timeout=10,
            ).stdout
        )  # fmt: skip
        nodes = subprocess.run(
            [REDIS_CLI, "-p", port, "cluster", "nodes"],
            capture_output=True, text=True, check=True, timeout=10,
        ).stdout  # fmt: skip
        for (
            line
        ) in nodes.splitlines():  # id host:port@bus flags master ping pong epoch state slots...
            fields = line.split()
            for ranged in fields[8:]:
                first, _, last = ranged.partition("-")
                if not first.isdigit():
                    continue
                if int(first) <= slot <= int(last or first):
                    owner = int(fields[1].split("@")[0].rsplit(":", 1)[1])
                    return next(node for node in self.nodes if node.port == owner)
        raise RuntimeError(f"no master serves the slot {slot} of {key!r}")

    def restart(self, node: RedisServer, down_seconds: float = 0.0, kill: bool = False) -> None:
        """Stops one master (SIGTERM, or SIGKILL), waits ``down_seconds`` and
        starts it again with its data and identity."""
        node.stop(kill=kill)
        time.sleep(down_seconds)
        node.start()

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.nodes[0].port}"

    def flush(self) -> None:
        for node in self.nodes:
            node.flush()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
