"""``meeple`` processes as users start them, for whole-stack tests: each
one's output is collected as it runs, and its address read from it."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

MEEPLE = Path(sys.executable).with_name("meeple")
# The tests sign in every player they need from one address, up front.
MANY_SIGN_INS = {"MEEPLE_GUEST_SIGNINS_PER_MINUTE": "100000"}


class Meeple:
    """``meeple ARGS...`` in its own process; ``address`` once it serves."""

    def __init__(
        self, *args: str, env: dict[str, str] | None = None, program: str = str(MEEPLE)
    ) -> None:
        self.args = args
        environment = {
            "PATH": f"{MEEPLE.parent}:{os.environ.get('PATH', '')}",
            "COLUMNS": "300",  # rich would wrap the lines the tests read
            "MEEPLE_BOT_PACE": "0",  # bot-only matches unpaced, unless a test sets a pace
            **(env or {}),
        }
        self.process = subprocess.Popen(
            [program, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=environment,
        )
        self.lines: list[str] = []
        self._lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._drain, daemon=True).start()
        self.address = ""
        started = self.wait_for(r"listening on (\S+),|running,", 60)
        if started.group(1):
            self.address = started.group(1)

    @classmethod
    def command(cls, program: str, *args: str, env: dict[str, str] | None = None) -> Meeple:
        """Another program that prints "listening on HOST:PORT," when it serves."""
        return cls(*args, env=env, program=program)

    @property
    def pid(self) -> int:
        return self.process.pid

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            self._lines.put(line)

    def wait_for(self, pattern: str, seconds: float) -> re.Match[str]:
        deadline = time.monotonic() + seconds
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or (self.process.poll() is not None and self._lines.empty()):
                raise AssertionError(
                    f"meeple {' '.join(self.args)} did not print {pattern!r}:\n{self.output()}"
                )
            try:
                line = self._lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                continue
            found = re.search(pattern, line)
            if found:
                return found

    def output(self) -> str:
        return "".join(self.lines[-60:])

    def kill(self) -> None:
        """kill -9."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=30)

    def stop(self) -> None:
        """SIGTERM, as an orchestrator stops it; it must exit cleanly."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                raise


def auth_server(redis_url: str, env: dict[str, str] | None = None) -> Meeple:
    """``meeple serve auth`` on Redis, as the clients' entry signs them in:
    its guests' tokens, signed with the key the store shares, work on every
    replica of that Redis. Its sign-in limit is raised (``MANY_SIGN_INS``)."""
    return Meeple(
        "serve", "auth", "--port", "0", "--metrics-port", "0", "--redis", redis_url,
        env={**(env or {}), **MANY_SIGN_INS},
    )  # fmt: skip
