"""The OpenSpiel game ``bridgerl_uncontested_bidding``: OpenSpiel's own checks, parity with Gymnasium, JAX DQN."""

import gymnasium as gym
import numpy as np
import pyspiel
import pytest

import bridgerl.envs.openspiel  # noqa: F401  (registers the game)
from bridgerl.core.dataset import load_dataset


@pytest.fixture(scope="module")
def dataset_path(tmp_path_factory):
    """A user's dataset file of 40 deals (the first 40 of valid, with their DD tables: none solved here)."""
    valid = load_dataset("valid")
    path = tmp_path_factory.mktemp("data") / "deals.npz"
    np.savez(path, owner=valid.owner[:40], dd=valid.dd[:40])
    return str(path)


def test_game_type_and_sizes(dataset_path):
    game = pyspiel.load_game("bridgerl_uncontested_bidding", {"dataset": dataset_path})
    assert game.num_players() == 2 and game.num_distinct_actions() == 36
    assert game.get_type().utility == pyspiel.GameType.Utility.IDENTICAL
    assert game.information_state_tensor_shape() == [90] and game.observation_tensor_shape() == [90]  # + auction_over
    assert game.min_utility() == -24 and game.max_utility() == 0


def test_openspiel_random_sim(dataset_path):
    for params in ({"dataset": dataset_path}, {"dataset": dataset_path, "opening_rules": False, "side": "NS",
                                               "reward": "points"}):
        game = pyspiel.load_game("bridgerl_uncontested_bidding", params)
        pyspiel.random_sim_test(game, num_sims=30, serialize=False, verbose=False)


def test_same_bits_and_rewards_as_gymnasium(dataset_path):
    game = pyspiel.load_game("bridgerl_uncontested_bidding", {"dataset": dataset_path})
    env = gym.make("bridgerl/UncontestedBidding-v0", dataset=dataset_path).unwrapped
    rng = np.random.default_rng(3)
    for _ in range(40):
        state = game.new_initial_state()
        state.apply_action(int(rng.choice([block for block, _ in state.chance_outcomes()])))
        row = int(rng.choice([row for row, _ in state.chance_outcomes()]))
        state.apply_action(row)
        obs, info = env.reset(options={"index": row})
        while not state.is_terminal():
            player = state.current_player()
            live = np.append(obs, 0).astype(np.float32)  # the env's 89 values, auction_over 0
            assert np.array_equal(np.asarray(state.observation_tensor(player)), live)
            assert np.array_equal(np.asarray(state.information_state_tensor(player)), live)
            legal = state.legal_actions()
            assert legal == np.flatnonzero(info["action_mask"]).tolist()
            action = int(rng.choice(legal))
            state.apply_action(action)
            obs, reward, done, _, info = env.step(action)
        assert done and state.returns() == [reward, reward]
        # the finished auction has its own tensor: the same 89 values as before the final Pass, auction_over set
        before = np.asarray(state.information_state_tensor(player))
        assert before[-1] == 1 and np.array_equal(before[:89], live[:89])
    assert "auction" in state.observation_string(0) and "♠" in str(state)


def test_open_spiels_rl_environment_runs_the_examples_loop(dataset_path):
    """The loop of OpenSpiel's examples (`helper_games.openspiel_dqn_loop`: only the player to act steps, every
    agent steps on the final time step) through `rl_environment`, with OpenSpiel's random agents in the DQN's seats:
    what the JAX DQN (the slow tier, below) is fed, the legality check on."""
    from open_spiel.python import rl_environment
    from open_spiel.python.algorithms import random_agent

    game = pyspiel.load_game("bridgerl_uncontested_bidding", {"dataset": dataset_path})
    env = rl_environment.Environment(game, enable_legality_check=True)
    env.seed(0)
    assert env.observation_spec()["info_state"][0] == 90 and env.action_spec()["num_actions"] == 36
    from helper_games import examples_loop

    agents = [random_agent.RandomAgent(player, 36) for player in range(2)]
    ends = []

    def on_turn(env, player):
        assert len(env.get_time_step().observations["info_state"][player]) == 90

    examples_loop(env, agents, 300, on_turn, ends.append)
    assert ends and all(-24 <= r <= 0 for end in ends for r in end.rewards)
    assert any(r < 0 for end in ends for r in end.rewards) and all(end.rewards[0] == end.rewards[1] for end in ends)


# the slow tier (CI runs it; docs/conventions.md): the examples' loop through `rl_environment` above and OpenSpiel's
# JAX DQN on the card-play game's short endings (tests/test_openspiel_games.py) stay in the default tier
@pytest.mark.slow
def test_open_spiel_jax_dqn_runs(dataset_path):
    from helper_games import openspiel_dqn_loop

    game = pyspiel.load_game("bridgerl_uncontested_bidding", {"dataset": dataset_path})
    ends = []
    openspiel_dqn_loop(game, players=2, steps=300, on_end=ends.append)
    assert ends and all(-24 <= r <= 0 for end in ends for r in end.rewards)
