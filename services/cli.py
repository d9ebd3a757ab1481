"""The ``meeple`` command line.

The server commands (``up``, ``serve``, ``worker``):

- A start that fails (a port in use, Redis unreachable or refusing us, a
  bad setting or option) is one line on stderr, ``meeple: cannot listen on
  127.0.0.1:9464 (metrics port, --metrics-port / MEEPLE_METRICS_PORT):
  address already in use``, and exit code 2; the traceback is logged too
  under ``MEEPLE_LOG_LEVEL=DEBUG``.
- SIGINT (Ctrl-C) and SIGTERM stop the process at any moment, its start
  included (they are caught before it begins, and one cancels it), and the
  exit code is 0: the stop was asked for. A stop takes a few seconds at most.
- ``meeple health`` checks one from outside (container healthchecks).

Imports are made where they are needed, so that the process catches those
signals a moment after it starts.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from services.cli_archive import archive_app
from services.cli_errors import USAGE, OneLineUsage, say
from services.cli_loadtest import loadtest_app
from services.cli_play import demo, tournament, watch
from services.stop_signals import StopSignals

if TYPE_CHECKING:
    import asyncio


app = typer.Typer(help="meeple: tabletop game engines with AI opponents.", no_args_is_help=True)
app.add_typer(archive_app, name="archive")
app.add_typer(loadtest_app, name="loadtest")
app.command()(demo)
app.command()(tournament)


@app.callback()
def main() -> None:
    """meeple: tabletop game engines with AI opponents."""


# --- the server commands -------------------------------------------------------

# The App's settings a start may fail on, and what sets each on the command line.
SETTING_OPTIONS = {
    "port": "--port / MEEPLE_PORT",
    "web_port": "--web-port / MEEPLE_WEB_PORT",
    "metrics_port": "--metrics-port / MEEPLE_METRICS_PORT",
    "redis_url": "--redis / MEEPLE_REDIS_URL",
}


def _refuse(line: str, error: BaseException | None = None) -> NoReturn:
    """A start that failed: ``meeple: LINE`` on stderr and exit code 2, with
    ``error``'s traceback logged first when the log level is DEBUG."""
    if error is not None:
        logging.getLogger("meeple").debug("the start failed", exc_info=error)
    say(line, USAGE)


class StartFailed(Exception):
    """The start failed; ``line`` says why (the cause is chained)."""

    def __init__(self, line: str) -> None:
        super().__init__(line)
        self.line = line


# `meeple up`'s data directory when MEEPLE_DATA_DIR is unset (XDG's data home).
DEFAULT_DATA_DIR = str(
    Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share") / "meeple"
)
RedisOption = Annotated[
    str | None,
    typer.Option(
        "--redis",
        envvar="MEEPLE_REDIS_URL",
        help="Coordinate through Redis: redis://HOST:PORT/DB, or redis+cluster://HOST:PORT "
        "for a Redis Cluster (default: in memory, this process only).",
    ),
]
WorkerRedisOption = Annotated[
    str | None,
    typer.Option(
        "--redis",
        envvar="MEEPLE_REDIS_URL",
        help="The Redis the services coordinate through (required): redis://HOST:PORT/DB, "
        "or redis+cluster://HOST:PORT for a Redis Cluster.",
    ),
]
HostOption = Annotated[str, typer.Option(envvar="MEEPLE_HOST", help="Address to listen on.")]
PortOption = Annotated[
    int, typer.Option(min=0, max=65535, envvar="MEEPLE_PORT", help="gRPC port (0: any free).")
]
WorkersOption = Annotated[
    int, typer.Option(min=1, envvar="MEEPLE_WORKERS", help="AI worker processes.")
]
METRICS_HELP = (
    "Prometheus port of /metrics (0: any free port, printed at start; several "
    "processes on one machine each need a port of their own, or 0)."
)
MetricsOption = Annotated[
    int, typer.Option(min=0, max=65535, envvar="MEEPLE_METRICS_PORT", help=METRICS_HELP)
]


def _origins(text: str | None) -> tuple[str, ...]:
    from services.web.cors import parse_origins

    try:
        return parse_origins(text or "")
    except ValueError as error:
        _refuse(f"--web-origins / MEEPLE_WEB_ORIGINS: {error}")


WebOriginsOption = Annotated[
    str | None,
    typer.Option(
        "--web-origins",
        envvar="MEEPLE_WEB_ORIGINS",
        metavar="ORIGINS",
        help="Origins of other pages that may call the services on the web port from a "
        "browser (CORS): comma-separated, like https://games.example.com, or * for any "
        "(default: none, only the web port's own page).",
    ),
]
WEB_PORT_HELP = (
    "HTTP port of the web page and of the services over Connect and gRPC-Web (0: any free)"
)


STOP_SIGNALS_KEY = "meeple.stop_signals"


