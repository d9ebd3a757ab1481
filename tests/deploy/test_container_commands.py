"""Each Deployment's command of deploy/k8s, run as its container would run
it: with the image's environment (MEEPLE_HOST=0.0.0.0 from the
Dockerfile), the ConfigMap's settings, the Redis URL where the Deployment
takes it from the Secret (a real redis-server here), and nothing else. Each
must listen on all addresses, answer the probe its manifest declares (gRPC
health, or the worker's /metrics), and stop cleanly on SIGTERM; the worker
exports no metric that ``meeple up`` does not (the dashboard's check).

Only the ports differ: MEEPLE_PORT and MEEPLE_METRICS_PORT are 0 and
``--web-port`` is given 0, so that tests on one machine do not collide.

The archive as the rendered Deployments run it, on a real PostgreSQL: a
server that runs match refuses an unmigrated database, naming the
migration; the initContainer's command migrates it (two at once, as the
pods of a rollout do, and once more: no-ops), and then every container
that runs match serves on it."""

from __future__ import annotations

import os
import re
import subprocess
import urllib.request
from contextlib import ExitStack
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tests.deploy.manifests import base_files, of_kind, render
from tests.deploy.metrics_page import DEPLOY, Served, exported_names
from tests.e2e.processes import MEEPLE, Meeple
from tests.postgres_servers import PostgresServer
from tests.redis_servers import RedisServer

DATABASE_URL = "MEEPLE_DATABASE_URL"


def image_environment() -> dict[str, str]:
    """The ENV of the Dockerfile's runtime stage that concerns meeple."""
    text = (DEPLOY / "Dockerfile").read_text().split("AS runtime", 1)[1]
    return dict(re.findall(r"\b(MEEPLE_[A-Z_]+)=(\S+)", text))


def container_environment(
    container: dict[str, Any], redis_url: str, database_url: str | None = None
) -> dict[str, str]:
    settings = of_kind(base_files(), "ConfigMap")["meeple-settings"]["data"]
    env = {**image_environment(), **settings, "MEEPLE_PORT": "0", "MEEPLE_METRICS_PORT": "0"}
    for variable in container.get("env", []):
        if variable["name"] == "MEEPLE_REDIS_URL":
            env["MEEPLE_REDIS_URL"] = redis_url
        if variable["name"] == DATABASE_URL:
            assert database_url is not None, container["name"]
            env[DATABASE_URL] = database_url
    return env


def one_shot(args: list[str], env: dict[str, str]) -> subprocess.Popen[str]:
    """``meeple ARGS`` started as a container's command (``ended`` waits)."""
    return subprocess.Popen(
        [str(MEEPLE), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**env, "PATH": f"{MEEPLE.parent}:{os.environ.get('PATH', '')}", "COLUMNS": "300"},
    )


def ended(process: subprocess.Popen[str], seconds: float = 60) -> tuple[int, str]:
    """Its exit status and output once it ends (killed after ``seconds``)."""
    try:
        output, _ = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        output, _ = process.communicate()
        raise AssertionError(f"still running after {seconds} s:\n{output[-3000:]}") from None
    return process.returncode, output


def check_serving(served: Served, name: str) -> None:
    assert served.process.address.startswith("0.0.0.0:"), (name, served.process.output())
    port = served.process.address.rsplit(":", 1)[1]
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        answer = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=5
        )
    assert answer.status == health_pb2.HealthCheckResponse.SERVING, name


def free_ports(args: list[str]) -> list[str]:
    return [
        "0" if index and args[index - 1] == "--web-port" else arg for index, arg in enumerate(args)
    ]


def test_every_deployment_command_serves_as_its_container_would(
    redis_server: RedisServer, meeple_up: Served
) -> None:
    redis_server.flush()
    deployments = of_kind(base_files(), "Deployment")
    with ExitStack() as stack:
        started: dict[str, tuple[Served, dict[str, Any]]] = {}
        for name, deployment in deployments.items():
            (container,) = deployment["spec"]["template"]["spec"]["containers"]
            env = container_environment(container, redis_server.url)
            process = Meeple(*free_ports(container["args"]), env=env)
            stack.callback(process.kill)
            started[name] = (Served(process), container)
        for name, (served, container) in started.items():
            output = served.process.output()
            assert "metrics: http://0.0.0.0:" in output, (name, output)
            probe = container["readinessProbe"]
            if "grpc" in probe:
                assert served.process.address.startswith("0.0.0.0:"), (name, output)
                port = served.process.address.rsplit(":", 1)[1]
                with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                    health = health_pb2_grpc.HealthStub(channel)
                    answer = health.Check(health_pb2.HealthCheckRequest(), timeout=5)
                assert answer.status == health_pb2.HealthCheckResponse.SERVING, name
            else:
                assert probe["httpGet"]["path"] == "/metrics", name
                with urllib.request.urlopen(served.metrics_url, timeout=5) as answer:
                    assert answer.status == 200, name
                # The dashboard and rules are checked against meeple up's
                # metrics: a worker exports no others.
                worker_names = exported_names(served.scrape())
                assert worker_names - exported_names(meeple_up.scrape()) == set()
        for name, (served, _) in started.items():
            served.process.stop()
            assert served.process.process.returncode == 0, (name, served.process.output())


def test_the_migration_step_then_every_archiving_server_on_postgres(
    redis_server: RedisServer, postgres_server: PostgresServer
) -> None:
    redis_server.flush()
    deployments = of_kind(render("dev"), "Deployment")
    archiving = {
        name: deployment["spec"]["template"]["spec"]
        for name, deployment in deployments.items()
        if deployment["spec"]["template"]["spec"].get("initContainers")
    }
    assert set(archiving) == {"match", "web"}
    with postgres_server.database() as url:
        # Unmigrated, the server refuses to start, and says what to run.
        (server,) = archiving["match"]["containers"]
        env = container_environment(server, redis_server.url, url)
        status, output = ended(one_shot(free_ports(server["args"]), env))
        assert status != 0, output
        assert "meeple archive migrate" in output, output
        # The initContainers of two pods at once, then one more: each exits 0.
        (init,) = archiving["match"]["initContainers"]
        env = container_environment(init, redis_server.url, url)
        migrations = [one_shot(init["args"], env) for _ in range(2)]
        for migration in migrations:
            status, output = ended(migration, 120)
            assert status == 0, output
        status, output = ended(one_shot(init["args"], env))
        assert status == 0, output
        with ExitStack() as stack:
            started = {}
            for name, pod in archiving.items():
                (server,) = pod["containers"]
                env = container_environment(server, redis_server.url, url)
                process = Meeple(*free_ports(server["args"]), env=env)
                stack.callback(process.kill)
                started[name] = Served(process)
            for name, served in started.items():
                check_serving(served, name)
            for name, served in started.items():
                served.process.stop()
                assert served.process.process.returncode == 0, (name, served.process.output())
