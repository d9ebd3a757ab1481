"""The ``meeple`` command line."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

import engine_core
from ai.tournament import GameResult, TournamentResult, run_tournament

app = typer.Typer(help="meeple: tabletop game engines with AI opponents.", no_args_is_help=True)
console = Console()


@app.callback()
def main() -> None:
    """meeple: tabletop game engines with AI opponents."""


@app.command()
def demo(
    seed: int = typer.Option(7, help="Seed of the random players' choices."),
    players: int = typer.Option(4, min=2, max=4, help="Number of Rolit players."),
) -> None:
    """Plays a seeded Rolit game between random players, move by move."""
    game = engine_core.rolit.RolitGame(players=players)
    state = game.new_initial_state()
    rng = random.Random(seed)
    console.print(f"[bold]{game!r}[/bold], random players, seed {seed}\n")
    console.print(str(state), highlight=False)
    while not state.is_terminal():
        seat = state.current_player()
        action = rng.choice(state.legal_actions())
        state.apply_action(action)
        colour = engine_core.rolit.COLOUR_NAMES[state.colour_of(seat)]
        console.print(
            f"\n[bold]{state.move_number():2d}.[/bold] seat {seat} ({colour}) plays "
            f"{state.action_to_string(action)}",
            highlight=False,
        )
        console.print(str(state), highlight=False)
    scores = state.scores()
    best = max(scores)
    console.print("\n[bold]Final score[/bold]")
    for seat, score in enumerate(scores):
        colour = engine_core.rolit.COLOUR_NAMES[state.colour_of(seat)]
        outcome = "wins" if score == best else "loses"
        console.print(f"  seat {seat} ({colour}): {score} balls, {outcome}", highlight=False)


def _parse_options(pairs: list[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise typer.BadParameter(f"options are key=value, got {pair!r}", param_hint="--option")
        try:
            options[key] = json.loads(value)
        except json.JSONDecodeError:
            options[key] = value
    return options


@app.command()
def tournament(
    game: Annotated[str, typer.Argument(help="Game name, e.g. rolit or othello.")],
    bots: Annotated[str, typer.Option(help="Comma-separated bot specs, e.g. hard,random.")],
    games: Annotated[int, typer.Option(min=1, help="Games per lineup.")] = 10,
    players: Annotated[int | None, typer.Option(help="Seats (the game's players option).")] = None,
    option: Annotated[
        list[str] | None, typer.Option(help="Another game option as key=value (repeatable).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Base seed: the same seed, the same games.")] = 0,
    jobs: Annotated[int, typer.Option(min=1, help="Games played in parallel processes.")] = 1,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Also write the results to this file.")
    ] = None,
) -> None:
    """Plays every lineup of the bots with seat rotation and prints the table."""
    options = _parse_options(option or [])
    if players is not None:
        options["players"] = players
    specs = [spec.strip() for spec in bots.split(",") if spec.strip()]
    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
    ) as progress:
        task = progress.add_task(f"{game} tournament", total=None)

        def advance(_: GameResult, done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        try:
            result = run_tournament(
                game, specs, games, options=options, seed=seed, jobs=jobs, on_result=advance
            )
        except ValueError as error:
            raise typer.BadParameter(str(error)) from None
    console.print(_tournament_table(result))
    if json_path is not None:
        json_path.write_text(result.to_json())
        console.print(f"results written to {json_path}")


def _tournament_table(result: TournamentResult) -> Table:
    options = " ".join(f"{key}={value}" for key, value in result.options.items())
    title = f"{result.game} {options}".strip() + f": {len(result.results)} games"
    table = Table(title=title)
    for column in ["lineup", "bot", "W", "D", "L", "win rate (95% CI)", "rating", "ms/move"]:
        table.add_column(column, justify="left" if column in ("lineup", "bot") else "right")
    for stats in result.stats:
        low, high = stats.win_interval()
        mu, sigma = result.ratings[stats.spec]
        table.add_row(
            stats.lineup,
            stats.spec,
            str(stats.wins),
            str(stats.draws),
            str(stats.losses),
            f"{stats.win_rate:.1%} ({low:.1%}-{high:.1%})",
            f"{mu:.1f} ± {sigma:.1f}",
            f"{stats.ms_per_move:.1f}",
        )
    return table


RedisOption = Annotated[
    str | None,
    typer.Option(
        "--redis",
        envvar="MEEPLE_REDIS_URL",
        help="Coordinate through Redis: redis://HOST:PORT/DB, or redis+cluster://HOST:PORT "
        "for a Redis Cluster (default: in memory, this process only).",
    ),
]
HostOption = Annotated[str, typer.Option(envvar="MEEPLE_HOST", help="Address to listen on.")]
PortOption = Annotated[
    int, typer.Option(min=0, max=65535, envvar="MEEPLE_PORT", help="gRPC port (0: any free).")
]
WorkersOption = Annotated[
    int, typer.Option(min=1, envvar="MEEPLE_WORKERS", help="AI worker processes.")
]
MetricsOption = Annotated[
    int, typer.Option(min=0, max=65535, envvar="MEEPLE_METRICS_PORT", help="Prometheus port.")
]


def _origins(text: str | None) -> tuple[str, ...]:
    from services.web.cors import parse_origins

    try:
        return parse_origins(text or "")
    except ValueError as error:
        raise typer.BadParameter(str(error), param_hint="--web-origins") from None


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


async def _run_app(label: str, address: str, metrics_port: int, **options: Any) -> None:
    from services.app import App
    from services.server import wait_for_signal
    from services.settings import Settings

    logging.basicConfig(
        level=os.environ.get("MEEPLE_LOG_LEVEL", "INFO").upper(),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        settings = Settings.from_env()
        app_ = App(address, metrics_port=metrics_port, settings=settings, **options)
    except ValueError as error:
        console.print(f"[red]bad setting[/red]: {error}")
        raise typer.Exit(2) from None
    port = await app_.start()
    host = address.rsplit(":", 1)[0]
    where = "Redis" if options.get("redis_url") else "memory"
    if app_.server is not None:
        console.print(f"meeple {label} listening on {host}:{port}, coordination in {where}")
    else:
        console.print(f"meeple {label} running, coordination in {where}")
    if app_.web is not None:
        console.print(f"web page: http://{host}:{app_.web_port}/")
    console.print(f"metrics: http://{host}:{app_.metrics_port}/metrics (Ctrl-C or SIGTERM stops)")
    await wait_for_signal()
    console.print("shutting down")
    await app_.stop()


@app.command()
def up(
    host: HostOption = "127.0.0.1",
    port: PortOption = 50051,
    workers: WorkersOption = 1,
    metrics_port: MetricsOption = 9464,
    redis: RedisOption = None,
    web_port: Annotated[
        int, typer.Option(min=0, max=65535, envvar="MEEPLE_WEB_PORT", help=WEB_PORT_HELP + ".")
    ] = 8080,
    web_origins: WebOriginsOption = None,
) -> None:
    """Runs every service and the bot runners in one process on one port,
    and the web page. Limits and lifetimes come from MEEPLE_* environment
    variables (see README)."""
    from services.app import SERVICE_NAMES

    label = "rules, AI, match and matchmaking services"
    asyncio.run(
        _run_app(
            label,
            f"{host}:{port}",
            metrics_port,
            workers=workers,
            services=SERVICE_NAMES,
            bots=True,
            redis_url=redis,
            web_port=web_port,
            web_origins=_origins(web_origins),
        )
    )


@app.command()
def serve(
    service_names: Annotated[
        list[str],
        typer.Argument(metavar="SERVICE...", help="One or more of rules, ai, match, matchmaking."),
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
    from services.app import SERVICE_NAMES

    unknown = [name for name in service_names if name not in SERVICE_NAMES]
    if unknown or len(set(service_names)) != len(service_names):
        raise typer.BadParameter(
            f"give each of {', '.join(SERVICE_NAMES)} at most once", param_hint="SERVICE..."
        )
    bots = "match" in service_names and redis is None
    label = " and ".join(service_names) + " service" + ("s" if len(service_names) > 1 else "")
    asyncio.run(
        _run_app(
            label,
            f"{host}:{port}",
            metrics_port,
            workers=workers,
            services=tuple(service_names),
            bots=bots,
            redis_url=redis,
            web_port=web_port,
            web_origins=_origins(web_origins),
        )
    )


@app.command()
def worker(
    redis: RedisOption = None,
    workers: WorkersOption = 1,
    host: Annotated[
        str, typer.Option(envvar="MEEPLE_HOST", help="Address of the metrics endpoint.")
    ] = "127.0.0.1",
    metrics_port: MetricsOption = 9465,
) -> None:
    """Plays bot seats: takes bot turns from the Redis job queue and thinks
    in AI worker processes. Needs only Redis; start any number, anywhere."""
    if redis is None:
        raise typer.BadParameter("a worker needs --redis URL (or MEEPLE_REDIS_URL)")
    asyncio.run(
        _run_app(
            "bot worker",
            f"{host}:0",
            metrics_port,
            workers=workers,
            services=(),
            bots=True,
            redis_url=redis,
        )
    )


@app.command()
def loadtest(
    target: Annotated[
        str | None,
        typer.Option(help="The server, HOST:PORT (default: start meeple up in this process)."),
    ] = None,
    metrics: Annotated[
        str | None,
        typer.Option(
            help="The target's Prometheus URL, for the server's figures (several, comma "
            "separated, add up: every process of a deployment)."
        ),
    ] = None,
    game: Annotated[
        str, typer.Option(help="rolit, othello, volleyball, volta, a list (rolit,volta) or all.")
    ] = "all",
    matches: Annotated[int | None, typer.Option(min=1, help="How many matches.")] = None,
    concurrency: Annotated[int, typer.Option(min=1, help="Matches in flight.")] = 16,
    rate: Annotated[
        float | None, typer.Option(help="Matches started per second (open loop).")
    ] = None,
    duration: Annotated[
        float | None, typer.Option(help="Seconds to keep starting matches.")
    ] = None,
    bots: Annotated[
        str, typer.Option(help="client: our bots play human seats; server: server bot seats.")
    ] = "server",
    bot_spec: Annotated[str, typer.Option(help="The bots' spec or level.")] = "random",
    matchmaking: Annotated[
        bool, typer.Option(help="Seat our players through matchmaking tickets.")
    ] = False,
    spectators: Annotated[int, typer.Option(min=0, help="Watchers per match.")] = 0,
    seed: Annotated[int, typer.Option(help="Seed of our bots' choices.")] = 0,
    json_path: Annotated[
        Path | None, typer.Option("--json", help="Write the report to this file.")
    ] = None,
) -> None:
    """Drives bot-vs-bot matches through the public gRPC API and reports
    throughput, latency percentiles, errors and the server's own figures."""
    from services.loadtest import LoadConfig, report_tables, run

    games = tuple(engine_core_games()) if game == "all" else tuple(game.split(","))
    try:
        config = LoadConfig(
            target=target,
            metrics=metrics,
            games=games,
            matches=matches if matches is not None or duration is not None else 100,
            concurrency=concurrency,
            rate=rate,
            duration=duration,
            bots=bots,
            bot_spec=bot_spec,
            matchmaking=matchmaking,
            spectators=spectators,
            seed=seed,
        )
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    report = asyncio.run(run(config, console))
    for table in report_tables(report):
        console.print(table)
    if json_path is not None:
        json_path.write_text(json.dumps(report.to_json(), indent=2) + "\n")
        console.print(f"report written to {json_path}")
    if report.recorder.matches_failed or report.recorder.errors:
        raise typer.Exit(1)


