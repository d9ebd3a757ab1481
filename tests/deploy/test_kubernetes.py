"""deploy/k8s rendered as a cluster gets it: every resource valid against
its schema (kubernetes-validate, strict; the KEDA ScaledObject against its
vendored schema; no kind unchecked), and the topology the README promises:
probes, resources, disruption budgets, headless Services, autoscaling on
the right signals, Redis in dev and an external Redis Cluster in prod."""

from __future__ import annotations

from typing import Any

import pytest

from services.app import SERVICE_NAMES
from services.coordination.redis import JOBS
from tests.deploy.cli_options import default
from tests.deploy.manifests import Resource, base_files, of_kind, render, validate

OVERLAYS = ("dev", "prod")
COMPONENTS = {"rules", "match", "matchmaker", "worker", "web"}
GRPC_PORT = default("serve", "port")


def containers(deployment: Resource) -> list[dict[str, Any]]:
    spec: list[dict[str, Any]] = deployment["spec"]["template"]["spec"]["containers"]
    return spec


def pod_labels(deployment: Resource) -> dict[str, str]:
    labels: dict[str, str] = deployment["spec"]["template"]["metadata"]["labels"]
    return labels


def selects(selector: dict[str, str], deployment: Resource) -> bool:
    return selector.items() <= pod_labels(deployment).items()


def test_the_base_files_are_valid_as_written() -> None:
    for resource in base_files():
        validate(resource)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_rendered_resource_is_valid(overlay: str) -> None:
    resources = render(overlay)
    assert len(resources) > 15
    for resource in resources:
        validate(resource)
        assert resource["metadata"].get("namespace", "meeple") == "meeple"


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_each_service_runs_the_one_image_with_its_command(overlay: str) -> None:
    deployments = of_kind(render(overlay), "Deployment")
    assert set(deployments) == COMPONENTS
    images = {container["image"] for d in deployments.values() for container in containers(d)}
    assert len(images) == 1, images
    for name, deployment in deployments.items():
        (container,) = containers(deployment)
        command, *rest = container["args"]
        assert command in ("serve", "worker"), name
        if command == "serve":
            served = [arg for arg in rest if not arg.startswith("-") and not arg.isdigit()]
            assert served
            assert set(served) <= set(SERVICE_NAMES), name
        assert container["envFrom"] == [{"configMapRef": {"name": "meeple-settings"}}], name
        env = {variable["name"]: variable for variable in container.get("env", [])}
        if name == "rules":  # stateless: no Redis
            assert "MEEPLE_REDIS_URL" not in env
        else:
            secret = env["MEEPLE_REDIS_URL"]["valueFrom"]["secretKeyRef"]
            assert secret == {"name": "meeple-secrets", "key": "MEEPLE_REDIS_URL"}, name
    assert deployments["match"]["spec"]["replicas"] >= 2


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_probes_resources_and_a_non_root_user(overlay: str) -> None:
    for name, deployment in of_kind(render(overlay), "Deployment").items():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        (container,) = containers(deployment)
        ports = {port["name"]: port["containerPort"] for port in container["ports"]}
        for probe in ("readinessProbe", "livenessProbe"):
            if "grpc" in ports:  # grpc.health.v1 on the gRPC port
                assert container[probe]["grpc"]["port"] == GRPC_PORT == ports["grpc"], name
            else:  # meeple worker: only its metrics endpoint
                assert container[probe]["httpGet"] == {"path": "/metrics", "port": "metrics"}
        command = container["args"][0]
        assert ports["metrics"] == default(command, "metrics_port"), name  # no port is set
        for bound in ("requests", "limits"):
            assert set(container["resources"][bound]) == {"cpu", "memory"}, name
    worker = of_kind(render(overlay), "Deployment")["worker"]
    assert "grpc" not in {port["name"] for port in containers(worker)[0]["ports"]}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_deployment_has_a_disruption_budget(overlay: str) -> None:
    resources = render(overlay)
    budgets = of_kind(resources, "PodDisruptionBudget").values()
    for name, deployment in of_kind(resources, "Deployment").items():
        covering = [b for b in budgets if selects(b["spec"]["selector"]["matchLabels"], deployment)]
        assert len(covering) == 1, name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_grpc_services_are_headless_and_reach_their_pods(overlay: str) -> None:
    resources = render(overlay)
    deployments = of_kind(resources, "Deployment").values()
    services = of_kind(resources, "Service")
    for name in ("rules", "match", "matchmaker", "web-pods"):
        assert services[name]["spec"]["clusterIP"] == "None", name
    for name, service in services.items():
        if name == "redis":
            continue
        (target,) = [d for d in deployments if selects(service["spec"]["selector"], d)]
        named = {port["name"] for port in containers(target)[0]["ports"]}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in named, (name, port)
            assert port["name"] == port["targetPort"], (name, port)  # SRV: _metrics._tcp...
    assert of_kind(resources, "Ingress")["web"]["spec"]["rules"][0]["http"]["paths"][0]["backend"][
        "service"
    ] == {"name": "web", "port": {"name": "http"}}


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_rules_scale_on_cpu(overlay: str) -> None:
    (autoscaler,) = of_kind(render(overlay), "HorizontalPodAutoscaler").values()
    assert autoscaler["spec"]["scaleTargetRef"]["name"] == "rules"
    (metric,) = autoscaler["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert "replicas" not in of_kind(render(overlay), "Deployment")["rules"]["spec"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_workers_scale_on_the_job_streams_length(overlay: str) -> None:
    resources = render(overlay)
    (scaled,) = of_kind(resources, "ScaledObject").values()
    assert scaled["spec"]["scaleTargetRef"]["name"] == "worker"
    assert 1 <= scaled["spec"]["minReplicaCount"] <= scaled["spec"]["maxReplicaCount"]
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] in ("redis-streams", "redis-cluster-streams")
    assert trigger["metadata"]["stream"] == JOBS
    # No consumerGroup: KEDA then scales on XLEN (test_worker_scaling.py says why).
    assert "consumerGroup" not in trigger["metadata"]
    assert int(trigger["metadata"]["streamLength"]) > 0
    (worker,) = containers(of_kind(resources, "Deployment")["worker"])
    password = {variable["name"]: variable for variable in worker["env"]}[
        trigger["metadata"]["passwordFromEnv"]
    ]  # KEDA reads it from the worker's env
    key = password["valueFrom"]["secretKeyRef"]["key"]
    assert key in of_kind(resources, "Secret")["meeple-secrets"]["stringData"]


def test_dev_runs_redis_with_an_append_only_file() -> None:
    resources = render("dev")
    redis = of_kind(resources, "StatefulSet")["redis"]
    args = containers(redis)[0]["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    url = of_kind(resources, "Secret")["meeple-secrets"]["stringData"]["MEEPLE_REDIS_URL"]
    assert url.startswith("redis://redis.meeple.svc")
    (trigger,) = of_kind(resources, "ScaledObject")["worker"]["spec"]["triggers"]
    assert trigger["metadata"]["address"].startswith("redis.meeple.svc")


def test_prod_uses_an_external_redis_cluster() -> None:
    resources = render("prod")
    assert of_kind(resources, "StatefulSet") == {}
    assert "redis" not in of_kind(resources, "Service")
    url = of_kind(resources, "Secret")["meeple-secrets"]["stringData"]["MEEPLE_REDIS_URL"]
    assert url.startswith("redis+cluster://")
    (trigger,) = of_kind(resources, "ScaledObject")["worker"]["spec"]["triggers"]
    assert trigger["type"] == "redis-cluster-streams"
