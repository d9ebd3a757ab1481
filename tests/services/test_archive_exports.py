"""The archive's export formats (services/archive/exports.py and
othello_formats.py) on real matches played with the engine
(tests/archive_matches.py): the meeple.match/1 document and its NDJSON
line read back to the same record, GGF and SGF read back to the same moves
and players and replay to the match's end, exact wire values, a published
GGS game read move for move, and the refusals."""

from __future__ import annotations

import json
from typing import Any, cast

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st
from meeple.v1 import archive_service_pb2 as archive_pb
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

import engine_core
from engine_core.rolit.board import FlipState
from services.archive.exports import (
    FORMAT,
    NotOthello,
    export_file,
    game_record,
    game_record_json,
    match_document,
    match_json,
    ndjson_line,
    read_ggf,
    read_match_document,
    read_sgf,
    to_ggf,
    to_sgf,
)
from services.archive.othello_formats import ggf_board, ggf_result, sgf_result
from services.archive.records import ArchivedMatch
from services.convert import replay
from tests.archive_matches import othello_seed_with_pass, played_match

PASS_SEED = othello_seed_with_pass()
START_BO = "8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *"

MATCHES = {
    "rolit-2": lambda: played_match("rolit", 1, ["alice", "bob"]),
    "rolit-3": lambda: played_match("rolit", 2, ["alice", "bot:easy", "carol"]),
    "rolit-4": lambda: played_match("rolit", 3, ["a", "b", "c", "d"], options={"first_seat": 2}),
    "othello": lambda: played_match("othello", 4, ["alice", "bot:hard"]),
    "othello-pass": lambda: played_match("othello", PASS_SEED, ["alice", "bob"]),
    "volleyball": lambda: played_match("volleyball", 5, ["alice", "bot:medium"]),
    "volleyball-big": lambda: played_match(
        "volleyball", 6, ["alice", "bob"], options={"big_leagues": True, "underdog_boost": True}
    ),
    "volta": lambda: played_match("volta", 7, ["alice", "bob"], options={"first_seat": 1}),
}
_BUILT: dict[str, ArchivedMatch] = {}


def match_of(name: str) -> ArchivedMatch:
    if name not in _BUILT:
        _BUILT[name] = MATCHES[name]()
    return _BUILT[name]


def othello() -> FlipState:
    return cast(FlipState, engine_core.load_game("othello").new_initial_state())


def replay_squares(moves: list[str]) -> FlipState:
    """A fresh Othello state with ``moves`` ("d3", "pass") applied; an
    illegal one raises."""
    state = othello()
    for move in moves:
        state.apply_action(state.string_to_action(move))
    return state


def final_state(match: ArchivedMatch) -> FlipState:
    return cast(FlipState, replay(game_record(match)))


# --- meeple.match/1 ---------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MATCHES))
def test_match_json_and_ndjson_read_back_to_the_same_record(name: str) -> None:
    match = match_of(name)
    record = game_record(match)
    assert len(record.history) == match.plies > 0
    for text in (match_json(match), ndjson_line(match)):
        document, read = read_match_document(text)
        assert read == record  # every action, the config and the rules version
        assert [a.SerializeToString() for a in read.history] == [
            a.SerializeToString() for a in record.history
        ]
        assert document == json.loads(json.dumps(match_document(match)))
        state = replay(read)
        assert state.is_terminal()
        assert document["returns"] == state.returns() == [s.result for s in match.seats]
        assert len(document["moves"]) == match.plies
    assert "\n" not in ndjson_line(match)
    assert match_json(match).endswith("}\n")


