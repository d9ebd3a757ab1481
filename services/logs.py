"""How a meeple process logs: ``configure_logging(level, fmt)`` (the CLI
calls it with ``MEEPLE_LOG_LEVEL`` and ``MEEPLE_LOG_FORMAT``), every line on
stderr.

Structured fields: a log call passes them as one dict under the ``fields``
key of ``extra``, and nothing else is needed::

    log.info("match ended", extra={"fields": {"match_id": match_id, "reason": "timeout"}})

- ``text`` (the default): ``TIME LEVEL LOGGER: MESSAGE key=value ...``, the
  fields appended in their order; a value with spaces, quotes or ``=`` (or
  an empty one) is written as a JSON string, ``reason="ran out"``.
- ``json``: one JSON object per line, ``time`` (UTC, ISO 8601 with
  milliseconds), ``level``, ``logger`` and ``message``, then every key of
  ``fields`` (a key that would replace one of those four is written as
  ``field.<key>`` instead); an exception's traceback is ``exception``. Values
  JSON cannot hold are written as their ``str``.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, TextIO

LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
FORMATS = ("text", "json")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
BASE_KEYS = ("time", "level", "logger", "message")


def fields_of(record: logging.LogRecord) -> dict[str, Any]:
    """The ``fields`` a log call passed (``extra={"fields": {...}}``), or none."""
    fields = getattr(record, "fields", None)
    return dict(fields) if isinstance(fields, dict) else {}


def text_value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    if not text or any(char.isspace() or char in '"=' for char in text):
        return json.dumps(text)
    return text


class TextFormatter(logging.Formatter):
    """The classic line, with the record's fields appended as key=value."""

    def __init__(self) -> None:
        super().__init__(TEXT_FORMAT)

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        line = super().formatMessage(record)
        pairs = [f"{key}={text_value(value)}" for key, value in fields_of(record).items()]
        return " ".join([line, *pairs])


class JsonFormatter(logging.Formatter):
    """One JSON object per record (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        moment = datetime.fromtimestamp(record.created, UTC)
        entry: dict[str, Any] = {
            "time": moment.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for key, value in fields_of(record).items():
            entry[f"field.{key}" if key in BASE_KEYS else key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, default=str)


def parse_level(level: str) -> int:
    """A level's number from its name, any case; ValueError for another name."""
    name = level.strip().upper()
    if name not in LEVELS:
        raise ValueError(f"the log level is one of {', '.join(LEVELS)}, got {level!r}")
    return logging.getLevelNamesMapping()[name]


def configure_logging(level: str, fmt: str, stream: TextIO | None = None) -> None:
    """The root logger at ``level`` (DEBUG, INFO, WARNING, ERROR or CRITICAL,
    any case) writing ``fmt`` lines (``text`` or ``json``) to ``stream``
    (stderr); the handlers it had are replaced. ValueError names a level or
    format it does not know, and changes nothing."""
    number = parse_level(level)
    kind = fmt.strip().lower()
    if kind not in FORMATS:
        raise ValueError(f"the log format is text or json, got {fmt!r}")
    handler = logging.StreamHandler(sys.stderr if stream is None else stream)
    handler.setFormatter(JsonFormatter() if kind == "json" else TextFormatter())
    root = logging.getLogger()
    for old in root.handlers[:]:
        root.removeHandler(old)
        old.close()
    root.addHandler(handler)
    root.setLevel(number)
    # Alembic tells at INFO which dialect it runs on and each step it takes:
    # noise at every start of a server; its warnings still show.
    logging.getLogger("alembic").setLevel(max(number, logging.WARNING))