class ServingCommand(OneLineUsage):
    """A server command: the stop signals are caught (StopSignals) from
    before its command line is parsed (which takes a few tenths of a
    second) to its end; the command finds them in
    ``ctx.meta[STOP_SIGNALS_KEY]``."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: Any = None,
        **extra: Any,
    ) -> Any:
        signals = StopSignals()
        signals.__enter__()
        try:
            ctx = super().make_context(info_name, args, parent, **extra)
        except BaseException:
            signals.__exit__(None, None, None)
            raise
        ctx.meta[STOP_SIGNALS_KEY] = signals
        return ctx

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        finally:
            ctx.meta[STOP_SIGNALS_KEY].__exit__(None, None, None)


def _serve(
    signals: StopSignals, label: str, address: str, metrics_port: int, **options: Any
) -> None:
    """Runs an App until SIGINT or SIGTERM (``signals``, caught already); a
    start that fails is one line and exit code 2 (see the module's
    docstring)."""
    from services.logs import configure_logging, parse_level

    level = os.environ.get("MEEPLE_LOG_LEVEL", "INFO")
    try:
        parse_level(level)
    except ValueError as error:
        _refuse(f"MEEPLE_LOG_LEVEL: {error}")
    try:
        configure_logging(level, os.environ.get("MEEPLE_LOG_FORMAT", "text"))
    except ValueError as error:
        _refuse(f"MEEPLE_LOG_FORMAT: {error}")
    logging.getLogger("meeple").debug("starting: SIGINT or SIGTERM stops it from now on")
    import asyncio

    try:
        asyncio.run(_run_app(signals, label, address, metrics_port, **options))
    except StartFailed as failed:
        _refuse(failed.line, failed.__cause__)


async def _run_app(
    signals: StopSignals, label: str, address: str, metrics_port: int, **options: Any
) -> None:
    import asyncio

    from services.app import App
    from services.settings import Settings

    stopping = asyncio.Event()
    starting: asyncio.Task[int] | None = None

    def on_signal(number: int) -> None:
        # The first signal cancels the start (the App stops what it started
        # then); later ones change nothing.
        if not stopping.is_set() and starting is not None and not starting.done():
            starting.cancel()
        stopping.set()

    if signals.attach(asyncio.get_running_loop(), on_signal):  # one came before the loop ran
        return
    data_dir = options.pop("data_dir", None)
    try:
        try:
            settings = Settings.from_env()
            if data_dir and settings.data_dir is None:
                settings = dataclasses.replace(settings, data_dir=data_dir)
            app_ = App(address, metrics_port=metrics_port, settings=settings, **options)
        except ValueError as error:
            raise StartFailed(str(error)) from error
        starting = asyncio.create_task(app_.start(), name="start")
        port = await _started(starting, signals)
        if port is None:
            return
        host = address.rsplit(":", 1)[0]
        where = "Redis" if options.get("redis_url") else "memory"
        if app_.server is not None:
            print(f"meeple {label} listening on {host}:{port}, coordination in {where}", flush=True)
        else:
            print(f"meeple {label} running, coordination in {where}", flush=True)
        if app_.web is not None:
            print(f"web page: http://{host}:{app_.web_port}/", flush=True)
        if app_.archive is not None:
            print(f"archive: {app_.archive.safe_url}", flush=True)
        metrics = f"http://{host}:{app_.metrics_port}/metrics"
        print(f"metrics: {metrics} (Ctrl-C or SIGTERM stops)", flush=True)
        await stopping.wait()
        print("shutting down", flush=True)
        await app_.stop()
    finally:
        signals.detach()


async def _started(starting: asyncio.Task[int], signals: StopSignals) -> int | None:
    """The port ``starting`` (an App's start) returns; None if a stop signal
    cancelled it; StartFailed if it failed."""
    import asyncio

    from services.app import StartupError

    try:
        return await starting
    except asyncio.CancelledError:
        if starting.cancelled() and signals.received:
            return None
        raise
    except StartupError as error:
        raise StartFailed(error.line(SETTING_OPTIONS.get(error.setting, ""))) from error
    except ValueError as error:
        raise StartFailed(str(error)) from error
    except Exception as error:
        raise StartFailed(f"the start failed: {type(error).__name__}: {error}") from error


@app.command(cls=ServingCommand)
def up(
    ctx: typer.Context,
    host: HostOption = "127.0.0.1",
    port: PortOption = 50051,
    workers: WorkersOption = 1,
    metrics_port: MetricsOption = 9464,
    redis: RedisOption = None,
    web_port: Annotated[
        int, typer.Option(min=0, max=65535, envvar="MEEPLE_WEB_PORT", help=WEB_PORT_HELP + ".")
    ] = 8080,
    web_origins: WebOriginsOption = None,
    data_dir: Annotated[
        str,
        typer.Option(
            envvar="MEEPLE_DATA_DIR",
            help="Where the guest signing key is kept without Redis, so that sessions "
            "outlive the process, and the archive's SQLite file (archive.sqlite3) unless "
            "MEEPLE_DATABASE_URL names another database.",
        ),
    ] = DEFAULT_DATA_DIR,
) -> None:
    """Runs every service and the bot runners in one process on one port,
    and the web page. Limits and lifetimes come from MEEPLE_* environment
    variables (see README)."""
    signals: StopSignals = ctx.meta[STOP_SIGNALS_KEY]
    from services.app import SERVICE_NAMES

    names = [{"ai": "AI"}.get(name, name) for name in SERVICE_NAMES]
    _serve(
        signals,
        ", ".join(names[:-1]) + f" and {names[-1]} services",
        f"{host}:{port}",
        metrics_port,
        workers=workers,
        services=SERVICE_NAMES,
        bots=True,
        redis_url=redis,
        web_port=web_port,
        web_origins=_origins(web_origins),
        data_dir=data_dir,
    )


@app.command(cls=ServingCommand)
def serve(
    ctx: typer.Context,
    service_names: Annotated[
        list[str],
        typer.Argument(
            metavar="SERVICE...",
            help="One or more of rules, ai, match, matchmaking, auth, archive.",
        ),
    ],
    host: HostOption = "127.0.0.1",
    port: PortOption = 50051,
    workers: WorkersOption = 1,
    metrics_port: MetricsOption = 9464,
    redis: RedisOption = None,
    web_port: Annotated[
        int | None,
        typer.Option(
            min=0, max=65535, envvar="MEEPLE_WEB_PORT", help=WEB_PORT_HELP + "; default: none."
        ),
    ] = None,
    web_origins: WebOriginsOption = None,
) -> None:
    """Runs some services on one port (with health and reflection). In
    memory, match also plays its bot seats; with Redis, `meeple worker`
    processes play them."""
    signals: StopSignals = ctx.meta[STOP_SIGNALS_KEY]
    from services.app import SERVICE_NAMES

    unknown = [name for name in service_names if name not in SERVICE_NAMES]
    if unknown or len(set(service_names)) != len(service_names):
        _refuse(f"SERVICE...: give each of {', '.join(SERVICE_NAMES)} at most once")
    bots = "match" in service_names and redis is None
    many = len(service_names) > 1
    _serve(
        signals,
        " and ".join(service_names) + " service" + ("s" if many else ""),
        f"{host}:{port}",
        metrics_port,
        workers=workers,
        services=tuple(service_names),
        bots=bots,
        redis_url=redis,
        web_port=web_port,
        web_origins=_origins(web_origins),
    )


@app.command(cls=ServingCommand)
def worker(
    ctx: typer.Context,
    redis: WorkerRedisOption = None,
    workers: WorkersOption = 1,
    host: Annotated[
        str, typer.Option(envvar="MEEPLE_HOST", help="Address of the metrics endpoint.")
    ] = "127.0.0.1",
    metrics_port: MetricsOption = 9465,
) -> None:
    """Plays bot seats: takes bot turns from the Redis job queue and thinks
    in AI worker processes. Needs only Redis; start any number, anywhere
    (several on one machine: --metrics-port 0 gives each a free port)."""
    if redis is None:
        _refuse("a worker needs --redis URL (or MEEPLE_REDIS_URL)")
    signals: StopSignals = ctx.meta[STOP_SIGNALS_KEY]
    _serve(
        signals,
        "bot worker",
        f"{host}:0",
        metrics_port,
        workers=workers,
        services=(),
        bots=True,
        redis_url=redis,
    )


@app.command(cls=OneLineUsage)
def health(
    address: Annotated[
        str | None,
        typer.Argument(
            help="The gRPC server, HOST:PORT or PORT (default: 127.0.0.1 on $MEEPLE_PORT, "
            "or 50051).",
            show_default=False,
        ),
    ] = None,
    service: Annotated[
        str,
        typer.Option(
            metavar="NAME",
            help="The health of one service, like meeple.v1.MatchService "
            '(default: "", the whole server).',
            show_default=False,
        ),
    ] = "",
    http: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="Instead, check that this URL answers 200: for meeple worker, which has no "
            "gRPC port, its metrics (http://127.0.0.1:9465/metrics).",
        ),
    ] = None,
    timeout: Annotated[float, typer.Option(min=0.01, help="Seconds the answer may take.")] = 3.0,
) -> None:
    """Checks a server from outside, for container healthchecks (compose,
    Kubernetes exec probes): calls grpc.health.v1 Check and exits 0 if the
    answer is SERVING, 1 otherwise (or with --http, 0 if the URL answers
    200); prints one line."""
    from services.health_check import grpc_health, http_health, one_line

    if http is not None:
        if address is not None or service:
            _refuse("health: give ADDRESS (and --service) or --http URL, not both")
        healthy, line = http_health(http, timeout)
    else:
        if address is None:
            address = os.environ.get("MEEPLE_PORT") or "50051"
        if address.isdigit():
            address = f"127.0.0.1:{address}"
        healthy, line = grpc_health(address, service, timeout)
    print(one_line(line), file=sys.stdout if healthy else sys.stderr, flush=True)
    if not healthy:
        raise typer.Exit(1)


app.command()(watch)


if __name__ == "__main__":
    app()
