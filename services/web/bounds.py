"""What one client may hold of the web port. hypercorn bounds a request's
headers (they must arrive within its keep-alive timeout, which runs while no
request is in progress) but not its body, nor the connections of one
address. Here, a service call's body is read ahead within a deadline (a
slow body is answered 408 and its connection closed, rather than holding it
for as long as the client trickles), and each address holds so many
connections at once (beyond, a connection is answered 429 and closed)."""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]

DISCONNECT: Message = {"type": "http.disconnect"}

# Sent to a connection over its address's cap, before it is closed.
_REFUSAL = b"too many connections from this address\n"
TOO_MANY_CONNECTIONS = (
    b"HTTP/1.1 429 Too Many Requests\r\n"
    b"content-type: text/plain; charset=utf-8\r\n"
    b"content-length: %d\r\n"
    b"retry-after: 1\r\n"
    b"connection: close\r\n"
    b"\r\n" % len(_REFUSAL)
) + _REFUSAL


class ReadAhead:
    """A request's body, read before the application sees it. ``receive``
    gives the messages read, then the server's own (the disconnect the
    application may wait for). A body larger than the read-ahead's limit
    (which the application refuses) is read on within the same deadline,
    and past it the application is told the client went away."""

    def __init__(self, receive: Receive, messages: deque[Message], deadline: float) -> None:
        self._receive = receive
        self._messages = messages
        self._deadline = deadline
        self._complete = False  # the body's last message was read
        self._disconnected = False
        for message in messages:
            self._note(message)

    async def receive(self) -> Message:
        if self._messages:
            return self._messages.popleft()
        if self._disconnected:
            return DISCONNECT  # hypercorn says it once; an application may ask again
        if self._complete:
            message = await self._receive()
        else:
            try:
                async with asyncio.timeout_at(self._deadline):
                    message = await self._receive()
            except TimeoutError:
                message = DISCONNECT
        self._note(message)
        return message

    def _note(self, message: Message) -> None:
        if message["type"] != "http.request":
            self._disconnected = True
        elif not message.get("more_body", False):
            self._complete = True


async def read_ahead(receive: Receive, seconds: float, limit: int) -> ReadAhead | None:
    """The request's body within ``seconds`` (None: it did not all arrive
    in time), up to about ``limit`` bytes: a larger body stops the reading
    there, for the application to refuse."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    messages: deque[Message] = deque()
    size = 0
    complete = False
    try:
        async with asyncio.timeout_at(deadline):
            while not complete and size <= limit:
                message = await receive()
                messages.append(message)
                if message["type"] != "http.request":
                    break  # the client went away: the application hears it
                size += len(message.get("body", b""))
                complete = not message.get("more_body", False)
    except TimeoutError:
        return None
    return ReadAhead(receive, messages, deadline)


class ConnectionCap:
    """Connections held per client address, up to ``limit`` (None: no cap)."""

    def __init__(self, limit: int | None) -> None:
        if limit is not None and limit < 1:
            raise ValueError(f"a cap on connections per address is at least 1, got {limit}")
        self.limit = limit
        self._held: dict[str, int] = {}

    def enter(self, address: str) -> bool:
        """Takes a place for a connection from ``address``; False if it holds
        its limit already (the connection is to be refused)."""
        held = self._held.get(address, 0)
        if self.limit is not None and held >= self.limit:
            return False
        self._held[address] = held + 1
        return True

    def leave(self, address: str) -> None:
        held = self._held.get(address, 0) - 1
        if held > 0:
            self._held[address] = held
        else:
            self._held.pop(address, None)

    def held(self, address: str) -> int:
        return self._held.get(address, 0)


def client_address(peer: Any) -> str:
    """The address of a socket's peer (``getpeername``), without its port;
    an IPv4 address mapped into IPv6 is the IPv4 one."""
    if isinstance(peer, tuple) and peer:
        host = str(peer[0])
        return host.removeprefix("::ffff:") if "." in host else host
    return str(peer)  # a Unix socket: one client
