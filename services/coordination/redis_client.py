"""The Redis client the stores share: one URL for a server or a Cluster,
pooled connections, retries with backoff, and ``Unavailable`` once those
are spent; and the consumer groups of its streams, made again when Redis
comes back without them.

``Unavailable`` (UNAVAILABLE to clients, who retry it) stands for every
failure of the connection or the topology, not of the command: a refused
or lost connection, a timeout, a Redis still loading its data after a
restart (LOADING), a Cluster that is down or has a master down
(CLUSTERDOWN, MASTERDOWN), slots being moved (TRYAGAIN, MOVED and ASK
past redis-py's redirections), slots no node serves yet, a replica that
was a master (READONLY), and a connection that redis-py itself tore down
under a command in flight (the Cluster client closes every connection of
the client when one command meets CLUSTERDOWN, so another command's
connection may lose its socket mid-write: an ``AttributeError`` from
inside redis-py). Anything else is a bug, and stays INTERNAL.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path
from typing import Any, ParamSpec, TypeVar
from urllib.parse import urlsplit, urlunsplit

import redis
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import (
    AskError,
    BusyLoadingError,
    ClusterDownError,
    ClusterError,
    ReadOnlyError,
    RedisClusterException,
    ResponseError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from services.errors import Unavailable

P = ParamSpec("P")
T = TypeVar("T")

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
RETRIES = 8  # about 6 s of backoff in all, for a restart of Redis

log = logging.getLogger("meeple.coordination")


# Failures of the connection or the Cluster's topology, not of the command
# (see the module's docstring). MasterDownError is a ClusterDownError,
# MovedError an AskError, BusyLoadingError a ConnectionError (named for the
# reader); ClusterError is also redis-py's "TTL exhausted" after a storm of
# redirections.
CONNECTION_ERRORS: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    BusyLoadingError,
    RedisTimeoutError,
    OSError,  # TimeoutError and ConnectionResetError among them
    ClusterError,
    ClusterDownError,
    TryAgainError,
    AskError,
    ReadOnlyError,
    SlotNotCoveredError,
)
# What redis-py's Cluster client says when it cannot (re)learn the topology.
TOPOLOGY_MESSAGES = (
    "Redis Cluster cannot be connected",
    "All slots are not covered",
    "could not agree on a valid slots cache",
    "No targets were found",
)
REDIS_PACKAGE = Path(redis.__file__).parent


def torn_down(error: BaseException) -> bool:
    """Whether ``error`` is redis-py meeting a connection it tore down
    under a command in flight: an AttributeError on None (its reader or
    writer, set to None by a disconnect), raised inside redis-py."""
    if not isinstance(error, AttributeError) or error.obj is not None:
        return False
    frame = error.__traceback__
    while frame is not None and frame.tb_next is not None:
        frame = frame.tb_next
    return frame is not None and Path(frame.tb_frame.f_code.co_filename).is_relative_to(
        REDIS_PACKAGE
    )


def is_connection_error(error: BaseException) -> bool:
    """Whether ``error`` is a failure of the connection or the topology
    (``Unavailable``), not of the command."""
    if isinstance(error, CONNECTION_ERRORS):
        return True
    if type(error) is RedisClusterException:
        return any(message in str(error) for message in TOPOLOGY_MESSAGES)
    return torn_down(error)


def unavailable_on_connection_errors(
    method: Callable[P, Coroutine[Any, Any, T]],
) -> Callable[P, Coroutine[Any, Any, T]]:
    """Connection errors that outlast the retries become ``Unavailable``."""

    @functools.wraps(method)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(*args, **kwargs)
        except Unavailable:
            raise
        except Exception as error:
            if not is_connection_error(error):
                raise
            name = type(error).__name__
            raise Unavailable(f"the coordination store is unreachable: {name}: {error}") from None

    return wrapper


class StreamReadKeys:
    """A Cluster client's command parser that reads the keys of XREAD and
    XREADGROUP from the command itself (the names after STREAMS, the first
    half of what follows), and leaves every other command to redis-py's.
    redis-py asks a node for those two (COMMAND GETKEYS: their keys are
    "movable"), a round trip before every stream read, always to one node."""

    READS = ("XREAD", "XREADGROUP")

    def __init__(self, parser: Any) -> None:
        self.parser = parser

    def __getattr__(self, name: str) -> Any:
        return getattr(self.parser, name)

    async def get_keys(self, *args: Any) -> Any:
        words = [word.decode() if isinstance(word, bytes) else str(word) for word in args]
        if words and words[0].upper() in self.READS:
            at = next(i for i, word in enumerate(words) if word.upper() == "STREAMS")
            names = args[at + 1 :]
            return tuple(names[: len(names) // 2])
        return await self.parser.get_keys(*args)


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
        cluster = RedisCluster.from_url(plain, **options)
        cluster.commands_parser = StreamReadKeys(cluster.commands_parser)  # type: ignore[assignment]
        return cluster
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
