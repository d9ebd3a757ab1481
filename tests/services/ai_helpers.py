"""Spying on what the AI pool sends its workers."""

from __future__ import annotations

from multiprocessing.connection import Connection
from typing import Any

from services.ai_service.pool import AIPool


class Recording:
    """A worker's connection that keeps every message the pool sends it."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.sent: list[Any] = []

    def send(self, message: Any) -> None:
        self.sent.append(message)
        self.connection.send(message)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.connection, name)


def recorded(pool: AIPool) -> list[Recording]:
    """Each worker's connection, recording from now on."""
    recordings = []
    for worker in pool._pool:
        recording = Recording(worker.connection)
        worker.connection = recording  # type: ignore[assignment]
        recordings.append(recording)
    return recordings


def seeds_received(recording: Recording) -> list[int]:
    """The seed of each job the worker was sent (a job is
    ``(job_id, kind, payload, spec, seed, seconds)``)."""
    return [message[4] for message in recording.sent if message is not None]
