"""The registry and the conventions every game shares."""

import pytest

import engine_core
from engine_core.api import returns_for_winners


def test_registered_games_lists_the_flip_games() -> None:
    assert {"rolit", "othello"} <= set(engine_core.registered_games())
    assert engine_core.registered_games() == sorted(engine_core.registered_games())


def test_unknown_game_names_what_is_registered() -> None:
    with pytest.raises(ValueError, match=r"unknown game 'chess'.*rolit"):
        engine_core.load_game("chess")


def test_unknown_option_is_a_value_error_listing_the_options() -> None:
    with pytest.raises(ValueError, match=r"colours.*its options: players, first_seat"):
        engine_core.load_game("rolit", colours=5)


def test_illegal_action_is_a_value_error_and_malformed_is_illegal() -> None:
    assert issubclass(engine_core.IllegalAction, ValueError)
    assert issubclass(engine_core.MalformedAction, engine_core.IllegalAction)


def test_player_ids_match_openspiel() -> None:
    assert (engine_core.CHANCE, engine_core.TERMINAL) == (-1, -4)


@pytest.mark.parametrize(
    ("winners", "players", "expected"),
    [
        ([0], 2, [1.0, -1.0]),
        ([0, 1], 2, [0.0, 0.0]),
        ([3], 4, [-1 / 3, -1 / 3, -1 / 3, 1.0]),
        ([1, 2], 4, [-1 / 3, 1 / 3, 1 / 3, -1 / 3]),
        ([0, 1, 2], 3, [0.0, 0.0, 0.0]),
        ([0, 2], 3, [0.25, -0.5, 0.25]),
    ],
)
def test_winners_share_one_win_zero_sum(
    winners: list[int], players: int, expected: list[float]
) -> None:
    returns = returns_for_winners(winners, players)
    assert returns == pytest.approx(expected)
    assert sum(returns) == pytest.approx(0.0)


@pytest.mark.parametrize("name", engine_core.registered_games())
def test_every_game_declares_what_it_is(name: str) -> None:
    game = engine_core.load_game(name)
    declared = game.game_type
    assert isinstance(declared, engine_core.GameType)
    assert declared.name == game.name == name
    assert declared.min_players <= game.num_players() <= declared.max_players
    assert declared.rules_version >= 1
    state = game.new_initial_state()
    continuous = declared.actions is engine_core.ActionKind.CONTINUOUS
    assert hasattr(state, "sample_actions") == continuous
    assert hasattr(state, "random_playouts") == declared.batch_playouts
