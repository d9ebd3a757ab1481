"""What ``meeple health`` asks a server (container healthchecks): its
grpc.health.v1 status, or whether a URL answers 200, each with one line
saying what it found. Straight to the server, whatever proxy the
environment names."""

from __future__ import annotations

from typing import Any


def one_line(text: str) -> str:
    return " ".join(text.split())


def grpc_health(address: str, service: str, timeout: float) -> tuple[bool, str]:
    """Whether grpc.health.v1 Check says SERVING, and one line saying what it said."""
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    what = f"{address} {service}" if service else address
    request = health_pb2.HealthCheckRequest(service=service)
    # Straight to the server, whatever proxy the environment names.
    with grpc.insecure_channel(address, options=[("grpc.enable_http_proxy", 0)]) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)  # the stubs' types lack Check
        try:
            answer = stub.Check(request, timeout=timeout)
        except grpc.RpcError as error:
            code = error.code() if isinstance(error, grpc.Call) else grpc.StatusCode.UNKNOWN
            if code is grpc.StatusCode.NOT_FOUND:
                return False, f"{what}: no such service"
            if code is grpc.StatusCode.DEADLINE_EXCEEDED:
                return False, f"{what}: no answer within {timeout:g} s"
            details = error.details() if isinstance(error, grpc.Call) else str(error)
            return False, f"{what}: {code.name}: {details}"
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status)
    return answer.status == health_pb2.HealthCheckResponse.SERVING, f"{what}: {status}"


def http_health(url: str, timeout: float) -> tuple[bool, str]:
    """Whether ``url`` answers 200, and one line saying what it answered."""
    import urllib.error
    import urllib.request

    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy
    try:
        with direct.open(url, timeout=timeout) as answer:
            status, reason = answer.status, answer.reason
    except urllib.error.HTTPError as error:
        status, reason = error.code, error.reason
    except urllib.error.URLError as error:
        return False, f"{url}: {error.reason}"
    except (OSError, ValueError) as error:  # a timeout while reading; not a URL
        return False, f"{url}: {error or type(error).__name__}"
    return status == 200, f"{url}: {status} {reason}"
