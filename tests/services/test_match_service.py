"""MatchService through real gRPC: whole matches of every kind watched to
the end, resumable watching, every error path, idempotency and races."""

from __future__ import annotations

import math
import random
import threading
from collections.abc import Callable

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

TOKEN = "meeple-seat-token"
HUMAN = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)


def bot(spec: str) -> ms.SeatConfig:
    return ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=spec)


@pytest.fixture(scope="module")
def matches(channel: grpc.Channel) -> ms_grpc.MatchServiceStub:
    return ms_grpc.MatchServiceStub(channel)


@pytest.fixture(scope="module")
def rules_stub(channel: grpc.Channel) -> rules_grpc.RulesServiceStub:
    return rules_grpc.RulesServiceStub(channel)


def create(
    matches: ms_grpc.MatchServiceStub, config: pb.GameConfig, seats: list[ms.SeatConfig]
) -> ms.Match:
    return matches.CreateMatch(ms.CreateMatchRequest(config=config, seats=seats)).match


def join(matches: ms_grpc.MatchServiceStub, match_id: str, seat: int) -> str:
    return matches.JoinMatch(ms.JoinMatchRequest(match_id=match_id, seat=seat)).seat_token


def code_of(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def watch(matches: ms_grpc.MatchServiceStub, match_id: str, from_ply: int = 0) -> list:
    stream = matches.WatchMatch(
        ms.WatchMatchRequest(match_id=match_id, from_ply=from_ply), timeout=120
    )
    return list(stream)


def play_human(
    matches: ms_grpc.MatchServiceStub,
    rules_stub: rules_grpc.RulesServiceStub,
    match_id: str,
    seat: int,
    token: str,
    rng: random.Random,
) -> int:
    """Plays ``seat`` with random legal actions until the match ends; returns
    how many actions it played."""
    played = 0
    for _ in range(5000):
        got = matches.GetMatch(ms.GetMatchRequest(match_id=match_id))
        if got.match.status == ms.MATCH_STATUS_FINISHED:
            return played
        if got.match.view.current_player != seat:
            threading.Event().wait(0.01)  # a bot or the dice are to act
            continue
        legal = rules_stub.ListLegalActions(rules.ListLegalActionsRequest(record=got.record))
        action = rng.choice(legal.actions).action
        if action.HasField("flick"):
            action.flick.impulse_ns = min(action.flick.impulse_ns, 0.02)
        request = ms.SubmitActionRequest(
            match_id=match_id, expected_ply=got.match.view.ply, actions=[action]
        )
        matches.SubmitAction(request, metadata=[(TOKEN, token)])
        played += 1
    raise AssertionError("the match did not end")


def check_stream(events: list, final: ms.GetMatchResponse) -> None:
    """The stream holds every ply once, in order, then the end."""
    assert [e.ply for e in events[:-1]] == list(range(len(final.record.history)))
    assert events[-1].HasField("ended")
    assert events[-1].ply == len(final.record.history)
    assert [e.action.action.action for e in events[:-1]] == list(final.record.history)
    assert list(events[-1].ended.returns) == list(final.match.view.returns)


@pytest.mark.parametrize(
    ("config", "others"),
    [
        (pb.GameConfig(kind=pb.GAME_KIND_ROLIT), ["greedy", "random", "easy"]),
        (pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL), ["easy"]),
        (pb.GameConfig(kind=pb.GAME_KIND_VOLTA), ["easy"]),
    ],
    ids=["rolit", "volleyball", "volta"],
)
def test_a_human_plays_bots_while_a_spectator_watches(
    matches: ms_grpc.MatchServiceStub,
    rules_stub: rules_grpc.RulesServiceStub,
    config: pb.GameConfig,
    others: list[str],
) -> None:
    match = create(matches, config, [HUMAN, *(bot(spec) for spec in others)])
    assert match.status == ms.MATCH_STATUS_WAITING
    token = join(matches, match.match_id, 0)
    watched: list = []
    spectator = threading.Thread(target=lambda: watched.extend(watch(matches, match.match_id)))
    spectator.start()
    assert play_human(matches, rules_stub, match.match_id, 0, token, random.Random(1)) > 0
    spectator.join(timeout=120)
    final = matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id))
    assert final.match.status == ms.MATCH_STATUS_FINISHED
    check_stream(watched, final)
    if config.kind == pb.GAME_KIND_VOLTA:
        flicks = [e.action.flick for e in watched[:-1]]
        assert all(len(f.frames) >= 1 for f in flicks)
    if config.kind == pb.GAME_KIND_VOLLEYBALL:
        assert any(e.action.seat == -1 for e in watched[:-1])  # the server rolled dice
    # The record replays to the same end through the stateless rules service.
    replayed = rules_stub.ListLegalActions(rules.ListLegalActionsRequest(record=final.record))
    assert replayed.view.terminal


