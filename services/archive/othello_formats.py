"""The Othello file formats of a finished match: GGF (the Generic Game
Format of GGS, the Othello servers' format) and SGF (Smart Game Format,
FF[4], GM[2]), each with a reader strict enough to refuse what it does not
understand. docs/archive.md describes both mappings.

Colours come from the engine, not from an assumption: Black is the seat
whose ``colour_of`` is the engine's "black" colour (seat 0 in this engine,
which also moves first), and each move's colour is the colour of the seat
that made it. Passes are explicit plies of the record (action 64), so both
formats write them.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import cast

from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from engine_core.rolit import PASS, SQUARE_NAMES
from engine_core.rolit.board import FlipState
from services.archive.records import ArchivedMatch
from services.convert import action_from_proto, check_rules_version, game_from_config
from services.coordination.records import load_match

BOT = ms.SEAT_KIND_BOT
RESIGNATION, TIMEOUT = ms.END_REASON_RESIGNATION, ms.END_REASON_TIMEOUT


class NotOthello(ValueError):
    """GGF or SGF asked of a match of another game."""

    def __init__(self, game: str) -> None:
        super().__init__(
            f"GGF and SGF are Othello formats; this is a {game} match: export it as "
            "EXPORT_FORMAT_MATCH_JSON (or EXPORT_FORMAT_GAME_RECORD_JSON)"
        )


@dataclass(frozen=True)
class _Played:
    """An Othello match replayed: its start, every ply by colour, its end."""

    match: ArchivedMatch
    start: FlipState
    plies: list[tuple[bool, int]]  # (black moved, action: a square 0..63 or PASS)
    end: FlipState
    black_seat: int
    base_ms: int
    increment_ms: int

    def name(self, black: bool) -> str:
        """A seat's player: its display name, else its player id, bots as
        "bot:<spec>" ("?" for a seat with none, as Edax writes it)."""
        seat = self.match.seats[self.black_seat if black else 1 - self.black_seat]
        if seat.kind == BOT:
            return f"bot:{seat.bot_spec}"
        return seat.display_name or seat.player_id or "?"

    def disc_difference(self) -> int:
        """Black's discs less White's at the end."""
        scores = self.end.scores()
        return scores[self.black_seat] - scores[1 - self.black_seat]

    def lost_by(self) -> tuple[bool, str] | None:
        """For a resignation or a timeout: whether Black is the seat that
        resigned or ran out of time, and which of the two it was."""
        if self.match.reason not in (RESIGNATION, TIMEOUT) or self.match.end_seat < 0:
            return None
        kind = "resigned" if self.match.reason == RESIGNATION else "time"
        return self.match.end_seat == self.black_seat, kind

    def started(self) -> datetime.datetime | None:
        ms_ = self.match.started_ms or self.match.created_ms
        return datetime.datetime.fromtimestamp(ms_ / 1000, datetime.UTC) if ms_ else None


def _played(match: ArchivedMatch) -> _Played:
    if match.game != "othello":
        raise NotOthello(match.game)
    data = load_match(match.record)
    game = game_from_config(pb.GameConfig.FromString(data.config))
    if game.name != "othello":
        raise NotOthello(game.name)
    check_rules_version(game, data.rules_version)
    start = cast(FlipState, game.new_initial_state())
    state = start.clone()
    black = _colour_index(start, "black")
    plies = []
    for raw in data.history:
        action = action_from_proto(state, pb.Action.FromString(raw))
        plies.append((state.colour_of(state.current_player()) == black, action))
        state.apply_action(action)
    seats = [seat for seat in range(2) if start.colour_of(seat) == black]
    return _Played(match, start, plies, state, seats[0], data.base_ms, data.increment_ms)


def _colour_index(state: FlipState, name: str) -> int:
    return type(state.game).colour_names.index(name)


def _square(action: int) -> str:
    return str(SQUARE_NAMES[action])


# --- GGF ------------------------------------------------------------------------
#
# The format: https://skatgame.net/mburo/ggsa/ggf ("Generic Game Format
# (GGF)"), as GGS's Othello service (/os) writes its records, e.g.
# (;GM[Othello]PC[GGS/os]DT[2003.12.15_13:24:03.MST]PB[Saio1200]PW[Saio3000]
#  RB[2197.01]RW[2199.72]TI[05:00//02:00]TY[8]RE[+0.000]BO[8 -------- ...
#  -------- *]B[d3//0.01]W[c5//0.01]...;)
# - BO: the board size, the 64 squares row by row (a1..h1, a2..h2, ...; rows
#   separated by spaces as GGS writes them) with '-' empty, '*' black, 'O'
#   white, then the colour to move.
# - RE: "Game result for first color" (Black, Othello's first colour) with an
#   optional flag "r (resigned) | t (time out) | s (mutual score)", the spec's
#   example being RE[+64.00:r]; GGS /os writes three decimals (RE[+0.000]).
#   A game that ended by the rules is Black's disc difference (discs on the
#   board, empty squares counted for nobody); a resignation or a timeout is
#   the whole board to the winner: +64.000:r / -64.000:t, as the example.
# - Moves: lowercase squares as GGS writes them ("d3"); a pass is "PA", as
#   NBoard and Edax write it (GGS's own records also hold "pass": the reader
#   takes PA, pa and pass, and "/eval/time" after a move).
# - DT: the spec's year.month.day_hour:minute:second.zone, in UTC.
# - TI: main time / increment / extension, written only for a match with
#   clocks (bots have none).
# - GGF has no escapes: a value ends at the first ']', so ']' and '[' in a
#   player's name become ')' and '(' (and control characters spaces).

GGF_PASS = "PA"
_FULL_BOARD = 64


def _ggf_text(text: str) -> str:
    text = re.sub(r"[\x00-\x1f\x7f]", " ", text)
    return text.replace("]", ")").replace("[", "(")


def _clock(ms_: int) -> str:
    seconds = ms_ // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes:02d}:{seconds:02d}"


def ggf_result(margin: int, lost_by: tuple[bool, str] | None) -> str:
    """RE's value: Black's disc difference ("+12.000"), or for a resignation
    or a timeout the whole board to the winner with the flag ("-64.000:r":
    Black resigned; "+64.000:t": White ran out of time)."""
    if lost_by is not None:
        black_lost, kind = lost_by
        flag = "r" if kind == "resigned" else "t"
        return f"{-_FULL_BOARD if black_lost else _FULL_BOARD:+.3f}:{flag}"
    return f"{margin:+.3f}"


def ggf_board(state: FlipState) -> str:
    """BO's value for ``state``: "8", the rows a1..h1, a2..h2, ... and the
    colour to move."""
    black, white = _colour_index(state, "black"), _colour_index(state, "white")
    cells = {black: "*", white: "O", -1: "-"}
    board = "".join(cells[colour] for colour in state.board())
    rows = " ".join(board[row * 8 : row * 8 + 8] for row in range(8))
    mover = "*" if state.colour_of(state.current_player()) == black else "O"
    return f"8 {rows} {mover}"


def to_ggf(match: ArchivedMatch) -> str:
    """The match as one GGF game, on one line (NotOthello for other games)."""
    played = _played(match)
    parts = ["(;GM[Othello]PC[meeple]"]
    started = played.started()
    if started is not None:
        parts.append(f"DT[{started:%Y.%m.%d_%H:%M:%S}.UTC]")
    parts.append(f"PB[{_ggf_text(played.name(True))}]PW[{_ggf_text(played.name(False))}]")
    if played.base_ms > 0:
        parts.append(f"TI[{_clock(played.base_ms)}/{_clock(played.increment_ms)}/00:00]")
    result = ggf_result(played.disc_difference(), played.lost_by())
    parts.append(f"TY[8]RE[{result}]BO[{ggf_board(played.start)}]")
    for black, action in played.plies:
        move = GGF_PASS if action == PASS else _square(action)
        parts.append(f"{'B' if black else 'W'}[{move}]")
    parts.append(";)")
    return "".join(parts)


@dataclass(frozen=True)
class GgfGame:
    """A GGF Othello game as read: the players, RE and BO as written, and
    the moves as square names ("d3") or "pass"."""

    black: str
    white: str
    result: str
    board: str
    moves: list[str]
    date: str = ""
    place: str = ""

    @property
    def margin(self) -> float | None:
        """Black's result from RE (None for "?" or no RE)."""
        number = self.result.split(":")[0]
        return float(number) if _GGF_RESULT.fullmatch(self.result) else None

    @property
    def flag(self) -> str:
        """RE's flag: "r" (resigned), "t" (time out), "s" (mutual score) or ""."""
        _, _, flag = self.result.partition(":")
        return flag


