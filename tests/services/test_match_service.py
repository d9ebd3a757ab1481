"""MatchService through real gRPC: whole matches of every kind watched to
the end, resumable watching, every error path, idempotency and races, seat
recovery, the first-seat draw and the events of a match's life."""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Callable

import grpc
import pytest
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

import engine_core
from tests.services.conftest import Served

TOKEN = "meeple-seat-token"
OWNER = "meeple-owner-token"
HUMAN = ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
OTHELLO = pb.GameConfig(kind=pb.GAME_KIND_OTHELLO)


def bot(spec: str) -> ms.SeatConfig:
    return ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=spec)


@pytest.fixture(scope="module")
def matches(channel: grpc.Channel) -> ms_grpc.MatchServiceStub:
    return ms_grpc.MatchServiceStub(channel)


@pytest.fixture(scope="module")
def rules_stub(channel: grpc.Channel) -> rules_grpc.RulesServiceStub:
    return rules_grpc.RulesServiceStub(channel)


def create(
    matches: ms_grpc.MatchServiceStub,
    config: pb.GameConfig,
    seats: list[ms.SeatConfig],
    **fields: object,
) -> ms.Match:
    request = ms.CreateMatchRequest(config=config, seats=seats, **fields)  # type: ignore[arg-type]
    return matches.CreateMatch(request).match


def join(matches: ms_grpc.MatchServiceStub, match_id: str, seat: int) -> str:
    return matches.JoinMatch(ms.JoinMatchRequest(match_id=match_id, seat=seat)).seat_token


def code_of(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value.code(), info.value.details()


def watch(
    matches: ms_grpc.MatchServiceStub, match_id: str, from_ply: int = 0, seconds: float = 5.0
) -> list:
    """The stream of a match that is over (or will be within ``seconds``):
    it must end with its end event, not run until a timeout."""
    stream = matches.WatchMatch(
        ms.WatchMatchRequest(match_id=match_id, from_ply=from_ply), timeout=seconds
    )
    events: list = []
    try:
        events.extend(stream)
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.DEADLINE_EXCEEDED:
            raise
        raise AssertionError(
            f"the stream from ply {from_ply} did not end within {seconds} s: "
            f"no end event after {len(events)} events"
        ) from None
    return events


def finished(
    matches: ms_grpc.MatchServiceStub, match_id: str, seconds: float = 120.0
) -> ms.GetMatchResponse:
    """Waits for the match to finish; a match waiting on dice that the server
    never rolled fails at once, naming the ply."""
    deadline = time.monotonic() + seconds
    while True:
        got = matches.GetMatch(ms.GetMatchRequest(match_id=match_id))
        check_rolled(got.match)
        if got.match.status == ms.MATCH_STATUS_FINISHED:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"the match did not finish in {seconds} s: {got.match.view}")
        time.sleep(0.02)


def check_rolled(match: ms.Match) -> None:
    """A client never sees a match waiting for dice: the server rolls them
    in the same step as the action that made them due."""
    assert match.view.phase != pb.GAME_PHASE_CHANCE, f"no die was rolled at ply {match.view.ply}"


def to_act(view: pb.GameView) -> int | None:
    return view.seat_to_act if view.HasField("seat_to_act") else None


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
        check_rolled(got.match)
        if got.match.status == ms.MATCH_STATUS_FINISHED:
            return played
        if to_act(got.match.view) != seat:
            threading.Event().wait(0.01)  # a bot or the dice are to act
            continue
        legal = rules_stub.ListLegalActions(rules.ListLegalActionsRequest(record=got.record))
        action = rng.choice(legal.actions).action
        request = ms.SubmitActionRequest(
            match_id=match_id, expected_ply=got.match.view.ply, actions=[action]
        )
        matches.SubmitAction(request, metadata=[(TOKEN, token)])
        played += 1
    raise AssertionError("the match did not end")


def actions_of(events: list) -> list:
    return [e for e in events if e.HasField("action")]


