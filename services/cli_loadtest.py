"""``meeple loadtest``: bot-vs-bot load through the public gRPC API, its
report on the terminal and in JSON, HTML and CSV, thresholds that set the
exit code, and ``meeple loadtest merge`` for the reports of several load
generators (docs/loadtest.md).

Exit codes: 0 when every SLO passed and, without an SLO on errors or
failed matches, nothing failed; 1 when a match failed or a call errored
(and no SLO says how many may); 2 when it cannot start (a bad option, the
players' sign-in refused); 3 when an SLO failed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

if TYPE_CHECKING:
    from services.loadtest.slo import Slo

# Its help is the callback's docstring (a help= here would replace it).
loadtest_app = typer.Typer(invoke_without_command=True)

SLO_FAILED = 3


def _console() -> Any:
    from rich.console import Console

    return Console()


def _say(line: str, code: int) -> NoReturn:
    print(f"meeple loadtest: {line}", file=sys.stderr, flush=True)
    raise typer.Exit(code)


def _slos(texts: list[str]) -> list[Slo]:
    from services.loadtest import slo

    try:
        return [slo.parse(text) for text in texts]
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None


JsonOption = Annotated[Path | None, typer.Option("--json", help="Write the report to this file.")]
HtmlOption = Annotated[
    Path | None,
    typer.Option("--html", help="Write the report as one self-contained HTML page with charts."),
]
CsvOption = Annotated[
    Path | None,
    typer.Option("--csv", help="Write the report as CSV files into this directory."),
]
SloOption = Annotated[
    list[str] | None,
    typer.Option(
        "--slo",
        help="A threshold, repeatable: 'SubmitAction.p99<50ms', 'turn.p95<200ms', "
        "'errors<0.1%', 'failed<1', 'actions/s>=100'. One failed: exit code 3.",
    ),
]


def _finish(
    data: dict[str, Any],
    slos: list[Slo],
    json_path: Path | None,
    html_path: Path | None,
    csv_dir: Path | None,
    failed: bool,
) -> None:
    """Checks the SLOs, prints the report, writes its files, and exits with
    the report's exit code."""
    from services.loadtest import csv_files, html, slo
    from services.loadtest.tables import report_tables

    passed = slo.check(data, slos)
    console = _console()
    for table in report_tables(data):
        console.print(table)
    for warning in data["warnings"]:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)
    if json_path is not None:
        json_path.write_text(json.dumps(data, indent=2) + "\n")
        console.print(f"report written to {json_path}")
    if html_path is not None:
        html_path.write_text(html.render(data))
        console.print(f"HTML report written to {html_path}")
    if csv_dir is not None:
        written = csv_files.write(data, csv_dir)
        console.print(f"CSV files written to {csv_dir}: {', '.join(p.name for p in written)}")
    if not passed:
        raise typer.Exit(SLO_FAILED)
    if failed and not slo.judges_errors(slos):
        raise typer.Exit(1)


