"""What the users did, as Locust requests (``events.request``): each gRPC
call, each turn, each match, each spectator's event. A failure is named by
its gRPC status code (or by one of ours: STREAM_ENDED, TICKET_EXPIRED), so
that Locust's failures table groups them by code; its details go to the
log, once per kind of failure and process."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, TypeVar

import grpc

GRPC = "grpc"  # a unary call; WatchMatch: the time to its first message
TURN = "turn"  # one action event of a match
MATCH = "match"  # a whole match, named by its game; its length: the plies
SPECTATE = "spectate"  # one event a spectator got: its delivery lag

Response = TypeVar("Response")
log = logging.getLogger("meeple.locust")
_logged: set[tuple[str, str]] = set()


def warn_once(key: tuple[str, str], message: str) -> None:
    """Logs ``message`` the first time ``key`` comes up in this process."""
    if key not in _logged:
        _logged.add(key)
        log.warning("%s", message)


class Failure(Exception):
    """A call, stream or match gone wrong; ``code`` names it (its repr is
    what Locust groups by: one row per code), ``detail`` says more."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(code)
        self.code = code
        self.detail = detail


def failure_of(error: grpc.RpcError) -> Failure:
    if isinstance(error, grpc.Call):
        return Failure(error.code().name, error.details() or "")
    return Failure("UNKNOWN", repr(error))


class Reporter:
    """Fires Locust's request events for one user."""

    def __init__(self, environment: Any) -> None:
        self._request = environment.events.request

    def report(
        self,
        kind: str,
        name: str,
        seconds: float,
        length: int = 0,
        failure: Failure | None = None,
    ) -> None:
        if failure is not None:
            said = f"{kind} {name} failed: {failure.code} {failure.detail}".rstrip()
            warn_once((f"{kind} {name}", failure.code), said)
        self._request.fire(
            request_type=kind,
            name=name,
            response_time=max(seconds, 0.0) * 1000,
            response_length=length,
            exception=failure,
            context={},
        )

    def call(
        self,
        name: str,
        method: Callable[..., Response],
        request: Any,
        quiet: tuple[grpc.StatusCode, ...] = (),
        **kwargs: Any,
    ) -> Response:
        """``method(request, **kwargs)``'s answer, reported under ``name``;
        Failure when it fails (reported, unless its code is ``quiet``)."""
        began = time.perf_counter()
        try:
            response = method(request, **kwargs)
        except grpc.RpcError as error:
            failure = failure_of(error)
            if not (isinstance(error, grpc.Call) and error.code() in quiet):
                self.report(GRPC, name, time.perf_counter() - began, failure=failure)
            raise failure from None
        length = response.ByteSize() if hasattr(response, "ByteSize") else 0
        self.report(GRPC, name, time.perf_counter() - began, length)
        return response
