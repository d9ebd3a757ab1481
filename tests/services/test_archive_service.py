"""ArchiveService and the archive behind GetMatch and WatchMatch, through
real gRPC on a server that archives into SQLite (memory and Redis stores):
finished matches are archived once, listed per player with their
outcomes, rated matches' rating changes recorded, exports served, and a
finished match stays readable after its live copy expired."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from meeple.v1 import archive_service_pb2 as ar
from meeple.v1 import archive_service_pb2_grpc as ar_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import matchmaking_service_pb2 as mm
from meeple.v1 import matchmaking_service_pb2_grpc as mm_grpc

from services.app import App, StartupError
from services.archive.exports import read_ggf, read_match_document
from services.settings import Settings
from tests.redis_servers import free_port
from tests.services.conftest import DEFAULT_PLAYER, Served
from tests.services.test_matchmaking import OTHELLO, SEAT, Stubs, code_of, ticket, watch_all

HUMAN, BOT = ms.SEAT_KIND_HUMAN, ms.SEAT_KIND_BOT


@pytest.fixture(params=["memory", "redis"])
def archiving(
    request: pytest.FixtureRequest, serve: Callable[..., Served], tmp_path: Path
) -> Callable[..., Served]:
    """``archiving(**settings)``: a server keeping its archive in a
    temporary data directory, on the store of the test's parameter."""

    def start(**settings: object) -> Served:
        options: dict[str, object] = {"workers": 1}
        if request.param == "redis":
            server = request.getfixturevalue("redis_server")
            server.flush()
            options["redis_url"] = server.url
        return serve(Settings(data_dir=str(tmp_path), **settings), **options)  # type: ignore[arg-type]

    return start


def archive_of(served: Served) -> ar_grpc.ArchiveServiceStub:
    return ar_grpc.ArchiveServiceStub(served.channel)


def resigned_match(served: Served, config: pb.GameConfig = OTHELLO) -> str:
    """A match of the default player against a bot, which the player
    resigns at once: it ends at ply 0 (or after the bot's first move)."""
    matches = ms_grpc.MatchServiceStub(served.channel)
    seats = [ms.SeatConfig(kind=HUMAN), ms.SeatConfig(kind=BOT, bot_spec="random")]
    if config.kind == pb.GAME_KIND_ROLIT:
        seats = [ms.SeatConfig(kind=HUMAN), *[ms.SeatConfig(kind=BOT, bot_spec="random")] * 3]
    created = matches.CreateMatch(ms.CreateMatchRequest(config=config, seats=seats))
    joined = matches.JoinMatch(ms.JoinMatchRequest(match_id=created.match.match_id, seat=0))
    matches.Resign(
        ms.ResignRequest(match_id=created.match.match_id),
        metadata=((SEAT, joined.seat_token),),
    )
    return created.match.match_id


def listed(served: Served, count: int, **fields: object) -> ar.ListPlayerMatchesResponse:
    """The default player's list, once it holds ``count`` matches (the
    archiver writes soon after each end)."""
    stub = archive_of(served)
    deadline = time.monotonic() + 10
    while True:
        page = stub.ListPlayerMatches(ar.ListPlayerMatchesRequest(**fields))  # type: ignore[arg-type]
        if len(page.matches) >= count or time.monotonic() > deadline:
            return page
        time.sleep(0.05)


def test_a_finished_match_is_listed_once_with_its_outcome(
    archiving: Callable[..., Served],
) -> None:
    served = archiving()
    first = resigned_match(served)
    second = resigned_match(served, pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL))
    page = listed(served, 2)
    assert [m.match_id for m in page.matches] == [second, first]  # the latest first
    summary = page.matches[1]
    assert summary.config.kind == pb.GAME_KIND_OTHELLO
    assert summary.outcome == ar.MATCH_OUTCOME_LOSS
    assert summary.reason == ms.END_REASON_RESIGNATION
    assert summary.end_seat == 0
    assert list(summary.returns) == [-1.0, 1.0]
    assert [s.player_id for s in summary.seats] == [DEFAULT_PLAYER, ""]
    assert [s.bot_spec for s in summary.seats] == ["", "random"]
    assert summary.end_time.ToMilliseconds() >= summary.start_time.ToMilliseconds() > 0
    assert not summary.rated
    time.sleep(0.5)  # a second archive write of either match would land by now
    assert len(listed(served, 2).matches) == 2
    won = listed(served, 0, outcome=ar.MATCH_OUTCOME_WIN)
    assert won.matches == []
    volleyball = listed(served, 1, game=pb.GAME_KIND_VOLLEYBALL)
    assert [m.match_id for m in volleyball.matches] == [second]
    one = listed(served, 1, page_size=1)
    assert [m.match_id for m in one.matches] == [second]
    rest = listed(served, 1, page_size=1, page_token=one.next_page_token)
    assert [m.match_id for m in rest.matches] == [first]
    assert not rest.next_page_token


def test_a_finished_match_is_read_from_the_archive_after_its_live_copy(
    archiving: Callable[..., Served],
) -> None:
    served = archiving(finished_retention=0.3)
    match_id = resigned_match(served)
    listed(served, 1)
    time.sleep(0.5)
    assert served.run(served.app.coordination.load(match_id)) is None  # the live copy is gone
    matches = ms_grpc.MatchServiceStub(served.channel)
    got = matches.GetMatch(ms.GetMatchRequest(match_id=match_id))
    assert got.match.status == ms.MATCH_STATUS_FINISHED
    assert got.match.ended.reason == ms.END_REASON_RESIGNATION
    assert len(got.record.history) == got.match.view.ply
    events = list(matches.WatchMatch(ms.WatchMatchRequest(match_id=match_id), timeout=10))
    assert events[0].HasField("snapshot")
    actions = [e for e in events if e.HasField("action")]
    assert [e.ply for e in actions] == list(range(got.match.view.ply))
    assert events[-1].HasField("ended")
    assert list(events[-1].ended.returns) == [-1.0, 1.0]


def test_exports_of_a_finished_match(archiving: Callable[..., Served]) -> None:
    served = archiving()
    othello = resigned_match(served)
    volleyball = resigned_match(served, pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL))
    stub = archive_of(served)
    document = stub.ExportMatch(
        ar.ExportMatchRequest(match_id=othello, format=ar.EXPORT_FORMAT_MATCH_JSON)
    )
    assert (document.media_type, document.file_name) == ("application/json", f"{othello}.json")
    fields, _record = read_match_document(document.content)
    assert fields["match_id"] == othello
    ggf = stub.ExportMatch(ar.ExportMatchRequest(match_id=othello, format=ar.EXPORT_FORMAT_GGF))
    assert read_ggf(ggf.content).result.endswith(":r")  # Black resigned
    code, details = code_of(
        lambda: stub.ExportMatch(
            ar.ExportMatchRequest(match_id=volleyball, format=ar.EXPORT_FORMAT_SGF)
        )
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "Othello" in details
    unspecified = ar.ExportMatchRequest(match_id=othello)
    assert code_of(lambda: stub.ExportMatch(unspecified))[0] == grpc.StatusCode.INVALID_ARGUMENT
    unknown = ar.ExportMatchRequest(match_id="0" * 16, format=ar.EXPORT_FORMAT_MATCH_JSON)
    assert code_of(lambda: stub.ExportMatch(unknown))[0] == grpc.StatusCode.NOT_FOUND
    listed(served, 2)
    lines = list(stub.ExportPlayerMatches(ar.ExportPlayerMatchesRequest(), timeout=10))
    assert [read_match_document(line.line)[0]["match_id"] for line in lines] == [
        volleyball,
        othello,
    ]


def test_bad_requests_are_invalid_argument(archiving: Callable[..., Served]) -> None:
    served = archiving()
    stub = archive_of(served)
    bad = [
        ar.ListPlayerMatchesRequest(page_size=101),
        ar.ListPlayerMatchesRequest(page_token="not a token"),
        ar.ListPlayerMatchesRequest(player_id="x" * 65),
        ar.ListPlayerMatchesRequest(game=99),  # type: ignore[arg-type]
        ar.ListPlayerMatchesRequest(outcome=9),  # type: ignore[arg-type]
    ]
    for request in bad:
        assert code_of(lambda r=request: stub.ListPlayerMatches(r))[0] == (  # type: ignore[misc]
            grpc.StatusCode.INVALID_ARGUMENT
        ), request
    no_game = ar.GetRatingHistoryRequest(player_id="ann")
    assert code_of(lambda: stub.GetRatingHistory(no_game))[0] == grpc.StatusCode.INVALID_ARGUMENT
    same = ar.GetHeadToHeadRequest(player_id="ann", opponent_id="ann")
    assert code_of(lambda: stub.GetHeadToHead(same))[0] == grpc.StatusCode.INVALID_ARGUMENT
    anonymous = ar_grpc.ArchiveServiceStub(served.plain)
    mine = ar.ListPlayerMatchesRequest()  # names the caller, who has no token
    assert code_of(lambda: anonymous.ListPlayerMatches(mine))[0] == (
        grpc.StatusCode.UNAUTHENTICATED
    )


def test_a_server_without_an_archive_says_so(serve: Callable[..., Served]) -> None:
    served = serve(Settings())
    request = ar.ListPlayerMatchesRequest(player_id="ann")
    code, details = code_of(lambda: archive_of(served).ListPlayerMatches(request))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "MEEPLE_DATABASE_URL" in details


def test_a_rated_match_records_rating_changes_and_head_to_head(
    archiving: Callable[..., Served],
) -> None:
    served = archiving()
    channel = served.channel
    stubs = Stubs(
        served, mm_grpc.MatchmakingServiceStub(channel), ms_grpc.MatchServiceStub(channel)
    )
    tickets = [ticket(stubs, OTHELLO, [name]) for name in ("winner", "loser")]
    streams = watch_all(stubs, *tickets)
    seats = {s.player_id: s for stream in streams for s in stream[-1].assigned.seats}
    match_id = streams[0][-1].assigned.match_id
    stubs.matches.Resign(
        ms.ResignRequest(match_id=match_id), metadata=((SEAT, seats["loser"].seat_token),)
    )
    stub = archive_of(served)
    request = ar.GetRatingHistoryRequest(player_id="winner", game=pb.GAME_KIND_OTHELLO)
    deadline = time.monotonic() + 10
    while not stub.GetRatingHistory(request).changes and time.monotonic() < deadline:
        time.sleep(0.05)
    (change,) = stub.GetRatingHistory(request).changes
    assert change.match_id == match_id
    assert change.game == pb.GAME_KIND_OTHELLO
    assert change.before.mu == pytest.approx(25.0)
    assert change.before.matches == 0
    assert change.after.mu > change.before.mu
    assert change.after.matches == 1
    assert change.after.ordinal == pytest.approx(change.after.mu - 3 * change.after.sigma)
    own = mm.GetRatingRequest(game=pb.GAME_KIND_OTHELLO, player_id="winner")
    rating = stubs.tickets.GetRating(own).rating
    assert change.after.mu == pytest.approx(rating.mu)
    seated = stubs.matches.GetMatch(ms.GetMatchRequest(match_id=match_id)).match.seats
    names = {seat.player_id: seat.display_name for seat in seated}
    assert rating.display_name == names["winner"] != ""  # the name it played under
    versus = ar.GetHeadToHeadRequest(player_id="winner", opponent_id="loser")
    deadline = time.monotonic() + 10
    while not stub.GetHeadToHead(versus).matches and time.monotonic() < deadline:
        time.sleep(0.05)
    head = stub.GetHeadToHead(versus)
    assert (head.wins, head.losses, head.draws) == (1, 0, 0)
    assert [(m.match_id, m.rated, m.outcome) for m in head.matches] == [
        (match_id, True, ar.MATCH_OUTCOME_WIN)
    ]
    back = stub.GetHeadToHead(ar.GetHeadToHeadRequest(player_id="loser", opponent_id="winner"))
    assert (back.wins, back.losses) == (0, 1)


def test_a_data_dir_that_cannot_hold_the_archive_turns_it_off(
    serve: Callable[..., Served], tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocked = tmp_path / "a file"
    blocked.write_text("")
    served = serve(Settings(data_dir=str(blocked / "meeple")))
    assert "no archive: cannot keep it in" in caplog.text
    request = ar.ListPlayerMatchesRequest(player_id="ann")
    code, _ = code_of(lambda: archive_of(served).ListPlayerMatches(request))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    resigned_match(served)  # play goes on without an archive


def test_a_database_that_cannot_be_reached_stops_the_start(tmp_path: Path) -> None:
    settings = Settings(database_url=f"postgresql://meeple:secret@127.0.0.1:{free_port()}/x")
    app = App("127.0.0.1:0", metrics_port=None, settings=settings)
    with pytest.raises(StartupError) as refused:
        asyncio.run(app.start())
    assert refused.value.setting == "database_url"
    assert "cannot reach the archive at postgresql://meeple:***@127.0.0.1" in refused.value.line()
    assert "secret" not in refused.value.line()