@loadtest_app.callback()
def loadtest(
    ctx: typer.Context,
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
    json_path: JsonOption = None,
    html_path: HtmlOption = None,
    csv_dir: CsvOption = None,
    slo: SloOption = None,
    stages: Annotated[
        str | None,
        typer.Option(
            help="Ramp stages instead of --rate and --duration: '30s:10/s,60s:50/s' moves the "
            "start rate linearly to 10 matches/s over 30 s, then to 50/s over 60 s."
        ),
    ] = None,
    interval: Annotated[
        float, typer.Option(help="Seconds per point of the report's time series.")
    ] = 1.0,
    players: Annotated[
        int | None,
        typer.Option(
            min=1,
            help="Simulated players, each an identity of its own made before the load and "
            "reused across matches (default: enough for --concurrency matches at once).",
        ),
    ] = None,
    jwt_key: Annotated[
        Path | None,
        typer.Option(
            help="The studio provider's test key (PEM private key): mint the players' tokens "
            "with it instead of signing in guests; the target's MEEPLE_AUTH_JWKS_URL serves "
            "its public half (see --jwt-print-jwks).",
        ),
    ] = None,
    jwt_kid: Annotated[
        str | None, typer.Option(help="The key id (kid) of --jwt-key in the provider's JWKS.")
    ] = None,
    jwt_issuer: Annotated[
        str | None, typer.Option(help="The tokens' iss (the server's MEEPLE_AUTH_ISSUER).")
    ] = None,
    jwt_audience: Annotated[
        str | None, typer.Option(help="The tokens' aud (the server's MEEPLE_AUTH_AUDIENCE).")
    ] = None,
    jwt_algorithm: Annotated[
        str, typer.Option(help="The tokens' algorithm: RS256, ES256, EdDSA, ...")
    ] = "RS256",
    jwt_print_jwks: Annotated[
        bool,
        typer.Option(
            "--jwt-print-jwks",
            help="Print the JWKS of --jwt-key (with --jwt-kid, --jwt-algorithm), for the "
            "server's MEEPLE_AUTH_JWKS_URL to serve, and exit.",
        ),
    ] = False,
) -> None:
    """Drives bot-vs-bot matches through the public gRPC API and reports
    throughput, latency percentiles, errors and the server's own figures.

    Its players act as real ones do, each with an identity of its own: guests
    signed in up front (the server allows MEEPLE_GUEST_SIGNINS_PER_MINUTE per
    address, 30 by default), or, with --jwt-key, tokens of the studio's
    provider in test mode; none against a server with identities off."""
    if ctx.invoked_subcommand is not None:
        return
    import asyncio

    from services.loadtest import LoadConfig, SetupError, run
    from services.loadtest import stages as ramp

    console = _console()
    if jwt_print_jwks:
        _print_jwks(jwt_key, jwt_kid, jwt_algorithm)
        return
    games = tuple(engine_core_games()) if game == "all" else tuple(game.split(","))
    slos = _slos(slo or [])
    try:
        ramps = ramp.parse(stages) if stages else ()
        given = matches is not None or duration is not None or ramps
        config = LoadConfig(
            target=target,
            metrics=metrics,
            games=games,
            matches=matches if given else 100,
            concurrency=concurrency,
            rate=rate,
            duration=duration,
            bots=bots,
            bot_spec=bot_spec,
            matchmaking=matchmaking,
            spectators=spectators,
            seed=seed,
            players=players,
            jwt_key=None if jwt_key is None else str(jwt_key),
            jwt_kid=jwt_kid,
            jwt_issuer=jwt_issuer,
            jwt_audience=jwt_audience,
            jwt_algorithm=jwt_algorithm,
            stages=ramps,
            interval_s=interval,
        )
    except ValueError as error:
        raise typer.BadParameter(str(error)) from None
    try:
        report = asyncio.run(run(config, console))
    except SetupError as error:
        _say(str(error), 2)
    total = report.recorder.total
    failed = bool(total.matches_failed or total.errors)
    _finish(report.to_json(), slos, json_path, html_path, csv_dir, failed)


@loadtest_app.command()
def merge(
    reports: Annotated[
        list[Path], typer.Argument(help="JSON reports (--json) of runs made side by side.")
    ],
    json_path: JsonOption = None,
    html_path: HtmlOption = None,
    csv_dir: CsvOption = None,
    slo: SloOption = None,
) -> None:
    """Merges the reports of several load generators into one: counts add up,
    percentiles come from the merged histograms, intervals line up in time."""
    from services.loadtest.merge import MergeError
    from services.loadtest.merge import merge as merged

    slos = _slos(slo or [])
    try:
        loaded = [json.loads(path.read_text()) for path in reports]
        data = merged(loaded)
    except (OSError, ValueError, KeyError) as error:
        kind = "" if isinstance(error, MergeError | OSError) else "not a meeple report: "
        _say(f"cannot merge: {kind}{error}", 2)
    failed = bool(data["matches"]["failed"] or data["errors"])
    _finish(data, slos, json_path, html_path, csv_dir, failed)


@loadtest_app.command()
def locustfile() -> None:
    """Prints the path of the shipped locustfile, for Locust on many machines:
    ``locust -f "$(meeple loadtest locustfile)" --host HOST:PORT`` (docs/locust.md)."""
    from services.loadtest.locust import print_locustfile

    print_locustfile()


def _print_jwks(key: Path | None, kid: str | None, algorithm: str) -> None:
    """``meeple loadtest --jwt-print-jwks``: the public JWKS of a test key."""
    from services.loadtest import JwtKey, Minter, SetupError

    if key is None or not kid:
        raise typer.BadParameter("--jwt-print-jwks needs --jwt-key and --jwt-kid")
    try:
        jwks = Minter(JwtKey(str(key), kid, "", "", algorithm)).jwks()
    except SetupError as error:
        _say(str(error), 2)
    print(json.dumps(jwks, indent=2))


def engine_core_games() -> list[str]:
    from services.loadtest.players import GAMES

    return list(GAMES)