_GGF_PROPERTY = re.compile(r"\s*([A-Z]+)\[([^\]]*)\]")
_GGF_RESULT = re.compile(r"[+-]?\d+(\.\d+)?(:[rts])?")
_GGF_HEADER = {"GM", "PC", "DT", "PB", "PW", "RB", "RW", "TI", "TB", "TW", "TY", "RE", "BO"}
_SQUARE = re.compile(r"[a-h][1-8]")


def _ggf_properties(text: str) -> Iterator[tuple[str, str]]:
    body = text.strip()
    if not body.startswith("(;") or not body.endswith(";)"):
        raise ValueError('GGF: a game is "(;" properties ";)"')
    body = body[2:-2]
    position = 0
    while position < len(body):
        found = _GGF_PROPERTY.match(body, position)
        if found is None:
            if body[position:].strip() == "":
                return
            raise ValueError(f"GGF: expected NAME[value] at {body[position : position + 20]!r}")
        yield found.group(1), found.group(2)
        position = found.end()


def _ggf_move(value: str) -> str:
    move = value.split("/")[0].strip().lower()
    if move in ("pa", "pass"):
        return "pass"
    if not _SQUARE.fullmatch(move):
        raise ValueError(f"GGF: {value!r} is not a move (a1..h8, or PA for a pass)")
    return move


