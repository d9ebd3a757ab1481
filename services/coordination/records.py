"""Match records and bot jobs as bytes, for stores outside the process: JSON
with the protobuf bytes in base64, so a record can be read with redis-cli."""

from __future__ import annotations

import base64
import dataclasses
import json
from typing import Any

from services.coordination.base import BotJob, MatchData


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def _bytes(text: str) -> bytes:
    return base64.b64decode(text)


def dump_match(data: MatchData) -> bytes:
    fields = dict(vars(data))  # shallow: the fields are plain values, lists of them and bytes
    fields["config"] = _b64(data.config)
    fields["history"] = [_b64(raw) for raw in data.history]
    fields["submissions"] = {
        str(ply): [key, _b64(response)] for ply, (key, response) in data.submissions.items()
    }
    return json.dumps(fields, separators=(",", ":")).encode()


def load_match(raw: bytes) -> MatchData:
    fields: dict[str, Any] = json.loads(raw)
    fields["config"] = _bytes(fields["config"])
    fields["history"] = [_bytes(text) for text in fields["history"]]
    fields["submissions"] = {
        int(ply): (key, _bytes(response)) for ply, (key, response) in fields["submissions"].items()
    }
    return MatchData(**fields)


def dump_job(job: BotJob) -> dict[str, str]:
    """A job as the fields of a stream entry."""
    return {name: str(value) for name, value in dataclasses.asdict(job).items()}


def load_job(fields: dict[bytes, bytes]) -> BotJob:
    text = {key.decode(): value.decode() for key, value in fields.items()}
    return BotJob(
        match_id=text["match_id"],
        ply=int(text["ply"]),
        seat=int(text["seat"]),
        bot_spec=text["bot_spec"],
        queued_ms=int(text["queued_ms"]),
        deadline_ms=int(text["deadline_ms"]),
        version=int(text["version"]),
    )
