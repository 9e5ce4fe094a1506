"""The card-play Gymnasium env and OpenSpiel game: checkers, options, rewards, observation, agents in each."""

import gymnasium as gym
import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env

import bridgerl.envs.openspiel  # noqa: F401  (registers the OpenSpiel games; import bridgerl registers the env)
from bridgerl.agents import DoubleDummyAgent, PIMCAgent, RandomAgent
from bridgerl.core import Contract, load_dataset, make_dataset, owner_to_pbn, pbn_to_owner
from bridgerl.core.cards import card_name, parse_card
from bridgerl.core.dd import solve_dd_table
from bridgerl.core.play import IllegalPlayError, PlayState
from bridgerl.core.scoring import score
from bridgerl.envs.play_encoding import LAYOUT, OBSERVATION_SIZE, OFFSETS, encode
from bridgerl.envs import view_of
from bridgerl.arena.play import play_deal

ENV_ID = "bridgerl/CardPlay-v0"
R = "AKQJT98765432"
SUIT_HANDS = pbn_to_owner(f"N:{R}... ..{R}. .{R}.. ...{R}")


class LowestCard:
    def act(self, view):
        return min(view.legal)


def test_env_checker():
    # check_env plays an action sampled in one position after resetting to another: in this ending (South, all
    # hearts, ruffs the club lead, then leads) every card South may lead was also legal when it ruffed.
    data = make_dataset(SUIT_HANDS[None], solve_dd_table(SUIT_HANDS)[None])
    check_env(gym.make(ENV_ID, dataset=data, contract="4H", declarer="S", played=["C2", "S2", "D2"]).unwrapped)
    check_env(gym.make(ENV_ID, dataset=data, contract="4H", declarer="S", played=["C2", "S2", "D2"],
                       defenders=LowestCard(), reward="score").unwrapped)


@pytest.mark.parametrize("unwrapped", [True, False], ids=["unwrapped", "wrapped"])
def test_env_checker_with_the_defaults(unwrapped):
    # check_step_determinism samples a card, resets to a new deal and plays it there: with the default
    # illegal="forfeit" that card ends the hand instead of raising (it raised IllegalPlayError before). PIMC
    # defenders are reseeded on reset; seeds pin the checker's unseeded resets and samples.
    env = gym.make(ENV_ID)
    env.reset(seed=0)
    env.action_space.seed(0)
    check_env(env.unwrapped if unwrapped else env)


def test_an_illegal_card_forfeits_the_rest_of_the_hand():
    env = gym.make(ENV_ID, dataset="test", defenders=LowestCard(), reward="tricks").unwrapped
    _, info = env.reset(seed=1)
    for _ in range(8):  # a few legal cards first
        _, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    won, history = env.state.declarer_tricks, env.state.history
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.warns(UserWarning, match="illegal card ends the hand"):
        _, reward, done, truncated, info = env.step(illegal)
    assert done and not truncated and reward == won and env.state.history == history
    assert info["illegal_card"] == card_name(illegal) and not info["action_mask"].any() and info["view"] is None
    assert not env.legal_action_mask().any() and env.current_view() is None
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    _, info = env.reset(seed=2)
    assert info["action_mask"].any() and info["illegal_action"] is False
    _, _, done, _, info = env.step(52)  # not a card at all: the penalty too, as in every env
    assert done and info["illegal_action"] and info["illegal_card"] == "#52"
    strict = gym.make(ENV_ID, dataset="test", defenders=LowestCard(), illegal="raise").unwrapped
    strict.reset(seed=2)
    for outside in (52, -1):  # with illegal="raise": refused, and the hand goes on
        with pytest.raises(ValueError, match="card index in 0..51"):
            strict.step(outside)
    assert strict.legal_action_mask().any()


def test_observation_layout():
    assert sum(size for _, size in LAYOUT) == OBSERVATION_SIZE == 571
    env = gym.make(ENV_ID, dataset="test", defenders=LowestCard()).unwrapped
    obs, info = env.reset(seed=0, options={"index": 4, "contract": "4S", "declarer": "N"})
    view = info["view"]
    assert obs.dtype == np.int8 and obs.shape == (571,) and env.observation_space.contains(obs)
    assert info["seat"] == view.seat == 2 and view.player == 0  # dummy (South) plays to the opening lead
    assert set(np.flatnonzero(obs[OFFSETS["hand"]])) == set(view.hand) == set(np.flatnonzero(env.deal == 2))
    assert set(np.flatnonzero(obs[OFFSETS["visible"]])) == set(np.flatnonzero(env.deal == 0))  # declarer's own
    lead = view.current_trick.cards[0]
    assert obs[OFFSETS["trick"]][52 + lead] == 1 and obs[OFFSETS["played"]][52 + lead] == 1  # East = LHO
    assert obs[OFFSETS["level"]][3] == 1 and obs[OFFSETS["strain"]][3] == 1 and obs[OFFSETS["penalty"]][0] == 1
    assert obs[OFFSETS["declarer"]][0] == 1 and obs[OFFSETS["hand_seat"]][2] == 1
    assert obs[OFFSETS["declarer_tricks"]][0] == 1 and obs[OFFSETS["defence_tricks"]][0] == 1
    assert (info["action_mask"] == np.isin(np.arange(52), view.legal)).all() and info["action_mask"].dtype == np.int8


