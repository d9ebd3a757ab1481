"""A real PostgreSQL server for the tests, on a free loopback port in a
temporary folder, with trust authentication, and a fresh database per test.

initdb and postgres come from the system (Debian's package ``postgresql``,
which puts them in /usr/lib/postgresql/VERSION/bin; ``.ci/run`` installs
it). Without them, the tests that need them are skipped with a message
saying so, unless MEEPLE_REQUIRE_POSTGRES=1 (as CI sets), which makes their
absence a failure.

PostgreSQL refuses to run as root: as root, the server's folder is made
under the system's temporary directory (pytest's own is private to root),
handed to the ``postgres`` system user (Debian's package makes it), and
initdb and postgres run as that user.
"""

from __future__ import annotations

import asyncio
import contextlib
import glob
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

from tests.redis_servers import free_port
from tests.system_tools import require_installed

USER = "meeple"  # the cluster's superuser (trust authentication: no password)
DATABASE = "meeple"
SYSTEM_USER = "postgres"  # who runs the server when the tests run as root
START_SECONDS = 30.0


def find_binary(name: str) -> str | None:
    """``name`` on PATH, else in the newest /usr/lib/postgresql/*/bin."""
    found = shutil.which(name)
    if found:
        return found
    candidates = glob.glob(f"/usr/lib/postgresql/*/bin/{name}")
    candidates.sort(key=lambda path: [int(part) for part in Path(path).parts[4].split(".")])
    return candidates[-1] if candidates else None


INITDB = find_binary("initdb")
POSTGRES = find_binary("postgres")


def require_postgres() -> None:
    """Skips the test (or fails it, under MEEPLE_REQUIRE_POSTGRES=1) without
    PostgreSQL's server binaries (or, as root, without its system user)."""
    message = "PostgreSQL is not installed (apt-get install postgresql)"
    installed = bool(INITDB and POSTGRES)
    if installed and os.geteuid() == 0:
        try:
            pwd.getpwnam(SYSTEM_USER)
        except KeyError:
            installed = False
            message = f"PostgreSQL cannot run as root, and there is no {SYSTEM_USER} user"
    require_installed(installed, message, "MEEPLE_REQUIRE_POSTGRES")


def _log_tail(path: Path, lines: int = 20) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError as error:
        return f"(no log: {error})"


class PostgresServer:
    """One postgres on 127.0.0.1 with a database ``meeple`` (``url``);
    ``database()`` makes another, dropped when it is done; ``stop()``, and
    ``start()`` again (same port and data) after ``stop(remove=False)``."""

    def __init__(self, folder: Path) -> None:
        require_postgres()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            # pytest's folders are private to root: postgres could not reach them.
            self.folder = Path(tempfile.mkdtemp(prefix="meeple-postgres-"))
            account = pwd.getpwnam(SYSTEM_USER)
            os.chown(self.folder, account.pw_uid, account.pw_gid)
        else:
            self.folder = folder
            folder.mkdir(parents=True, exist_ok=True)
        self.data = self.folder / "data"
        self.log = self.folder / "postgres.log"
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None
        try:
            self._initdb()
            self.start()
            self.create_database(DATABASE)
        except BaseException:
            self.stop()
            raise

    @property
    def url(self) -> str:
        return self.url_of(DATABASE)

    def url_of(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def _as_server_user(self) -> dict[str, Any]:
        """Popen's options that run a program as the server's user."""
        if not self.as_root:
            return {}
        account = pwd.getpwnam(SYSTEM_USER)
        return {"user": account.pw_uid, "group": account.pw_gid, "extra_groups": []}

    def _initdb(self) -> None:
        assert INITDB is not None
        command = [
            INITDB, "-D", str(self.data), "-U", USER, "--auth=trust",
            "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions",
        ]  # fmt: skip
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=120,
            cwd=self.folder,
            **self._as_server_user(),
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"initdb exited with {done.returncode}:\n{done.stdout}\n{done.stderr}"
            )

    def start(self) -> None:
        """Starts postgres and waits until it accepts connections: on a free
        port the first time (another if that one was taken meanwhile), on
        the same port again after ``stop(remove=False)``."""
        if self.port:
            self._spawn()
            self._wait_ready()
            return
        for _ in range(3):
            self.port = free_port()
            self._spawn()
            try:
                self._wait_ready()
                return
            except _PortTaken:
                self.port = 0
        raise RuntimeError(f"postgres found no free port; its log:\n{_log_tail(self.log)}")

    def _spawn(self) -> None:
        assert POSTGRES is not None
        command = [
            POSTGRES, "-D", str(self.data), "-p", str(self.port), "-k", str(self.folder),
            "-c", "listen_addresses=127.0.0.1",
            # A test server: nothing needs to survive a crash.
            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
            "-c", "max_connections=100", "-c", "shared_buffers=32MB",
        ]  # fmt: skip
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.folder,
                **self._as_server_user(),
            )

    def _wait_ready(self) -> None:
        """Until postmaster.pid says ``ready`` (as pg_ctl waits); a server
        that exits meanwhile fails at once with its log."""
        assert self.process is not None
        deadline = time.monotonic() + START_SECONDS
        pid_file = self.data / "postmaster.pid"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = _log_tail(self.log)
                self.process = None
                if "could not bind" in tail or "Address already in use" in tail:
                    raise _PortTaken(f"postgres could not bind port {self.port}:\n{tail}")
                raise RuntimeError(f"postgres exited on port {self.port}; its log:\n{tail}")
            with contextlib.suppress(OSError):
                lines = pid_file.read_text().splitlines()
                if len(lines) >= 8 and lines[7].strip() == "ready":
                    return
            time.sleep(0.05)
        tail = _log_tail(self.log)
        self.stop(remove=False)
        raise RuntimeError(
            f"postgres did not start on port {self.port} within {START_SECONDS} s; its log:\n{tail}"
        )

    def _admin(self, *statements: str) -> None:
        """Runs statements outside any transaction (as CREATE DATABASE must)."""

        async def run() -> None:
            url = self.url_of("postgres").replace("postgresql://", "postgresql+asyncpg://")
            engine = create_async_engine(
                url, poolclass=sa.NullPool, isolation_level="AUTOCOMMIT",
                connect_args={"timeout": 10, "command_timeout": 60},
            )  # fmt: skip
            try:
                async with engine.connect() as connection:
                    for statement in statements:
                        await connection.execute(sa.text(statement))
            finally:
                await engine.dispose()

        asyncio.run(run())

    def create_database(self, name: str) -> str:
        """A new empty database; its URL."""
        self._admin(f'CREATE DATABASE "{name}"')
        return self.url_of(name)

    def drop_database(self, name: str) -> None:
        """Drops it, closing whatever connections it still has."""
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    @contextlib.contextmanager
    def database(self) -> Iterator[str]:
        """A fresh database for one test (its URL), dropped afterwards."""
        name = f"test_{secrets.token_hex(6)}"
        url = self.create_database(name)
        try:
            yield url
        finally:
            self.drop_database(name)

    def stop(self, remove: bool = True) -> None:
        """Shuts the server down (fast shutdown: SIGINT) and, as root and
        with ``remove``, deletes its folder (pytest's own folders, which
        hold it otherwise, are pytest's to clean)."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self.process = None
        if self.as_root and remove:
            shutil.rmtree(self.folder, ignore_errors=True)


class _PortTaken(RuntimeError):
    """postgres could not bind its port (taken since free_port chose it)."""
