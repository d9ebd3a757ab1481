"""How close SubmitAction gets to the ceiling of the gRPC stack it runs on.

Two servers, each in its own process, on the same stack (services.server:
grpcio's asyncio server with the same options, the ``rpc`` wrapper that maps
errors and counts and times every call): `meeple up` with its rate limit
off, and an echo service whose one method parses a SubmitActionRequest and
returns it. Clients in this process keep 1, then 16, calls in flight:
SubmitAction plays real legal Rolit moves (4 seats, our own random player
per match, matches made and joined before the clock starts); Echo sends a
SubmitActionRequest like theirs. It prints both rates and their ratio.

    python benchmarks/stack_ceiling.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import grpc
from meeple.v1 import game_pb2 as pb
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine_core
from tests.e2e.processes import Meeple

ECHO = "/meeple.bench.Echo/Echo"
TOKEN = "meeple-seat-token"
SETTINGS = {
    "MEEPLE_LOG_LEVEL": "WARNING",
    "MEEPLE_RATE_PER_SECOND": "off",
    "MEEPLE_MATCHES_PER_MINUTE": "1000000",
}


def serve_echo() -> None:
    """The echo server, on the stack every meeple server runs on
    (services.server: its options, the ``rpc`` wrapper with its status
    mapping and metrics, a SubmitActionRequest parsed and written back)."""
    from services.server import Context, Servicer, build_server, rpc, safe_deserializer

    class EchoServicer(Servicer):
        service_name = "meeple.bench.Echo"

        @rpc
        async def Echo(  # noqa: N802
            self, request: ms.SubmitActionRequest, context: Context
        ) -> ms.SubmitActionRequest:
            return request

    async def main() -> None:
        servicer = EchoServicer()
        handler = grpc.unary_unary_rpc_method_handler(
            servicer.Echo,
            request_deserializer=safe_deserializer(ms.SubmitActionRequest),
            response_serializer=ms.SubmitActionRequest.SerializeToString,
        )
        built = build_server([], "127.0.0.1:0")
        built.grpc_server.add_generic_rpc_handlers(
            (grpc.method_handlers_generic_handler("meeple.bench.Echo", {"Echo": handler}),)
        )
        await built.start()
        print(f"echo listening on 127.0.0.1:{built.port}, coordination in none", flush=True)
        await built.grpc_server.wait_for_termination()

    asyncio.run(main())


class Match:
    """A joined Rolit match that our random player plays, seat after seat."""

    def __init__(self, match_id: str, tokens: list[str], rng: random.Random) -> None:
        self.match_id = match_id
        self.tokens = tokens
        self.state = engine_core.load_game("rolit", players=4, first_seat=0).new_initial_state()
        self.rng = rng

    def next_request(self) -> tuple[ms.SubmitActionRequest, str] | None:
        if self.state.is_terminal():
            return None
        seat = self.state.current_player()
        square = self.rng.choice(self.state.legal_actions())
        request = ms.SubmitActionRequest(
            match_id=self.match_id,
            expected_ply=len(self.state.history()),
            actions=[pb.Action(board=pb.BoardMove(square=square))],
        )
        self.state.apply_action(square)
        return request, self.tokens[seat]


async def make_matches(stub: ms_grpc.MatchServiceStub, count: int, seed: int) -> list[Match]:
    rng = random.Random(seed)
    config = pb.GameConfig(kind=pb.GAME_KIND_ROLIT, rolit=pb.RolitOptions(first_seat=0))
    seats = [ms.SeatConfig(kind=ms.SEAT_KIND_HUMAN)] * 4
    matches = []
    for _ in range(count):
        created = await stub.CreateMatch(ms.CreateMatchRequest(config=config, seats=seats))
        match_id = created.match.match_id
        tokens = [
            (await stub.JoinMatch(ms.JoinMatchRequest(match_id=match_id, seat=s))).seat_token
            for s in range(4)
        ]
        matches.append(Match(match_id, tokens, rng))
    return matches


async def submit_rate(address: str, in_flight: int, seconds: float) -> float:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = ms_grpc.MatchServiceStub(channel)
        # Enough games for the run: a worker plays 60 moves a game.
        matches = await make_matches(stub, in_flight * 4 + int(seconds * 40), seed=in_flight)

        async def submit(request: ms.SubmitActionRequest, token: str) -> None:
            await stub.SubmitAction(request, metadata=((TOKEN, token),))

        return await play([submit] * in_flight, matches, seconds)


Submit = Callable[[ms.SubmitActionRequest, str], Awaitable[None]]


async def play(submitters: list[Submit], matches: list[Match], seconds: float) -> float:
    """SubmitAction calls per second, each submitter playing one match after
    another until ``seconds`` pass or the matches run out."""
    done = 0
    stop = time.perf_counter() + seconds

    async def worker(submit: Submit) -> None:
        nonlocal done
        while time.perf_counter() < stop and matches:
            match = matches.pop()
            while time.perf_counter() < stop and (step := match.next_request()):
                await submit(*step)
                done += 1

    began = time.perf_counter()
    await asyncio.gather(*(worker(submit) for submit in submitters))
    return done / (time.perf_counter() - began)


async def echo_rate(address: str, in_flight: int, seconds: float) -> float:
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_unary(ECHO)
        payload = ms.SubmitActionRequest(
            match_id="0123456789abcdef",
            expected_ply=30,
            actions=[pb.Action(board=pb.BoardMove(square=42))],
        ).SerializeToString()
        done = 0
        stop = time.perf_counter() + seconds

        async def worker() -> None:
            nonlocal done
            while time.perf_counter() < stop:
                await call(payload)
                done += 1

        began = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(in_flight)))
        return done / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--echo-server", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        serve_echo()
        return
    up = Meeple("up", "--port", "0", "--metrics-port", "0", "--web-port", "0", env=SETTINGS)
    echo = Meeple.command(sys.executable, __file__, "--echo-server")
    try:
        print(f"{'in flight':>9} {'SubmitAction/s':>15} {'Echo/s':>8} {'ratio':>6}")
        for in_flight in (1, 16):
            submits = asyncio.run(submit_rate(up.address, in_flight, args.seconds))
            echoes = asyncio.run(echo_rate(echo.address, in_flight, args.seconds))
            print(f"{in_flight:9d} {submits:15.0f} {echoes:8.0f} {submits / echoes:6.2f}")
    finally:
        up.stop()
        echo.kill()


if __name__ == "__main__":
    main()
