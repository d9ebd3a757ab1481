"""The Redis client the stores share: one URL for a server or a Cluster,
pooled connections, retries with backoff, and ``Unavailable`` once those
are spent."""

from __future__ import annotations

import functools
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.errors import Unavailable

P = ParamSpec("P")
T = TypeVar("T")

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
RETRIES = 8  # about 6 s of backoff in all, for a restart of Redis


def unavailable_on_connection_errors(
    method: Callable[P, Coroutine[Any, Any, T]],
) -> Callable[P, Coroutine[Any, Any, T]]:
    """Connection errors that outlast the retries become ``Unavailable``."""

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(*args, **kwargs)
        except (RedisConnectionError, RedisTimeoutError, OSError) as error:
            raise Unavailable(f"the coordination store is unreachable: {error}") from None

    return wrapper


def connect(url: str, max_connections: int = 1000) -> Any:
    """A client for ``url``: ``redis://host:port/db`` (or ``rediss://``) for
    one server, ``redis+cluster://host:port`` for a Cluster (any node)."""
    parts = urlsplit(url)
    options: dict[str, Any] = {
        "retry": Retry(ExponentialWithJitterBackoff(base=0.05, cap=2.0), RETRIES),
        "retry_on_error": [RedisConnectionError, RedisTimeoutError, ConnectionResetError],
        "socket_timeout": 10.0,
        "socket_connect_timeout": 2.0,
        "health_check_interval": 15,
        "max_connections": max_connections,
    }
    if parts.scheme in CLUSTER_SCHEMES:
        plain = urlunsplit(parts._replace(scheme=CLUSTER_SCHEMES[parts.scheme]))
        return RedisCluster.from_url(plain, **options)
    if parts.scheme not in ("redis", "rediss", "unix"):
        raise ValueError(
            f"a Redis URL is redis://, rediss://, unix:// or redis+cluster://, got {url!r}"
        )
    return aioredis.Redis.from_url(url, **options)
