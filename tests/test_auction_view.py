"""The auction view bidding agents read (`bridgerl.envs.AuctionView`) and the one wrapper for a constructive bidder
while the opponents pass (`bridgerl.agents.SilentOpponents`)."""

import gymnasium as gym
import numpy as np
import pytest

import bridgerl  # noqa: F401
from bridgerl.agents import PassAgent, RuleBidder, SilentOpponents
from bridgerl.core import Auction, parse_call
from bridgerl.core.calls import BID_OFFSET, PASS, uncontested_to_call
from bridgerl.core.competitive import encode
from bridgerl.envs import AuctionView, decode_auction


def test_the_env_view_is_the_observation_read_back():
    env = gym.make("bridgerl/CompetitiveBidding-v0", dataset="test").unwrapped
    rng = np.random.default_rng(0)
    checked = 0
    for episode in range(40):
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            view = info["view"]
            assert view.seat == info["seat"] and view.legal_mask.tolist() == info["action_mask"].astype(bool).tolist()
            assert view == AuctionView.from_observation(obs, info["action_mask"])
            assert (view.observation() == obs).all() and list(view.calls) == decode_auction(obs)
            assert view.hand == tuple(np.flatnonzero(env.deal.owner == view.seat))
            checked += 1
            obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert info["view"] is None
    assert checked > 100


def test_relative_seats_and_the_uncontested_view():
    hand = np.zeros(52, np.int8)
    hand[[12, 11, 25, 24, 23, 38, 37, 36, 51, 50, 49, 48, 47]] = 1  # a strong balanced-ish hand
    calls = [parse_call(c) for c in "P 1H P".split()]  # dealer N: N pass, E 1H, S pass; W to act
    auction = Auction.from_calls(0, calls)
    view = AuctionView.of(auction, hand, True, False)
    assert view.seat == 3 and view.calls == ((1, PASS), (2, parse_call("1H")), (3, PASS))
    assert not view.opponents_have_bid  # partner (E) opened; our side only
    obs89, mask36 = view.uncontested()
    assert obs89[0] == 1 and obs89[1] == 0  # we are vulnerable; none of us passed before our first bid
    assert obs89[2 + parse_call("1H") - BID_OFFSET] == 1 and mask36[0] and not mask36[1:3].any()
    against = AuctionView.of(Auction.from_calls(0, [parse_call("1S")]), hand, False, False)
    assert against.opponents_have_bid and against.calls == ((3, parse_call("1S")),)
    with pytest.raises(ValueError, match="231 observation values and 38 actions"):
        AuctionView.from_observation(np.zeros(89), np.ones(36))


class _Recorder:
    """A competitive bidder with only one of the interfaces; records what it was called with."""

    def __init__(self, kind):
        self.kind, self.calls = kind, 0
        if kind == "act_batch":
            self.act_batch = lambda obs, masks: [self._note() or int(np.flatnonzero(m)[0]) for m in masks]
        elif kind == "act_view":
            self.act_view = lambda view: self._note() or view.legal[0]
        else:
            self.act = lambda obs, mask: self._note() or int(np.flatnonzero(mask)[0])

    def _note(self):
        self.calls += 1


@pytest.mark.parametrize("kind", ["act_batch", "act_view", "act"])
def test_silent_opponents_hands_contested_auctions_to_any_kind_of_bidder(kind):
    competitive = _Recorder(kind)
    agent = SilentOpponents(RuleBidder(), competitive)
    hand = np.zeros(52, np.int8)
    hand[np.arange(0, 52, 4)] = 1
    contested = Auction.from_calls(0, [parse_call("1S")])  # E bid: W's opponents have bid
    silent = Auction.from_calls(0, [PASS])
    for auction in (contested, silent):
        view = AuctionView.of(auction, hand, False, False)
        obs, mask = encode(auction.calls, False, False, hand), auction.legal_mask().astype(np.int8)
        assert agent.act_view(view) == agent.act(obs, mask) == agent.act_batch(obs[None], mask[None])[0]
    assert competitive.calls == 3  # only the contested auction reached it, once per entry point
    expected_silent = uncontested_to_call(RuleBidder().act(*AuctionView.of(silent, hand, False, False).uncontested()))
    assert agent.act_view(AuctionView.of(silent, hand, False, False)) == expected_silent


def test_the_competitive_rule_bidder_is_a_silent_opponents_wrapper():
    rules = RuleBidder(competitive=True)
    assert isinstance(rules, SilentOpponents) and type(rules.constructive).__name__ == "ConstructiveRuleBidder"
    with pytest.raises(ValueError, match="competitive=True"):
        RuleBidder(constructive=PassAgent())


def test_a_duplicate_match_hands_views_to_an_agent_that_reads_them():
    from bridgerl.evaluation.bidding.competitive import duplicate_match

    class ViewReader:
        """Passes, through act_view only; act would fail."""

        def __init__(self):
            self.views = 0

        def act_view(self, view):
            assert isinstance(view, AuctionView) and view.seat in (0, 1, 2, 3)
            self.views += 1
            return PASS

        def act(self, observation, action_mask):
            raise AssertionError("evaluation should prefer act_view")

    reader = ViewReader()
    result = duplicate_match(reader, PassAgent(), "test", deals=5, names=("views", "pass"))
    assert reader.views > 0 and result["boards"] == 5
