"""Auction-aware world sampling (thesis 3.3.4, InterpretAuction): the agreements table, `interpret_auction`, the
rules-constrained and policy-consistent samplers with their fallbacks, and `PIMCAgent(auction=...)`."""

import numpy as np
import pytest

from bridgerl.agents import PIMCAgent, RuleBidder
from bridgerl.agents.bidding.agreements import AGREEMENTS, fold, shown
from bridgerl.agents.bidding.engine import Shown
from bridgerl.agents.bidding.rules_agreements import interpret_auction
from bridgerl.agents.play.auction_worlds import (SamplingStats, auction_constraints, hidden_seats, policy_worlds,
                                                 replay, rules_worlds)
from bridgerl.agents.bidding.constructive_rules import ConstructiveRuleBidder
from bridgerl.core import Contract, load_dataset, pbn_to_owner
from bridgerl.core.auction import Auction
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.cards import parse_card
from bridgerl.core.competitive import CompetitiveDeal, CompetitiveDealSource
from bridgerl.core.constraints import HandConstraint
from bridgerl.core.play import PlayState
from bridgerl.core.uncontested import encode_observation, rule_openings_from_features
from bridgerl.envs import view_of

N, E, S, W = range(4)
BIDDER = RuleBidder(competitive=True)


def auction(dealer: int, calls: str) -> Auction:
    return Auction.from_calls(dealer, calls.split())


def bid_with_rules(deal) -> BridgeState:
    state = BridgeState.start(deal)
    while state.phase == "auction":
        state = state.apply(BIDDER.act_view(state.view()))
    return state


def declarer_position(row: int) -> BridgeState:
    """Test deal ``row`` bid by the rule bidder at all seats, after the opening lead (its lowest legal card): the
    next card is declarer's choice for dummy."""
    state = bid_with_rules(CompetitiveDealSource(load_dataset("test")).deal_at(row))
    assert state.phase == "play"
    return state.apply(CARD_OFFSET + state.view().legal[0])


def rows_where(predicate, limit: int = 60):
    for row in range(limit):
        state = declarer_position(row)
        if predicate(state):
            return state
    raise AssertionError("no test deal with that auction")


# -- the table and interpret_auction ---------------------------------------------------------------------------
def test_1nt_opener_reads_15_to_17_balanced():
    constraints = interpret_auction(auction(N, "1NT P P P"), "none")
    assert constraints[N] == HandConstraint.notrump_opener(15, 17)
    # over their 1NT the rule bidder acts only with a good five-card suit (11-17 at the two level): a pass shows
    # nothing (it passes a balanced 20 too)
    assert constraints[E] == HandConstraint() == constraints[W]
    assert constraints[S].hcp == (0, 6) and constraints[S].lengths[2:] == ((0, 4), (0, 4))  # pass over 1NT


def test_overcalls_read_their_strength_and_suit():
    one = interpret_auction(auction(N, "1H 1S P P P"), "NS", seats=[E])
    assert one == {E: HandConstraint.with_lengths(hcp=(8, 17), S=(5, 13))}
    two = interpret_auction(auction(N, "1S 2H P P P"), "both")[E]
    assert two == HandConstraint.with_lengths(hcp=(11, 17), H=(5, 13))
    double = interpret_auction(auction(N, "1H X P 1S P P P"), "none")
    # the takeout double: 12+ with shape, or any 18+, so the hull shows 12+ and no shape
    assert double[E] == HandConstraint(hcp=(12, 37))
    # South passed partner's 1H: the constructive bidder does not see a double, 0-5 as without it
    assert double[S].hcp == (0, 5)
    # the cheapest advance is made with 0-8 and with 12+ that has no game to bid: it shows nothing
    assert double[W] == HandConstraint()


def test_passes_in_first_seat_and_over_partners_opening():
    # North passes in first seat (0-11: 10-11 opens with the rule of 20), then answers partner's 1H with 1S
    assert interpret_auction(auction(N, "P P 1H P 1S P P P"), "none")[N] == HandConstraint.with_lengths(
        hcp=(6, 11), S=(4, 13))
    assert interpret_auction(auction(N, "P P 1D P P P"), "none")[N].hcp == (0, 5)  # then passed partner's 1D
    assert interpret_auction(auction(N, "P 1S P P P"), "none")[N].hcp == (0, 11)
    assert interpret_auction(auction(S, "P P P P"), "none")[E].hcp == (0, 11)


