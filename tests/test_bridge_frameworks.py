"""The whole deal in OpenSpiel (``bridgerl_bridge``) and PettingZoo (``bridge_v0``): OpenSpiel's own machinery
(random simulation with serialization, MCTS, clones), both frameworks in lockstep with the rules module
(`BridgeState`), the parameters, PettingZoo's api_test and the readable strings. Bundled "test" deals only."""

import warnings

import numpy as np
import pyspiel
import pytest

import bridgerl.envs.openspiel  # noqa: F401  (registers the games)
from bridgerl.core import load_dataset
from bridgerl.core.board import dealer_for_board, vul_for_board
from bridgerl.core.bridge import CARD_OFFSET, NUM_ACTIONS, OBSERVATION_SIZE, BridgeState, render_text
from bridgerl.core.calls import BID_OFFSET, PASS
from bridgerl.core.cards import hand_text
from bridgerl.core.competitive import CompetitiveDealSource
from bridgerl.envs.openspiel import GAMES
from bridgerl.envs.pettingzoo import bridge_v0

NAME = "bridgerl_bridge"
MODES = [("agents", "score"), ("double_dummy", "par_imps")]
SOURCE = CompetitiveDealSource(load_dataset("test"))
ONE_NT, THREE_NT = BID_OFFSET + 4, BID_OFFSET + 14


def _game(**params):
    return pyspiel.load_game(NAME, {"dataset": "test", **params})


def test_game_shape():
    assert NAME in GAMES
    game = _game()
    assert game.num_players() == 4 and game.num_distinct_actions() == NUM_ACTIONS == 90
    assert game.observation_tensor_shape() == [OBSERVATION_SIZE]
    # the 802 values do not record the trick order; the information-state tensor and string are perfect recall
    game_type = game.get_type()
    assert game_type.provides_observation_tensor and game_type.provides_information_state_tensor
    assert game.information_state_tensor_shape() == [3219]
    assert game_type.provides_information_state_string and game_type.provides_observation_string
    assert game.max_game_length() == 319 + 52 and game.max_chance_outcomes() == len(SOURCE.dataset)
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.max_utility() == -game.min_utility() == 7600.0
    assert _game(reward="imps_vs_par").max_utility() == _game(reward="par_imps").max_utility() == 24.0


@pytest.mark.parametrize("play,reward", MODES)
def test_random_sim_with_serialization(play, reward):
    pyspiel.random_sim_test(_game(play=play, reward=reward), num_sims=10, serialize=True, verbose=False)


@pytest.mark.parametrize("play,row", [("agents", 0), ("double_dummy", 1)])
def test_mcts_plays_whole_games(play, row):
    from open_spiel.python.algorithms import mcts

    game = _game(play=play)
    rng = np.random.RandomState(row)
    bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=3, evaluator=mcts.RandomRolloutEvaluator(1, rng),
                       random_state=rng)
    state = game.new_initial_state()
    for action in game.deal_actions(row):
        state.apply_action(action)
    while not state.is_terminal():
        assert state.current_player() == state.bridge.player
        state.apply_action(bot.step(state))
    returns = state.returns()
    assert returns == state.bridge.result().returns("score") and sum(returns) == 0 and returns[0] == returns[2]
    assert (state.bridge.play is not None) == (play == "agents" and state.bridge.contract is not None)


@pytest.mark.parametrize("play,observation", [("agents", False), ("double_dummy", False), ("agents", True)])
def test_rl_environment_steps_on_either_tensor(play, observation):
    """OpenSpiel's rl_environment steps on the perfect-recall information-state tensor by default, and on the 802
    observation values with ``observation_type=OBSERVATION``."""
    from open_spiel.python import rl_environment

    kind = rl_environment.ObservationType.OBSERVATION if observation else None
    env = rl_environment.Environment(NAME, observation_type=kind, dataset="test", play=play)
    assert env.use_observation == observation
    rng = np.random.default_rng(3)
    time_step = env.reset()
    steps = 0
    while not time_step.last():
        player = time_step.observations["current_player"]
        state = env.get_state
        assert player == state.current_player() and player == state.bridge.player
        expected = (state.bridge.observation(player) if observation else state.information_state_tensor(player))
        assert np.array_equal(time_step.observations["info_state"][player], np.asarray(expected, np.float32))
        time_step = env.step([int(rng.choice(time_step.observations["legal_actions"][player]))])
        steps += 1
    assert steps >= 4 and sum(time_step.rewards) == 0
    assert time_step.rewards == env.get_state.bridge.result().returns("score")


def _same(original, copy):
    assert str(copy) == str(original) and copy.history() == original.history()
    assert copy.current_player() == original.current_player() and copy.returns() == original.returns()
    assert copy.legal_actions() == original.legal_actions()
    for player in range(4):
        assert copy.observation_tensor(player) == original.observation_tensor(player)
        assert copy.information_state_string(player) == original.information_state_string(player)


