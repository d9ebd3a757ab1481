"""What runs in an AI worker process: replay the record, ask the bot.

Only bytes and plain values cross the process boundary. The parent stops a
decision nobody waits for any more by naming the job in a shared value and
sending SIGUSR1 (a late signal never stops the next job), and every
decision has a time limit enforced with SIGALRM: a search is interrupted
wherever it is, with no cooperation from the algorithm.

SIGUSR1 would kill a worker that has no handler for it yet (it is still
importing), so the worker says READY once its handlers are in place, and
the parent signals only a ready worker; a job whose stop was asked for
before (the shared value names it when the job starts) is not begun.
"""

from __future__ import annotations

import pickle
import signal
import time
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized
from types import FrameType

from meeple.v1 import game_pb2 as pb

from ai.bots import make_bot
from engine_core import IllegalAction, State
from services.convert import action_to_proto, replay
from services.errors import BadRequest, status_of


class Stopped(BaseException):
    """The parent cancelled the job (BaseException: no search swallows it)."""


class OutOfTime(BaseException):
    """The job's time limit passed."""


# How a position travels to a worker: a client's record (replayed there, off
# the server's process), or a state the server pickled itself (never a
# client's bytes), which saves replaying a long match every turn.
RECORD, PICKLED_STATE = "record", "state"


def position(kind: str, payload: bytes) -> State:
    if kind == PICKLED_STATE:
        state: State = pickle.loads(payload)
        return state
    return replay(pb.GameRecord.FromString(payload))


def suggest(kind: str, payload: bytes, spec: str, seed: int) -> tuple[bytes, float]:
    """The bot's action for the position, as ActionInfo bytes, and the
    seconds it thought."""
    state = position(kind, payload)
    if state.is_terminal():
        raise IllegalAction("the game is over: there is nothing to suggest")
    if state.is_chance_node():
        raise IllegalAction("the dice are to roll: no seat is to act")
    try:
        bot = make_bot(state.game, spec, seed=seed)
    except ValueError as error:
        raise BadRequest(f"bot_spec: {error}") from None
    start = time.perf_counter()
    action = bot.choose(state.clone())
    seconds = time.perf_counter() - start
    return action_to_proto(state, action).SerializeToString(), seconds


# What a worker reports besides a status code's name (services.errors).
OK, CANCELLED, OUT_OF_TIME, INTERNAL = "ok", "cancelled", "out_of_time", "internal"
# Its first message, ``(0, READY, "")``: its signal handlers are in place.
READY = "ready"


def run_job(kind: str, payload: bytes, spec: str, seed: int) -> tuple[str, object]:
    """(OK, the suggestion), or (the status code's name, the reason) for an
    error a client caused, or (INTERNAL, the error) for a bug."""
    try:
        return OK, suggest(kind, payload, spec, seed)
    except Exception as error:
        code = status_of(error)
        if code is None:
            return INTERNAL, f"{type(error).__name__}: {error}"
        return code.name, str(error)


def main(connection: Connection, cancel: Synchronized) -> None:  # type: ignore[type-arg]
    """The worker loop: jobs ``(job_id, kind, payload, spec, seed, seconds)`` in,
    ``(job_id, outcome, value)`` out, until the parent sends None or goes."""
    running = 0  # the job being computed, 0 between jobs

    def on_cancel(signum: int, frame: FrameType | None) -> None:
        if running and cancel.value == running:
            raise Stopped

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        if running:
            raise OutOfTime

    signal.signal(signal.SIGUSR1, on_cancel)
    signal.signal(signal.SIGALRM, on_alarm)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is for the parent, which stops us
    try:
        connection.send((0, READY, ""))
    except (BrokenPipeError, OSError):
        return
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        job_id, kind, payload, spec, seed, seconds = message
        try:
            try:
                running = job_id
                if cancel.value == job_id:  # stopped before we were ready to hear it
                    raise Stopped
                signal.setitimer(signal.ITIMER_REAL, seconds)
                outcome, value = run_job(kind, payload, spec, seed)
            finally:
                running = 0
                signal.setitimer(signal.ITIMER_REAL, 0)
        except Stopped:
            outcome, value = CANCELLED, ""
        except OutOfTime:
            outcome, value = OUT_OF_TIME, f"{seconds:g} s"
        try:
            connection.send((job_id, outcome, value))
        except (BrokenPipeError, OSError):
            return
