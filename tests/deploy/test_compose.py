"""deploy/compose.yaml: valid against the Compose Specification's JSON
Schema (vendored, deploy/schemas/README.md) with check-jsonschema, and the
topology the README describes, scraped by the shipped Prometheus config; the
archive's PostgreSQL, its one-shot migration, and the containers that serve
match migrating before they serve (their entrypoint script run here on a
stand-in ``meeple``)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import yaml

from services.app import SERVICE_NAMES
from tests.deploy.cli_options import default
from tests.deploy.metrics_page import DEPLOY

COMPOSE = DEPLOY / "compose.yaml"
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")
MEEPLE_SERVICES = {"rules", "match", "matchmaker", "worker", "web"}
ONE_SHOT = {"migrate"}  # the meeple image, run to its end
MIGRATE = ["archive", "migrate"]


def services() -> dict[str, dict[str, Any]]:
    compose: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    found: dict[str, dict[str, Any]] = compose["services"]
    return found


def test_compose_is_valid_against_the_compose_spec() -> None:
    schema = DEPLOY / "schemas" / "compose-spec.json"
    done = subprocess.run(
        [str(CHECK_JSONSCHEMA), "--schemafile", str(schema), str(COMPOSE)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def serves_match(service: dict[str, Any]) -> bool:
    """Whether it runs the match service (or the archive service, which reads
    the archive)."""
    command, *rest = service["command"]
    return command == "up" or (command == "serve" and bool({"match", "archive"} & set(rest)))


def test_the_split_topology_on_one_image() -> None:
    found = services()
    assert set(found) == MEEPLE_SERVICES | ONE_SHOT | {"redis", "postgres", "prometheus", "grafana"}
    meeple = {name: found[name] for name in MEEPLE_SERVICES | ONE_SHOT}
    assert len({service["image"] for service in meeple.values()}) == 1
    for name, service in meeple.items():
        build = service["build"]
        assert (COMPOSE.parent / build["context"] / build["dockerfile"]).is_file(), name
    for name in MEEPLE_SERVICES:
        command, *rest = found[name]["command"]
        assert command in ("serve", "worker"), name
        if command == "serve":
            served = [arg for arg in rest if not arg.startswith("-") and not arg.isdigit()]
            assert set(served) <= set(SERVICE_NAMES), name
    for name in MEEPLE_SERVICES:  # all but the stateless rules share Redis
        service = found[name]
        on_redis = "MEEPLE_REDIS_URL" in service["environment"]
        assert on_redis == (name != "rules"), name
        assert ("redis" in service.get("depends_on", {})) == on_redis, name
    assert found["match"]["deploy"]["replicas"] == 2
    assert found["worker"]["deploy"]["replicas"] == 3
    assert "${MEEPLE_WEB_PUBLISH:-8080}:8080" in found["web"]["ports"]
    assert "${MEEPLE_GRPC_PUBLISH:-50051}:50051" in found["web"]["ports"]
    redis = found["redis"]["command"]
    assert redis[redis.index("--appendonly") + 1] == "yes"


def test_the_entry_serves_every_service_and_every_meeple_container_gets_traffic() -> None:
    """Clients come in through web (the page, Connect and gRPC), matchmaking
    included; the rules container and each match replica are published too,
    so that clients can reach them (the image job calls each)."""
    found = services()
    assert found["web"]["command"][1 : 1 + len(SERVICE_NAMES)] == list(SERVICE_NAMES)
    assert found["rules"]["ports"] == ["${MEEPLE_RULES_PUBLISH:-50052}:50051"]
    assert found["match"]["ports"] == ["50051"]  # a free host port per replica


def test_every_meeple_container_has_a_health_check_through_meeple_health() -> None:
    """A string (run by the image's shell, as CMD-SHELL): podman-compose 1.0
    consumes a list's first item on the first replica, failing the second."""
    for name in MEEPLE_SERVICES:
        check = services()[name]["healthcheck"]["test"].split()
        assert check[:2] == ["meeple", "health"], name
        if name == "worker":  # no gRPC port: its metrics endpoint
            metrics = default("worker", "metrics_port")
            assert check[2:] == ["--http", f"http://127.0.0.1:{metrics}/metrics"]
        else:
            assert check[2:] == [f"127.0.0.1:{default('serve', 'port')}"], name


def test_grafana_gets_the_dashboard_and_prometheus_its_config() -> None:
    found = services()
    mounts = {
        name: dict(volume.split(":")[:2] for volume in found[name]["volumes"] if ":" in volume)
        for name in ("prometheus", "grafana")
    }
    for name, mounted in mounts.items():
        for source in mounted:
            if source.startswith("."):
                assert (COMPOSE.parent / source).is_dir(), (name, source)
    dashboards_in = {
        target for source, target in mounts["grafana"].items() if "dashboards" in source
    }
    provider = yaml.safe_load(
        (DEPLOY / "grafana" / "provisioning" / "dashboards" / "meeple.yaml").read_text()
    )
    assert {provider["providers"][0]["options"]["path"]} == dashboards_in
    assert mounts["prometheus"]["./prometheus"] == "/etc/prometheus"


def test_prometheus_scrapes_every_meeple_service_of_compose() -> None:
    config = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    scraped = {}
    for job in config["scrape_configs"]:
        for lookup in job.get("dns_sd_configs", []):
            for name in lookup["names"]:
                scraped[name] = (job["job_name"], lookup["port"])
    assert set(scraped) == MEEPLE_SERVICES
    for name, (job, port) in scraped.items():
        assert job == f"meeple-{name}"
        command = "worker" if name == "worker" else "serve"
        assert port == default(command, "metrics_port"), name  # compose sets no port


def postgres_environment() -> dict[str, str]:
    environment: dict[str, str] = services()["postgres"]["environment"]
    return environment


def test_postgres_keeps_the_archive_on_a_volume_with_a_health_check() -> None:
    postgres = services()["postgres"]
    assert postgres["image"] == "${MEEPLE_POSTGRES_IMAGE:-postgres:16}"
    volumes = dict(volume.split(":", 1) for volume in postgres["volumes"])
    assert volumes == {"postgres-data": "/var/lib/postgresql/data"}  # the image's PGDATA
    assert "postgres-data" in yaml.safe_load(COMPOSE.read_text())["volumes"]
    env = postgres_environment()
    assert set(env) == {"POSTGRES_USER", "POSTGRES_PASSWORD", "POSTGRES_DB"}
    # A variable, with a dev default that the file says is one.
    assert env["POSTGRES_PASSWORD"] == "${MEEPLE_POSTGRES_PASSWORD:-meeple-dev-password}"
    assert "dev default" in COMPOSE.read_text()
    # Over TCP, as the servers connect (not the socket of the first start's setup).
    check = postgres["healthcheck"]["test"].split()
    assert check[0] == "pg_isready"
    assert check[check.index("-h") + 1] == "127.0.0.1"
    assert check[check.index("-U") + 1] == env["POSTGRES_USER"]
    assert check[check.index("-d") + 1] == env["POSTGRES_DB"]
    assert postgres["restart"] == "unless-stopped"


def test_every_container_that_serves_match_archives_in_postgres_once_migrated() -> None:
    """MEEPLE_DATABASE_URL names compose's postgres with its user, password
    and database, on the services that run the match service (and migrate),
    and on no other; they start after migrate has exited 0 (Docker
    Compose), and migrate once postgres is healthy."""
    found = services()
    archiving = {name for name in MEEPLE_SERVICES if serves_match(found[name])}
    assert archiving == {"match", "web"}
    env = postgres_environment()
    user, password = env["POSTGRES_USER"], env["POSTGRES_PASSWORD"]
    for name, service in found.items():
        url = service.get("environment", {}).get("MEEPLE_DATABASE_URL")
        assert (url is not None) == (name in archiving | ONE_SHOT), name
        if url is None:
            continue
        parts = urlsplit(url)
        assert parts.scheme == "postgresql", name
        assert (parts.hostname, parts.port) == ("postgres", 5432), name
        assert url.startswith(f"postgresql://{user}:{password}@"), name
        assert parts.path == f"/{env['POSTGRES_DB']}", name
    for name in archiving:
        assert found[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }, name
    migrate = found["migrate"]
    assert migrate["command"] == MIGRATE
    assert migrate["restart"] == "no"
    assert migrate["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert migrate["healthcheck"] == {"disable": True}  # it exits: nothing to check


def entrypoint_run(
    service: str, tmp_path: Path, fail_migrations: int, seconds: float = 30
) -> tuple[int, list[list[str]]]:
    """Runs ``service``'s entrypoint and command as its container would
    (compose's ``$$`` read as ``$``), with a stand-in ``meeple`` first on
    PATH that records its arguments and fails its first
    ``fail_migrations`` ``archive migrate`` runs; ``sleep`` returns at once.
    Its exit status, and the stand-in's calls in order."""
    found = services()[service]
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    calls = tmp_path / "calls"
    fails = tmp_path / "fails"
    fails.write_text(str(fail_migrations))
    scripts = {
        "meeple": f"""#!/bin/sh
echo "$*" >> {calls}
if [ "$*" = "archive migrate" ]; then
    left=$(cat {fails})
    if [ "$left" -gt 0 ]; then echo $((left - 1)) > {fails}; exit 1; fi
fi
exit 0
""",
        "sleep": "#!/bin/sh\nexit 0\n",
    }
    for name, text in scripts.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(stat.S_IRWXU)
    entrypoint = [arg.replace("$$", "$") for arg in found["entrypoint"]]
    done = subprocess.run(
        [*entrypoint, *found["command"]],
        env={**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"},
        capture_output=True,
        text=True,
        timeout=seconds,
        check=False,
    )
    lines = calls.read_text().splitlines() if calls.exists() else []
    return done.returncode, [line.split() for line in lines]


def test_the_containers_that_serve_match_migrate_first(tmp_path: Path) -> None:
    """podman-compose 1.0.3 does not wait for depends_on conditions (it only
    orders the starts), so match and web migrate before they serve, trying
    again while PostgreSQL starts, and give up after about a minute."""
    for service in ("match", "web"):
        command = services()[service]["command"]
        status, calls = entrypoint_run(service, tmp_path / f"{service}-now", 0)
        assert (status, calls) == (0, [MIGRATE, command]), service
        status, calls = entrypoint_run(service, tmp_path / f"{service}-later", 3)
        assert (status, calls) == (0, [MIGRATE] * 4 + [command]), service
        status, calls = entrypoint_run(service, tmp_path / f"{service}-never", 1000)
        assert status != 0, service
        assert calls == [MIGRATE] * 30, service  # 2 s apart: a minute


def test_the_one_shot_migration_tries_while_postgres_starts(tmp_path: Path) -> None:
    status, calls = entrypoint_run("migrate", tmp_path / "now", 0)
    assert (status, calls) == (0, [MIGRATE])
    status, calls = entrypoint_run("migrate", tmp_path / "later", 5)
    assert (status, calls) == (0, [MIGRATE] * 6)
    status, calls = entrypoint_run("migrate", tmp_path / "never", 1000)
    assert status != 0
    assert calls == [MIGRATE] * 30