def check_stream(events: list, final: ms.GetMatchResponse, from_ply: int = 0) -> None:
    """The stream opens with a snapshot, holds every ply once, in order,
    and ends with the end."""
    assert events[0].HasField("snapshot")
    assert events[0].snapshot.match_id == final.match.match_id
    played = actions_of(events)
    history = list(final.record.history)
    assert [e.ply for e in played] == list(range(from_ply, len(history)))
    assert [e.action.action.action for e in played] == history[from_ply:]
    assert events[-1].HasField("ended")
    assert events[-1].ply == len(history)
    assert list(events[-1].ended.returns) == list(final.match.view.returns)
    assert events[-1].ended == final.match.ended


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
    assert match.HasField("expire_time")
    watched: list = []
    stream = matches.WatchMatch(ms.WatchMatchRequest(match_id=match.match_id), timeout=300)
    spectator = threading.Thread(target=lambda: watched.extend(stream))
    spectator.start()
    token = join(matches, match.match_id, 0)
    assert play_human(matches, rules_stub, match.match_id, 0, token, random.Random(1)) > 0
    spectator.join(timeout=5)
    if spectator.is_alive():
        stream.cancel()
        raise AssertionError(f"the match is over but its stream sent no end event: {watched[-1]}")
    final = matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id))
    assert final.match.status == ms.MATCH_STATUS_FINISHED
    assert final.match.ended.reason == ms.END_REASON_RULES
    check_stream(watched, final)
    kinds = [e.WhichOneof("event") for e in watched]
    assert kinds[:3] == ["snapshot", "seat_joined", "started"]
    assert watched[0].snapshot.status == ms.MATCH_STATUS_WAITING
    assert "clock" in kinds  # the human seat's clock started at its turns
    if config.kind == pb.GAME_KIND_VOLTA:
        flicks = [e.action.flick for e in actions_of(watched)]
        assert all(len(f.frames) >= 1 for f in flicks)
    if config.kind == pb.GAME_KIND_VOLLEYBALL:
        # The server rolled the dice: chance events carry no seat.
        dice = [e for e in actions_of(watched) if not e.action.HasField("seat")]
        assert dice
        assert all(e.action.action.action.volleyball.HasField("dice") for e in dice)
    # The record replays to the same end through the stateless rules service.
    replayed = rules_stub.ListLegalActions(rules.ListLegalActionsRequest(record=final.record))
    assert replayed.view.phase == pb.GAME_PHASE_TERMINAL


@pytest.mark.parametrize(
    "kind", [pb.GAME_KIND_OTHELLO, pb.GAME_KIND_VOLLEYBALL, pb.GAME_KIND_VOLTA]
)
def test_bots_play_each_other_and_a_dropped_watcher_resumes(
    matches: ms_grpc.MatchServiceStub, kind: int
) -> None:
    match = create(matches, pb.GameConfig(kind=kind), [bot("easy"), bot("random")])
    assert match.status == ms.MATCH_STATUS_PLAYING
    stream = matches.WatchMatch(ms.WatchMatchRequest(match_id=match.match_id), timeout=120)
    first = []
    while len(actions_of(first)) < 3:
        first.append(next(stream))
    stream.cancel()  # the watcher drops
    resume = first[-1].ply + 1
    final = finished(matches, match.match_id)
    rest = watch(matches, match.match_id, from_ply=resume)
    assert [e.ply for e in actions_of(first)] == [0, 1, 2]
    check_stream(rest, final, from_ply=resume)
    # From the end: the snapshot and the end; past the end: OUT_OF_RANGE.
    end = final.match.view.ply
    tail = watch(matches, match.match_id, from_ply=end)
    assert [e.WhichOneof("event") for e in tail] == ["snapshot", "ended"]
    code, details = code_of(lambda: watch(matches, match.match_id, from_ply=end + 1))
    assert code == grpc.StatusCode.OUT_OF_RANGE
    assert f"ended at ply {end}" in details


