"""The Redis client the stores share: one URL for a server or a Cluster,
pooled connections, retries with backoff, and ``Unavailable`` once those
are spent; and the consumer groups of its streams, made again when Redis
comes back without them."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlsplit, urlunsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.errors import Unavailable

P = ParamSpec("P")
T = TypeVar("T")

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
RETRIES = 8  # about 6 s of backoff in all, for a restart of Redis

log = logging.getLogger("meeple.coordination")


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


def group_gone(error: ResponseError) -> bool:
    """Whether Redis answered that a consumer group is not there (NOGROUP),
    or that the stream a blocked group read waited on was deleted
    (UNBLOCKED): Redis lost its data (a restart without persistence, a
    FLUSHALL), or someone deleted the stream."""
    text = str(error)
    return "NOGROUP" in text or "UNBLOCKED" in text


async def create_group(client: Any, stream: str, group: str) -> bool:
    """Creates ``group`` on ``stream`` (and the stream if need be), reading
    from its first entry; False if the group was there already."""
    try:
        await client.xgroup_create(stream, group, id="0", mkstream=True)
    except ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise
        return False
    return True


async def recreate_group(client: Any, stream: str, group: str, error: ResponseError) -> None:
    """After ``error`` from a command of ``group``: the group made again if
    it was gone (``error`` raised again otherwise), with one warning from
    the one process, and task, whose XGROUP CREATE made it. It reads from
    the stream's start, so the jobs written since Redis came back empty are
    delivered."""
    if not group_gone(error):
        raise error
    if await create_group(client, stream, group):
        log.warning(
            "recreated the consumer group %s of the stream %s: it was gone "
            "(Redis came back empty?)",
            group,
            stream,
            extra={"fields": {"stream": stream, "group": group, "answer": str(error)}},
        )


async def in_group(client: Any, stream: str, group: str, command: Callable[[], Awaitable[T]]) -> T:
    """``command()``, a command of the stream's consumer group; if the group
    is gone it is made again (see ``recreate_group``) and ``command()`` runs
    once more."""
    try:
        return await command()
    except ResponseError as error:
        await recreate_group(client, stream, group, error)
    return await command()
