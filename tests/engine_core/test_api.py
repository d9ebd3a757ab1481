"""The registry and the conventions every game shares."""

import itertools

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
    assert isinstance(state, engine_core.State)
    assert state.game is game
    continuous = declared.actions is engine_core.ActionKind.CONTINUOUS
    # What each flag promises, and nothing a flag does not declare.
    promises = {
        "sample_actions": continuous,
        "action_space": continuous,
        "zobrist_hash": declared.position_hash,
        "with_turn": declared.turn_override,
        "random_playouts": declared.batch_playouts,
    }
    assert {method: hasattr(state, method) for method in promises} == promises


@pytest.mark.parametrize("name", engine_core.registered_games())
def test_states_narrow_to_what_their_game_declares(name: str) -> None:
    game = engine_core.load_game(name)
    state = game.new_initial_state()
    declared = game.game_type
    narrowings = [
        (engine_core.as_continuous, declared.actions is engine_core.ActionKind.CONTINUOUS),
        (engine_core.as_hashed, declared.position_hash),
        (engine_core.as_turn_override, declared.turn_override),
        (engine_core.as_batch_playouts, declared.batch_playouts),
    ]
    for narrow, flag in narrowings:
        if flag:
            assert narrow(state) is state
        else:
            with pytest.raises(ValueError, match=f"{name} does not declare"):
                narrow(state)


BATCH_GAMES = [
    name
    for name in engine_core.registered_games()
    if engine_core.load_game(name).game_type.batch_playouts
]


@pytest.mark.parametrize("name", BATCH_GAMES)
def test_random_playouts_have_one_shape(name: str) -> None:
    """Every batch core returns each playout's returns: a tuple of one float
    per seat, as returns() gives them at the end (winners share one win)."""
    game = engine_core.load_game(name)
    seats = range(game.num_players())
    endings = {
        tuple(returns_for_winners(winners, len(seats)))
        for size in seats
        for winners in itertools.combinations(seats, size + 1)
    }
    state = engine_core.as_batch_playouts(game.new_initial_state())
    playouts = state.random_playouts(20, seed=7)
    assert len(playouts) == 20
    for returns in playouts:
        assert type(returns) is tuple
        assert all(type(value) is float for value in returns)
        assert returns in endings
    assert state.random_playouts(0, seed=7) == []
    assert state.random_playouts(20, seed=7 + 2**64) == playouts  # the seed is taken mod 2**64
    assert state.random_playouts(20, seed=-1) == state.random_playouts(20, seed=2**64 - 1)


@pytest.mark.parametrize("name", BATCH_GAMES)
@pytest.mark.parametrize(
    ("n", "seed", "error", "message"),
    [
        (1.5, 0, TypeError, "n must be an int"),
        (True, 0, TypeError, "n must be an int"),
        ("3", 0, TypeError, "n must be an int"),
        (None, 0, TypeError, "n must be an int"),
        (-1, 0, ValueError, "n must be within 0..10_000_000, got -1"),
        (engine_core.MAX_PLAYOUTS + 1, 0, ValueError, "n must be within"),
        (10, None, TypeError, "seed must be an int, got None"),
        (10, 1.0, TypeError, "seed must be an int"),
        (10, False, TypeError, "seed must be an int"),
    ],
)
def test_random_playouts_check_their_arguments(
    name: str, n: object, seed: object, error: type[Exception], message: str
) -> None:
    state = engine_core.as_batch_playouts(engine_core.load_game(name).new_initial_state())
    with pytest.raises(error, match=message):
        state.random_playouts(n, seed)  # type: ignore[arg-type]
