"""Competitive bidding (thesis 4.5.2): the 231-bit encoding and its inverse, rewards, illegal calls, interfaces."""

import warnings

import gymnasium as gym
import numpy as np
import pyspiel
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings, strategies as st

import bridgerl.envs.openspiel  # noqa: F401  (registers the OpenSpiel games)
from bridgerl.core import PASS, Auction, IllegalCallError, imps, parse_call, pbn_to_owner
from bridgerl.core.generate import deal_owners
from bridgerl.envs.competitive_encoding import bid_values, decode_auction, encode

ENV_ID = "bridgerl/CompetitiveBidding-v0"
OWNER = pbn_to_owner("N:AK2.Q32.K432.J32 QJ3.K54.QJ65.Q54 T987.JT9.T9.T987 654.A876.A87.AK6")


def _calls(text):
    return [parse_call(c) for c in text.split()]


def test_thesis_figure_4_8():
    calls = _calls("P 1C X 1S 2H X 3H P")
    leading, values = bid_values(calls)
    assert leading == 1
    assert {b: int(v) for b, v in enumerate(values) if v} == {0: 2, 3: 1, 7: 2, 12: 9}
    hand = (OWNER == 2).astype(np.int8)
    obs = encode(calls, True, False, hand)
    assert obs.shape == (231,) and obs[0] == 1 and obs[1] == 0
    assert obs[2:4].tolist() == [0, 1]                      # one leading pass
    assert obs[4:9].tolist() == [0, 0, 0, 1, 0]             # 1C = 2
    assert obs[4 + 5 * 12: 9 + 5 * 12].tolist() == [0, 1, 0, 0, 1]   # 3H = 9
    assert (obs[179:] == hand).all()
    # South is to act; the first pass was South's own, West (LHO) bid 1C, ...
    assert decode_auction(obs)[:3] == [(0, PASS), (1, parse_call("1C")), (2, parse_call("X"))]


@st.composite
def live_auctions(draw):
    auction = Auction(draw(st.integers(0, 3)))
    for _ in range(draw(st.integers(0, 60))):
        legal = auction.legal_calls()
        call = PASS if PASS in legal and draw(st.integers(0, 2)) == 0 else draw(st.sampled_from(legal))
        nxt = auction.add(call)
        if nxt.is_over:
            break
        auction = nxt
    return auction


@settings(max_examples=500, deadline=None)
@given(live_auctions())
def test_decode_inverts_encode(auction):
    seat = auction.to_act
    obs = encode(auction.calls, False, True, (OWNER == seat).astype(np.int8))
    decoded = decode_auction(obs)
    assert [call for _, call in decoded] == list(auction.calls)
    for i, (relative, _) in enumerate(decoded):
        assert (seat + relative) % 4 == (auction.dealer + i) % 4   # who made each call


def test_decode_rejects_garbage():
    with pytest.raises(ValueError, match="231 values"):
        decode_auction(np.zeros(89))
    bad = np.zeros(231, np.int8)
    bad[4:9] = [1, 1, 0, 0, 0]   # value 24: passes_after 3
    with pytest.raises(ValueError, match="no legal auction"):
        decode_auction(bad)


def _dd():
    """NS make 10 tricks in hearts, EW 9 in clubs; nothing else matters."""
    dd = np.full((4, 5), 4, dtype=np.uint8)
    dd[[0, 2], 2] = 10
    dd[[1, 3], 2] = 3
    dd[[1, 3], 0] = 9
    return dd


def _env(**kwargs):
    data = {"owner": OWNER[None], "dd": _dd()[None]}
    return gym.make(ENV_ID, dataset=data, disable_env_checker=True, **kwargs).unwrapped