def test_the_document_has_its_keys_in_a_fixed_order_and_its_values() -> None:
    match = match_of("othello")
    document = match_document(match)
    assert list(document) == [
        "format",
        "match_id",
        "game",
        "rated",
        "reason",
        "end_seat",
        "created_time",
        "start_time",
        "end_time",
        "plies",
        "seats",
        "returns",
        "record",
        "moves",
    ]
    assert document["format"] == FORMAT == "meeple.match/1"
    assert document["game"] == "othello"
    assert document["reason"] == "END_REASON_RULES"
    assert document["end_seat"] is None
    assert document["created_time"] == "2026-12-02T10:00:00Z"
    assert document["start_time"] == "2026-12-02T10:00:02Z"
    assert document["end_time"].startswith("2026-12-02T10:0")
    assert document["end_time"].endswith("Z")
    assert [list(seat) for seat in document["seats"]] == [
        ["seat", "kind", "bot_spec", "player_id", "display_name", "result", "outcome"]
    ] * 2
    human, bot = document["seats"]
    assert human["kind"] == "SEAT_KIND_HUMAN"
    assert (human["player_id"], human["display_name"], human["bot_spec"]) == ("alice", "Alice", "")
    assert bot == {**bot, "seat": 1, "kind": "SEAT_KIND_BOT", "bot_spec": "hard", "player_id": ""}
    assert {human["outcome"], bot["outcome"]} <= {"win", "loss", "draw"}
    assert document["record"]["config"] == {"kind": "GAME_KIND_OTHELLO"}
    assert "rulesVersion" in document["record"]  # the lowerCamelCase mapping
    moves = document["moves"]
    assert all(m == "pass" or (m[0] in "abcdefgh" and m[1] in "12345678") for m in moves)


def test_a_pass_and_a1_survive_the_json_mapping() -> None:
    match = match_of("othello-pass")
    document, record = read_match_document(ndjson_line(match))
    assert "pass" in document["moves"]
    passes = [i for i, m in enumerate(document["moves"]) if m == "pass"]
    assert document["record"]["history"][passes[0]] == {"board": {"passTurn": {}}}
    assert record.history[passes[0]].board.WhichOneof("move") == "pass_turn"
    a1 = pb.Action(board=pb.BoardMove(square=0))
    assert json_format.MessageToDict(a1) == {"board": {"square": 0}}  # a oneof: kept at 0


def test_moves_are_the_engine_notation_dice_included() -> None:
    volleyball = match_document(match_of("volleyball"))["moves"]
    assert any(m.startswith("dice ") for m in volleyball)
    assert any(m.startswith("serve ") for m in volleyball)
    assert any(m.startswith("place ") for m in volleyball)
    volta = match_document(match_of("volta"))["moves"]
    assert all(m.startswith("side=") and "impulse=" in m for m in volta)


def test_a_resigned_match_names_its_end_seat() -> None:
    match = played_match(
        "rolit", 9, ["a", "b", "c"], plies=7, reason=ms.END_REASON_RESIGNATION, end_seat=1
    )
    document = match_document(match)
    assert document["reason"] == "END_REASON_RESIGNATION"
    assert document["end_seat"] == 1
    assert [s["outcome"] for s in document["seats"]] == ["win", "loss", "win"]
    assert document["plies"] == 7 == len(document["moves"])
    assert not replay(read_match_document(match_json(match))[1]).is_terminal()


def test_a_match_that_never_started_has_no_start_time() -> None:
    match = match_of("rolit-2")
    unstarted = ArchivedMatch(**{**vars(match), "started_ms": 0})
    assert match_document(unstarted)["start_time"] is None


def test_an_ndjson_line_has_no_line_end_whatever_the_names() -> None:
    names = ["new\nline", "sep\u2028ara\u2029tors\x85"]
    match = played_match("othello", 11, ["alice", "bob"], names=names)
    line = ndjson_line(match)
    assert len(line.splitlines()) == 1
    document, _ = read_match_document(line)
    assert [s["display_name"] for s in document["seats"]] == names


def test_game_record_json_is_the_record_alone() -> None:
    match = match_of("volleyball-big")
    text = game_record_json(match)
    assert json_format.Parse(text, pb.GameRecord()) == game_record(match)
    assert set(json.loads(text)) == {"config", "history", "rulesVersion"}


