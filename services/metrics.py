"""Prometheus metrics of every service (DESIGN.md, Metrics). RPC metrics
keep the well-known grpc_server_handled_total / grpc_server_handling_seconds
shape so existing dashboards work; the rest are meeple_<subsystem>_<name>."""

from __future__ import annotations

import importlib.metadata
from wsgiref.simple_server import WSGIServer

from prometheus_client import Counter, Gauge, Histogram, Info, start_http_server

BUILD = Info("meeple_build", "The meeple release this process runs.")
BUILD.info({"version": importlib.metadata.version("meeple")})

RPC_HANDLED = Counter(
    "grpc_server_handled_total",
    "RPCs completed on the server, by service, method and status code.",
    ["grpc_type", "grpc_service", "grpc_method", "grpc_code"],
)
RPC_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Time to handle an RPC on the server, by service and method.",
    ["grpc_type", "grpc_service", "grpc_method"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
MATCHES_ACTIVE = Gauge(
    "meeple_match_active",
    "Matches playing, by game: raised when a match starts, lowered when it ends"
    " (with several replicas, sum them: a match may start on one and end on another).",
    ["game"],
)
MATCHES_FINISHED = Counter(
    "meeple_match_finished_total",
    "Finished matches, by game and outcome (win, draw, resigned, timeout).",
    ["game", "outcome"],
)
AI_THINK_SECONDS = Histogram(
    "meeple_ai_think_seconds",
    "Time a bot thought for one decision, by game and algorithm or level.",
    ["game", "bot"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
AI_QUEUE_DEPTH = Gauge(
    "meeple_ai_queue_depth",
    "AI decisions waiting for a worker: bot turns (queued jobs and those in the"
    " pool's queue) and hints.",
    ["kind"],
)
AI_JOB_AGE_SECONDS = Histogram(
    "meeple_ai_job_age_seconds",
    "Time an AI decision waited before a worker took it, by kind (bot_seat, hint);"
    " for bot turns, from the move that made the bot's turn.",
    ["kind"],
    buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
AI_LATE_JOBS = Counter(
    "meeple_ai_late_jobs_total",
    "Bot turns a worker took only after their deadline (queued time plus the"
    " longest a decision may take): the workers are behind.",
)
AI_DEAD_LETTERS = Counter(
    "meeple_ai_dead_letters_total",
    "Bot turns given up after their attempts and played by the fallback move, by game.",
    ["game"],
)
AI_REJECTED = Counter(
    "meeple_ai_rejected_total",
    "AIService calls refused by admission control, by reason (client_cap, queue_full).",
    ["reason"],
)
MM_TICKETS_WAITING = Gauge(
    "meeple_matchmaking_tickets_waiting",
    "Tickets waiting for a table, by game (all its queues, whatever their options),"
    " as this replica's last pass over each queue whose lease it holds saw them.",
    ["game"],
)
MM_ASSIGNMENT_SECONDS = Histogram(
    "meeple_matchmaking_assignment_seconds",
    "Time from a ticket's creation to its assignment, by game.",
    ["game"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300),
)
MM_MATCHES = Counter(
    "meeple_matchmaking_matches_total", "Matches the matchmaker created, by game.", ["game"]
)
MM_BOT_FILLS = Counter(
    "meeple_matchmaking_bot_fills_total",
    "Matchmade tables whose empty seats bots filled, by game.",
    ["game"],
)
MM_EXPIRED = Counter(
    "meeple_matchmaking_expired_tickets_total",
    "Tickets that expired, by game and reason (max_wait, heartbeat).",
    ["game", "reason"],
)
MATCH_REPLAYS = Counter(
    "meeple_match_replays_total",
    "Match states rebuilt by replaying their record (a miss of the state cache).",
)
ARCHIVE_WRITTEN = Counter(
    "meeple_archive_written_total",
    "Outbox entries this process archived, by kind (match, rating: a player's change).",
    ["kind"],
)
ARCHIVE_WRITE_ERRORS = Counter(
    "meeple_archive_write_errors_total",
    "Archive writes that failed (their entries come back and are written again).",
)
ARCHIVE_WRITE_LAG_SECONDS = Histogram(
    "meeple_archive_write_lag_seconds",
    "From a match's end (or its ratings' update) to its archive write.",
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900),
)
ARCHIVE_OUTBOX_ENTRIES = Gauge(
    "meeple_archive_outbox_entries",
    "Finished matches and rating updates in the outbox, not archived yet.",
)
ARCHIVE_SIZE_BYTES = Gauge(
    "meeple_archive_size_bytes",
    "The archive database's size (SQLite: its file; PostgreSQL: its tables).",
)
ARCHIVE_MATCHES = Gauge(
    "meeple_archive_matches",
    "Matches in the archive.",
)


def bot_label(spec: str) -> str:
    """The algorithm or level of a spec: bounded, unlike the spec itself."""
    return spec.split(":", 1)[0].strip().lower() or "default"


def outcome_label(returns: list[float], reason: str) -> str:
    """``reason`` for a resignation or timeout, else win or draw."""
    if reason in ("resigned", "timeout"):
        return reason
    return "draw" if len(set(returns)) == 1 else "win"


def serve_metrics(host: str, port: int) -> WSGIServer:
    """Serves /metrics over HTTP in a background thread (``server_port`` is
    the port; ``shutdown()`` stops it)."""
    server, _thread = start_http_server(port, addr=host)
    return server