@pytest.mark.parametrize("auction, contract, score_ns", [
    ("1H P 4H P P P", "4H", 420),                     # a making game
    ("1H 2C 4H 5C X P P P", "5CX", 300),              # the doubled sacrifice that is par
    ("1H 2C 4H X P P P", "4HX", 590),
    ("1H 2C 4H X XX P P P", "4HXX", 880),             # redoubled and making
    ("1H 2C 4H 5C P P P", "5C", 100),                 # undoubled sacrifice: beats par for EW
    ("1H 2C 4H 5C X P P XX P P P", "5CXX", 600),      # redoubled sacrifice, down two
    ("P P P P", "Pass", 0),                           # pass-out
])
def test_rewards_against_par(auction, contract, score_ns):
    env = _env()
    env.reset(options={"index": 0, "dealer": 0, "vul": "none"})
    for call in _calls(auction):
        obs, reward, done, _, info = env.step(call)
    assert done and info["contract"] == contract and info["score_ns"] == score_ns
    assert info["par_ns"] == 300
    ns = imps(score_ns - 300)
    assert info["returns"] == [ns, -ns, ns, -ns]
    caller = (len(_calls(auction)) - 1) % 4              # dealer North: the last passer's side owns the reward
    assert reward == info["returns"][caller]


def test_points_reward_and_vulnerability_from_options():
    env = _env(reward="points")
    _, info = env.reset(options={"index": 0, "dealer": "E", "vul": "both"})
    assert info["dealer"] == 1 and info["vul"] == "both" and info["seat"] == 1
    for call in _calls("P 4H P P P"):
        obs, reward, done, _, info = env.step(call)
    assert info["score_ns"] == 620 and info["returns"] == [620, -620, 620, -620]


@pytest.mark.parametrize("prefix, bad, message", [
    ("1H P", "X", "illegal call X by S"),            # double of partner
    ("1H", "XX", "illegal call XX by E"),            # redouble without a double
    ("1H X", "X", "illegal call X by S"),            # double of a doubled bid
    ("2H", "2C", "illegal call 2C by E"),            # insufficient bid
    ("2H", "2H", "illegal call 2H by E"),            # same bid
    ("1H X P", "XX", "illegal call XX by W"),        # redouble of own side's double
])
def test_illegal_calls(prefix, bad, message):
    env = _env(illegal="raise")
    env.reset(options={"index": 0, "dealer": 0})
    for call in _calls(prefix):
        env.step(call)
    with pytest.raises(IllegalCallError, match=message):
        env.step(parse_call(bad))
    assert isinstance(IllegalCallError("x"), ValueError)


def test_call_after_the_end():
    env = _env()
    env.reset(options={"index": 0, "dealer": 0})
    for call in _calls("1NT P P P"):
        env.step(call)
    with pytest.raises(ValueError, match="call Pass after the end of the auction"):
        env.step(PASS)


class _Overcaller:
    """Test opponent: overcalls 2C once, then passes; records what it saw."""

    def __init__(self):
        self.seen = []

    def act(self, observation, action_mask):
        self.seen.append((observation.copy(), action_mask.copy()))
        return parse_call("2C") if action_mask[parse_call("2C")] and len(self.seen) == 1 else PASS


def test_side_mode_with_opponent():
    opponent = _Overcaller()
    env = _env(agent_seats="NS", opponent=opponent)
    _, info = env.reset(options={"index": 0, "dealer": 1})   # East deals: the opponent calls first
    assert info["seat"] == 2 and len(opponent.seen) == 1
    assert opponent.seen[0][1].dtype == np.int8 and opponent.seen[0][0].shape == (231,)
    obs, reward, done, _, info = env.step(parse_call("4H"))  # South; West passes; North must act
    assert not done and info["seat"] == 0
    obs, reward, done, _, info = env.step(PASS)              # North passes, East passes: the end
    assert done and info["contract"] == "4H" and reward == imps(420 - 300)
    with pytest.raises(ValueError, match="agent_seats"):
        _env(agent_seats="all", opponent=opponent)


