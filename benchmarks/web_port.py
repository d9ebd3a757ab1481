"""What the web port costs: SubmitAction over the Connect protocol (binary
and JSON, HTTP/1.1 as browsers speak it) against the same call over gRPC,
on one `meeple up` (rate limit off), with 1 and 16 calls in flight.

Each caller plays real legal Rolit moves (4 seats, our own random player per
match, matches made and joined before the clock starts), as
benchmarks/stack_ceiling.py does. An HTTP caller holds one keep-alive
connection (HTTP/1.1 has one call at a time per connection), written with
asyncio streams so that the client costs about what grpc.aio's does. It
prints each rate and its ratio to gRPC's.

    python benchmarks/web_port.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path

import grpc
from google.protobuf.json_format import MessageToJson
from meeple.v1 import match_service_pb2 as ms
from meeple.v1 import match_service_pb2_grpc as ms_grpc

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.stack_ceiling import SETTINGS, TOKEN, Submit, make_matches, play, submit_rate
from tests.e2e.processes import Meeple

PATH = "/meeple.v1.MatchService/SubmitAction"


class Http1:
    """One keep-alive HTTP/1.1 connection that POSTs and reads the answer
    (sized or chunked). The server closes a connection after 1,000 requests
    (hypercorn's keep_alive_max_requests), unread: it opens another and
    sends again, as browsers do."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: bytes, headers: str) -> tuple[int, bytes]:
        request = (
            f"POST {path} HTTP/1.1\r\nhost: bench\r\n{headers}"
            f"content-length: {len(body)}\r\n\r\n".encode()
            + body
        )
        for _ in range(2):
            if self.reader is None or self.writer is None:
                self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
            self.writer.write(request)
            status_line = await self.reader.readline()
            if status_line:
                return await self.answer(int(status_line.split()[1]))
            self.close()
        raise ConnectionError(f"{self.host}:{self.port} closed the connection twice")

    async def answer(self, status: int) -> tuple[int, bytes]:
        assert self.reader is not None
        length, chunked = 0, False
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                chunked = "chunked" in value.lower()
        if not chunked:
            return status, await self.reader.readexactly(length)
        answer = b""
        while size := int((await self.reader.readline()).split(b";")[0], 16):
            answer += await self.reader.readexactly(size)
            await self.reader.readexactly(2)
        await self.reader.readexactly(2)  # the last chunk's blank line
        return status, answer

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None


async def rate(address: str, web: str, way: str, in_flight: int, seconds: float) -> float:
    if way == "gRPC":
        return await submit_rate(address, in_flight, seconds)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = ms_grpc.MatchServiceStub(channel)
        matches = await make_matches(stub, in_flight * 4 + int(seconds * 40), seed=in_flight)
        host, port = web.rsplit(":", 1)
        connections = [Http1(host, int(port)) for _ in range(in_flight)]
        submitters = [connect_submitter(connection, way) for connection in connections]
        try:
            return await play(submitters, matches, seconds)
        finally:
            for connection in connections:
                connection.close()


def connect_submitter(connection: Http1, way: str) -> Submit:
    binary = way == "Connect binary"
    content_type = "application/proto" if binary else "application/json"

    async def submit(request: ms.SubmitActionRequest, token: str) -> None:
        body = request.SerializeToString() if binary else MessageToJson(request).encode()
        headers = f"content-type: {content_type}\r\n{TOKEN}: {token}\r\n"
        status, answer = await connection.post(PATH, body, headers)
        if status != 200:
            raise RuntimeError(f"SubmitAction over {way}: HTTP {status}: {answer[:200]!r}")
        if binary:
            ms.SubmitActionResponse.FromString(answer)
        else:
            json.loads(answer)

    return submit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    up = Meeple("up", "--port", "0", "--metrics-port", "0", "--web-port", "0", env=SETTINGS)
    web = up.wait_for(r"web page: http://(\S+?)/", 30).group(1)
    try:
        print(f"{'in flight':>9} {'way':>15} {'calls/s':>8} {'ratio to gRPC':>14}")
        for in_flight in (1, 16):
            grpc_rate = 0.0
            for way in ("gRPC", "Connect binary", "Connect JSON"):
                calls = asyncio.run(rate(up.address, web, way, in_flight, args.seconds))
                grpc_rate = grpc_rate or calls
                print(f"{in_flight:9d} {way:>15} {calls:8.0f} {calls / grpc_rate:14.2f}")
    finally:
        up.stop()


if __name__ == "__main__":
    main()
