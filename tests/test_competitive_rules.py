"""The competitive rule baseline (issue #10, docs/agents.md): its agreements on hand-built auctions, and a legal
call in any auction it may meet."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from bridgerl.agents import CompetitiveRuleBidder, RuleBidder
from bridgerl.core import Auction, load_dataset, parse_call
from bridgerl.core.calls import DOUBLE, PASS
from bridgerl.envs.competitive import CompetitiveBiddingEnv
from bridgerl.envs.competitive_encoding import encode
from helper_games import hand_bits




def _call(hand: str, auction: str) -> int:
    """The bidder's call after ``auction`` (dealer first), nobody vulnerable."""
    calls = [parse_call(c) for c in auction.split()]
    legal = Auction.from_calls(0, calls).legal_mask()
    return RuleBidder(competitive=True).act(encode(calls, False, False, hand_bits(hand)), legal)


def _bid(text: str) -> int:
    return parse_call(text)


def test_the_spec_class_is_the_competitive_bidder():
    assert isinstance(RuleBidder(competitive=True), CompetitiveRuleBidder)


@pytest.mark.parametrize("hand, auction, expected", [
    ("AKJ54.432.K32.32", "1C", "1S"),       # a good five-card suit, 11 points: overcall
    ("KJ54.AQ43.K432.2", "1C", "X"),        # 13 points, a singleton in their suit: takeout double
    ("AQ3.KJ4.Q432.KJ3", "1C", "1NT"),      # 16 balanced with a club stopper
    ("95432.Q32.J32.32", "1C", "P"),        # a poor suit and 3 points: pass
    ("KQT87.A2.932.T93", "1C", "1S"),
])
def test_direct_action_over_a_one_level_opening(hand, auction, expected):
    assert _call(hand, auction) == _bid(expected)


def test_advancer_answers_a_takeout_double_in_the_longest_unbid_suit():
    # 1C by dealer, X by partner, P: with 4 hearts and 6 points bid the cheapest heart
    assert _call("432.QT87.J32.432", "1C X P") == _bid("1H")


def test_penalty_double_of_a_trump_stack():
    # they open 1S and raise to 2S; we hold AKJ32 of spades and 14 points, sitting over the raiser
    assert _call("AKJ32.K32.K32.32", "1S P 2S") == DOUBLE


@settings(max_examples=60, deadline=None)
@given(row=st.integers(0, 4999), choices=st.lists(st.floats(0, 1, exclude_max=True), max_size=40),
       rule_share=st.floats(0, 1))
def test_a_legal_call_in_any_auction(row, choices, rule_share):
    """Auctions mixing random legal calls and the bidder's own, up to 7NT redoubled: always a legal call."""
    bidder = RuleBidder(competitive=True)
    env = CompetitiveBiddingEnv(dataset=_TEST)
    observation, info = env.reset(options={"index": row})
    for choice in choices:
        mask = info["action_mask"].astype(bool)
        call = bidder.act(observation, mask)
        assert mask[call], (row, call)
        if choice >= rule_share:  # a random legal call instead of the bidder's
            legal = np.flatnonzero(mask)
            call = int(legal[int(choice * len(legal))])
        observation, _, done, _, info = env.step(call)
        if done:
            break


_TEST = load_dataset("test")


def test_an_uncontested_agent_as_the_constructive_system():
    """``constructive=``: while the opponents pass, the uncontested agent (89 bits, 36 actions) makes our calls
    within the thesis opening rules; once they bid, the competitive agreements take over."""

    class Grand:  # 7NT (action 35) whenever it may, else the first legal action
        def act(self, observation, mask):
            assert observation.shape == (89,) and mask.shape == (36,)
            return 35 if mask[35] else int(np.flatnonzero(mask)[0])

    bidder = CompetitiveRuleBidder(constructive=Grand())
    # the opening keeps the thesis rules: 16 points with five spades open 1S, whatever the agent prefers
    opening = "AKJ54.KQ2.K32.32"
    legal = Auction.from_calls(0, []).legal_mask()
    assert bidder.act(encode([], False, False, hand_bits(opening)), legal) == _bid("1S")
    # partner opened 1S, they passed: the agent answers
    calls = [_bid("1S"), PASS]
    legal = Auction.from_calls(0, calls).legal_mask()
    responder = "Q32.A432.QJ2.432"
    assert bidder.act(encode(calls, False, False, hand_bits(responder)), legal) == _bid("7NT")
    assert RuleBidder(competitive=True).act(encode(calls, False, False, hand_bits(responder)), legal) != _bid("7NT")
    calls = [_bid("1C")]  # over their 1C the competitive agreements take over: the rules' own overcall
    legal = Auction.from_calls(0, calls).legal_mask()
    assert bidder.act(encode(calls, False, False, hand_bits("AKJ54.432.K32.32")), legal) == _bid("1S")


def test_rejects_a_wrong_observation():
    with pytest.raises(ValueError, match="231 observation values and 38 actions"):
        CompetitiveRuleBidder().act(np.zeros(89), np.ones(36))


def test_rules_with_the_uncontested_dqn_spec():
    from pathlib import Path

    from bridgerl.arena.specs import load_agent

    model = Path(__file__).resolve().parents[1] / "models" / "uncontested-dqn"
    agent = load_agent(f"rules+dqn:{model}", "competitive_bidding")
    assert isinstance(agent, CompetitiveRuleBidder)
    with pytest.raises(ValueError, match="is for competitive bidding"):
        load_agent(f"rules+dqn:{model}", "uncontested_bidding")