def test_seat_tokens_guard_the_seats(matches: ms_grpc.MatchServiceStub, server: Served) -> None:
    match = create(matches, OTHELLO, [HUMAN, HUMAN])
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
    # Another player may not take it (its own player gets its token again).
    again = ms.JoinMatchRequest(match_id=match.match_id, seat=1)
    code, details = code_of(lambda: matches.JoinMatch(again, metadata=server.bearer("intruder")))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "taken" in details
    assert code_of(lambda: submit(None))[0] == grpc.StatusCode.UNAUTHENTICATED
    assert code_of(lambda: submit("not-a-token"))[0] == grpc.StatusCode.PERMISSION_DENIED
    other = create(matches, OTHELLO, [HUMAN, bot("random")])
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
    # The same seat at the same old ply with other actions is not a retry.
    c4 = pb.Action(board=pb.BoardMove(square=26))
    code, details = code_of(lambda: submit(black, ply=0, action=c4))
    assert code == grpc.StatusCode.ABORTED
    assert "played with other actions" in details
    code, details = code_of(lambda: submit(white, ply=0))
    assert code == grpc.StatusCode.ABORTED
    assert "stale ply" in details
    code, _ = code_of(lambda: submit(black, ply=5))
    assert code == grpc.StatusCode.ABORTED
    after = matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id))
    assert [a.board.square for a in after.record.history] == [19]


def test_a_bot_seat_cannot_be_joined(matches: ms_grpc.MatchServiceStub) -> None:
    match = create(matches, OTHELLO, [HUMAN, bot("random")])
    code, details = code_of(lambda: join(matches, match.match_id, 1))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "seat 1 is a bot seat" in details
    # Not even with the owner token.
    owner = matches.CreateMatch(
        ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, bot("random")])
    ).owner_token
    second = create(matches, OTHELLO, [HUMAN, bot("random")])
    request = ms.JoinMatchRequest(match_id=second.match_id, seat=1)
    code, _ = code_of(lambda: matches.JoinMatch(request, metadata=[(OWNER, owner)]))
    assert code == grpc.StatusCode.PERMISSION_DENIED  # and that token is another match's
    unchanged = matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id)).match
    assert [s.joined for s in unchanged.seats] == [False, True]
    assert unchanged.status == ms.MATCH_STATUS_WAITING


def test_the_owner_token_recovers_a_lost_seat_token(matches: ms_grpc.MatchServiceStub) -> None:
    created = matches.CreateMatch(ms.CreateMatchRequest(config=OTHELLO, seats=[HUMAN, HUMAN]))
    match_id = created.match.match_id
    lost = join(matches, match_id, 0)
    join(matches, match_id, 1)
    request = ms.JoinMatchRequest(match_id=match_id, seat=0)
    retaken = matches.JoinMatch(request, metadata=[(OWNER, created.owner_token)])
    assert retaken.seat == 0
    assert retaken.seat_token != lost
    d3 = ms.SubmitActionRequest(
        match_id=match_id, expected_ply=0, actions=[pb.Action(board=pb.BoardMove(square=19))]
    )
    code, _ = code_of(lambda: matches.SubmitAction(d3, metadata=[(TOKEN, lost)]))
    assert code == grpc.StatusCode.PERMISSION_DENIED
    played = matches.SubmitAction(d3, metadata=[(TOKEN, retaken.seat_token)])
    assert played.match.view.ply == 1
    code, _ = code_of(lambda: matches.JoinMatch(request, metadata=[(OWNER, "forged")]))
    assert code == grpc.StatusCode.PERMISSION_DENIED


def test_unknown_matches_and_malformed_requests(matches: ms_grpc.MatchServiceStub) -> None:
    missing = ms.GetMatchRequest(match_id="0123456789abcdef")
    assert code_of(lambda: matches.GetMatch(missing))[0] == grpc.StatusCode.NOT_FOUND
    assert code_of(lambda: matches.GetMatch(ms.GetMatchRequest()))[0] == (
        grpc.StatusCode.INVALID_ARGUMENT
    )
    watch_missing = ms.WatchMatchRequest(match_id="0123456789abcdef")
    assert code_of(lambda: list(matches.WatchMatch(watch_missing)))[0] == grpc.StatusCode.NOT_FOUND
    volleyball = pb.GameConfig(kind=pb.GAME_KIND_VOLLEYBALL)
    volta = pb.GameConfig(kind=pb.GAME_KIND_VOLTA)
    for config, seats, expected in [
        (OTHELLO, [HUMAN], "has 2 seats"),
        (OTHELLO, [HUMAN, ms.SeatConfig()], "seats[1].kind"),
        (OTHELLO, [HUMAN, bot("wizard")], "seats[1].bot_spec"),
        (OTHELLO, [HUMAN, bot("mcts:iterations=999999999")], "at most"),
        (OTHELLO, [HUMAN, bot("mcts:c=nan")], "seats[1].bot_spec"),
        (OTHELLO, [ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN, bot_spec="hard"), HUMAN], "only a bot"),
        (volleyball, [HUMAN, bot("alphabeta:depth=3")], "chance"),
        (volta, [HUMAN, bot("alphabeta:depth=8")], "depth must be at most 1 for volta"),
    ]:
        code, details = code_of(lambda c=config, s=seats: create(matches, c, s))
        assert code == grpc.StatusCode.INVALID_ARGUMENT, details
        assert expected in details


