"""podman and podman-compose as the image job drives them: the image of
deploy/Dockerfile built on the stand-in bases that .ci/standin-bases made
(named by MEEPLE_STANDIN_* variables, which .ci/image-job sets), and
deploy/compose.yaml run under a project name of its own, every published
port a free one of this machine. A failing command shows what it printed."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.redis_servers import free_port

ROOT = Path(__file__).resolve().parents[2]
COMPOSE_FILE = ROOT / "deploy" / "compose.yaml"
IMAGE = "localhost/meeple:ci"
WEB_STAGE = "localhost/meeple-web-stage:ci"
PROJECT = "meeple-ci"
# Every service of compose.yaml but Grafana, which Debian does not package.
SERVICES = (
    "redis", "postgres", "migrate", "rules", "match", "matchmaker", "worker", "web", "prometheus",
)  # fmt: skip
REPLICAS = {"match": 2, "worker": 3}
UNCHECKED = {"prometheus"}  # compose declares no healthcheck for it: the tests query it
ONE_SHOT = {"migrate"}  # runs to its end: done once it exited 0


def standin(name: str) -> str:
    """The stand-in base image for ``name`` (python, node, redis, postgres,
    prometheus)."""
    variable = f"MEEPLE_STANDIN_{name.upper()}"
    image = os.environ.get(variable)
    assert image, f"{variable} is not set: run the image job with .ci/image-job"
    return image


def run(*args: str, seconds: float = 120, env: dict[str, str] | None = None) -> str:
    """Runs a command to its end; its output, or an AssertionError with it."""
    assert shutil.which(args[0]), f"{args[0]} is not installed (.ci/image-job installs it)"
    done = subprocess.run(
        args,
        capture_output=True,
        text=True,
        timeout=seconds,
        check=False,
        env={**os.environ, **(env or {})},
        cwd=ROOT,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"{' '.join(args)} exited {done.returncode}:\n{output[-6000:]}"
    return done.stdout


def podman(*args: str, seconds: float = 120) -> str:
    return run("podman", *args, seconds=seconds)


def build(target: str | None, tag: str) -> None:
    """``podman build`` of deploy/Dockerfile (to ``target``, or the whole
    image) on the stand-in bases; podman's layer cache keeps rebuilds short."""
    stage = ["--target", target] if target else []
    podman(
        "build",
        "--file", "deploy/Dockerfile",
        "--ignorefile", "deploy/Dockerfile.dockerignore",
        "--build-arg", f"PYTHON_IMAGE={standin('python')}",
        "--build-arg", f"NODE_IMAGE={standin('node')}",
        *stage,
        "--tag", tag,
        ".",
        seconds=900,
    )  # fmt: skip


def copy_out(image: str, path: str, into: Path) -> Path:
    """Copies ``path`` out of ``image`` into the folder ``into``."""
    container = podman("create", image).strip()
    try:
        podman("cp", f"{container}:{path}", str(into))
    finally:
        podman("rm", "--force", container)
    return into / Path(path).name


@dataclass
class Compose:
    """deploy/compose.yaml under podman-compose, on free host ports."""

    ports: dict[str, int] = field(
        default_factory=lambda: {
            name: free_port() for name in ("WEB", "GRPC", "RULES", "PROMETHEUS")
        }
    )
    # Matches the tests saw finish: by id, and how many more (a loadtest's,
    # whose ids it does not report). Every one must reach the archive.
    finished: set[str] = field(default_factory=set)
    finished_unnamed: int = 0

    def env(self) -> dict[str, str]:
        return {
            "MEEPLE_IMAGE": IMAGE,
            "MEEPLE_REDIS_IMAGE": standin("redis"),
            "MEEPLE_POSTGRES_IMAGE": standin("postgres"),
            "MEEPLE_PROMETHEUS_IMAGE": standin("prometheus"),
            # A killed worker's bot turn comes back within seconds, not a minute.
            "MEEPLE_BOT_VISIBILITY_TIMEOUT": "5",
            **{f"MEEPLE_{name}_PUBLISH": str(port) for name, port in self.ports.items()},
        }

    def compose(self, *args: str, seconds: float = 300) -> str:
        return run(
            "podman-compose", "-p", PROJECT, "-f", str(COMPOSE_FILE), *args,
            seconds=seconds, env=self.env(),
        )  # fmt: skip

    def up(self) -> None:
        self.down()  # what a run that died left behind
        self.compose("up", "-d", "--no-build", *SERVICES)

    def down(self) -> None:
        self.compose("down", "-v", "-t", "5")

    @staticmethod
    def container(service: str, number: int = 1) -> str:
        return f"{PROJECT}_{service}_{number}"

    def containers(self) -> list[str]:
        return [
            self.container(service, number)
            for service in SERVICES
            for number in range(1, REPLICAS.get(service, 1) + 1)
        ]

    def host_port(self, service: str, number: int, port: int = 50051) -> int:
        """The host port a replica's container ``port`` is published on."""
        line = podman("port", self.container(service, number), f"{port}/tcp").splitlines()[0]
        return int(line.rsplit(":", 1)[1])

    def logs(self, container: str, lines: int = 40) -> str:
        done = subprocess.run(
            ["podman", "logs", "--tail", str(lines), container],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        return done.stdout + done.stderr

    def state(self, container: str) -> str:
        return podman("inspect", "--format", "{{.State.Status}}", container).strip()

    def exit_code(self, container: str) -> int:
        return int(podman("inspect", "--format", "{{.State.ExitCode}}", container))

    def wait_healthy(self, seconds: float = 120) -> None:
        """Waits until each container is running and its healthcheck (the
        one compose declares; podman runs it on demand here, with no systemd
        timer to run it) passes, and each one-shot container has exited 0; a
        failure names the container and its logs."""
        deadline = time.monotonic() + seconds
        waiting = self.containers()
        while waiting:
            container = waiting[0]
            service = container.split("_")[1]
            if service in ONE_SHOT:
                state = self.state(container)
                if state == "exited":
                    code = self.exit_code(container)
                    assert code == 0, f"{container} exited {code}:\n{self.logs(container)}"
                    waiting.pop(0)
                    continue
            healthy = self.state(container) == "running" and (
                service in UNCHECKED
                or subprocess.run(
                    ["podman", "healthcheck", "run", container],
                    capture_output=True,
                    timeout=30,
                    check=False,
                ).returncode
                == 0
            )
            if healthy:
                waiting.pop(0)
                continue
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{container} is not healthy after {seconds} s "
                    f"({self.state(container)}):\n{self.logs(container)}"
                )
            time.sleep(1.0)