def test_a_call_reads_what_its_rules_make_it_from():
    """Each call reads as the hull of the rules of its situation that make it: a rule that cannot fire in that
    auction (its auction-only tests fail) is not read; a rule that passes where its call cannot be made reads for a
    pass."""
    # over partner's 1D, the "1D over 1C" responses cannot be made: a pass reads only "too weak to respond"
    assert interpret_auction(auction(N, "1D P P P"), "none")[S].hcp == (0, 5)
    # over partner's 1C a pass is also 0-5, and 1D reads 6+ with four diamonds (the hull of its two rules)
    one_diamond = interpret_auction(auction(N, "1C P 1D P P P"), "none")[S]
    assert one_diamond == HandConstraint.with_lengths(hcp=(6, 37), D=(4, 13))
    # a pass over their 1H: any 18+ doubles (a rule on HCP alone), so the pass shows at most 17
    assert interpret_auction(auction(N, "1H P P P"), "none")[E].hcp == (0, 17)
    # the constructive raise of a major: 6-10 HCP with three+ cards, 11-12 total points for the limit raise
    assert interpret_auction(auction(N, "1S P 2S P P P"), "none")[S] == HandConstraint.with_lengths(
        hcp=(6, 10), S=(3, 13))
    assert interpret_auction(auction(N, "1S P 3S P P P"), "none")[S] == HandConstraint.with_lengths(
        hcp=(6, 12), S=(3, 13))


def test_contradictions_widen_to_the_later_calls_range():
    # North passes first (0-11), then bids 4NT over partner's 1NT (15-16): the ranges do not meet
    assert interpret_auction(auction(N, "P P 1NT P 4NT P P P"), "none")[N].hcp == (15, 16)
    assert fold([Shown("a pass", 0, None, 5, (None,) * 4), Shown("an opening", 1, 15, 17, (None,) * 4)]).hcp == (15, 17)
    # six spades, then a balanced notrump: no balanced shape has six spades, so the later call's shape stands
    c = fold([shown("later rebid of a suit", 0, strain=3), shown("other notrump bid", 1)])
    assert c.balanced and c.lengths[3] == (0, 13)
    assert fold([]) == HandConstraint()


def test_the_table_agrees_with_the_thesis_opening_rules_and_drives_the_bidders(monkeypatch):
    from bridgerl.agents.bidding import rules_table
    from bridgerl.agents.bidding.engine import R

    points = np.arange(38)
    openings = {rule.call: rule for rule in rules_table.OPENINGS}
    for shape, balanced in (((4, 3, 3, 3), True), ((5, 4, 3, 1), False)):
        lengths = np.broadcast_to(np.array(shape[::-1]), (38, 4))
        rules = rule_openings_from_features(lengths, points)
        for call, column in (("1N", 4), ("2N", 9)):
            low, high = openings[call].hcp
            assert (rules[:, column] == (balanced & (points >= low) & (points <= high))).all()
    assert AGREEMENTS["1NT opening"].hcp == openings["1N"].hcp  # the picture of partner keeps the opening's range
    # one source: a responder with 7 HCP bids over partner's 1C, and passes once the table says 0-7 is a pass
    bits = np.zeros(52, np.int8)
    bits[[parse_card(c) for c in ("SQ", "S4", "S3", "S2", "HK", "H4", "H3", "H2", "DQ", "D3", "D2", "C3", "C2")]] = 1
    obs = encode_observation(False, False, [0], bits)
    mask = np.zeros(36, np.int8)
    mask[0], mask[2:] = 1, 1
    assert ConstructiveRuleBidder().act(obs, mask) != 0
    respond = rules_table.TABLE["respond suit"]
    monkeypatch.setitem(rules_table.TABLE, "respond suit", (R("P", (0, 7)),) + respond[1:])
    assert ConstructiveRuleBidder().act(obs, mask) == 0
    assert interpret_auction(auction(N, "1C P P P"), "none")[S].hcp == (0, 7)


