"""A thin Python client for a meeple server: connect, create a match against
bots, join, submit, watch. Third-party code may use the generated stubs in
``meeple.v1`` directly; this wraps the common steps.

>>> client = MeepleClient("127.0.0.1:50051")             # doctest: +SKIP
>>> match = client.create_match("othello", ["human", "hard"]).match
>>> seat = client.join(match.match_id)
>>> for event in client.watch(match.match_id): ...
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import grpc
from meeple.v1 import ai_service_pb2 as ai
from meeple.v1 import ai_service_pb2_grpc as ai_grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc
from meeple.v1 import rules_service_pb2 as rules
from meeple.v1 import rules_service_pb2_grpc as rules_grpc

SEAT_TOKEN_METADATA = "meeple-seat-token"
OWNER_TOKEN_METADATA = "meeple-owner-token"
KINDS = {
    "rolit": pb.GAME_KIND_ROLIT,
    "othello": pb.GAME_KIND_OTHELLO,
    "volleyball": pb.GAME_KIND_VOLLEYBALL,
    "volta": pb.GAME_KIND_VOLTA,
}


def game_config(game: str, **options: Any) -> pb.GameConfig:
    """A GameConfig from a game name and its options, e.g.
    ``game_config("rolit", players=3)`` or ``game_config("volleyball", big_leagues=True)``."""
    if game not in KINDS:
        raise ValueError(f"unknown game {game!r}; games: {', '.join(KINDS)}")
    config = pb.GameConfig(kind=KINDS[game])
    if options:
        family = {"rolit": "rolit", "volleyball": "volleyball", "volta": "volta"}.get(game)
        if family is None:
            raise ValueError(f"{game} takes no options")
        if family == "volta" and "dents" in options:
            names = {"large": pb.DENT_SIZE_LARGE, "small": pb.DENT_SIZE_SMALL}
            options = {**options, "dents": [names[d] for d in options["dents"]]}
        getattr(config, family).CopyFrom(type(getattr(config, family))(**options))
    return config


def seat_config(who: str) -> ms.SeatConfig:
    """``"human"`` or a bot's level or spec (e.g. ``"hard"``)."""
    if who == "human":
        return ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)
    return ms.SeatConfig(kind=ms.SEAT_KIND_BOT, bot_spec=who)


@dataclass(frozen=True)
class SeatHandle:
    """A joined seat: what SubmitAction and Resign need."""

    match_id: str
    seat: int
    token: str

    @property
    def metadata(self) -> tuple[tuple[str, str | bytes], ...]:
        return ((SEAT_TOKEN_METADATA, self.token),)


class MeepleClient:
    """Stubs for every service over one channel, with the usual steps."""

    def __init__(self, address: str, timeout: float = 30.0) -> None:
        self.channel = grpc.insecure_channel(address)
        self.timeout = timeout
        self.rules = rules_grpc.RulesServiceStub(self.channel)
        self.matches = ms_grpc.MatchServiceStub(self.channel)
        self.ai = ai_grpc.AIServiceStub(self.channel)

    def close(self) -> None:
        self.channel.close()

    def __enter__(self) -> MeepleClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def create_match(
        self,
        game: str | pb.GameConfig,
        seats: Sequence[str],
        time_control: ms.TimeControl | None = None,
    ) -> ms.CreateMatchResponse:
        """A new match (``.match``) and its owner token (``.owner_token``)."""
        config = game_config(game) if isinstance(game, str) else game
        request = ms.CreateMatchRequest(
            config=config, seats=[seat_config(s) for s in seats], time_control=time_control
        )
        return self.matches.CreateMatch(request, timeout=self.timeout)

    def join(
        self, match_id: str, seat: int | None = None, owner_token: str | None = None
    ) -> SeatHandle:
        """Takes a free human seat (the first, unless ``seat`` is given); with
        the match's owner token, retakes a joined seat whose token was lost."""
        request = ms.JoinMatchRequest(match_id=match_id)
        if seat is not None:
            request.seat = seat
        metadata = ((OWNER_TOKEN_METADATA, owner_token),) if owner_token else None
        response = self.matches.JoinMatch(request, metadata=metadata, timeout=self.timeout)
        return SeatHandle(match_id, response.seat, response.seat_token)

    def get(self, match_id: str) -> ms.GetMatchResponse:
        return self.matches.GetMatch(ms.GetMatchRequest(match_id=match_id), timeout=self.timeout)

    def submit(
        self, handle: SeatHandle, expected_ply: int, actions: Sequence[pb.Action]
    ) -> ms.SubmitActionResponse:
        request = ms.SubmitActionRequest(
            match_id=handle.match_id, expected_ply=expected_ply, actions=list(actions)
        )
        return self.matches.SubmitAction(request, metadata=handle.metadata, timeout=self.timeout)

    def resign(self, handle: SeatHandle) -> ms.Match:
        request = ms.ResignRequest(match_id=handle.match_id)
        return self.matches.Resign(request, metadata=handle.metadata, timeout=self.timeout).match

    def legal_actions(self, record: pb.GameRecord) -> rules.ListLegalActionsResponse:
        request = rules.ListLegalActionsRequest(record=record)
        return self.rules.ListLegalActions(request, timeout=self.timeout)

    def suggest(self, record: pb.GameRecord, bot_spec: str, seed: int = 0) -> pb.ActionInfo:
        request = ai.SuggestActionRequest(record=record, bot_spec=bot_spec, seed=seed)
        return self.ai.SuggestAction(request, timeout=self.timeout).action

    def watch(
        self, match_id: str, from_ply: int = 0, retries: int = 5
    ) -> Iterator[ms.WatchMatchResponse]:
        """The match's events until it ends, after a snapshot of the match;
        when the connection drops, it resumes after the last event received,
        so none is lost or repeated (nor the snapshot sent again)."""
        next_ply, failures = from_ply, 0
        seen: set[bytes] = set()  # events received at next_ply or later
        snapshot_sent = False
        while True:
            request = ms.WatchMatchRequest(match_id=match_id, from_ply=next_ply)
            try:
                for event in self.matches.WatchMatch(request):
                    failures = 0
                    if event.HasField("snapshot"):
                        if not snapshot_sent:
                            snapshot_sent = True
                            yield event
                        continue
                    raw = event.SerializeToString()
                    if raw in seen:
                        continue
                    yield event
                    if event.HasField("ended"):
                        return
                    if event.HasField("action"):
                        next_ply, seen = event.ply + 1, set()
                    else:
                        seen.add(raw)
                return
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or failures >= retries:
                    raise
                failures += 1
                time.sleep(0.2 * 2**failures)

    def wait_for_turn(self, handle: SeatHandle, poll: float = 0.05) -> ms.GetMatchResponse | None:
        """Waits until ``handle``'s seat is to act (the match and its record),
        or None once the match is over."""
        while True:
            got = self.get(handle.match_id)
            if got.match.status == ms.MATCH_STATUS_FINISHED:
                return None
            view = got.match.view
            if (
                got.match.status == ms.MATCH_STATUS_PLAYING
                and view.HasField("seat_to_act")
                and view.seat_to_act == handle.seat
            ):
                return got
            time.sleep(poll)
