"""``meeple loadtest``: bot-vs-bot load through the public gRPC API, and
its report (see docs/loadtest.md)."""

from services.loadtest.identities import JwtKey, Minter, SetupError
from services.loadtest.runner import LoadConfig, run

__all__ = ["JwtKey", "LoadConfig", "Minter", "SetupError", "run"]