@pytest.mark.parametrize("play,reward", MODES)
def test_openspiel_and_pettingzoo_agree_with_the_rules_module(play, reward):
    """Random games, three ways at once: the OpenSpiel state, the PettingZoo env and `BridgeState` agree at every
    step on who chooses, what is legal, every player's 802 values (dummy's and the players' not to act too) and the
    returns; clones and deserialized states match their original."""
    game = _game(play=play, reward=reward)
    env = bridge_v0.raw_env(dataset="test", play=play, reward=reward)
    rng = np.random.default_rng(7)
    played = 0
    for row in rng.choice(len(SOURCE.dataset), 6, replace=False).tolist():
        core = BridgeState.start(SOURCE.deal_at(row), play)
        state = game.new_initial_state()
        assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
        for action in game.deal_actions(row):
            state.apply_action(action)
        env.reset(options={"index": row})
        step = 0
        while not core.is_over:
            legal = core.legal_actions()
            assert state.current_player() == core.player and state.legal_actions() == legal
            assert env.agent_selection == bridge_v0.AGENTS[core.player]
            for seat, agent in enumerate(bridge_v0.AGENTS):
                expected = core.observation(seat)
                assert np.array_equal(np.asarray(state.observation_tensor(seat)), expected.astype(np.float32))
                seen = env.observe(agent)
                assert seen["observation"].dtype == np.int8 and np.array_equal(seen["observation"], expected)
                mask = core.legal_mask() if seat == core.player else np.zeros(NUM_ACTIONS, bool)
                assert np.array_equal(seen["action_mask"], mask)
            if step % 20 == 5:
                _same(state, state.clone())
                serialized = state.serialize()
                assert len(serialized) < 10_000
                _same(state, game.deserialize_state(serialized))
                other_game, other = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
                assert str(other_game) == str(game)
                _same(state, other)
            action = int(rng.choice(legal))
            core = core.apply(action)
            state.apply_action(action)
            env.step(action)
            step += 1
        played += core.play is not None
        expected = core.result().returns(reward)
        assert state.is_terminal() and state.returns() == expected and sum(expected) == 0
        assert [env.rewards[a] for a in bridge_v0.AGENTS] == expected and all(env.terminations.values())
        assert str(state) == render_text(core)
        for seat in range(4):
            assert np.array_equal(np.asarray(state.observation_tensor(seat)), core.observation(seat))
    assert (played > 0) == (play == "agents")  # (random calls all but never pass a deal out)


def test_dealer_and_vul_parameters():
    row = 3
    board = int(SOURCE.dataset.boards[row])
    state = _game().new_initial_state()
    for action in _game().deal_actions(row):
        state.apply_action(action)
    assert state.deal.dealer == dealer_for_board(board) == state.current_player()
    assert state.deal.vul == vul_for_board(board)
    for dealer, vul in [(2, "both"), (0, "none"), (3, "EW")]:
        state = _game(dealer=dealer, vul=vul).new_initial_state()
        for action in _game().deal_actions(row):
            state.apply_action(action)
        assert state.deal.dealer == dealer == state.current_player() and state.deal.vul == vul
        assert (state.deal.owner == SOURCE.dataset.owner[row]).all()
        bits = np.asarray(state.observation_tensor(dealer))[:2]  # we / they vulnerable
        assert bits.tolist() == [float(vul in ("both", "NS" if dealer % 2 == 0 else "EW")),
                                 float(vul in ("both", "EW" if dealer % 2 == 0 else "NS"))]
    # the string form, and the vulnerability's aliases
    state = pyspiel.load_game(f"{NAME}(dataset=test,dealer=1,vul=All)").new_initial_state()
    for action in _game().deal_actions(row):
        state.apply_action(action)
    assert state.deal.dealer == 1 and state.deal.vul == "both"


@pytest.mark.parametrize("params,message", [
    ({"play": "dd"}, "play must be one of"),
    ({"reward": "imps"}, "reward must be one of"),
    ({"dealer": 4}, "dealer must be -1"),
    ({"dealer": -2}, "dealer must be -1"),
    ({"vul": "sideways"}, "vul must be ''"),
])
def test_bad_parameters_are_clear_errors(params, message):
    with pytest.raises(ValueError, match=message):
        _game(**params)
    if set(params) <= {"play", "reward"}:
        with pytest.raises(ValueError, match=message):
            bridge_v0.raw_env(dataset="test", **params)


def test_an_illegal_action_names_it():
    state = _game().new_initial_state()
    with pytest.raises((ValueError, pyspiel.SpielError), match="not a block of rows"):
        state.apply_action(10_000)
    state.apply_action(0)
    with pytest.raises((ValueError, pyspiel.SpielError), match="not a row of block 0"):
        state.apply_action(4_000)
    state.apply_action(0)
    with pytest.raises((ValueError, pyspiel.SpielError), match="not a call"):
        state.apply_action(CARD_OFFSET)
    env = bridge_v0.raw_env(dataset="test", illegal="raise")
    env.reset(options={"index": 0})
    with pytest.raises(ValueError, match="not a call"):
        env.step(CARD_OFFSET)