def _ggf_mover(board: str) -> str:
    cells = "".join(board.split())
    if len(cells) != 66 or cells[0] != "8" or set(cells[1:65]) - set("-*O"):
        raise ValueError(f"GGF: BO[{board}] is not an 8x8 board: 8, 64 of '-*O', the mover")
    if cells[65] not in "*O":
        raise ValueError(f"GGF: BO[{board}] ends with the colour to move, '*' or 'O'")
    return "B" if cells[65] == "*" else "W"


def read_ggf(text: str) -> GgfGame:
    """Reads one GGF Othello game (standard 8x8: TY[8] or none); malformed
    text, another game, a komi game or moves out of turn are ValueError."""
    header: dict[str, str] = {}
    moves: list[str] = []
    colours: list[str] = []
    for name, value in _ggf_properties(text):
        if name in ("B", "W"):
            moves.append(_ggf_move(value))
            colours.append(name)
        elif name in ("KB", "KW", "KM"):
            raise ValueError("GGF: komi games are not standard Othello")
        elif name in _GGF_HEADER:
            if name in header:
                raise ValueError(f"GGF: {name} given twice")
            header[name] = value
    if header.get("GM", "").lower() != "othello":
        raise ValueError("GGF: not an Othello game (GM[Othello])")
    if header.get("TY", "8").strip() != "8":
        raise ValueError(f"GGF: TY[{header['TY']}] is not standard 8x8 Othello (TY[8])")
    if "BO" not in header:
        raise ValueError("GGF: no board (BO)")
    mover = _ggf_mover(header["BO"])
    for index, colour in enumerate(colours):
        if colour != mover:
            raise ValueError(f"GGF: move {index + 1} is {colour}'s out of turn")
        mover = "W" if mover == "B" else "B"
    result = header.get("RE", "")
    if result not in ("", "?") and not _GGF_RESULT.fullmatch(result):
        raise ValueError(f"GGF: RE[{result}] is not a result (+n.nnn, with :r, :t or :s)")
    return GgfGame(
        black=header.get("PB", ""),
        white=header.get("PW", ""),
        result=result,
        board=header["BO"],
        moves=moves,
        date=header.get("DT", ""),
        place=header.get("PC", ""),
    )


