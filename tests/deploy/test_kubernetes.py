"""deploy/k8s rendered as a cluster gets it: every resource valid against
its schema (kubernetes-validate, strict; the KEDA ScaledObject against its
vendored schema; no kind unchecked), and the topology the README promises:
probes, resources, disruption budgets, headless Services, autoscaling on
the right signals, Redis in dev and an external Redis Cluster in prod,
every public service reachable through the Ingress, and no default secret
in prod (it does not render without its uncommitted secrets.env). The match
archive: every pod that runs the match service reads MEEPLE_DATABASE_URL
from the Secret and migrates the schema first (an initContainer), on dev's
own PostgreSQL StatefulSet or prod's external PostgreSQL."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from google.protobuf.descriptor import ServiceDescriptor
from meeple.v1 import (
    ai_service_pb2,
    archive_service_pb2,
    auth_service_pb2,
    match_service_pb2,
    matchmaking_service_pb2,
    rules_service_pb2,
)

from services.app import SERVICE_NAMES
from services.coordination.shards import JOB_STREAMS
from tests.deploy.cli_options import default
from tests.deploy.manifests import (
    K8S,
    SECRETS_FILE,
    Resource,
    base_files,
    copy_of_k8s,
    kustomize,
    of_kind,
    render,
    secret_values,
    validate,
)

OVERLAYS = ("dev", "prod")
COMPONENTS = {"rules", "match", "matchmaker", "worker", "web"}
GRPC_PORT = default("serve", "port")
# What `meeple serve NAME` serves, for each public service.
PUBLIC_SERVICES: dict[str, ServiceDescriptor] = {
    "rules": rules_service_pb2.DESCRIPTOR.services_by_name["RulesService"],
    "ai": ai_service_pb2.DESCRIPTOR.services_by_name["AIService"],
    "match": match_service_pb2.DESCRIPTOR.services_by_name["MatchService"],
    "matchmaking": matchmaking_service_pb2.DESCRIPTOR.services_by_name["MatchmakingService"],
    "auth": auth_service_pb2.DESCRIPTOR.services_by_name["AuthService"],
    "archive": archive_service_pb2.DESCRIPTOR.services_by_name["ArchiveService"],
}
PROD = K8S / "overlays" / "prod"
DATABASE_URL = "MEEPLE_DATABASE_URL"
MIGRATE = ["archive", "migrate"]
# Kinds whose pods the kubelet runs from a template.
WORKLOADS = ("Deployment", "StatefulSet", "Job")


def containers(deployment: Resource) -> list[dict[str, Any]]:
    spec: list[dict[str, Any]] = deployment["spec"]["template"]["spec"]["containers"]
    return spec


def pod_labels(deployment: Resource) -> dict[str, str]:
    labels: dict[str, str] = deployment["spec"]["template"]["metadata"]["labels"]
    return labels


def selects(selector: dict[str, str], deployment: Resource) -> bool:
    return selector.items() <= pod_labels(deployment).items()


def served_by(container: dict[str, Any]) -> list[str]:
    """The services a ``meeple serve NAME... [--option ...]`` container serves."""
    command, *rest = container["args"]
    if command != "serve":
        return []
    names = []
    for arg in rest:
        if arg.startswith("-"):
            break
        names.append(arg)
    return names


def web_port(container: dict[str, Any]) -> int | None:
    """The port of ``--web-port``, where Connect and gRPC-Web are served."""
    args = container["args"]
    return int(args[args.index("--web-port") + 1]) if "--web-port" in args else None


def prefix_matches(prefix: str, path: str) -> bool:
    """Kubernetes' pathType Prefix: element by element, split on '/'."""
    elements = [part for part in prefix.split("/") if part]
    return [part for part in path.split("/") if part][: len(elements)] == elements