def test_the_reader_refuses_other_versions_and_other_documents() -> None:
    document = match_document(match_of("othello"))
    with pytest.raises(ValueError, match=r"meeple\.match/2"):
        read_match_document(json.dumps({**document, "format": "meeple.match/2"}))
    with pytest.raises(ValueError, match="not a meeple match document"):
        read_match_document(json.dumps({**document, "format": "other/1"}))
    with pytest.raises(ValueError, match="format"):
        read_match_document(json.dumps({"match_id": "x"}))
    with pytest.raises(ValueError, match="format"):
        read_match_document("[1, 2]")
    with pytest.raises(json.JSONDecodeError):  # a ValueError
        read_match_document("{not json")
    with pytest.raises(ValueError, match="record"):
        read_match_document(json.dumps({**document, "record": {"history": [{"board": 7}]}}))
    with pytest.raises(ValueError, match="record"):
        read_match_document(json.dumps({**document, "record": None}))


def test_version_1_may_gain_fields_that_a_reader_ignores() -> None:
    document = match_document(match_of("othello"))
    record = {**document["record"], "futureField": 1}
    newer = {**document, "new_field": {"x": 1}, "record": record}
    read, parsed = read_match_document(json.dumps(newer))
    assert read["new_field"] == {"x": 1}
    assert parsed == game_record(match_of("othello"))


# --- GGF --------------------------------------------------------------------------


def check_ggf(match: ArchivedMatch) -> None:
    text = to_ggf(match)
    assert "\n" not in text
    game = read_ggf(text)
    document = match_document(match)
    assert game.moves == document["moves"]  # every move, passes included
    seats = match.seats
    names = [
        s.display_name or s.player_id if not s.bot_spec else f"bot:{s.bot_spec}" for s in seats
    ]
    assert (game.black, game.white) == (names[0], names[1])  # seat 0 plays black
    assert game.board == START_BO
    state = replay_squares(game.moves)
    end = final_state(match)
    assert state.board() == end.board()
    black, white = end.scores()
    assert game.margin == black - white
    assert game.flag == ""
    if black != white:
        assert (game.margin > 0) == (seats[0].outcome.value == "win")


@pytest.mark.parametrize("name", ["othello", "othello-pass"])
def test_ggf_reads_back_every_move_and_the_players(name: str) -> None:
    check_ggf(match_of(name))


@settings(max_examples=8)
@given(seed=st.integers(0, 100_000))
def test_ggf_round_trips_random_games(seed: int) -> None:
    check_ggf(played_match("othello", seed, ["bot:a", "bot:b"]))


def test_ggf_wire_values() -> None:
    assert ggf_board(othello()) == START_BO
    assert ggf_result(12, None) == "+12.000"
    assert ggf_result(-3, None) == "-3.000"
    assert ggf_result(0, None) == "+0.000"
    text = to_ggf(match_of("othello-pass"))
    assert text.startswith("(;GM[Othello]PC[meeple]DT[2026.12.02_10:00:02.UTC]PB[Alice]PW[Bob]")
    assert "TI[05:00/00:05/00:00]TY[8]" in text
    assert f"BO[{START_BO}]B[" in text
    assert "B[PA]" in text or "W[PA]" in text  # a pass
    assert text.endswith(";)")
    first = match_document(match_of("othello-pass"))["moves"][0]
    assert f"BO[{START_BO}]B[{first}]" in text  # lowercase squares, black first


def test_seat_zero_is_black_in_this_engine() -> None:
    state = othello()
    colours = type(state.game).colour_names
    assert colours[state.colour_of(0)] == "black"
    assert colours[state.colour_of(1)] == "white"
    assert state.current_player() == 0


