"""Plays a whole game of each kind against a meeple server's AI.

Start a server first (``make run``, or ``.venv/bin/meeple up``), then:

    .venv/bin/python examples/play_vs_ai.py [--address 127.0.0.1:50051] [--game all]

Seat 0 is "ours": it signs in as a guest (``--name``) and joins like any
third-party client, asks the server's AIService for a hint at each turn and
plays it; the other seats are the server's bots. A spectator stream prints
every event. Against a server with identities off (MEEPLE_AUTH=off) it
plays without signing in.
"""

from __future__ import annotations

import argparse
import threading

import grpc

from services.client import MeepleClient

GAMES = {"rolit": 4, "othello": 2, "volleyball": 2, "volta": 2}


def play(client: MeepleClient, game: str, bot: str, hint: str) -> list[float]:
    """Plays ``game`` with seat 0 following ``hint`` against ``bot`` seats;
    returns the final returns."""
    match = client.create_match(game, ["human"] + [bot] * (GAMES[game] - 1)).match
    seat = client.join(match.match_id, 0)
    printed: list[str] = []

    def spectate() -> None:
        for event in client.watch(match.match_id):
            if event.HasField("action"):
                who = f"seat {event.action.seat}" if event.action.HasField("seat") else "dice"
                printed.append(f"  {event.ply:4d} {who}: {event.action.action.notation}")
            elif event.HasField("ended"):
                printed.append(f"  end: returns {list(event.ended.returns)}")

    spectator = threading.Thread(target=spectate)
    spectator.start()
    while (turn := client.wait_for_turn(seat)) is not None:
        action = client.suggest(turn.record, hint, seed=turn.match.view.ply)
        client.submit(seat, turn.match.view.ply, [action.action])
    spectator.join()
    print(f"{game}: {len(printed) - 1} events, seat 0: {seat_player(client, match.match_id)}")
    print("\n".join([*printed[:5], "  ...", *printed[-3:]]))
    return list(client.get(match.match_id).match.view.returns)


def seat_player(client: MeepleClient, match_id: str) -> str:
    """Seat 0's player, as the match shows it."""
    seat = client.get(match_id).match.seats[0]
    return f"{seat.display_name} ({seat.player_id})" if seat.player_id else "an anonymous player"


def sign_in(client: MeepleClient, name: str) -> None:
    """Signs in a guest, unless the server has identities off."""
    try:
        session = client.sign_in_guest(name)
    except grpc.RpcError as error:
        if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
            raise
        print(f"not signed in: {error.details()}")
        return
    print(f"signed in as {session.identity.display_name} ({session.identity.player_id})")


def main(argv: list[str] | None = None) -> dict[str, list[float]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default="127.0.0.1:50051")
    parser.add_argument("--game", choices=[*GAMES, "all"], default="all")
    parser.add_argument("--bot", default="medium", help="the server's bots' level or spec")
    parser.add_argument("--hint", default="medium", help="the bot our seat takes hints from")
    parser.add_argument("--name", default="example", help="our guest's display name")
    args = parser.parse_args(argv)
    games = list(GAMES) if args.game == "all" else [args.game]
    with MeepleClient(args.address) as client:
        sign_in(client, args.name)
        return {game: play(client, game, args.bot, args.hint) for game in games}


if __name__ == "__main__":
    main()