def ingress_backend(ingress: Resource, rule: dict[str, Any], path: str) -> dict[str, Any]:
    """Where ``rule`` of ``ingress`` sends a request for ``path``: its
    longest matching path (Exact before Prefix at the same length), or the
    Ingress's default backend."""
    matches: list[tuple[int, bool, dict[str, Any]]] = []
    for entry in rule["http"]["paths"]:
        kind = entry["pathType"]
        assert kind in ("Exact", "Prefix"), kind  # ImplementationSpecific: the controller's
        if (kind == "Exact" and path == entry["path"]) or (
            kind == "Prefix" and prefix_matches(entry["path"], path)
        ):
            matches.append((len(entry["path"].rstrip("/")), kind == "Exact", entry["backend"]))
    if matches:
        return max(matches, key=lambda match: match[:2])[2]
    default_backend: dict[str, Any] = ingress["spec"]["defaultBackend"]
    return default_backend


def pod_containers(workload: Resource) -> list[dict[str, Any]]:
    """Every container of a workload's pods, its initContainers first."""
    pod = workload["spec"]["template"]["spec"]
    return [*pod.get("initContainers", []), *pod["containers"]]


def secret_key_refs(resources: tuple[Resource, ...]) -> set[tuple[str, str]]:
    """Every (Secret, key) a container's env reads (any workload's, init
    containers too)."""
    refs = set()
    workloads = [r for r in resources if r["kind"] in WORKLOADS]
    for workload in workloads:
        for container in pod_containers(workload):
            for variable in container.get("env", []):
                ref = variable.get("valueFrom", {}).get("secretKeyRef")
                if ref is not None:
                    refs.add((ref["name"], ref["key"]))
    return refs