# A published GGS game (Saio1200 vs Saio3000, GGS/os, 2003-12-15, a draw),
# as GGS wrote it: moves with "//time" after them and Black's pass spelled
# "pass"; as quoted in the tests of Chris Welty's Java GGF reader
# (com.welty.ggf.GgfGameTest).
SAIO_GAME = (
    "(;GM[Othello]PC[GGS/os]DT[2003.12.15_13:24:03.MST]PB[Saio1200]PW[Saio3000]"
    "RB[2197.01]RW[2199.72]TI[05:00//02:00]TY[8]RE[+0.000]"
    "BO[8 -------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *]"
    "B[d3//0.01]W[c5//0.01]B[e6//0.01]W[d2//0.01]B[c6//0.01]W[d6//0.01]B[b5//0.01]"
    "W[f5//0.01]B[e7//0.01]W[f6//0.01]B[f4//0.01]W[f3//0.01]B[g4//0.01]W[d7//0.01]"
    "B[g3//0.01]W[g5//0.01]B[h6//0.01]W[h5//0.01]B[h4//0.01]W[e8//0.01]B[c7//0.01]"
    "W[h3//0.01]B[c3//0.01]W[h7//0.01]B[e3//0.01]W[b6//0.01]B[g6//5.42]W[f7//0.01]"
    "B[d8//0.01]W[c2//0.01]B[d1//0.01]W[c4//0.01]B[b4//0.01]W[a5//0.01]B[f8//0.01]"
    "W[f2//0.01]B[e2//0.01]W[a4//17.38]B[a3//19.10]W[b3//0.01]B[f1//4.90]W[g7//0.01]"
    "B[b7//0.01]W[c8//0.01]B[a6//0.01]W[a7//0.01]B[c1//0.01]W[b2//0.01]B[a8//0.01]"
    "W[b8//0.01]B[a2//0.01]W[e1//0.01]B[h8//0.01]W[g8//0.01]B[h2//0.01]W[g1//0.01]"
    "B[h1//3.80]W[g2//0.01]B[pass]W[a1//0.01]B[b1//0.01];)"
)


def test_a_published_ggs_game_reads_move_for_move_and_replays_to_its_result() -> None:
    game = read_ggf(SAIO_GAME)
    assert (game.black, game.white) == ("Saio1200", "Saio3000")
    assert game.place == "GGS/os"
    assert game.date == "2003.12.15_13:24:03.MST"
    assert game.board == START_BO
    assert len(game.moves) == 61
    assert game.moves[:3] == ["d3", "c5", "e6"]
    assert game.moves[-3:] == ["pass", "a1", "b1"]
    state = replay_squares(game.moves)
    assert state.is_terminal()
    black, white = state.scores()
    assert (black, white) == (32, 32)
    assert game.result == "+0.000"
    assert game.margin == black - white == 0
    assert ggf_result(black - white, None) == game.result


def test_ggf_of_a_resignation_and_a_timeout() -> None:
    players = ["alice", "bob"]
    cases = [
        (ms.END_REASON_RESIGNATION, 0, "-64.000:r", "W+R"),  # black (seat 0) resigned
        (ms.END_REASON_RESIGNATION, 1, "+64.000:r", "B+R"),
        (ms.END_REASON_TIMEOUT, 0, "-64.000:t", "W+T"),
        (ms.END_REASON_TIMEOUT, 1, "+64.000:t", "B+T"),
    ]
    for reason, seat, ggf, sgf in cases:
        match = played_match("othello", 12, players, plies=9, reason=reason, end_seat=seat)
        game = read_ggf(to_ggf(match))
        assert game.result == ggf
        assert game.flag == ggf[-1]
        assert (game.margin or 0) * (1 if seat == 1 else -1) == 64
        assert len(game.moves) == 9
        assert read_sgf(to_sgf(match)).result == sgf
    assert ggf_result(5, (True, "resigned")) == "-64.000:r"  # whatever the discs
    assert sgf_result(5, (False, "time")) == "B+T"


def test_ggf_names_cannot_hold_a_bracket() -> None:
    match = played_match("othello", 13, ["x", "y"], names=["al]ice[", "bo\nb"])
    text = to_ggf(match)
    assert "PB[al)ice(]PW[bo b]" in text
    game = read_ggf(text)
    assert (game.black, game.white) == ("al)ice(", "bo b")


def test_a_bot_and_a_seat_without_identity_are_named() -> None:
    match = played_match("othello", 14, ["bot:hard", ""], names=["", ""])
    game = read_ggf(to_ggf(match))
    assert (game.black, game.white) == ("bot:hard", "?")


def test_ggf_readers_take_the_other_spellings() -> None:
    base = f"(;GM[othello]BO[{START_BO}]"
    assert read_ggf(base + "B[F5]W[d6/-1.5/2.0]B[C3];)").moves == ["f5", "d6", "c3"]
    assert read_ggf(base.replace(START_BO, START_BO.replace(" ", "")) + ";)").moves == []
    passing = read_ggf(base + "B[f5]W[PA]B[pa];)")
    assert passing.moves == ["f5", "pass", "pass"]
    assert passing.result == ""
    assert passing.margin is None
    assert read_ggf(base + "RE[?];)").margin is None


