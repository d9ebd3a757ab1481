"""What every server offers: health and reflection."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc


def test_every_service_reports_serving(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for name in ["", "meeple.v1.RulesService", "meeple.v1.AIService"]:
        response = health.Check(health_pb2.HealthCheckRequest(service=name))
        assert response.status == health_pb2.HealthCheckResponse.SERVING, name


def test_reflection_lists_the_services(channel: grpc.Channel) -> None:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    (response,) = list(stub.ServerReflectionInfo(iter([request])))
    names = {service.name for service in response.list_services_response.service}
    assert {"meeple.v1.RulesService", "meeple.v1.AIService", "grpc.health.v1.Health"} <= names