def test_checkers_and_openspiel(tmp_path):
    owner = deal_owners(4, 12)
    dd = np.stack([_dd()] * 12)
    path = tmp_path / "d.npz"
    np.savez(path, owner=owner, dd=dd)
    check_env(gym.make(ENV_ID, dataset=str(path)).unwrapped)
    check_env(gym.make(ENV_ID, dataset=str(path), agent_seats="EW").unwrapped)
    game = pyspiel.load_game("bridgerl_competitive_bidding", {"dataset": str(path)})
    assert game.num_players() == 4 and game.observation_tensor_shape() == [232]  # + auction_over
    assert game.get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    pyspiel.random_sim_test(game, num_sims=20, serialize=False, verbose=False)
    # the OpenSpiel tensor equals the Gymnasium observation on the same calls
    env = gym.make(ENV_ID, dataset=str(path)).unwrapped
    state = game.new_initial_state()
    for action in game.deal_actions(3):
        state.apply_action(action)
    obs, info = env.reset(options={"index": 3})
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        last = state.current_player()
        assert np.array_equal(np.asarray(state.observation_tensor()), np.append(obs, 0).astype(np.float32))
        live = np.asarray(state.observation_tensor(last))
        call = int(rng.choice(state.legal_actions()))
        state.apply_action(call)
        obs, reward, done, _, info = env.step(call)
    assert state.returns() == info["returns"]
    finished = np.asarray(state.observation_tensor(last))  # the last caller's tensor once its Pass ended the auction
    assert finished[-1] == 1 and live[-1] == 0 and not np.array_equal(finished, live)


def test_pettingzoo_api(tmp_path):
    from pettingzoo.test import api_test

    from bridgerl.envs.pettingzoo import competitive_bidding_v0

    path = tmp_path / "d.npz"
    np.savez(path, owner=deal_owners(5, 10), dd=np.stack([_dd()] * 10))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(competitive_bidding_v0.env(dataset=str(path)), num_cycles=300, verbose_progress=False)
    assert not [w for w in caught if "option" in str(w.message)]  # api_test's {"options": 1} is ignored quietly
    raw = competitive_bidding_v0.raw_env(dataset=str(path))
    raw.reset(seed=0, options={"index": 0, "dealer": 0})
    assert raw.agent_selection == "north"
    for call in _calls("1H P 4H P P P"):
        raw.step(call)
    assert raw.terminations["north"] and raw.rewards["north"] == imps(120) == -raw.rewards["east"]


def test_doubled_sacrifice_that_beats_par():
    # NS make 11 tricks in hearts, EW 9 in clubs, nobody vulnerable: par is NS 5H (+450), since EW's 6C save
    # would cost 500. Stopping in 4H and letting EW save in 5C doubled (down two, +300) gains EW 4 IMPs.
    dd = _dd()
    dd[[0, 2], 2] = 11
    env = gym.make(ENV_ID, dataset={"owner": OWNER[None], "dd": dd[None]}, disable_env_checker=True).unwrapped
    env.reset(options={"index": 0, "dealer": 0, "vul": "none"})
    for call in _calls("1H 2C 4H 5C X P P P"):
        obs, reward, done, _, info = env.step(call)
    assert info["par_ns"] == 450 and info["contract"] == "5CX" and info["score_ns"] == 300
    assert info["returns"] == [-4.0, 4.0, -4.0, 4.0]


def test_incremental_encoder_matches_the_whole_sequence_encoding():
    """The env's AuctionEncoder (one call at a time, the one copy of the doubling codes, which encode_auction folds
    through too) gives bits that decode back to the auction so far, in auctions rich in doubles and redoubles."""
    from bridgerl.core.competitive import AuctionEncoder

    rng = np.random.default_rng(5)
    for _ in range(1500):
        auction, encoder = Auction(int(rng.integers(4))), AuctionEncoder()
        while True:
            mask = auction.legal_mask()
            call = int(rng.choice(np.flatnonzero(mask)))
            if rng.random() < 0.6:
                call = int(rng.choice([c for c in (0, 1, 2) if mask[c]]))
            after = auction.add(call)
            if after.is_over:
                break
            encoder.add(call)
            auction = after
            n = len(auction.calls)
            expected = [((i - n) % 4, call) for i, call in enumerate(auction.calls)]
            leading = next((i for i, c in enumerate(auction.calls) if c != PASS), n)
            obs = encoder.observation(False, False, np.zeros(52, np.int8))
            assert decode_auction(obs) == expected[max(0, leading - 3):], str(auction)
