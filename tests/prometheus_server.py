"""A real Prometheus server for the tests, on a free loopback port with a
temporary config and storage, and promtool.

Both come from the system (Debian's package ``prometheus``; ``.ci/run``
installs it). Without them, the tests that need them are skipped with a
message saying so, unless MEEPLE_REQUIRE_PROMETHEUS=1 (as CI sets), which
makes their absence a failure.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from tests.redis_servers import free_port
from tests.system_tools import require_installed

PROMETHEUS = shutil.which("prometheus")
PROMTOOL = shutil.which("promtool")
HTTP_SECONDS = 2.0  # one API call; Prometheus answers these in milliseconds


def require_prometheus() -> None:
    """Skips the test (or fails it, under MEEPLE_REQUIRE_PROMETHEUS=1)
    without prometheus and promtool."""
    message = "prometheus/promtool are not installed (apt-get install prometheus)"
    require_installed(bool(PROMETHEUS and PROMTOOL), message, "MEEPLE_REQUIRE_PROMETHEUS")


def promtool(*args: str) -> str:
    """Runs promtool; a failure shows what it printed."""
    require_prometheus()
    assert PROMTOOL is not None
    done = subprocess.run(
        [PROMTOOL, *args], capture_output=True, text=True, timeout=60, check=False
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"promtool {' '.join(args)} failed:\n{output}"
    return output


class PrometheusServer:
    """``prometheus`` with ``config`` (a dict, written as YAML) in
    ``folder``; ``query(expr)`` asks its HTTP API."""

    def __init__(self, folder: Path, config: dict[str, Any], ready_seconds: float = 20) -> None:
        require_prometheus()
        assert PROMETHEUS is not None
        folder.mkdir(parents=True, exist_ok=True)
        self.config_path = folder / "prometheus.yml"
        self.config_path.write_text(yaml.safe_dump(config))
        self.log_path = folder / "prometheus.log"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        with self.log_path.open("w") as log:
            self.process = subprocess.Popen(
                [
                    PROMETHEUS,
                    f"--config.file={self.config_path}",
                    f"--storage.tsdb.path={folder / 'data'}",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                    "--web.enable-lifecycle",
                ],
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self._wait_ready(ready_seconds)

    def log(self) -> str:
        return self.log_path.read_text()[-4000:]

    def _wait_ready(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"prometheus exited with {self.process.returncode}:\n{self.log()}"
                )
            try:
                with urllib.request.urlopen(f"{self.url}/-/ready", timeout=HTTP_SECONDS) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(0.1)
        raise AssertionError(f"prometheus was not ready within {seconds} s:\n{self.log()}")

    def api(self, path: str, **params: str) -> Any:
        """The ``data`` of an answer of the HTTP API; an error names its cause."""
        url = f"{self.url}/api/v1/{path}?{urllib.parse.urlencode(params)}"
        try:
            with urllib.request.urlopen(url, timeout=HTTP_SECONDS) as answer:
                body = json.load(answer)
        except urllib.error.HTTPError as error:
            raise AssertionError(f"{path} {params}: HTTP {error.code}: {error.read()!r}") from None
        assert body["status"] == "success", body
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        """The instant vector ``expr`` gives now."""
        data = self.api("query", query=expr)
        assert data["resultType"] == "vector", data
        result: list[dict[str, Any]] = data["result"]
        return result

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