# --- SGF ------------------------------------------------------------------------
#
# The format: SGF FF[4] (https://www.red-bean.com/sgf/), GM[2] = Othello.
# FF[4] defines no Othello-specific point type, so the points are FF[4]'s
# common one (its Go page): two lowercase letters, the column then the row,
# "a" the left column and the top row. Othello's row 1 is the top row, so
# a1 = "aa", d3 = "dc", h8 = "hh". A pass is the FF[4] empty move B[] (its
# Go page: "A pass move is shown as '[]'"; "tt", kept there for FF[3], lies
# off an 8x8 board). Edax writes Othello squares ("f5") and "PA" instead:
# the reader takes those too, and "tt".
# - The start is setup: AB (black discs), AW (white) and PL (the colour to
#   move) in the root node, then one node per move.
# - RE (FF[4]): "B+12" / "W+3" (the disc difference), "0" for a draw,
#   "B+R" / "W+R" when the other resigned, "B+T" / "W+T" when the other ran
#   out of time. DT is the date (YYYY-MM-DD, UTC), CA the charset.
# - Text: ']' and '\' are escaped with '\' (FF[4] SimpleText).


def _sgf_point(square: int) -> str:
    return "abcdefgh"[square % 8] + "abcdefgh"[square // 8]


def _sgf_text(text: str) -> str:
    text = re.sub(r"[\x00-\x1f\x7f]", " ", text)
    return text.replace("\\", "\\\\").replace("]", "\\]")


def sgf_result(margin: int, lost_by: tuple[bool, str] | None) -> str:
    """RE's value: "B+12", "W+3", "0" (a draw), or "B+R" / "W+T" (the other
    resigned / ran out of time)."""
    if lost_by is not None:
        black_lost, kind = lost_by
        return f"{'W' if black_lost else 'B'}+{'R' if kind == 'resigned' else 'T'}"
    if margin == 0:
        return "0"
    return f"B+{margin}" if margin > 0 else f"W+{-margin}"


def to_sgf(match: ArchivedMatch) -> str:
    """The match as an SGF FF[4] GM[2] game (NotOthello for other games)."""
    played = _played(match)
    start = played.start
    black = _colour_index(start, "black")
    white = _colour_index(start, "white")
    board = start.board()
    root = ["(;FF[4]GM[2]SZ[8]CA[UTF-8]AP[meeple]PC[meeple]"]
    started = played.started()
    if started is not None:
        root.append(f"DT[{started:%Y-%m-%d}]")
    root.append(f"PB[{_sgf_text(played.name(True))}]PW[{_sgf_text(played.name(False))}]")
    root.append(f"RE[{sgf_result(played.disc_difference(), played.lost_by())}]")
    for prop, colour in (("AB", black), ("AW", white)):
        points = [_sgf_point(square) for square, cell in enumerate(board) if cell == colour]
        if points:
            root.append(prop + "".join(f"[{point}]" for point in points))
    root.append(f"PL[{'B' if start.colour_of(start.current_player()) == black else 'W'}]")
    nodes = [
        f";{'B' if is_black else 'W'}[{'' if action == PASS else _sgf_point(action)}]"
        for is_black, action in played.plies
    ]
    return "".join(root) + "\n" + "".join(nodes) + ")\n"


@dataclass(frozen=True)
class SgfGame:
    """An SGF Othello game as read: players, RE, the setup discs as square
    names, the colour to move ("B"/"W") and the moves (square names or "pass")."""

    black: str
    white: str
    result: str
    black_setup: list[str]
    white_setup: list[str]
    to_play: str
    moves: list[str]
    date: str = ""


_SGF_IDENT = re.compile(r"[A-Z]+")


def _sgf_nodes(text: str) -> list[dict[str, list[str]]]:
    """The nodes of a one-game SGF file without variations."""
    position = 0

    def skip() -> None:
        nonlocal position
        while position < len(text) and text[position].isspace():
            position += 1

    def value() -> str:
        nonlocal position
        position += 1  # '['
        chars = []
        while position < len(text) and text[position] != "]":
            if text[position] == "\\":
                position += 1
                if position < len(text) and text[position] == "\n":  # a soft line break
                    position += 1
                    continue
            if position < len(text):
                chars.append(text[position])
                position += 1
        if position >= len(text):
            raise ValueError("SGF: a value is not closed with ']'")
        position += 1
        return "".join(chars)

    skip()
    if not text.startswith("(", position):
        raise ValueError("SGF: a game tree starts with '('")
    position += 1
    nodes: list[dict[str, list[str]]] = []
    while True:
        skip()
        if position >= len(text):
            raise ValueError("SGF: the game tree is not closed with ')'")
        char = text[position]
        if char == ")":
            position += 1
            break
        if char == "(":
            raise ValueError("SGF: variations are not supported (one line of play)")
        if char != ";":
            raise ValueError(f"SGF: expected a node ';' at {text[position : position + 20]!r}")
        position += 1
        node: dict[str, list[str]] = {}
        while True:
            skip()
            ident = _SGF_IDENT.match(text, position)
            if ident is None:
                break
            name = ident.group()
            position = ident.end()
            skip()
            if not text.startswith("[", position):
                raise ValueError(f"SGF: property {name} has no value")
            if name in node:
                raise ValueError(f"SGF: property {name} given twice in a node")
            values = []
            while text.startswith("[", position):
                values.append(value())
                skip()
            node[name] = values
        nodes.append(node)
    skip()
    if position != len(text):
        raise ValueError("SGF: one game per file (text after the game tree)")
    if not nodes:
        raise ValueError("SGF: the game tree has no node")
    return nodes


_EDAX_SQUARE = re.compile(r"[a-hA-H][1-8]")
_SGF_POINT = re.compile(r"[a-h][a-h]")


def _sgf_square(point: str, move: bool) -> str:
    if _SGF_POINT.fullmatch(point):
        return "abcdefgh"[ord(point[0]) - 97] + str(ord(point[1]) - 96)
    if _EDAX_SQUARE.fullmatch(point):
        return point.lower()
    if move and point.lower() in ("", "tt", "pa", "pass"):
        return "pass"
    raise ValueError(f"SGF: [{point}] is not an 8x8 point (two letters a..h: column, row)")


def _single(node: dict[str, list[str]], name: str, default: str = "") -> str:
    values = node.get(name, [default])
    if len(values) != 1:
        raise ValueError(f"SGF: {name} takes one value")
    return values[0]


def read_sgf(text: str) -> SgfGame:
    """Reads one SGF FF[4] Othello game (GM[2], SZ[8], one line of play);
    malformed text, another game or moves out of turn are ValueError."""
    root, *rest = _sgf_nodes(text)
    if _single(root, "GM", "1").strip() != "2":
        raise ValueError("SGF: not an Othello game (GM[2])")
    if _single(root, "FF", "4").strip() != "4":
        raise ValueError("SGF: only FF[4] is read")
    if _single(root, "SZ", "8").strip() != "8":
        raise ValueError("SGF: only an 8x8 board (SZ[8]) is Othello")
    if "B" in root or "W" in root:
        raise ValueError("SGF: the root node holds the setup, not a move")
    to_play = _single(root, "PL", "B").strip().upper()[:1]
    if to_play not in ("B", "W"):
        raise ValueError("SGF: PL is B or W")
    black_setup = [_sgf_square(point, move=False) for point in root.get("AB", [])]
    white_setup = [_sgf_square(point, move=False) for point in root.get("AW", [])]
    if len(set(black_setup + white_setup)) != len(black_setup) + len(white_setup):
        raise ValueError("SGF: a point is set up twice")
    moves = []
    mover = to_play
    for index, node in enumerate(rest):
        colours = [colour for colour in ("B", "W") if colour in node]
        if len(colours) != 1:
            raise ValueError(f"SGF: node {index + 1} holds no single move (B or W)")
        if colours[0] != mover:
            raise ValueError(f"SGF: move {index + 1} is {colours[0]}'s out of turn")
        moves.append(_sgf_square(_single(node, mover), move=True))
        mover = "W" if mover == "B" else "B"
    return SgfGame(
        black=_single(root, "PB"),
        white=_single(root, "PW"),
        result=_single(root, "RE"),
        black_setup=black_setup,
        white_setup=white_setup,
        to_play=to_play,
        moves=moves,
        date=_single(root, "DT"),
    )