# -- rules-constrained worlds -----------------------------------------------------------------------------------
def test_rules_worlds_meet_the_auction_constraints():
    checked = 0
    for row in range(12):
        state = declarer_position(row)
        view = state.view()
        constraints = auction_constraints(view)
        assert set(constraints) <= set(hidden_seats(view))
        stats = SamplingStats()
        worlds = rules_worlds(view, 20, seed=row, stats=stats)
        assert len(worlds) == 20 and stats.samples == 1
        if stats.rules_fallbacks == 0:
            for seat, constraint in constraints.items():
                assert constraint.accepts(worlds, seat).all()
                checked += 1
        for seat, cards in view.known_hands().items():
            assert (worlds[:, list(cards)] == seat).all()
    assert checked >= 10


def test_rules_worlds_are_worlds_the_table_would_bid_so():
    """The rules sampler reads the table back whole: beyond its ranges, each kept world's hidden hands would have made
    their seats' table-decided calls (`engine.makes_calls`); worlds the table rejects only fill a shortfall."""
    from bridgerl.agents.bidding.engine import makes_calls, table_checks
    from bridgerl.agents.bidding.rules_agreements import RULES

    replayed = 0
    for row in range(8):
        view = declarer_position(row).view()
        stats = SamplingStats()
        worlds = rules_worlds(view, 12, seed=row, stats=stats)
        checks = {seat: table_checks(RULES, view.auction, seat) for seat in hidden_seats(view)}
        ok = [all(makes_calls(RULES, found, world == seat) for seat, found in checks.items() if found)
              for world in worlds]
        assert len(worlds) == 12 and sum(ok) >= 12 - stats.table_fills
        replayed += stats.table_candidates
        # without the replay: the ranges alone (max_candidates=0), which some of these worlds fail
        plain = rules_worlds(view, 12, seed=row, max_candidates=0)
        assert len(plain) == 12
    assert replayed >= 8 * 12


def test_rules_worlds_fall_back_when_the_constraints_meet_no_world():
    # East "opened 1NT" (15-17), but South and North hold 27 of the 40 points: West and East have 13 between them
    owner = pbn_to_owner("N:AKQJ.AKQ.432.432 T987.J987.J98.J9 6543.654.AKQ.AKQ 2.T32.T765.T8765")
    state = PlayState.start(owner, Contract.parse("3NT S"), played=["S2"])
    view = view_of(state, auction=auction(E, "1NT P P 3NT P P P"), vul="none")
    stats = SamplingStats()
    worlds = rules_worlds(view, 10, seed=0, max_tries=4000, stats=stats)
    assert len(worlds) == 10 and stats.rules_fallbacks == 1 and stats.samples == 1


# -- policy-consistent worlds ----------------------------------------------------------------------------------
def bid_again(state: BridgeState, world: np.ndarray, seats) -> bool:
    """Whether the rule bidder, dealt ``world``, makes every call of ``seats`` in ``state``'s auction (the known seats'
    calls are copied): an `act_view` replay, independent of `replay`'s batched observations."""
    deal = CompetitiveDeal(world, np.zeros((4, 5), dtype=np.int8), state.deal.dealer, state.deal.vul, 1, None, 0)
    replayed = BridgeState.start(deal, play="double_dummy")
    for call in state.auction.calls:
        if replayed.auction.to_act in seats and BIDDER.act_view(replayed.view()) != call:
            return False
        replayed = replayed.apply(call)
    return True


def test_policy_worlds_reproduce_the_auction():
    state = rows_where(lambda s: sum(c > 0 for i, c in enumerate(s.auction.calls)
                                     if (s.auction.dealer + i) % 2 != s.contract.declarer % 2) >= 1)
    view = state.view()
    hidden = hidden_seats(view)
    for prior in ("none", "rules"):
        stats = SamplingStats()
        worlds = policy_worlds(view, 12, {seat: BIDDER for seat in range(4)}, seed=5, prior=prior, stats=stats)
        assert len(worlds) == 12 and stats.consistent == 12 and stats.near_miss_samples == 0
        matched, checks, _ = replay(state.auction, view.vul, worlds, {seat: BIDDER for seat in hidden})
        assert checks >= 2 and (matched == checks).all()
        assert all(bid_again(state, world, hidden) for world in worlds)
        for seat, cards in view.known_hands().items():
            assert (worlds[:, list(cards)] == seat).all()