def env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines as kustomize's secretGenerator reads them (``#`` and
    blank lines aside), each checked to be one it reads as meant."""
    values = {}
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Z][A-Z0-9_]*)=(\S*)", line)
        assert match, f"{path.name}: not KEY=VALUE without spaces or quotes: {line!r}"
        assert not match[2].startswith(("'", '"')), line
        values[match[1]] = match[2]
    return values


def test_the_base_files_are_valid_as_written() -> None:
    for resource in base_files():
        validate(resource)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_rendered_resource_is_valid(overlay: str) -> None:
    resources = render(overlay)
    assert len(resources) > 15
    for resource in resources:
        validate(resource)
        if resource["kind"] != "Namespace":  # the one cluster-wide kind here
            # Set, not left to kubectl's current namespace.
            assert resource["metadata"]["namespace"] == "meeple", resource["metadata"]


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
            served = served_by(container)
            assert served
            assert set(served) <= set(SERVICE_NAMES), name
            # No service name after the options, where served_by would miss it.
            assert not {arg for arg in rest if arg.isidentifier()} - {*served}, name
        assert container["envFrom"] == [{"configMapRef": {"name": "meeple-settings"}}], name
        env = {variable["name"]: variable for variable in container.get("env", [])}
        if name == "rules":  # stateless: no Redis
            assert "MEEPLE_REDIS_URL" not in env
        else:
            secret = env["MEEPLE_REDIS_URL"]["valueFrom"]["secretKeyRef"]
            assert secret == {"name": "meeple-secrets", "key": "MEEPLE_REDIS_URL"}, name
    assert deployments["match"]["spec"]["replicas"] >= 2
    # The matchmaker runs the passes; web serves matchmaking to the outside too.
    assert served_by(containers(deployments["matchmaker"])[0]) == ["matchmaking"]
    assert set(served_by(containers(deployments["web"])[0])) == set(PUBLIC_SERVICES)


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
        if name in ("redis", "postgres"):  # StatefulSets' (of their tests below)
            continue
        (target,) = [d for d in deployments if selects(service["spec"]["selector"], d)]
        named = {port["name"] for port in containers(target)[0]["ports"]}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in named, (name, port)
            assert port["name"] == port["targetPort"], (name, port)  # SRV: _metrics._tcp...


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_public_service_is_routed_to_pods_that_serve_it(overlay: str) -> None:
    """Every method path of RulesService, AIService, MatchService and
    MatchmakingService, on every rule (host) of the Ingress, reaches a
    Service whose every pod serves that service over Connect and gRPC-Web on
    the port the Ingress targets (its --web-port: HTTP/1.1, which any
    Ingress speaks)."""
    resources = render(overlay)
    (ingress,) = of_kind(resources, "Ingress").values()
    services = of_kind(resources, "Service")
    deployments = of_kind(resources, "Deployment").values()
    for rule in ingress["spec"]["rules"]:
        for name, descriptor in PUBLIC_SERVICES.items():
            for method in descriptor.methods:
                path = f"/{descriptor.full_name}/{method.name}"
                backend = ingress_backend(ingress, rule, path)["service"]
                service = services[backend["name"]]
                (port,) = [
                    p
                    for p in service["spec"]["ports"]
                    if backend["port"] in ({"name": p["name"]}, {"number": p["port"]})
                ]
                targets = [d for d in deployments if selects(service["spec"]["selector"], d)]
                assert targets, (path, service["metadata"]["name"])
                for deployment in targets:
                    (container,) = containers(deployment)
                    assert name in served_by(container), (path, deployment["metadata"]["name"])
                    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
                    assert ports[port["targetPort"]] == web_port(container), (path, port)


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_ingress_names_its_class(overlay: str) -> None:
    (ingress,) = of_kind(render(overlay), "Ingress").values()
    assert ingress["spec"]["ingressClassName"] == "nginx"
    # Its annotations are that controller's.
    assert all(
        key.startswith("nginx.ingress.kubernetes.io/") for key in ingress["metadata"]["annotations"]
    )


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_rules_scale_on_cpu(overlay: str) -> None:
    (autoscaler,) = of_kind(render(overlay), "HorizontalPodAutoscaler").values()
    assert autoscaler["spec"]["scaleTargetRef"]["name"] == "rules"
    (metric,) = autoscaler["spec"]["metrics"]
    assert metric["resource"]["name"] == "cpu"
    assert "replicas" not in of_kind(render(overlay), "Deployment")["rules"]["spec"]


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_workers_scale_on_the_job_streams_length(overlay: str) -> None:
    """One trigger per job shard, each on its stream's length."""
    resources = render(overlay)
    (scaled,) = of_kind(resources, "ScaledObject").values()
    assert scaled["spec"]["scaleTargetRef"]["name"] == "worker"
    assert 1 <= scaled["spec"]["minReplicaCount"] <= scaled["spec"]["maxReplicaCount"]
    triggers = scaled["spec"]["triggers"]
    assert [trigger["metadata"]["stream"] for trigger in triggers] == list(JOB_STREAMS)
    (worker,) = containers(of_kind(resources, "Deployment")["worker"])
    for trigger in triggers:
        assert trigger["type"] in ("redis-streams", "redis-cluster-streams")
        # No consumerGroup: KEDA then scales on XLEN (test_worker_scaling.py says why).
        assert "consumerGroup" not in trigger["metadata"]
        assert int(trigger["metadata"]["streamLength"]) > 0
        password = {variable["name"]: variable for variable in worker["env"]}[
            trigger["metadata"]["passwordFromEnv"]
        ]  # KEDA reads it from the worker's env
        key = password["valueFrom"]["secretKeyRef"]["key"]
        assert key in secret_values(of_kind(resources, "Secret")["meeple-secrets"])


def test_dev_runs_redis_with_an_append_only_file() -> None:
    resources = render("dev")
    redis = of_kind(resources, "StatefulSet")["redis"]
    args = containers(redis)[0]["args"]
    assert args[args.index("--appendonly") + 1] == "yes"
    url = secret_values(of_kind(resources, "Secret")["meeple-secrets"])["MEEPLE_REDIS_URL"]
    assert url.startswith("redis://redis.meeple.svc")
    triggers = of_kind(resources, "ScaledObject")["worker"]["spec"]["triggers"]
    assert all(t["metadata"]["address"].startswith("redis.meeple.svc") for t in triggers)


