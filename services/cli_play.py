"""The ``meeple`` commands that play and watch: ``demo`` (a seeded Rolit
game between random players), ``tournament`` (bots against each other, with
a table of results) and ``watch`` (a match's events as they happen). The
command line (services/cli.py) registers them."""

from __future__ import annotations

import functools
import json
import random
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from ai.tournament import GameResult, TournamentResult


@functools.cache
def _console() -> Console:
    from rich.console import Console

    return Console()


def demo(
    seed: int = typer.Option(7, help="Seed of the random players' choices."),
    players: int = typer.Option(4, min=2, max=4, help="Number of Rolit players."),
) -> None:
    """Plays a seeded Rolit game between random players, move by move."""
    import engine_core

    console = _console()
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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from ai.tournament import run_tournament

    console = _console()
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
    from rich.table import Table

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


def watch(
    match_id: Annotated[str, typer.Argument(help="The match to follow.")],
    address: Annotated[str, typer.Option(help="The server.")] = "127.0.0.1:50051",
    from_ply: Annotated[int, typer.Option(min=0, help="First ply to show.")] = 0,
) -> None:
    """Prints a match's events as they happen, until it ends (resuming if the
    connection drops)."""
    import grpc

    from services.client import MeepleClient

    console = _console()
    with MeepleClient(address) as client:
        try:
            for event in client.watch(match_id, from_ply=from_ply):
                console.print(describe(event), highlight=False)
        except grpc.RpcError as error:
            console.print(f"[red]{error.code().name}[/red]: {error.details()}")
            raise typer.Exit(1) from None
