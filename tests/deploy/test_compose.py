"""deploy/compose.yaml: valid against the Compose Specification's JSON
Schema (vendored, deploy/schemas/README.md) with check-jsonschema, and the
topology the README describes, scraped by the shipped Prometheus config."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from services.app import SERVICE_NAMES
from tests.deploy.cli_options import default
from tests.deploy.metrics_page import DEPLOY

COMPOSE = DEPLOY / "compose.yaml"
CHECK_JSONSCHEMA = Path(sys.executable).with_name("check-jsonschema")
MEEPLE_SERVICES = {"rules", "match", "matchmaker", "worker", "web"}


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


def test_the_split_topology_on_one_image() -> None:
    found = services()
    assert set(found) == MEEPLE_SERVICES | {"redis", "prometheus", "grafana"}
    meeple = {name: found[name] for name in MEEPLE_SERVICES}
    assert len({service["image"] for service in meeple.values()}) == 1
    for name, service in meeple.items():
        build = service["build"]
        assert (COMPOSE.parent / build["context"] / build["dockerfile"]).is_file(), name
        command, *rest = service["command"]
        assert command in ("serve", "worker"), name
        if command == "serve":
            served = [arg for arg in rest if not arg.startswith("-") and not arg.isdigit()]
            assert set(served) <= set(SERVICE_NAMES), name
    for name, service in meeple.items():  # all but the stateless rules share Redis
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