def test_rule_bidders_calls_are_pinned():
    """The rule bidders' calls on 300 held-out boards (rules against rules and against silent opponents, both
    tables) hash to the value recorded before their agreements moved into `bridgerl.agents.bidding.agreements` (commit
    b091dd2): moving the numbers into data changed no call."""
    import hashlib

    from bridgerl.agents import PassAgent
    from bridgerl.evaluation.bidding.competitive import duplicate_match

    digest = hashlib.sha256()
    for other in (RuleBidder(competitive=True), PassAgent()):
        boards = []
        duplicate_match(RuleBidder(competitive=True), other, "test", deals=300, boards=boards)
        for item in boards:
            for table in item["tables"]:
                digest.update((" ".join(table["auction"]) + "\n").encode())
    assert digest.hexdigest() == "4b0ca9d882f6350b9f470c6e87c22c1d45766c910cf96d433a51c414f68411a3"


# Issue #35: the rules' calls on 2,000 held-out boards, pinned before their agreements move into one engine, so that
# every "vs rules" figure stays valid: sha256 of both tables' auctions (as `duplicate_match` records them) of
# `rules` against each opponent on the first 2,000 test deals, and the IMPs it scored there (against the released
# PPO, by replay of the recorded auctions: below).
RULES_PINS = {
    "rules": ("6a4e77a519a5bea85405c59fea9e6998669b2599c58a7d7241ee517e4e1344e1", 0.0),
    "sayc": ("3389a6dcf97833646aacaade0d02cee0c07c27ae8149214a76eb5d9c5477657b", -0.4135),
    "random": ("abadaacb5f90a6730c0b1cc12b395b63ceb3d47f1a498e9343d69805c949969b", 15.889),
}


@pytest.mark.parametrize("opponent", list(RULES_PINS))
def test_rules_calls_against_each_opponent_are_pinned_on_2000_boards(opponent):
    import hashlib

    from bridgerl.evaluation.bidding.competitive import duplicate_match
    from bridgerl.arena.specs import load_agent

    boards = []
    match = duplicate_match(load_agent("rules", "competitive_bidding"), load_agent(opponent, "competitive_bidding"),
                            "test", deals=2000, boards=boards)
    digest = hashlib.sha256()
    for item in boards:
        for table in item["tables"]:
            digest.update((" ".join(table["auction"]) + "\n").encode())
    assert (digest.hexdigest(), round(match["imps_per_board"], 4)) == RULES_PINS[opponent]


def test_rules_calls_against_the_released_ppo_are_pinned_on_2000_boards():
    """Against the released PPO (models/competitive-ppo) the rules' calls are pinned by replay: the auctions of
    ``duplicate_match(rules, PPO, "test", deals=2000)`` (rules North-South at the first table, East-West at the
    second; IMPs -0.3885) were recorded before the change in `tests/data/rules_vs_ppo_auctions.npz`, and at every
    turn of the rules' side the bidder must make the recorded call. The PPO's calls come from the record, so the pin
    does not rest on the network's floating point (which may round differently on another CPU)."""
    from pathlib import Path

    from bridgerl.core.bridge import BridgeState
    from bridgerl.core.competitive import CompetitiveDealSource
    from bridgerl.arena.specs import load_agent

    record = np.load(Path(__file__).parent / "data" / "rules_vs_ppo_auctions.npz")
    calls, lengths = record["calls"].astype(np.int64), record["lengths"].astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)])
    source = CompetitiveDealSource(load_dataset("test"))
    bidder = load_agent("rules", "competitive_bidding")
    checked, differ = 0, []
    for k in range(len(lengths)):
        row, rules_side = divmod(k, 2)
        state = BridgeState.start(source.deal_at(row), "double_dummy")
        for call in calls[starts[k]:starts[k + 1]]:
            if state.auction.to_act % 2 == rules_side:
                checked += 1
                mine = bidder.act_view(state.view())
                if mine != call:
                    differ.append((row, rules_side, len(state.auction.calls), int(mine), int(call)))
                    break
            state = state.apply(int(call))
        assert state.auction.is_over
    assert len(lengths) == 4000 and checked > 10_000
    assert not differ, f"{len(differ)} auctions where rules now calls differently, e.g. {differ[:5]}"


def test_uncontested_rule_bidder_is_pinned():
    """The uncontested rule bidder's contracts, declarers and IMPs on the whole test split: its -4.51 of
    docs/results.md (`bridgerl evaluate uncontested --agent rules --data test`)."""
    import hashlib

    from bridgerl.arena.specs import load_agent
    from bridgerl.evaluation.bidding.uncontested import evaluate_uncontested

    summary, outcomes = evaluate_uncontested(load_agent("rules"), "test")
    digest = hashlib.sha256()
    for outcome in outcomes:
        digest.update(f"{outcome.row} {outcome.contract} {outcome.declarer} {outcome.imps}\n".encode())
    assert digest.hexdigest() == "de7dc41491f17e4b2192274d2f4055f781c18dc7f079c1fb751b2b00b698f00b"
    assert (summary["deals"], round(summary["imps_per_deal"], 4)) == (5000, -4.5084)
