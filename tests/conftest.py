"""Suite-wide settings (hypothesis runs derandomized, so the suite is
deterministic), ``--reverse-order`` (every test must pass in any order: CI
runs the suite once backwards, which puts each test before the ones it
used to follow), a check that no test starts inside an event loop left
running, and the real Redis servers some tests need."""

import asyncio
from collections.abc import Iterator

import pytest
from hypothesis import settings

from tests.postgres_servers import PostgresServer
from tests.redis_servers import RedisCluster, RedisServer

settings.register_profile("deterministic", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("deterministic")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--reverse-order",
        action="store_true",
        help="run the collected tests last to first (modules stay whole, so each "
        "module-scoped fixture still starts once)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--reverse-order"):
        items.reverse()


@pytest.fixture(autouse=True)
def no_event_loop_left_running() -> None:
    """A test starts with no event loop running in the main thread: one left
    running (by a fixture that outlives its tests) breaks every asyncio.run()
    after it, in whichever test happens to come next. The browser tests run
    inside playwright's (tests/web/conftest.py overrides this check, and
    stops playwright when they are done)."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return
    pytest.fail(f"an event loop was left running in the main thread by an earlier test: {loop}")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A redis-server for the session (tests flush it as they need)."""
    server = RedisServer(tmp_path_factory.mktemp("redis"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisCluster]:
    """A Redis Cluster of three masters for the session."""
    cluster = RedisCluster(tmp_path_factory.mktemp("cluster"))
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PostgresServer]:
    """A PostgreSQL server for the session; ``server.database()`` gives a
    test a fresh database of its own."""
    server = PostgresServer(tmp_path_factory.mktemp("postgres"))
    yield server
    server.stop()
