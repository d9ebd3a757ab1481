"""``meeple up`` as a user runs it: a real process that serves, reports
healthy, and stops gracefully on SIGTERM."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

MEEPLE = Path(sys.executable).with_name("meeple")


def test_meeple_up_serves_and_stops_on_sigterm() -> None:
    process = subprocess.Popen(
        [str(MEEPLE), "up", "--port", "0", "--metrics-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={"COLUMNS": "200", "PATH": str(MEEPLE.parent)},
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        port = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        assert port, line
        assert "metrics: http://127.0.0.1:" in process.stdout.readline()
        with grpc.insecure_channel(f"127.0.0.1:{port.group(1)}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            response = health.Check(health_pb2.HealthCheckRequest(), timeout=10)
            assert response.status == health_pb2.HealthCheckResponse.SERVING
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
        assert time.monotonic() - started < 30
        assert "shutting down" in process.stdout.read()
    finally:
        process.kill()
