"""meeple's locustfile (docs/locust.md):

    locust -f "$(meeple loadtest locustfile)" --host HOST:PORT

Locust has patched the standard library with gevent before it loads this
file; gRPC follows here, before any channel is made. The users' options
(--meeple-games, --meeple-bot-spec, ...) and the drain at a distributed
run's end (draining.py) are registered here, once."""

from locust import events

from services.loadtest.locust import gevent_grpc

gevent_grpc.patch()

from services.loadtest.locust import draining, options  # noqa: E402
from services.loadtest.locust.users import (  # noqa: E402
    ClientBotsUser,
    MatchmakingUser,
    ServerBotsUser,
    SpectatorUser,
)

events.init_command_line_parser.add_listener(options.add_arguments)  # type: ignore[no-untyped-call]
events.init.add_listener(options.check)  # type: ignore[no-untyped-call]
events.init.add_listener(draining.register)  # type: ignore[no-untyped-call]

__all__ = ["ClientBotsUser", "MatchmakingUser", "ServerBotsUser", "SpectatorUser"]