def engine_core_games() -> list[str]:
    from services.loadtest.players import GAMES

    return list(GAMES)


def describe(event: Any) -> str:
    """One line for a WatchMatch event."""
    from meeple.v1 import match_service_pb2 as ms

    kind = event.WhichOneof("event")
    if kind == "snapshot":
        status = ms.MatchStatus.Name(event.snapshot.status).removeprefix("MATCH_STATUS_")
        return f"match {event.snapshot.match_id}: {status.lower()} at ply {event.ply}"
    if kind == "action":
        seat = event.action
        who = f"seat {seat.seat}" if seat.HasField("seat") else "dice"
        return f"{event.ply:5d}  {who}: {event.action.action.notation}"
    if kind == "seat_joined":
        return f"{event.ply:5d}  seat {event.seat_joined.seat} joined"
    if kind == "started":
        return f"{event.ply:5d}  the match starts"
    if kind == "clock":
        left = event.clock.time_left.ToMilliseconds() / 1000
        return f"{event.ply:5d}  seat {event.clock.seat}'s clock runs: {left:.1f} s left"
    reason = ms.EndReason.Name(event.ended.reason).removeprefix("END_REASON_").lower()
    returns = ", ".join(f"{r:+.2f}" for r in event.ended.returns)
    return f"match over at ply {event.ply} ({reason}); returns {returns}"


@app.command()
def watch(
    match_id: Annotated[str, typer.Argument(help="The match to follow.")],
    address: Annotated[str, typer.Option(help="The server.")] = "127.0.0.1:50051",
    from_ply: Annotated[int, typer.Option(min=0, help="First ply to show.")] = 0,
) -> None:
    """Prints a match's events as they happen, until it ends (resuming if the
    connection drops)."""
    import grpc

    from services.client import MeepleClient

    with MeepleClient(address) as client:
        try:
            for event in client.watch(match_id, from_ply=from_ply):
                console.print(describe(event), highlight=False)
        except grpc.RpcError as error:
            console.print(f"[red]{error.code().name}[/red]: {error.details()}")
            raise typer.Exit(1) from None


if __name__ == "__main__":
    app()
