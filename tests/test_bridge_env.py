"""The Gymnasium whole-deal env ``bridgerl/Bridge-v0`` over `bridgerl.core.bridge`."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import bridgerl  # noqa: F401  (registers the ids)
from bridgerl.agents import DoubleDummyAgent, PassAgent, PIMCAgent, RandomAgent, RuleBidder
from bridgerl.core.bridge import CARD_OFFSET, BridgeState, OBSERVATION_SIZE
from bridgerl.core.competitive import CompetitiveDealSource
from bridgerl.core.dataset import load_dataset


def make(**kwargs):
    return gym.make("bridgerl/Bridge-v0", dataset="test", **kwargs).unwrapped


def random_episode(env, seed, options=None):
    obs, info = env.reset(seed=seed, options=options)
    rng = np.random.default_rng(seed)
    trail = [(obs.copy(), dict(info))]
    env.actions = []
    while True:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        env.actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        trail.append((obs.copy(), dict(info)))
        assert not truncated
        if terminated:
            return trail, reward


def test_check_env_and_spaces():
    env = make()
    check_env(env)
    assert env.observation_space.shape == (OBSERVATION_SIZE,) and env.action_space.n == 90
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.int8 and info["action_mask"].dtype == np.int8 and info["action_mask"].shape == (90,)
    assert info["phase"] == "auction" and obs[231:].sum() == 0
    assert not isinstance(gym.make("bridgerl/Bridge-v0", dataset="test"), gym.wrappers.TimeLimit)


def test_random_games_follow_the_rules_module():
    env = make()
    source = CompetitiveDealSource(load_dataset("test"))
    for seed in range(6):
        trail, _ = random_episode(env, seed, {"index": seed})
        state = BridgeState.start(source.deal_at(seed))
        for (obs, info), action in zip(trail, env.actions):
            assert info["seat"] == state.seat and info["player"] == state.player and info["phase"] == state.phase
            np.testing.assert_array_equal(obs, state.observation())
            np.testing.assert_array_equal(info["action_mask"], state.legal_mask())
            state = state.apply(action)
        final = trail[-1][1]
        result = state.result()
        assert final["score_ns"] == result.score_ns and final["tricks"] == result.tricks
        assert final["returns"] == result.returns("score")


def test_terminal_info_and_reward_of_a_side():
    env = make(agent_seats="NS", opponent=RuleBidder(competitive=True), opponent_play=RandomAgent(seed=1),
               reward="imps_vs_par")
    trail, reward = random_episode(env, 3, {"index": 5})
    info = trail[-1][1]
    assert set(info) >= {"contract", "declarer", "tricks", "score_ns", "par_ns", "returns", "dealer", "vul", "index",
                         "board"}
    assert reward == info["returns"][0] and info["returns"][0] == -info["returns"][1]
    for _, step_info in trail[:-1]:
        assert step_info["player"] in (0, 2)  # the agent only ever chooses for North-South


def test_agent_seat_acts_for_dummy_only_through_declarer():
    # South alone: when North declares, North's opponent agent plays South's (dummy's) cards
    seen = []
    for seed in range(8):
        env = make(agent_seats="S", opponent=RuleBidder(competitive=True), opponent_play=RandomAgent(seed=seed))
        trail, _ = random_episode(env, seed, {"index": seed})
        seen += [(i["seat"], i["player"]) for _, i in trail[:-1]]
    assert all(player == 2 for _, player in seen)
    assert any(seat == 0 for seat, _ in seen)  # South declaring, choosing North's (dummy's) cards


def test_double_dummy_mode_ends_with_the_auction():
    from bridgerl.core.contract import Contract

    env = make(play="double_dummy")
    checked = 0
    for seed in range(6):
        trail, _ = random_episode(env, seed, {"index": seed})
        assert all(i["phase"] == "auction" for _, i in trail[:-1]) and trail[-1][1]["phase"] == "over"
        info = trail[-1][1]
        if info["declarer"] >= 0:
            contract = Contract.parse(info["contract"], info["declarer"])
            assert info["tricks"] == load_dataset("test").dd[seed, contract.declarer, contract.strain]
            checked += 1
    assert checked >= 3  # random auctions mostly reach a contract


def test_seeded_episodes_repeat():
    def opponents():  # a seeded reset reseeds the card player of the other side
        return {"agent_seats": "NS", "opponent": RuleBidder(competitive=True), "opponent_play": RandomAgent(seed=99)}

    env_c, env_d = make(**opponents()), make(**opponents())
    env_d.opponent_play.rng.integers(10, size=7)  # a generator moved on before the seeded reset
    (trail_c, _), (trail_d, _) = random_episode(env_c, 5), random_episode(env_d, 5)
    assert [i["index"] for _, i in trail_c] == [i["index"] for _, i in trail_d]
    assert all(np.array_equal(a, b) for (a, _), (b, _) in zip(trail_c, trail_d)) and len(trail_c) == len(trail_d)
    env_a, env_b = make(), make()
    (trail_a, _), (trail_b, _) = random_episode(env_a, 11), random_episode(env_b, 11)
    assert len(trail_a) == len(trail_b)
    for (obs_a, info_a), (obs_b, info_b) in zip(trail_a, trail_b):
        np.testing.assert_array_equal(obs_a, obs_b)
        assert info_a["index"] == info_b["index"]


def test_construction_errors_name_the_problem():
    with pytest.raises(ValueError, match="opponent="):
        make(agent_seats="NS")
    with pytest.raises(ValueError, match="opponent_play="):
        make(agent_seats="EW", opponent=PassAgent())
    make(agent_seats="EW", opponent=PassAgent(), play="double_dummy")  # no cards to play: no player needed
    with pytest.raises(ValueError, match="agent_seats"):
        make(agent_seats="NE")
    with pytest.raises(ValueError, match="reward"):
        make(reward="points")
    with pytest.raises(ValueError, match="play must be"):
        make(play="dd")
    with pytest.raises(ValueError, match="no seat to an opponent"):
        make(opponent=PassAgent())


def test_illegal_actions_are_refused():
    env = make(illegal="raise")
    env.reset(seed=0, options={"index": 0})
    with pytest.raises(ValueError, match="not a call"):
        env.step(CARD_OFFSET + 5)
    with pytest.raises(ValueError, match="integer"):
        env.step(1.5)


def test_opponent_with_an_illegal_card_is_named():
    class Bad:
        def act(self, view):
            return next(c for c in range(52) if c not in view.legal)

    env = make(agent_seats="NS", opponent=RuleBidder(competitive=True), opponent_play=Bad())
    with pytest.raises(ValueError, match="illegal card"):
        for seed in range(20):  # some deal where East-West play a card
            random_episode(env, seed)


def test_double_dummy_opponent_sees_the_deal():
    env = make(agent_seats="NS", opponent=RuleBidder(competitive=True), opponent_play=DoubleDummyAgent(seed=0))
    _, info = env.reset(seed=1, options={"index": 7})
    assert env.opponent_play.owner is not None
    np.testing.assert_array_equal(env.opponent_play.owner, load_dataset("test").owner[7])


def test_reset_from_a_hand_record_continues_the_game():
    from pathlib import Path

    from bridgerl.core.records import read_records, record_actions

    record = read_records(Path(__file__).parent / "data" / "records.pbn")[0]
    actions = record_actions(record)
    env = make()
    for upto in (0, 3, len(record.calls), len(record.calls) + 5):
        obs, info = env.reset(seed=0, options={"record": record, "upto": upto})
        assert env.state.auction.calls == tuple(record.calls[:min(upto, len(record.calls))])
        assert info["board"] == record.board and info["dealer"] == record.dealer
        done = False
        for action in actions[upto:]:  # the rest of the record is legal from there
            obs, _, done, _, info = env.step(action)
        assert done == (len(actions) == 52 + len(record.calls))
    with pytest.raises(ValueError, match="upto"):
        env.reset(options={"record": record, "upto": len(actions) + 1})
    with pytest.raises(ValueError, match="record"):
        env.reset(options={"upto": 3})
    with pytest.raises(ValueError, match="upto"):
        env.reset(options={"record": record, "index": 3})


def test_policy_sampling_opponents_are_told_their_bidder():
    player = PIMCAgent(worlds=3, auction="policy", max_candidates=50)
    env = make(agent_seats="EW", opponent=RuleBidder(competitive=True), opponent_play=player)
    random_episode(env, 2, {"index": 4})
    assert set(player.bidders) == {0, 2} and player.bidders[0] is env.opponent
