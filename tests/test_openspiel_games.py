"""All three bridgerl OpenSpiel games under OpenSpiel's own machinery: MCTS (which clones states), serialization,
clone/deserialize round trips, and ``rl_environment`` with one JAX DQN a player on card play."""

import numpy as np
import pyspiel
import pytest

import bridgerl.envs.openspiel_card_play  # noqa: F401  (importing a game's module registers it)
import bridgerl.envs.openspiel_competitive  # noqa: F401
import bridgerl.envs.openspiel_uncontested  # noqa: F401
from bridgerl.core import load_dataset
from bridgerl.core.board import vul_for_board
from bridgerl.core.cards import card_name


def _played_prefix(cards: int, index: int = 0) -> str:
    """The first ``cards`` cards of a legal play of row ``index`` of the test set (lowest legal card each time)."""
    state = pyspiel.load_game("bridgerl_card_play", {"dataset": "test", "index": index,
                                                      "rotate": False}).new_initial_state()
    names = []
    for _ in range(cards):
        card = min(state.legal_actions())
        names.append(card_name(card))
        state.apply_action(card)
    return " ".join(names)


SHORT_PLAY = _played_prefix(40)  # 12 cards left to play
GAMES = [
    ("bridgerl_uncontested_bidding", {"dataset": "test"}),
    ("bridgerl_competitive_bidding", {"dataset": "test"}),
    ("bridgerl_card_play", {"dataset": "test", "index": 0, "played": SHORT_PLAY, "reward": "score", "rotate": False}),
    ("bridgerl_card_play", {"dataset": "test", "index": 0, "played": SHORT_PLAY}),  # rotate: the default
    ("bridgerl_card_play", {"dataset": "test"}),  # whole deals drawn by chance, the default game
]
IDS = ["uncontested", "competitive", "card_play", "card_play_rotate", "card_play_whole_deal"]


def _chance(state, rng):
    actions, probs = zip(*state.chance_outcomes())
    state.apply_action(int(rng.choice(actions, p=probs)))


@pytest.mark.parametrize("name,params", GAMES, ids=IDS)
def test_mcts_plays_full_games(name, params):
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game(name, params)
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=4, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                       random_state=rng)
    for _ in range(2):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                _chance(state, rng)
            else:
                state.apply_action(bot.step(state))
        returns = state.returns()
        assert len(returns) == game.num_players()
        if game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM:
            assert sum(returns) == 0 and returns[0] == returns[2]


@pytest.mark.parametrize("name,params", GAMES, ids=IDS)
def test_random_sim_with_serialization(name, params):
    pyspiel.random_sim_test(pyspiel.load_game(name, params), num_sims=2, serialize=True, verbose=False)


def _same(original, copy, game):
    assert str(copy) == str(original)
    assert copy.history() == original.history() and copy.current_player() == original.current_player()
    assert copy.is_terminal() == original.is_terminal() and copy.returns() == original.returns()
    assert copy.legal_actions() == original.legal_actions()
    for player in range(game.num_players()):
        assert copy.legal_actions(player) == original.legal_actions(player)
        assert copy.observation_tensor(player) == original.observation_tensor(player)
        assert copy.observation_string(player) == original.observation_string(player)
        assert copy.information_state_string(player) == original.information_state_string(player)
        if game.get_type().provides_information_state_tensor:
            assert copy.information_state_tensor(player) == original.information_state_tensor(player)


@pytest.mark.parametrize("name,params", GAMES, ids=IDS)
def test_clone_and_deserialize_match_the_original(name, params):
    game = pyspiel.load_game(name, params)
    rng = np.random.default_rng(1)
    state = game.new_initial_state()
    while True:
        # The game is read through state.get_game(), never kept in the state: a pickled pyspiel.Game comes back
        # without the attributes our Game.__init__ set, and game-wide data would ride along in every copy.
        assert not any(isinstance(value, pyspiel.Game) for value in vars(state).values())
        serialized = state.serialize()
        assert len(serialized) < 10_000
        _same(state, state.clone(), game)
        _same(state, game.deserialize_state(serialized), game)
        other_game, other = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
        _same(state, other, other_game)
        if state.is_terminal():
            break
        if state.is_chance_node():
            _chance(state, rng)
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    # a clone made mid-game plays on independently of its original
    assert state.returns() == state.clone().returns()