@pytest.mark.parametrize(
    "kind", [pb.GAME_KIND_OTHELLO, pb.GAME_KIND_VOLLEYBALL, pb.GAME_KIND_VOLTA]
)
def test_bots_play_each_other_and_a_dropped_watcher_resumes(
    matches: ms_grpc.MatchServiceStub, kind: int
) -> None:
    match = create(matches, pb.GameConfig(kind=kind), [bot("easy"), bot("random")])
    assert match.status == ms.MATCH_STATUS_PLAYING
    stream = matches.WatchMatch(ms.WatchMatchRequest(match_id=match.match_id), timeout=120)
    first = [next(stream) for _ in range(3)]
    stream.cancel()  # the watcher drops
    rest = watch(matches, match.match_id, from_ply=first[-1].ply + 1)
    final = matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id))
    check_stream(first + rest, final)
    # Watching a finished match from its end returns at once.
    assert watch(matches, match.match_id, from_ply=final.match.view.ply + 1) == []


def test_seat_tokens_guard_the_seats(matches: ms_grpc.MatchServiceStub) -> None:
    match = create(matches, pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), [HUMAN, HUMAN])
    black = join(matches, match.match_id, 0)
    d3 = pb.Action(board=pb.BoardMove(square=19))

    def submit(token: str | None, ply: int = 0, action: pb.Action = d3) -> object:
        request = ms.SubmitActionRequest(
            match_id=match.match_id, expected_ply=ply, actions=[action]
        )
        metadata = [(TOKEN, token)] if token is not None else None
        return matches.SubmitAction(request, metadata=metadata)

    code, details = code_of(lambda: submit(black))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "waiting for players" in details
    white = join(matches, match.match_id, 1)
    assert (
        code_of(lambda: join(matches, match.match_id, 1))[0] == grpc.StatusCode.FAILED_PRECONDITION
    )
    assert code_of(lambda: submit(None))[0] == grpc.StatusCode.UNAUTHENTICATED
    assert code_of(lambda: submit("not-a-token"))[0] == grpc.StatusCode.PERMISSION_DENIED
    other = create(matches, pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), [HUMAN, bot("random")])
    stranger = join(matches, other.match_id, 0)
    assert code_of(lambda: submit(stranger))[0] == grpc.StatusCode.PERMISSION_DENIED
    code, details = code_of(lambda: submit(white))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "not your turn" in details
    code, details = code_of(lambda: submit(black, action=pb.Action(board=pb.BoardMove(square=0))))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "a1" in details
    code, _ = code_of(lambda: submit(black, action=pb.Action(board=pb.BoardMove(square=500))))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    unchanged = matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id))
    assert unchanged.match.view.ply == 0
    assert list(unchanged.record.history) == []
    # A legal move, then its retry (same ply, same action) gets the same answer.
    first = submit(black)
    again = submit(black)
    assert first == again
    code, details = code_of(lambda: submit(white, ply=0))
    assert code == grpc.StatusCode.ABORTED
    assert "stale ply" in details
    code, _ = code_of(lambda: submit(black, ply=5))
    assert code == grpc.StatusCode.ABORTED