def test_policy_fallbacks_are_taken_and_counted():
    state = rows_where(lambda s: any(c > 2 for i, c in enumerate(s.auction.calls)
                                     if (s.auction.dealer + i) % 2 != s.contract.declarer % 2))
    view = state.view()
    bidders = {seat: BIDDER for seat in range(4)}
    stats = SamplingStats()
    worlds = policy_worlds(view, 20, bidders, seed=1, prior="none", max_candidates=20, batch=20, stats=stats)
    assert len(worlds) == 20 and stats.candidates == 20
    assert stats.near_miss_samples == 1 and stats.consistent + stats.near_miss_worlds == 20
    few = SamplingStats()
    worlds = policy_worlds(view, 20, bidders, seed=1, prior="none", max_candidates=4, batch=4, stats=few)
    assert len(worlds) == 20 and few.unconstrained_samples == 1
    assert few.consistent + few.near_miss_worlds == 4 and few.unconstrained_worlds == 16
    with pytest.raises(ValueError, match="prior"):
        policy_worlds(view, 5, bidders, prior="uniform")
    with pytest.raises(TypeError, match="act_batch"):
        policy_worlds(view, 5, {0: object()})


# -- the play agent ----------------------------------------------------------------------------------------------
def test_pimc_auction_modes_are_deterministic_for_a_seed():
    state = declarer_position(3)
    view = state.view()
    for mode, prior in (("rules", "none"), ("policy", "none"), ("policy", "rules")):
        cards, samples = [], []
        for _ in range(2):
            agent = PIMCAgent(worlds=8, seed=11, auction=mode, max_candidates=400, prior=prior)
            agent.see_bidders({seat: BIDDER for seat in range(4)})
            samples.append(agent.sample(view))
            cards.append(agent.act(view))
            assert agent.sampling.samples == 2
        assert cards[0] == cards[1] and np.array_equal(samples[0], samples[1])
    agent = PIMCAgent(worlds=8, seed=11, auction="policy")
    with pytest.raises(ValueError, match="see_bidders"):
        agent.act(view)
    with pytest.raises(ValueError, match="auction must be one of"):
        PIMCAgent(auction="bidding")
    with pytest.raises(ValueError, match="prior must be one of"):
        PIMCAgent(auction="policy", prior="uniform")


def test_a_view_without_an_auction_samples_as_none():
    state = PlayState.start(load_dataset("test").owner[0], Contract.parse("4S N"))
    state = state.play(state.legal_cards()[0])
    view = view_of(state)
    assert view.auction is None
    plain = PIMCAgent(worlds=6, seed=2)
    for mode in ("rules", "policy"):  # policy needs no bidders without an auction
        agent = PIMCAgent(worlds=6, seed=2, auction=mode)
        assert np.array_equal(agent.sample(view), PIMCAgent(worlds=6, seed=2).sample(view))
        assert agent.act(view) == plain.act(view) and agent.sampling.samples == 0
        plain = PIMCAgent(worlds=6, seed=2)


def test_play_specs_take_the_auction_key():
    from bridgerl.arena.specs import load_play_agent

    agent = load_play_agent("pimc:worlds=20,auction=rules", seed=0)
    assert agent.auction == "rules" and agent.worlds == 20
    with pytest.raises(ValueError, match="auction must be one of"):
        load_play_agent("pimc:auction=bidding")


def test_auction_aware_worlds_agree_more_with_the_hidden_hands():
    """On held-out deals bid by the rule bidders, the hidden hands of declarer's worlds come closer to the real ones
    in HCP when sampled with the auction (rules or policy) than without (benchmarks/auction_worlds.py measures the
    full table)."""
    from bridgerl.core.hand import hcp

    errors = {"none": [], "rules": [], "policy": []}
    bidders = {seat: BIDDER for seat in range(4)}
    source = CompetitiveDealSource(load_dataset("test"))
    for row in range(12):
        state = bid_with_rules(source.deal_at(row))
        if state.phase != "play":  # passed out
            continue
        state = state.apply(CARD_OFFSET + state.view().legal[0])  # the opening lead
        view = state.view()
        truth = state.deal.owner
        for method in errors:
            agent = PIMCAgent(worlds=10, seed=row, auction=method, max_candidates=400)
            agent.see_bidders(bidders)
            worlds = agent.sample(view)
            for seat in hidden_seats(view):
                errors[method] += list(np.abs(hcp(worlds, seat) - hcp(truth[None], seat)[0]))
    mean = {method: float(np.mean(values)) for method, values in errors.items()}
    assert mean["rules"] < mean["none"] - 0.5 and mean["policy"] < mean["none"] - 0.5, mean
