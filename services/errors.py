"""Errors a service raises and the status each maps to (DESIGN.md, Services)."""

from __future__ import annotations

import grpc

from engine_core import IllegalAction, MalformedAction


class BadRequest(ValueError):
    """A malformed request: the client must change it (INVALID_ARGUMENT)."""


class NotFound(LookupError):
    """No such match (NOT_FOUND)."""


class Unauthenticated(PermissionError):
    """No seat token where one is needed (UNAUTHENTICATED)."""


class PermissionDenied(PermissionError):
    """A token that does not hold a seat of this match (PERMISSION_DENIED)."""


class Aborted(RuntimeError):
    """A stale ply, or another change won the race: retry after reading the
    match again (ABORTED)."""


class ResourceExhausted(RuntimeError):
    """A client over its rate limit (RESOURCE_EXHAUSTED)."""


KNOWN = (
    BadRequest,
    IllegalAction,
    NotFound,
    Unauthenticated,
    PermissionDenied,
    Aborted,
    ResourceExhausted,
)


def status_of(error: Exception) -> grpc.StatusCode:
    """The status a client can act on: malformed input is INVALID_ARGUMENT, an
    action the rules refuse (or not your turn) FAILED_PRECONDITION."""
    if isinstance(error, BadRequest | MalformedAction):
        return grpc.StatusCode.INVALID_ARGUMENT
    if isinstance(error, IllegalAction):
        return grpc.StatusCode.FAILED_PRECONDITION
    codes = {
        NotFound: grpc.StatusCode.NOT_FOUND,
        Unauthenticated: grpc.StatusCode.UNAUTHENTICATED,
        PermissionDenied: grpc.StatusCode.PERMISSION_DENIED,
        Aborted: grpc.StatusCode.ABORTED,
        ResourceExhausted: grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
    for kind, code in codes.items():
        if isinstance(error, kind):
            return code
    return grpc.StatusCode.INTERNAL
