"""SIGINT and SIGTERM for the ``meeple`` server commands, caught from the
first moment of a start to its end (services.cli; the AI pool's workers
rely on it too, services.ai_service.pool). Standard library only: the CLI
imports it before anything heavy."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """SIGINT and SIGTERM of a server command, from the moment ``with
    StopSignals() as signals:`` begins: ``received`` lists them, and once an
    event loop ``attach``es, each calls its callback there.

    They are blocked in every thread (those started later inherit it) and
    one thread of its own waits for them (sigwait), so none interrupts the
    code wherever it is (KeyboardInterrupt in an import) or ends the process
    with nothing stopped (SIGTERM's default), and none is lost: not even
    while the AI pool lets its worker processes inherit an ignored SIGINT
    (services.ai_service.pool), because a blocked signal is kept pending
    even when ignored. Handlers that do the same catch them where a library
    unblocked them. The mask and handlers from before are back after the
    block."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self._lock = threading.RLock()  # a handler may run while the main thread holds it
        self._loop: asyncio.AbstractEventLoop | None = None
        self._callback: Callable[[int], None] | None = None
        self._closing = False
        self._thread = threading.Thread(target=self._wait, name="stop signals", daemon=True)
        self._mask: set[int | signal.Signals] = set()
        self._handlers: dict[int, Any] = {}

    def __enter__(self) -> StopSignals:
        for number in STOP_SIGNALS:
            self._handlers[number] = signal.signal(number, self._handle)
        self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._closing = True
        if self._thread.ident is not None:
            signal.pthread_kill(self._thread.ident, signal.SIGTERM)  # wakes it, to end
        self._thread.join(timeout=1.0)
        signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)
        for number, handler in self._handlers.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)

    def _wait(self) -> None:
        while True:
            number = signal.sigwait(STOP_SIGNALS)
            if self._closing:
                return
            self._deliver(number)

    def _handle(self, number: int, frame: object) -> None:
        self._deliver(number)

    def _deliver(self, number: int) -> None:
        with self._lock:
            self.received.append(number)
            if self._loop is not None and self._callback is not None:
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                    self._loop.call_soon_threadsafe(self._callback, number)

    def attach(self, loop: asyncio.AbstractEventLoop, callback: Callable[[int], None]) -> bool:
        """From now on each signal calls ``callback(signal)`` on ``loop``;
        True if one came already."""
        with self._lock:
            self._loop, self._callback = loop, callback
            return bool(self.received)

    def detach(self) -> None:
        with self._lock:
            self._loop = self._callback = None
