"""A distributed run that ends without losing its last matches.

A headless Locust master ends its run (``--run-time``, or Ctrl-C) by asking
its workers to quit and waiting half a second for their last figures: the
matches still in flight, which ``--stop-timeout`` lets finish, would end on
the workers after the master has written its stats. So when the master
stops, it first asks every worker to drain (a custom message): each stops
its users, which finish their matches within --stop-timeout, sends its
figures, then says it is drained; the master waits for every worker's word
(at most --stop-timeout and a margin) before it goes on to stop. A worker's
messages reach the master in order, so its figures arrive first."""

from __future__ import annotations

import logging
import time
from typing import Any

import gevent  # type: ignore[import-untyped]
from locust.runners import STATE_MISSING, MasterRunner, WorkerRunner

DRAIN = "meeple_drain"
DRAINED = "meeple_drained"
MARGIN_SECONDS = 15.0  # past --stop-timeout, for the figures to travel

log = logging.getLogger("meeple.locust")


def register(environment: Any, **_: Any) -> None:
    """Locust's init listener: the master's side or a worker's."""
    runner = environment.runner
    if isinstance(runner, MasterRunner):
        drained: set[str] = set()

        def on_drained(msg: Any, **_: Any) -> None:
            drained.add(msg.node_id)

        def on_stopping(**_: Any) -> None:
            drain(runner, drained)

        runner.register_message(DRAINED, on_drained)
        environment.events.test_stopping.add_listener(on_stopping)
    elif isinstance(runner, WorkerRunner):

        def on_drain(**_: Any) -> None:
            finish(runner)

        runner.register_message(DRAIN, on_drain, concurrent=True)


def drain(runner: MasterRunner, drained: set[str]) -> None:
    drained.clear()
    waiting = {client.id for client in runner.clients.all if client.state != STATE_MISSING}
    if not waiting:
        return
    runner.send_message(DRAIN)
    patience = float(runner.environment.stop_timeout or 0) + MARGIN_SECONDS
    deadline = time.monotonic() + patience
    while not waiting <= drained and time.monotonic() < deadline:
        gevent.sleep(0.1)
    if not waiting <= drained:
        log.warning(
            "%d of %d workers did not drain within %.0f s: their last matches are not counted",
            len(waiting - drained),
            len(waiting),
            patience,
        )


def finish(runner: WorkerRunner) -> None:
    """Stops the users (each finishes its match, within --stop-timeout),
    sends their figures, then says so."""
    runner.stop()
    runner._send_stats()  # Locust's own last report, as on quit
    runner.send_message(DRAINED)