@pytest.mark.parametrize("play,reward", MODES)
def test_pettingzoo_infos_and_spaces_match_the_gymnasium_env(play, reward):
    """Every agent's infos are the Gymnasium env's info without ``action_mask`` and ``view``, at every step and at
    the end (contract text without declarer, declarer seat, tricks, scores, returns N E S W); the observation space
    is one flat int8 MultiBinary(802) beside the int8 mask."""
    from gymnasium import spaces

    from bridgerl.envs.bridge import BridgeEnv
    from bridgerl.envs.spaces import binary_space

    pz = bridge_v0.raw_env(dataset="test", play=play, reward=reward)
    gym_env = BridgeEnv(dataset="test", play=play, reward=reward)
    for agent in bridge_v0.AGENTS:
        space = pz.observation_space(agent)
        assert space["observation"] == binary_space(OBSERVATION_SIZE) == gym_env.observation_space
        assert isinstance(space["observation"], spaces.MultiBinary) and space["observation"].dtype == np.int8
        assert space["action_mask"].shape == (NUM_ACTIONS,) and space["action_mask"].dtype == np.int8
    rng = np.random.default_rng(11)
    for row in (0, 5, 9):
        pz.reset(options={"index": row})
        obs, info = gym_env.reset(options={"index": row})
        while True:
            expected = {k: v for k, v in info.items() if k not in ("action_mask", "view")}
            assert all(pz.infos[agent] == expected for agent in bridge_v0.AGENTS)
            seen = pz.observe(pz.agent_selection)
            assert np.array_equal(seen["observation"], obs) and np.array_equal(seen["action_mask"], info["action_mask"])
            assert pz.observation_space(pz.agent_selection).contains(seen)
            if pz.terminations[pz.agent_selection]:
                break
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            pz.step(action)
            obs, _, terminated, _, info = gym_env.step(action)
        final = pz.infos["north"]
        assert final["phase"] == "over" and terminated
        assert set(final) == {"seat", "player", "phase", "dealer", "vul", "index", "board", "contract", "declarer",
                              "tricks", "score_ns", "par_ns", "returns", "illegal_action"}
        assert final["illegal_action"] is False
        assert final["index"] == row and " " not in final["contract"]
        assert final["declarer"] in range(-1, 4)
        assert final["returns"] == [pz.rewards[a] for a in bridge_v0.AGENTS]


@pytest.mark.parametrize("play", ["agents", "double_dummy"])
def test_pettingzoo_api(play):
    from pettingzoo.test import api_test

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(bridge_v0.env(dataset="test", play=play), num_cycles=500, verbose_progress=False)
    assert not [w for w in caught if "option" in str(w.message)]  # api_test's {"options": 1} is ignored quietly


def test_readable_strings():
    game = _game()
    state = game.new_initial_state()
    assert state.observation_string(0) == "(deal not chosen yet)"
    block, row = game.deal_actions(12)
    assert row == 12 and state.action_to_string(pyspiel.PlayerId.CHANCE, block) == "Deal block 0 (rows 0..70)"
    state.apply_action(block)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 12) == "Deal row 12"
    state.apply_action(12)
    dealer, owner = state.current_player(), state.deal.owner
    assert [state.action_to_string(dealer, a) for a in (PASS, 1, 2, ONE_NT, THREE_NT, CARD_OFFSET + 51)] == \
        ["Pass", "X", "XX", "1NT", "3NT", "SA"]
    for call in (ONE_NT, PASS, THREE_NT, PASS):
        state.apply_action(call)
    text = state.observation_string(dealer)
    assert hand_text(owner, dealer) in text and "1NT Pass 3NT Pass" in text
    assert all(hand_text(owner, seat) not in text for seat in range(4) if seat != dealer)
    for _ in range(2):
        state.apply_action(PASS)
    declarer, dummy = dealer, (dealer + 2) % 4  # the dealer named notrump first
    leader = (declarer + 1) % 4
    assert state.current_player() == leader
    before = state.observation_string(leader)
    assert "contract 3NT by" in before and "dummy" not in before and hand_text(owner, leader) in before
    lead = state.legal_actions()[0]
    state.apply_action(lead)
    after = state.observation_string(leader)
    lead_name = state.action_to_string(leader, lead)
    assert "dummy" in after and f"trick: {'NESW'[leader]}:{lead_name}" in after
    # declarer chooses dummy's card; the information state (perfect recall) lists every trick
    assert state.current_player() == declarer and state.bridge.seat == dummy
    assert "tricks declarer 0 defence 0" in state.information_state_string(declarer)
    assert str(state) == render_text(state.bridge)
