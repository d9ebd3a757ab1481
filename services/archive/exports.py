"""A finished match as files (ArchiveService.ExportMatch and
ExportPlayerMatches): meeple's match document "meeple.match/1" (one indented
file, or one NDJSON line), the GameRecord alone in the protobuf JSON
mapping, and for Othello GGF and SGF (``othello_formats``). Pure functions
of an ``ArchivedMatch``; docs/archive.md ("Export formats") is their
user-facing description.

Versioning of the match document: version 1 may gain new fields (readers
ignore the ones they do not know); a field whose meaning changes, or one
that goes away, makes it version 2 ("meeple.match/2"), which a version 1
reader refuses.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format
from google.protobuf.timestamp_pb2 import Timestamp
from meeple.v1 import archive_service_pb2 as archive_pb
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms

from services.archive.othello_formats import (
    GgfGame,
    NotOthello,
    SgfGame,
    read_ggf,
    read_sgf,
    to_ggf,
    to_sgf,
)
from services.archive.records import ArchivedMatch
from services.convert import action_from_proto, check_rules_version, game_from_config
from services.coordination.records import load_match

__all__ = [
    "FORMAT",
    "ExportedFile",
    "GgfGame",
    "NotOthello",
    "SgfGame",
    "export_file",
    "game_record",
    "game_record_json",
    "match_document",
    "match_json",
    "moves",
    "ndjson_line",
    "read_ggf",
    "read_match_document",
    "read_sgf",
    "to_ggf",
    "to_sgf",
]

FORMAT = "meeple.match/1"
_FAMILY, _VERSION = FORMAT.split("/")


def game_record(match: ArchivedMatch) -> pb.GameRecord:
    """The match's GameRecord: its config, every action, its rules version."""
    data = load_match(match.record)
    return pb.GameRecord(
        config=pb.GameConfig.FromString(data.config),
        history=[pb.Action.FromString(raw) for raw in data.history],
        rules_version=data.rules_version,
    )


def moves(record: pb.GameRecord) -> list[str]:
    """The engine's notation of every ply of ``record`` ("d3", "pass",
    "step 3,2->2,2", "dice 4,5", a Volta flick's four numbers)."""
    game = game_from_config(record.config)
    check_rules_version(game, record.rules_version)
    state = game.new_initial_state()
    notation = []
    for message in record.history:
        action = action_from_proto(state, message)
        notation.append(state.action_to_string(action))
        state.apply_action(action)
    return notation


def _time(ms_: int) -> str | None:
    """RFC 3339 in UTC, as the protobuf JSON mapping writes a Timestamp
    ("2026-12-02T10:00:00Z", "...:00.250Z"); None for 0 (not yet)."""
    if ms_ == 0:
        return None
    stamp = Timestamp()
    stamp.FromMilliseconds(ms_)
    return stamp.ToJsonString()


def match_document(match: ArchivedMatch) -> dict[str, Any]:
    """The meeple.match/1 document of the match, its keys in a fixed order."""
    record = game_record(match)
    seats = [
        {
            "seat": index,
            "kind": ms.SeatKind.Name(seat.kind),
            "bot_spec": seat.bot_spec,
            "player_id": seat.player_id,
            "display_name": seat.display_name,
            "result": seat.result,
            "outcome": seat.outcome.value,
        }
        for index, seat in enumerate(match.seats)
    ]
    return {
        "format": FORMAT,
        "match_id": match.match_id,
        "game": match.game,
        "rated": match.rated,
        "reason": ms.EndReason.Name(match.reason),
        "end_seat": None if match.end_seat < 0 else match.end_seat,
        "created_time": _time(match.created_ms),
        "start_time": _time(match.started_ms),
        "end_time": _time(match.ended_ms),
        "plies": match.plies,
        "seats": seats,
        "returns": [seat.result for seat in match.seats],
        "record": json_format.MessageToDict(record, preserving_proto_field_name=False),
        "moves": moves(record),
    }


def match_json(match: ArchivedMatch) -> str:
    """The match document as one indented JSON file (ending with a newline)."""
    return json.dumps(match_document(match), indent=2, ensure_ascii=False) + "\n"


# Characters that Python's str.splitlines (and some NDJSON readers) take for
# line ends though JSON leaves them raw in strings: escaped in a line.
_LINE_ENDS = {"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def ndjson_line(match: ArchivedMatch) -> str:
    """The match document as one compact JSON line, without its newline:
    no character in it ends a line."""
    line = json.dumps(match_document(match), separators=(",", ":"), ensure_ascii=False)
    for char, escaped in _LINE_ENDS.items():
        line = line.replace(char, escaped)
    return line


def game_record_json(match: ArchivedMatch) -> str:
    """The GameRecord alone, in the protobuf JSON mapping (indented, ending
    with a newline): what RulesService replays."""
    record = json_format.MessageToDict(game_record(match), preserving_proto_field_name=False)
    return json.dumps(record, indent=2) + "\n"


def read_match_document(text: str) -> tuple[dict[str, Any], pb.GameRecord]:
    """A match document (a file or one NDJSON line) and its GameRecord.
    Not JSON, not a match document, or another version than 1 is ValueError;
    fields this version does not know are kept in the dict (and ignored in
    the record), as version 1 may gain fields."""
    document = json.loads(text)
    if not isinstance(document, dict) or not isinstance(document.get("format"), str):
        raise ValueError('not a meeple match document: no "format" field')
    family, _, version = document["format"].partition("/")
    if family != _FAMILY:
        raise ValueError(f"not a meeple match document: format {document['format']!r}")
    if version != _VERSION:
        raise ValueError(
            f"{document['format']!r} is a version of the match document this reader "
            f"does not know: it reads {FORMAT!r}"
        )
    if not isinstance(document.get("record"), dict):
        raise ValueError('the match document has no "record" object')
    try:
        record = json_format.ParseDict(
            document["record"], pb.GameRecord(), ignore_unknown_fields=True
        )
    except json_format.ParseError as error:
        raise ValueError(f"record: {error}") from None
    return document, record


@dataclass(frozen=True)
class ExportedFile:
    """A match as a file: ExportMatchResponse's fields."""

    content: str
    media_type: str
    file_name: str


FORMATS = (
    archive_pb.EXPORT_FORMAT_MATCH_JSON,
    archive_pb.EXPORT_FORMAT_GAME_RECORD_JSON,
    archive_pb.EXPORT_FORMAT_GGF,
    archive_pb.EXPORT_FORMAT_SGF,
)


def export_file(match: ArchivedMatch, export_format: int) -> ExportedFile:
    """The match in a meeple.v1.ExportFormat. EXPORT_FORMAT_UNSPECIFIED (or
    an unknown value) is ValueError; GGF and SGF of a game other than
    Othello are NotOthello (a ValueError too: FAILED_PRECONDITION)."""
    name = match.match_id
    if export_format == archive_pb.EXPORT_FORMAT_MATCH_JSON:
        return ExportedFile(match_json(match), "application/json", f"{name}.json")
    if export_format == archive_pb.EXPORT_FORMAT_GAME_RECORD_JSON:
        return ExportedFile(game_record_json(match), "application/json", f"{name}.record.json")
    if export_format == archive_pb.EXPORT_FORMAT_GGF:
        return ExportedFile(to_ggf(match) + "\n", "text/plain; charset=utf-8", f"{name}.ggf")
    if export_format == archive_pb.EXPORT_FORMAT_SGF:
        return ExportedFile(to_sgf(match), "application/x-go-sgf", f"{name}.sgf")
    raise ValueError("format: choose an ExportFormat (EXPORT_FORMAT_MATCH_JSON, ...)")