def test_prod_uses_an_external_redis_cluster() -> None:
    resources = render("prod")
    assert of_kind(resources, "StatefulSet") == {}
    assert "redis" not in of_kind(resources, "Service")
    url = secret_values(of_kind(resources, "Secret")["meeple-secrets"])["MEEPLE_REDIS_URL"]
    assert url.startswith("redis+cluster://")
    triggers = of_kind(resources, "ScaledObject")["worker"]["spec"]["triggers"]
    assert {trigger["type"] for trigger in triggers} == {"redis-cluster-streams"}


def test_prod_commits_no_secret_and_does_not_render_without_its_file(tmp_path: Path) -> None:
    """overlays/prod generates meeple-secrets from secrets.env, which git
    ignores: without it, kustomize (and so kubectl apply -k) fails, naming
    the file, rather than deploying a default password."""
    for path in sorted(PROD.glob("*.yaml")):
        kinds = [doc.get("kind") for doc in yaml.safe_load_all(path.read_text()) if doc]
        assert "Secret" not in kinds, path.name
    ignored = (PROD / ".gitignore").read_text().splitlines()
    assert SECRETS_FILE in ignored
    (generator,) = yaml.safe_load((PROD / "kustomization.yaml").read_text())["secretGenerator"]
    assert generator["name"] == "meeple-secrets"
    assert generator["envs"] == [SECRETS_FILE]
    done = kustomize(copy_of_k8s(tmp_path / "k8s", with_secrets=False) / "overlays" / "prod")
    assert done.returncode != 0
    assert done.stdout == ""
    assert f"[{SECRETS_FILE}]" in done.stderr, done.stderr  # kustomize's own words
    assert "no such file or directory" in done.stderr, done.stderr


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_secret_holds_exactly_the_keys_the_pods_read(overlay: str) -> None:
    """The one Secret has every key a container reads from it, and no other;
    in prod those are the keys of secrets.env.example (and its values the
    Secret's, as rendered here), which documents each."""
    resources = render(overlay)
    (secret,) = of_kind(resources, "Secret").values()
    read = secret_key_refs(resources)
    assert {name for name, _ in read} == {secret["metadata"]["name"]} == {"meeple-secrets"}
    assert set(secret_values(secret)) == {key for _, key in read}
    if overlay == "prod":
        example = env_file(PROD / f"{SECRETS_FILE}.example")
        assert secret_values(secret) == example
        text = (PROD / f"{SECRETS_FILE}.example").read_text()
        for key in example:  # each key has a comment of its own
            assert f"# {key}:" in text, key