@pytest.mark.parametrize(
    "text",
    [
        "",
        "GM[Othello]",
        f"(;GM[Othello]BO[{START_BO}]B[d3]",  # no end
        f"(;GM[Chess]BO[{START_BO}];)",
        "(;GM[Othello];)",  # no board
        f"(;GM[Othello]BO[{START_BO[:-1]}X];)",
        "(;GM[Othello]BO[10 ---------- *];)",
        f"(;GM[Othello]BO[{START_BO}]B[i9];)",
        f"(;GM[Othello]BO[{START_BO}]B[d3]B[c3];)",  # out of turn
        f"(;GM[Othello]BO[{START_BO}]W[d3];)",  # black is to move
        f"(;GM[Othello]PB[a]PB[b]BO[{START_BO}];)",
        f"(;GM[Othello]RE[black wins]BO[{START_BO}];)",
        f"(;GM[Othello]TY[8k]KM[-0.500]BO[{START_BO}]KB[e6//0.90];)",
        f"(;GM[Othello]TY[10]BO[{START_BO}];)",
        f"(;GM[Othello]BO[{START_BO}]b[d3];)",
        f"(;GM[Othello]BO[{START_BO}]B[d3;)",
    ],
)
def test_malformed_ggf_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="GGF"):
        read_ggf(text)


# --- SGF --------------------------------------------------------------------------


def check_sgf(match: ArchivedMatch) -> None:
    text = to_sgf(match)
    game = read_sgf(text)
    document = match_document(match)
    assert game.moves == document["moves"]
    assert (game.black, game.white) == (
        read_ggf(to_ggf(match)).black,
        read_ggf(to_ggf(match)).white,
    )
    start = othello()
    black = [sq for sq, colour in enumerate(start.board()) if colour == start.colour_of(0)]
    white = [sq for sq, colour in enumerate(start.board()) if colour == start.colour_of(1)]
    assert sorted(game.black_setup) == sorted(start.action_to_string(sq) for sq in black)
    assert sorted(game.white_setup) == sorted(start.action_to_string(sq) for sq in white)
    assert game.to_play == "B"
    state = replay_squares(game.moves)
    end = final_state(match)
    assert state.board() == end.board()
    margin = end.scores()[0] - end.scores()[1]
    assert game.result == sgf_result(margin, None)
    assert game.date == "2026-12-02"


@pytest.mark.parametrize("name", ["othello", "othello-pass"])
def test_sgf_reads_back_every_move_and_the_players(name: str) -> None:
    check_sgf(match_of(name))


@settings(max_examples=8)
@given(seed=st.integers(0, 100_000))
def test_sgf_round_trips_random_games(seed: int) -> None:
    check_sgf(played_match("othello", seed, ["alice", "bot:b"]))


def test_sgf_wire_values() -> None:
    match = match_of("othello-pass")
    text = to_sgf(match)
    assert text.startswith("(;FF[4]GM[2]SZ[8]CA[UTF-8]AP[meeple]PC[meeple]DT[2026-12-02]")
    assert "AB[ed][de]AW[dd][ee]PL[B]" in text  # e4 d5 black, d4 e5 white
    assert ";B[]" in text or ";W[]" in text  # a pass is the empty move
    first = match_document(match)["moves"][0]
    column, row = first[0], "abcdefgh"[int(first[1]) - 1]
    assert f"PL[B]\n;B[{column}{row}]" in text  # d3 is "dc": column, then row from the top
    assert sgf_result(12, None) == "B+12"
    assert sgf_result(-3, None) == "W+3"
    assert sgf_result(0, None) == "0"
    assert text.endswith(")\n")


def test_sgf_escapes_names() -> None:
    match = played_match("othello", 15, ["x", "y"], names=["a]b\\c", "d:e"])
    text = to_sgf(match)
    assert "PB[a\\]b\\\\c]PW[d:e]" in text
    assert (read_sgf(text).black, read_sgf(text).white) == ("a]b\\c", "d:e")