def test_states_stay_small_after_many_deals():
    """Nothing game-wide rides along in a state: after 300 finished auctions (whose pars the deal source keeps),
    a competitive state still serializes to about a kilobyte and clones cheaply."""
    game = pyspiel.load_game("bridgerl_competitive_bidding", {"dataset": "test"})
    rng = np.random.default_rng(0)
    for row in range(300):
        state = game.new_initial_state()
        for action in game.deal_actions(row):
            state.apply_action(action)
        while not state.is_terminal():
            state.apply_action(int(rng.choice(state.legal_actions())))
        state.returns()
    assert len(state.serialize()) < 2_500 and len(state.clone().serialize()) < 2_500


def test_card_play_rotate_turns_the_table():
    boards = load_dataset("test").boards
    index = next(row for row in range(len(boards)) if vul_for_board(int(boards[row])) == "NS")
    params = {"dataset": "test", "index": index, "played": _played_prefix(40, index), "reward": "score"}
    plain = pyspiel.load_game("bridgerl_card_play", {**params, "rotate": False})
    game = pyspiel.load_game("bridgerl_card_play", params)  # rotate=True is the default
    assert plain.max_chance_outcomes() * 4 == game.max_chance_outcomes()
    base = plain.new_initial_state()
    start = game.new_initial_state()
    assert start.is_chance_node() and [a for a, _ in start.chance_outcomes()] == [0, 1, 2, 3]
    for turns in range(4):
        # the plain game with the players renamed: seat p's cards, role and vulnerability go to seat p + turns
        state, same = start.child(turns), base.clone()
        assert state.play_state.declarer == (2 + turns) % 4 and (state.deal == (same.deal + turns) % 4).all()
        assert state.vulnerable and same.vulnerable and state.play_state.history == same.play_state.history
        while not state.is_terminal():
            assert state.current_player() == (same.current_player() + turns) % 4 != state.play_state.dummy
            assert state.legal_actions() == same.legal_actions()
            card = min(state.legal_actions())
            state.apply_action(card)
            same.apply_action(card)
        assert same.is_terminal() and state.returns() == np.roll(same.returns(), turns).tolist()
    assert "turned 3" in start.action_to_string(pyspiel.PlayerId.CHANCE, 3)


# the whole default game in the slow tier (CI runs it; docs/conventions.md): its short endings stay here
@pytest.mark.parametrize("params", [pytest.param({"dataset": "test"}, marks=pytest.mark.slow),
                                    {"dataset": "test", "index": 0, "played": "PREFIX"}],
                         ids=["default_game", "short_endings"])
def test_open_spiel_jax_dqn_runs_on_card_play(params):
    """The standard loop of OpenSpiel's examples: one DQN a player, only the player to act steps during the game,
    every agent steps on the final time step. Dummy never acts, so with fixed seats (rotate=False) dummy's DQN never
    gets a transition and its learn() fails on an empty replay buffer; the default rotate=True gives every player
    turns (an agent still crashes OpenSpiel's DQN if it is dummy in each of its first ``learn_every`` episodes:
    probability 4^-learn_every, about 1e-6 at the default 10). Before the fix the default game crashed after
    ``learn_every`` episodes."""
    from helper_games import openspiel_dqn_loop

    if params.get("played") == "PREFIX":
        params = {**params, "played": _played_prefix(36)}
    game = pyspiel.load_game("bridgerl_card_play", params)
    acted = set()

    def turn(env, player):
        assert player != env.get_state.play_state.dummy
        acted.add(player)

    def end(time_step):
        assert sum(time_step.rewards) == 0

    agents = openspiel_dqn_loop(game, players=4, steps=400, hidden=16, batch_size=8, learn_every=10, on_turn=turn,
                                on_end=end)
    assert acted == {0, 1, 2, 3} and all(agent.loss is not None for agent in agents)