def test_reset_options_and_replay():
    dataset = load_dataset("test")
    env = gym.make(ENV_ID, dataset="test", defenders=LowestCard()).unwrapped
    owner = dataset.owner[7]
    state = PlayState.start(owner, Contract.parse("3NTX W"))
    for _ in range(6):
        state = state.play(state.legal_cards()[-1])
    names = [card_name(c) for c in state.history]
    for options in ({"index": 7, "contract": "3NTX", "declarer": "W", "played": names},
                    {"deal": owner_to_pbn(owner), "contract": "3NTX", "declarer": 3, "played": list(state.history)},
                    {"index": 7, "contract": "3NTX", "declarer": "W", "played": " ".join(names)}):
        _, info = env.reset(options=options)
        assert env.state.history[:6] == state.history and env.state.contract == Contract.parse("3NTX W")
        assert info["view"].player == 3
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"seat": "N"})
    with pytest.raises(ValueError, match="not a contract"):
        env.reset(options={"contract": "8NT"})
    with pytest.raises(IllegalPlayError, match="played card 1"):
        env.reset(options={"index": 7, "played": [card_name(int(np.flatnonzero(owner == 0)[0]))]})
    with pytest.raises(ValueError, match="outside the dataset"):
        env.reset(options={"index": 10**6})
    strict = gym.make(ENV_ID, dataset="test", defenders=LowestCard(), illegal="raise").unwrapped
    strict.reset(seed=1)
    with pytest.raises(IllegalPlayError):
        strict.step(int(np.flatnonzero(strict.legal_action_mask() == 0)[0]))
    with pytest.raises(ValueError, match="illegal must be one of"):
        gym.make(ENV_ID, dataset="test", defenders=LowestCard(), illegal="ignore")
    with pytest.raises(ValueError, match="defenders"):
        bridgerl.envs.card_play.CardPlayEnv(dataset="test")


@pytest.mark.parametrize("reward", ["tricks", "make", "score"])
def test_rewards_at_the_end_only(reward):
    env = gym.make(ENV_ID, dataset="test", defenders=RandomAgent(), reward=reward).unwrapped
    _, info = env.reset(seed=3, options={"index": 11, "contract": "2H", "declarer": "E"})
    rewards, done = [], False
    rng = np.random.default_rng(0)
    while not done:
        _, r, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        rewards.append(r)
        assert not truncated
    assert all(r == 0 for r in rewards[:-1]) and len(rewards) == 26
    tricks = env.state.declarer_tricks
    vulnerable = bridgerl.core.is_vulnerable(bridgerl.core.vul_for_board(12), 1)
    expected = {"tricks": tricks, "make": float(tricks >= 8), "score": score(2, 2, 0, vulnerable, tricks)}[reward]
    assert rewards[-1] == expected


def test_same_seed_same_episode_with_default_pimc_defenders():
    def episode(seed):
        env = gym.make(ENV_ID, dataset="test", defender_worlds=4)
        _, info = env.reset(seed=seed)
        done, rng = False, np.random.default_rng(seed)
        while not done:
            _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        return env.unwrapped.state.history

    assert episode(5) == episode(5)


def test_one_agent_plays_unchanged_in_gymnasium_openspiel_and_a_match_loop():
    dataset = load_dataset("test")
    row, contract = 13, Contract.parse("4H S")
    expected = int(dataset.dd[row][2, 2])
    # Match loop.
    assert play_deal(dataset.owner[row], contract, DoubleDummyAgent(seed=0), DoubleDummyAgent(seed=1)
                     ).declarer_tricks == expected
    # Gymnasium: the agent reads info["view"].
    declarer = DoubleDummyAgent(seed=0)
    env = gym.make(ENV_ID, dataset="test", defenders=DoubleDummyAgent(seed=1), contract="4H").unwrapped
    _, info = env.reset(options={"index": row})
    declarer.see_deal(env.deal)
    done = False
    while not done:
        _, reward, done, _, info = env.step(declarer.act(info["view"]))
    assert reward == expected
    # OpenSpiel: the agent reads state.view().
    game = pyspiel.load_game("bridgerl_card_play", {"dataset": "test", "index": row, "contract": "4H", "rotate": False})
    state = game.new_initial_state()
    agents = [DoubleDummyAgent(seed=s) for s in range(4)]
    for agent in agents:
        agent.see_deal(state.deal)
    while not state.is_terminal():
        assert state.current_player() != 0  # North is dummy: South acts for it
        state.apply_action(agents[state.current_player()].act(state.view()))
    assert state.returns() == [expected, -expected, expected, -expected]


def test_openspiel_checks_and_observation_matches_gymnasium():
    game = pyspiel.load_game("bridgerl_card_play", {"dataset": "test", "reward": "score"})
    assert game.num_players() == 4 and game.num_distinct_actions() == 52
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert game.observation_tensor_shape() == [OBSERVATION_SIZE]
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)
    lead = card_name(int(np.flatnonzero(load_dataset("test").owner[2] == 3)[0]))
    fixed = pyspiel.load_game("bridgerl_card_play", {"dataset": "test", "index": 2, "played": lead, "rotate": False})
    state = fixed.new_initial_state()
    assert state.current_player() == 2 and state.view().seat == 0  # declarer South plays dummy's card
    env = gym.make(ENV_ID, dataset="test", defenders=LowestCard()).unwrapped
    obs, _ = env.reset(options={"index": 2, "played": [lead]})
    assert (np.array(state.observation_tensor(2), np.int8) == obs).all()
    assert (np.array(state.observation_tensor(1), np.int8) == encode(view_of(state.play_state, player=1))).all()
    pimc = PIMCAgent(worlds=4, seed=0)
    while not state.is_terminal():
        state.apply_action(pimc.act(state.view()))
    returns = state.returns()
    assert sum(returns) == 0 and returns[0] == returns[2]
    with pytest.raises(ValueError, match="reward"):
        pyspiel.load_game("bridgerl_card_play", {"reward": "imps"})


def test_parse_card_names_in_play_options():
    assert parse_card("S10") == parse_card("ST") == 3 * 13 + 8