def test_sgf_reader_takes_edax_style_and_the_other_passes() -> None:
    # Edax writes Othello squares in SGF moves and setup, e.g. AB[e4][d5].
    edax = (
        "(;FF[4]GM[2]AP[edax:4.5.5]\nPC[Edax]DT[2026-10-07]\nPB[?]PW[?]\n"
        "SZ[8]AB[e4][d5]AW[d4][e5]PL[B]\nRE[Void]\n;B[f5];W[d6];\nB[c3];W[d3];\nB[c4])"
    )
    game = read_sgf(edax)
    assert game.moves == ["f5", "d6", "c3", "d3", "c4"]
    assert (game.black_setup, game.white_setup) == (["e4", "d5"], ["d4", "e5"])
    replay_squares(game.moves)  # legal
    passes = read_sgf("(;GM[2];B[fe];W[tt];B[PA];W[])")
    assert passes.moves == ["f5", "pass", "pass", "pass"]


@pytest.mark.parametrize(
    "text",
    [
        "",
        ";GM[2]",
        "(;GM[1]SZ[8];B[dc])",
        "(;GM[2]SZ[10];B[dc])",
        "(;FF[3]GM[2];B[dc])",
        "(;GM[2];B[dc](;W[cc])(;W[ec]))",  # variations
        "(;GM[2];B[dc];W[cc]",  # not closed
        "(;GM[2];B[dc];B[cc])",  # out of turn
        "(;GM[2];W[dc])",  # black is to move
        "(;GM[2];B[zz])",
        "(;GM[2];B[dc]W[cc])",
        "(;GM[2];C[no move])",
        "(;GM[2]PB[a]PB[b])",
        "(;GM[2]AB[dd]AW[dd])",
        "(;GM[2];B[dc)",
        "(;GM[2])(;GM[2])",
        "(;GM[2]PL[X])",
        "(;GM[2]B[dc])",  # a move in the root node
    ],
)
def test_malformed_sgf_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="SGF"):
        read_sgf(text)


# --- other games, and the files -------------------------------------------------


@pytest.mark.parametrize("name", ["rolit-2", "rolit-4", "volleyball", "volta"])
def test_ggf_and_sgf_are_othello_formats(name: str) -> None:
    match = match_of(name)
    for export in (to_ggf, to_sgf):
        with pytest.raises(NotOthello, match="Othello formats") as raised:
            export(match)
        assert "EXPORT_FORMAT_MATCH_JSON" in str(raised.value)
        assert isinstance(raised.value, ValueError)
    with pytest.raises(NotOthello):
        export_file(match, archive_pb.EXPORT_FORMAT_GGF)


def test_export_file_names_each_format() -> None:
    match = match_of("othello")
    files: dict[int, Any] = {
        archive_pb.EXPORT_FORMAT_MATCH_JSON: ("application/json", ".json"),
        archive_pb.EXPORT_FORMAT_GAME_RECORD_JSON: ("application/json", ".record.json"),
        archive_pb.EXPORT_FORMAT_GGF: ("text/plain; charset=utf-8", ".ggf"),
        archive_pb.EXPORT_FORMAT_SGF: ("application/x-go-sgf", ".sgf"),
    }
    for export_format, (media_type, suffix) in files.items():
        exported = export_file(match, export_format)
        assert exported.media_type == media_type
        assert exported.file_name == match.match_id + suffix
        assert exported.content.endswith("\n")
    assert export_file(match, archive_pb.EXPORT_FORMAT_MATCH_JSON).content == match_json(match)
    assert read_ggf(export_file(match, archive_pb.EXPORT_FORMAT_GGF).content).moves
    with pytest.raises(ValueError, match="ExportFormat"):
        export_file(match, archive_pb.EXPORT_FORMAT_UNSPECIFIED)
    rolit = export_file(match_of("rolit-3"), archive_pb.EXPORT_FORMAT_MATCH_JSON)
    assert read_match_document(rolit.content)[0]["game"] == "rolit"
