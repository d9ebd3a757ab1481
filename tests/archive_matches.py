"""Real finished matches for the archive's tests: ``played_match`` plays a
game with the engine (seeded random legal moves, dice rolled from the same
seed) and returns it as the archive keeps it, an ``ArchivedMatch`` whose
``record`` is ``coordination.records.dump_match`` of a finished MatchData,
built as ``match_service.logic.new_match`` builds one (config with the
first seat set, serialized actions, seats, clocks, times).

    played_match("othello", seed=3, players=["alice", "bot:hard"])
    played_match("rolit", seed=1, players=["a", "b", "c"])      # 3 seats
    played_match("othello", 5, ["alice", "bob"], plies=10,
                 reason=ms.END_REASON_RESIGNATION, end_seat=0)  # resigned

A player "bot:<spec>" is a bot seat; any other string is a human seat with
that player id (its display name ``names[seat]`` if given, else the id
capitalized; "" is a human seat without an identity).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

from meeple.v1 import match_service_pb2 as ms

import engine_core
from engine_core import State
from engine_core.api import returns_for_winners
from services.archive.records import ArchivedMatch, ArchivedSeat, outcomes
from services.convert import action_to_proto, config_of
from services.coordination.base import MatchData
from services.coordination.records import dump_match

HUMAN, BOT = ms.SEAT_KIND_HUMAN, ms.SEAT_KIND_BOT
CREATED_MS = 1_796_205_600_000  # 2026-12-02T10:00:00Z
MOVE_MS = 1_500  # each ply takes this long, for the end time


def seat_options(game: str, players: int) -> dict[str, Any]:
    """The engine options that give ``game`` this many seats."""
    return {"players": players} if game == "rolit" else {}


def play(state: State, rng: random.Random, plies: int | None = None) -> None:
    """Plays random legal actions (and dice, weighted by their
    probabilities) from ``rng`` until the end, or for ``plies`` plies."""
    played = 0
    while not state.is_terminal() and (plies is None or played < plies):
        if state.is_chance_node():
            outcomes_ = state.chance_outcomes()
            action = rng.choices([o for o, _ in outcomes_], [p for _, p in outcomes_])[0]
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
        played += 1


def played_match(
    game: str,
    seed: int,
    players: Sequence[str],
    *,
    options: dict[str, Any] | None = None,
    names: Sequence[str] | None = None,
    plies: int | None = None,
    reason: ms.EndReason = ms.END_REASON_RULES,
    end_seat: int = -1,
    rated: bool = False,
    match_id: str | None = None,
    created_ms: int = CREATED_MS,
    base_ms: int = 300_000,
    increment_ms: int = 5_000,
) -> ArchivedMatch:
    """A finished match of ``game`` (an engine name) between ``players``
    (one per seat), played from ``seed`` to its end, or for ``plies`` plies
    and then ended by ``reason`` (END_REASON_RESIGNATION or _TIMEOUT of
    ``end_seat``: the other seats share the win). ``options`` are engine
    options on top of the seat count (e.g. {"first_seat": 1})."""
    if (reason == ms.END_REASON_RULES) != (end_seat < 0):
        raise ValueError("a resignation or a timeout names its end_seat; the rules' end none")
    engine_options = {**seat_options(game, len(players)), **(options or {})}
    engine = engine_core.load_game(game, **engine_options)
    state = engine.new_initial_state()
    play(state, random.Random(seed), plies)
    if reason == ms.END_REASON_RULES and not state.is_terminal():
        raise ValueError("a match ended by the rules is played to its end (plies=None)")
    replay = engine.new_initial_state()
    history = []
    for action in state.history():
        history.append(action_to_proto(replay, action).action.SerializeToString())
        replay.apply_action(action)

    seats = len(players)
    kinds = [BOT if player.startswith("bot:") else HUMAN for player in players]
    specs = [
        player.removeprefix("bot:") if kind == BOT else ""
        for player, kind in zip(players, kinds, strict=True)
    ]
    player_ids = [
        player if kind == HUMAN else "" for player, kind in zip(players, kinds, strict=True)
    ]
    shown = list(names) if names is not None else [p.capitalize() for p in player_ids]
    if reason == ms.END_REASON_RULES:
        returns = state.returns()
    else:
        returns = returns_for_winners([s for s in range(seats) if s != end_seat], seats)
    started_ms = created_ms + 2_000
    ended_ms = started_ms + MOVE_MS * len(history)
    match_id = match_id or hashlib.sha256(f"{game}/{seed}/{players}".encode()).hexdigest()[:16]
    data = MatchData(
        match_id=match_id,
        config=config_of(engine).SerializeToString(),
        rules_version=engine.game_type.rules_version,
        seat_kinds=kinds,
        bot_specs=specs,
        token_hashes=[hashlib.sha256(f"{match_id}/{s}".encode()).hexdigest() for s in range(seats)],
        owner_hash=hashlib.sha256(f"{match_id}/owner".encode()).hexdigest(),
        history=history,
        rated=rated,
        players=player_ids,
        names=shown,
        seat_key="00" * 32,
        seat_rounds=[0] * seats,
        status=ms.MATCH_STATUS_FINISHED,
        end_reason=reason,
        end_seat=end_seat,
        dice_seed=seed,
        version=len(history) + seats + 1,
        base_ms=base_ms,
        increment_ms=increment_ms,
        clocks_ms=[base_ms if kind == HUMAN else 0 for kind in kinds],
        created_ms=created_ms,
        started_ms=started_ms,
        ended_ms=ended_ms,
    )
    archived_seats = tuple(
        ArchivedSeat(
            kind=kinds[s],
            bot_spec=specs[s],
            player_id=player_ids[s],
            display_name=shown[s],
            result=returns[s],
            outcome=outcome,
        )
        for s, outcome in enumerate(outcomes(returns))
    )
    return ArchivedMatch(
        match_id=match_id,
        game=game,
        rated=rated,
        reason=reason,
        end_seat=end_seat,
        created_ms=created_ms,
        started_ms=started_ms,
        ended_ms=ended_ms,
        plies=len(history),
        seats=archived_seats,
        record=dump_match(data),
    )


def othello_seed_with_pass(start: int = 0) -> int:
    """The first seed from ``start`` whose random Othello game holds a pass."""
    seed = start
    while True:
        state = engine_core.load_game("othello").new_initial_state()
        play(state, random.Random(seed))
        if 64 in state.history():
            return seed
        seed += 1