def test_time_controls_are_checked(matches: ms_grpc.MatchServiceStub) -> None:
    from google.protobuf.duration_pb2 import Duration

    for control, expected in [
        (ms.TimeControl(base=Duration(seconds=0)), "time_control.base"),
        (ms.TimeControl(base=Duration(seconds=10**7)), "time_control.base"),
        (ms.TimeControl(increment=Duration(seconds=-1)), "time_control.increment"),
    ]:
        code, details = code_of(
            lambda c=control: create(matches, OTHELLO, [HUMAN, HUMAN], time_control=c)
        )
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert expected in details
    match = create(
        matches,
        OTHELLO,
        [HUMAN, HUMAN],
        time_control=ms.TimeControl(base=Duration(seconds=90), increment=Duration(seconds=3)),
    )
    assert match.time_control.base.seconds == 90
    assert [s.time_left.seconds for s in match.seats] == [90, 90]


def test_a_nan_flick_is_invalid_argument(matches: ms_grpc.MatchServiceStub) -> None:
    volta = pb.GameConfig(kind=pb.GAME_KIND_VOLTA, volta=pb.VoltaOptions(first_seat=0))
    match = create(matches, volta, [HUMAN, bot("random")])
    token = join(matches, match.match_id, 0)
    flick = pb.Action(flick=pb.Flick(side=0, impulse_ns=math.nan))
    request = ms.SubmitActionRequest(match_id=match.match_id, expected_ply=0, actions=[flick])
    code, details = code_of(lambda: matches.SubmitAction(request, metadata=[(TOKEN, token)]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "finite" in details


def test_simultaneous_submissions_apply_one_action_per_ply(
    matches: ms_grpc.MatchServiceStub,
) -> None:
    match = create(matches, OTHELLO, [HUMAN, HUMAN])
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
    assert resigned.match.ended.reason == ms.END_REASON_RESIGNATION
    assert resigned.match.ended.seat == 0
    assert resigned.match.view.phase == pb.GAME_PHASE_TERMINAL
    assert resigned.match.HasField("expire_time")  # kept for the retention time
    # The resigning seat loses; the others share the win (returns_for_winners).
    assert list(resigned.match.view.returns) == pytest.approx([-1 / 3, 1 / 9, 1 / 9, 1 / 9])
    events = watch(matches, match.match_id)
    assert events[-1].HasField("ended")
    assert events[-1].ended == resigned.match.ended
    code, _ = code_of(
        lambda: matches.Resign(ms.ResignRequest(match_id=match.match_id), metadata=[(TOKEN, token)])
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION


def test_the_server_draws_the_first_seat_unless_the_config_fixes_it(
    matches: ms_grpc.MatchServiceStub, rules_stub: rules_grpc.RulesServiceStub
) -> None:
    rolit = pb.GameConfig(kind=pb.GAME_KIND_ROLIT)
    firsts = set()
    for _ in range(40):
        match = create(matches, rolit, [HUMAN] * 4)
        assert match.first_seat_drawn
        assert match.config.rolit.HasField("first_seat")
        assert to_act(match.view) == match.config.rolit.first_seat
        firsts.add(match.config.rolit.first_seat)
    assert firsts == {0, 1, 2, 3}  # 40 draws miss a seat with probability < 1e-4
    # The draw is in the record: it replays to the same seat to act.
    record = matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id)).record
    listed = rules_stub.ListLegalActions(rules.ListLegalActionsRequest(record=record))
    assert listed.view.seat_to_act == match.config.rolit.first_seat
    fixed = create(
        matches,
        pb.GameConfig(kind=pb.GAME_KIND_VOLTA, volta=pb.VoltaOptions(first_seat=1)),
        [HUMAN, HUMAN],
    )
    assert not fixed.first_seat_drawn
    assert to_act(fixed.view) == 1
    assert not create(matches, OTHELLO, [HUMAN, HUMAN]).first_seat_drawn  # black starts


def test_a_submission_spends_the_seats_clock(matches: ms_grpc.MatchServiceStub) -> None:
    from google.protobuf.duration_pb2 import Duration

    control = ms.TimeControl(base=Duration(seconds=30), increment=Duration(seconds=2))
    match = create(matches, OTHELLO, [HUMAN, HUMAN], time_control=control)
    black = join(matches, match.match_id, 0)
    started = matches.JoinMatch(ms.JoinMatchRequest(match_id=match.match_id, seat=1)).match
    assert started.HasField("turn_deadline")
    threading.Event().wait(0.3)
    request = ms.SubmitActionRequest(
        match_id=match.match_id, expected_ply=0, actions=[pb.Action(board=pb.BoardMove(square=19))]
    )
    after = matches.SubmitAction(request, metadata=[(TOKEN, black)]).match
    left = after.seats[0].time_left.ToMilliseconds()
    assert 30_000 - 2_000 < left <= 30_000 - 300 + 2_000  # spent at least 0.3 s, got +2 s
    assert after.seats[1].time_left.ToMilliseconds() == 30_000
    assert after.turn_deadline.ToMilliseconds() > started.turn_deadline.ToMilliseconds()


def test_a_seat_out_of_time_loses(matches: ms_grpc.MatchServiceStub) -> None:
    from google.protobuf.duration_pb2 import Duration

    control = ms.TimeControl(base=Duration(seconds=1), increment=Duration(seconds=0))
    match = create(matches, OTHELLO, [HUMAN, bot("random")], time_control=control)
    token = join(matches, match.match_id, 0)  # and never moves
    events = watch(matches, match.match_id)
    kinds = [e.WhichOneof("event") for e in events]
    assert kinds[0] == "snapshot"
    assert "clock" in kinds
    clock = next(e.clock for e in events if e.HasField("clock"))
    assert clock.seat == 0
    assert clock.time_left.ToMilliseconds() == 1000
    ended = events[-1].ended
    assert ended.reason == ms.END_REASON_TIMEOUT
    assert ended.seat == 0
    assert list(ended.returns) == [-1.0, 1.0]
    assert events[-1].ended.seat == 0
    late = ms.SubmitActionRequest(
        match_id=match.match_id, expected_ply=0, actions=[pb.Action(board=pb.BoardMove(square=19))]
    )
    code, details = code_of(lambda: matches.SubmitAction(late, metadata=[(TOKEN, token)]))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert "over" in details


def test_a_change_replays_nothing(matches: ms_grpc.MatchServiceStub) -> None:
    """Each live match's state is cached: playing a game never replays it."""
    from services.metrics import MATCH_REPLAYS

    match = create(matches, OTHELLO, [HUMAN, HUMAN])
    tokens = [join(matches, match.match_id, 0), join(matches, match.match_id, 1)]
    before = MATCH_REPLAYS._value.get()
    rng = random.Random(3)
    state = engine_core.load_game("othello").new_initial_state()
    for ply in range(20):  # no pass comes up this early
        action = rng.choice(state.legal_actions())
        seat = state.current_player()
        state.apply_action(action)
        message = pb.Action(board=pb.BoardMove(square=action))
        request = ms.SubmitActionRequest(
            match_id=match.match_id, expected_ply=ply, actions=[message]
        )
        matches.SubmitAction(request, metadata=[(TOKEN, tokens[seat])])
        matches.GetMatch(ms.GetMatchRequest(match_id=match.match_id))
    assert MATCH_REPLAYS._value.get() == before