def test_unknown_matches_and_malformed_requests(matches: ms_grpc.MatchServiceStub) -> None:
    missing = ms.GetMatchRequest(match_id="0123456789abcdef")
    assert code_of(lambda: matches.GetMatch(missing))[0] == grpc.StatusCode.NOT_FOUND
    assert code_of(lambda: matches.GetMatch(ms.GetMatchRequest()))[0] == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    watch_missing = ms.WatchMatchRequest(match_id="0123456789abcdef")
    assert code_of(lambda: list(matches.WatchMatch(watch_missing)))[0] == grpc.StatusCode.NOT_FOUND
    othello = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)
    for seats, expected in [
        ([HUMAN], "has 2 seats"),
        ([HUMAN, ms.SeatConfig()], "seats[1].kind"),
        ([HUMAN, bot("wizard")], "seats[1].bot_spec"),
        ([HUMAN, bot("mcts:iterations=999999999")], "at most"),
    ]:
        code, details = code_of(lambda seats=seats: create(matches, othello, seats))
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert expected in details


def test_a_nan_flick_is_invalid_argument(matches: ms_grpc.MatchServiceStub) -> None:
    match = create(matches, pb.GameConfig(kind=pb.GAME_KIND_VOLTA), [HUMAN, bot("random")])
    token = join(matches, match.match_id, 0)
    flick = pb.Action(flick=pb.Flick(side=0, impulse_ns=math.nan))
    request = ms.SubmitActionRequest(match_id=match.match_id, expected_ply=0, actions=[flick])
    code, details = code_of(lambda: matches.SubmitAction(request, metadata=[(TOKEN, token)]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "finite" in details


def test_simultaneous_submissions_apply_one_action_per_ply(
    matches: ms_grpc.MatchServiceStub,
) -> None:
    match = create(matches, pb.GameConfig(kind=pb.GAME_KIND_OTHELLO), [HUMAN, HUMAN])
    black = join(matches, match.match_id, 0)
    join(matches, match.match_id, 1)
    moves = [19, 26, 37, 44]  # d3, c4, f5, e6: all legal for black
    outcomes: list[object] = []

    def submit(square: int) -> None:
        request = ms.SubmitActionRequest(
            match_id=match.match_id,
            expected_ply=0,
            actions=[pb.Action(board=pb.BoardMove(square=square))],
        )
        try:
            outcomes.append(matches.SubmitAction(request, metadata=[(TOKEN, black)]))
        except grpc.RpcError as error:
            outcomes.append(error.code())

    threads = [threading.Thread(target=submit, args=(moves[i % 4],)) for i in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    final = matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id))
    assert len(final.record.history) == 1
    accepted = [o for o in outcomes if isinstance(o, ms.SubmitActionResponse)]
    assert accepted
    assert all(o.applied[0].action == final.record.history[0] for o in accepted)
    assert all(
        o in (grpc.StatusCode.ABORTED,)
        for o in outcomes
        if not isinstance(o, ms.SubmitActionResponse)
    )


def test_resigning_ends_the_match_for_everyone(matches: ms_grpc.MatchServiceStub) -> None:
    match = create(
        matches,
        pb.GameConfig(kind=pb.GAME_KIND_ROLIT),
        [HUMAN, bot("random"), bot("random"), bot("random")],
    )
    token = join(matches, match.match_id, 0)
    resigned = matches.Resign(ms.ResignRequest(match_id=match.match_id), metadata=[(TOKEN, token)])
    assert resigned.match.status == ms.MATCH_STATUS_FINISHED
    assert resigned.match.resigned_seat == 0
    # The resigning seat loses; the others share the win (returns_for_winners).
    assert list(resigned.match.view.returns) == pytest.approx([-1 / 3, 1 / 9, 1 / 9, 1 / 9])
    events = watch(matches, match.match_id)
    assert events[-1].HasField("ended")
    assert events[-1].ended.resigned_seat == 0
    code, _ = code_of(
        lambda: matches.Resign(ms.ResignRequest(match_id=match.match_id), metadata=[(TOKEN, token)])
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION
