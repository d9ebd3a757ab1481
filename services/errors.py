"""Errors a service raises and the status each maps to.

Malformed input is INVALID_ARGUMENT, an action the rules refuse (or not your
turn) FAILED_PRECONDITION with the reason, a stale ply ABORTED, a request
over a limit RESOURCE_EXHAUSTED. Messages quote at most a short prefix of
what the client sent (``quoted``), so an error always fits in metadata.
"""

from __future__ import annotations

import grpc

from engine_core import IllegalAction, MalformedAction

QUOTE_CHARS = 40


def quoted(text: object, limit: int = QUOTE_CHARS) -> str:
    """``repr`` of client input, cut to ``limit`` characters with an ellipsis."""
    text = str(text)
    if len(text) <= limit:
        return repr(text)
    return repr(text[:limit]) + f"... ({len(text)} characters)"


def clipped(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, ending in "..." when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class BadRequest(ValueError):
    """A malformed request: the client must change it (INVALID_ARGUMENT)."""


class FailedPrecondition(RuntimeError):
    """A valid request the match's state refuses, other than an illegal
    action: a record of another rules version, a match that is over
    (FAILED_PRECONDITION)."""


class NotFound(LookupError):
    """No such match, or it expired (NOT_FOUND)."""


class OutOfRange(ValueError):
    """A position past the end, such as a ply after a finished match's last (OUT_OF_RANGE)."""


class Unauthenticated(PermissionError):
    """No token where one is needed (UNAUTHENTICATED)."""


class PermissionDenied(PermissionError):
    """A token that does not hold a seat of this match (PERMISSION_DENIED)."""


class Aborted(RuntimeError):
    """A stale ply, or another change won the race: retry after reading the
    match again (ABORTED)."""


class DeadlineExceeded(RuntimeError):
    """The call's deadline passed before its work was done (DEADLINE_EXCEEDED)."""


class Unavailable(RuntimeError):
    """A store or worker the call needs is unreachable for now: retry with
    backoff (UNAVAILABLE)."""


class ResourceExhausted(RuntimeError):
    """A client over a limit, or a server queue that is full (RESOURCE_EXHAUSTED)."""


# Most specific first: MalformedAction is an IllegalAction, OutOfRange a ValueError.
STATUS = (
    (BadRequest, grpc.StatusCode.INVALID_ARGUMENT),
    (MalformedAction, grpc.StatusCode.INVALID_ARGUMENT),
    (IllegalAction, grpc.StatusCode.FAILED_PRECONDITION),
    (FailedPrecondition, grpc.StatusCode.FAILED_PRECONDITION),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (OutOfRange, grpc.StatusCode.OUT_OF_RANGE),
    (Unauthenticated, grpc.StatusCode.UNAUTHENTICATED),
    (PermissionDenied, grpc.StatusCode.PERMISSION_DENIED),
    (Aborted, grpc.StatusCode.ABORTED),
    (ResourceExhausted, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (DeadlineExceeded, grpc.StatusCode.DEADLINE_EXCEEDED),
    (Unavailable, grpc.StatusCode.UNAVAILABLE),
)


def status_of(error: BaseException) -> grpc.StatusCode | None:
    """The status a client can act on, or None for an unexpected error."""
    for kind, code in STATUS:
        if isinstance(error, kind):
            return code
    return None


def error_for(code_name: str, message: str) -> Exception:
    """The error that stands for status ``code_name`` (the inverse of
    ``status_of``), for errors that crossed a process boundary by name."""
    for kind, code in STATUS:
        if code.name == code_name:
            return kind(message)
    raise ValueError(f"no error stands for status {code_name!r}")
