"""The record limits the RulesService documents are the server's: the
comment on the service in rules_service.proto (which the generated code and
every client's docs carry) names each game's limit as ``services.convert``
enforces it."""

from __future__ import annotations

import re
from pathlib import Path

from services.convert import WIRES

PROTO = Path(__file__).resolve().parents[2] / "protos/meeple/v1/rules_service.proto"


def test_the_proto_names_each_games_record_limit_as_the_server_enforces_it() -> None:
    comment = " ".join(
        line.removeprefix("//").strip()
        for line in PROTO.read_text().splitlines()
        if line.startswith("//")
    )
    listed = re.search(r"at most a per-game number of actions \(([^)]*)\)", comment)
    assert listed, "the RulesService comment no longer lists the record limits"
    documented = {}
    for item in listed.group(1).split(", "):
        game, number = item.rsplit(" ", 1)
        documented[game.lower()] = int(number.replace(",", ""))
    assert documented == {name: wire.max_record for name, wire in WIRES.items()}