def env_of(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {variable["name"]: variable for variable in container.get("env", [])}


def runs_match(container: dict[str, Any]) -> bool:
    """Whether the container runs the match service (``meeple up`` does too),
    or the archive service, which reads the archive."""
    return container["args"][0] == "up" or bool({"match", "archive"} & set(served_by(container)))


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_every_pod_that_runs_match_archives_through_the_secret(overlay: str) -> None:
    """MEEPLE_DATABASE_URL from meeple-secrets on every container that runs
    the match service (match, web) or the archive service (web), and on no
    other pod's."""
    resources = render(overlay)
    deployments = of_kind(resources, "Deployment")
    archiving = {name for name, d in deployments.items() if runs_match(containers(d)[0])}
    assert archiving == {"match", "web"}
    from_secret = {"secretKeyRef": {"name": "meeple-secrets", "key": DATABASE_URL}}
    for workload in (r for r in resources if r["kind"] in WORKLOADS):
        name = workload["metadata"]["name"]
        for container in workload["spec"]["template"]["spec"]["containers"]:
            variable = env_of(container).get(DATABASE_URL)
            if workload["kind"] == "Deployment" and name in archiving:
                assert variable == {"name": DATABASE_URL, "valueFrom": from_secret}, name
            else:
                assert variable is None, name


@pytest.mark.parametrize("overlay", OVERLAYS)
def test_the_schema_is_migrated_before_any_match_server_starts(overlay: str) -> None:
    """A server with a PostgreSQL URL refuses to start while the schema is
    behind, so each pod that runs match migrates first: one initContainer,
    ``meeple archive migrate`` on the same image, URL and settings, as
    locked down as the server (base/archive.yaml says why not a Job)."""
    resources = render(overlay)
    assert of_kind(resources, "Job") == {}
    for name, deployment in of_kind(resources, "Deployment").items():
        (server,) = containers(deployment)
        init = deployment["spec"]["template"]["spec"].get("initContainers", [])
        if not runs_match(server):
            assert init == [], name
            continue
        (migrate,) = init
        assert migrate["args"] == MIGRATE, name
        assert "command" not in migrate, name  # the image's entrypoint: meeple
        assert migrate["image"] == server["image"], name
        assert env_of(migrate)[DATABASE_URL] == env_of(server)[DATABASE_URL], name
        assert migrate["envFrom"] == server["envFrom"], name
        assert migrate["securityContext"] == server["securityContext"], name
        assert migrate["volumeMounts"] == server["volumeMounts"], name  # /tmp
        for bound in ("requests", "limits"):
            assert set(migrate["resources"][bound]) == {"cpu", "memory"}, name


def test_dev_runs_postgres_for_the_archive() -> None:
    """One PostgreSQL 16 pod with its data on a claim of its own, ready
    once pg_isready answers, behind a headless Service; the Secret's URL
    names that Service, its user, password and database."""
    resources = render("dev")
    postgres = of_kind(resources, "StatefulSet")["postgres"]
    validate(postgres)
    assert postgres["spec"]["replicas"] == 1
    (container,) = containers(postgres)
    assert container["image"] == "postgres:16"
    env = env_of(container)
    assert env["POSTGRES_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
        "name": "meeple-secrets",
        "key": "POSTGRES_PASSWORD",
    }
    (claim,) = postgres["spec"]["volumeClaimTemplates"]
    mounts = {mount["name"]: mount["mountPath"] for mount in container["volumeMounts"]}
    # PGDATA is a folder of the claim's volume (not its root, where
    # lost+found may be).
    assert env["PGDATA"]["value"].startswith(mounts[claim["metadata"]["name"]] + "/")
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert "/var/run/postgresql" in mounts.values()  # its socket, writable
    probe = container["readinessProbe"]["exec"]["command"]
    assert probe[0] == "pg_isready"
    assert probe[probe.index("-U") + 1] == env["POSTGRES_USER"]["value"]
    assert probe[probe.index("-d") + 1] == env["POSTGRES_DB"]["value"]
    service = of_kind(resources, "Service")["postgres"]
    assert service["spec"]["clusterIP"] == "None"
    assert selects(service["spec"]["selector"], postgres)
    assert postgres["spec"]["serviceName"] == "postgres"
    (port,) = service["spec"]["ports"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports[port["targetPort"]] == port["port"] == 5432
    values = secret_values(of_kind(resources, "Secret")["meeple-secrets"])
    url = urlsplit(values[DATABASE_URL])
    assert url.scheme == "postgresql"
    assert url.hostname == "postgres.meeple.svc.cluster.local"
    assert url.port == port["port"]
    assert url.username == env["POSTGRES_USER"]["value"]
    assert url.password == values["POSTGRES_PASSWORD"]
    assert url.path == "/" + env["POSTGRES_DB"]["value"]


def test_prod_archives_in_an_external_postgres() -> None:
    resources = render("prod")
    assert "postgres" not in of_kind(resources, "StatefulSet")
    assert "postgres" not in of_kind(resources, "Service")
    values = secret_values(of_kind(resources, "Secret")["meeple-secrets"])
    url = urlsplit(values[DATABASE_URL])
    assert url.scheme == "postgresql"
    assert url.hostname
    assert not url.hostname.endswith(".svc.cluster.local")
    assert url.username
    assert url.password
    assert url.path.strip("/")
    assert "POSTGRES_PASSWORD" not in values  # nothing here runs PostgreSQL
