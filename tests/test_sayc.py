"""The `sayc` system (issue #22, docs/agents.md): its agreements on hand-built auctions, never an illegal call, the
table read back for world sampling, and the spec."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from bridgerl.agents import PassAgent, RuleBidder, SAYCBidder
from bridgerl.agents.play.auction_worlds import SamplingStats, auction_constraints, rules_worlds
from bridgerl.agents.bidding.sayc import (SAYCHand, call_reading, resolve, sayc_constraints, situation, table_call)
from bridgerl.agents.bidding.sayc_agreements import TABLE
from bridgerl.core import Auction, load_dataset, parse_call
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.calls import DOUBLE, PASS
from bridgerl.core.competitive import CompetitiveDealSource
from bridgerl.envs.competitive import CompetitiveBiddingEnv
from bridgerl.envs.competitive_encoding import encode
from bridgerl.evaluation.bidding.competitive import duplicate_match
from bridgerl.arena.specs import load_agent
from helper_games import hand_bits




def _call(hand: str, auction: str = "") -> str:
    """The `sayc` call after ``auction`` (dealer first), nobody vulnerable, as text."""
    calls = [parse_call(c) for c in auction.split()]
    legal = Auction.from_calls(0, calls).legal_mask()
    call = SAYCBidder().act(encode(calls, False, False, hand_bits(hand)), legal)
    assert legal[call]
    return {PASS: "P", DOUBLE: "X"}.get(call) or _name(call)


def _name(call: int) -> str:
    from bridgerl.core import call_name

    return call_name(call).replace("NT", "N")


@pytest.mark.parametrize("hand, auction, expected", [
    # openings
    ("AQ3.KJ4.Q432.KJ3", "", "1N"),           # 16 balanced
    ("AKQ3.AK4.AQ2.KJ3", "", "2C"),           # 26: strong 2C
    ("AQ3.KJ4.AQ32.KQ3", "", "2N"),           # 21 balanced
    ("KQJ432.43.432.32", "", "2S"),           # weak two: 6 HCP, a good six-card suit
    ("AK432.KQ32.32.32", "", "1S"),           # five spades
    ("A432.KQ32.K32.32", "", "1D"),           # 4-4 majors, three diamonds, two clubs: 1D
    ("A432.KQ32.32.K32", "", "1C"),           # three clubs, two diamonds: 1C
    ("K32.A32.QJ32.K32", "", "1D"),           # 13, four diamonds
    ("KJ32.A32.Q32.K32", "", "1C"),           # 3-3 minors: 1C
    ("5432.432.432.K32", "", "P"),
    # responses to 1NT: Stayman, transfers, notrump raises
    ("KJ32.Q432.K32.32", "1N P", "2C"),        # 9 HCP, four-card majors: Stayman
    ("32.Q8765.432.432", "1N P", "2D"),        # five hearts: transfer, any strength
    ("Q8765.32.432.432", "1N P", "2H"),        # five spades: transfer
    ("K32.Q32.K432.432", "1N P", "2N"),        # 8 balanced, no major: invite
    ("K32.Q32.KJ32.Q32", "1N P", "3N"),        # 11: game
    ("432.432.5432.432", "1N P", "P"),
    # opener answers Stayman and completes transfers
    ("AQ3.KJ43.Q43.KJ3", "1N P 2C P", "2H"),
    ("AQ43.KJ4.Q43.KJ3", "1N P 2C P", "2S"),
    ("AQ3.KJ4.Q432.KJ3", "1N P 2C P", "2D"),
    ("AQ3.KJ4.Q432.KJ3", "1N P 2D P", "2H"),
    ("AQ3.KJ43.AQ4.J32", "1N P 2D P", "3H"),  # 17 and four hearts: super-accept
    # responder after Stayman: game or an invitation in the fit
    ("KJ32.Q432.K32.Q2", "1N P 2C P 2S P", "4S"),
    ("KJ32.Q432.K32.32", "1N P 2C P 2S P", "3S"),   # 9 HCP: invite
    # responses to a major
    ("K432.AQ32.K32.32", "1H P", "2N"),        # Jacoby 2NT: 4 hearts, 13 points
    ("K32.Q32.K432.J32", "1H P", "2H"),        # simple raise
    ("KJ32.Q32.5432.32", "1S P", "2S"),
    ("K432.43.K432.432", "1H P", "1S"),        # four spades, 6 HCP, no heart support
    ("432.32.Q5432.KJ2", "1H P", "1N"),
    ("5432.32.5432.432", "1H P", "P"),
    # competition
    ("AKJ54.432.K32.32", "1H", "1S"),          # a good five-card suit, 11 HCP: overcall
    ("KJ54.2.AQ43.K432", "1H", "X"),           # takeout double
    ("AQ3.KJ4.Q432.KJ3", "1C", "1N"),          # 1NT overcall with a club stopper
    ("KQJ432.43.432.32", "1C", "2S"),          # weak jump overcall
    ("K32.Q432.K32.432", "1C 1S", "X"),        # negative double: four hearts, 8 HCP
    ("432.QT87.J32.432", "1C X P", "1H"),      # advance a takeout double: the cheapest in the longest
    ("432.KQ32.K32.432", "1H P", "2H"),
    ("K432.32.KJ32.QJ2", "1H X", "XX"),        # redouble: 10+
    # Blackwood answers
    ("A32.A432.K32.432", "1H P 3H P 4N P", "5H"),  # two aces
    ("K32.Q432.K32.K32", "1H P 3H P 4N P", "5C"),  # no ace
])
def test_agreements_on_hand_built_auctions(hand, auction, expected):
    assert _call(hand, auction) == expected


def test_situations_name_the_table():
    names = {situation([]).name, situation([(2, parse_call("1NT")), (3, PASS)]).name,
             situation([(3, parse_call("1H"))]).name}
    assert names == {"open", "respond 1N", "over their one-level opening"}
    assert all(name in TABLE for name in names)


def test_templates_resolve_against_the_auction():
    ctx = situation([(1, parse_call("1H")), (2, parse_call("1S")), (3, PASS)])  # partner overcalled 1S over 1H
    assert ctx.name == "advance their overcall" and ctx.suits == {"o": 2, "p": 3}
    assert resolve("p^", None, ctx) == parse_call("2S")
    assert resolve("p^^", None, ctx) == parse_call("3S")
    assert resolve("o^", None, ctx) == parse_call("2H")     # the cue-bid
    assert resolve("x^", 0, ctx) == parse_call("2C")
    assert resolve("3N", None, ctx) == parse_call("3NT")


def test_a_call_reads_back_as_what_it_shows():
    ctx = situation([])
    one_nt = call_reading(ctx, parse_call("1NT"), 0)
    assert (one_nt.low, one_nt.high, one_nt.balanced) == (15, 17, True)
    weak_two = call_reading(ctx, parse_call("2S"), 0)
    assert (weak_two.low, weak_two.high, weak_two.lengths[3]) == (5, 10, (6, 6))
    transfer = call_reading(situation([(2, parse_call("1NT")), (3, PASS)]), parse_call("2D"), 2)
    assert transfer.lengths[2] == (5, 13) and transfer.low is None
    constraints = sayc_constraints(Auction.from_calls(0, [parse_call(c) for c in "1NT P 2D P".split()]))
    assert constraints[0].hcp == (15, 17) and constraints[0].balanced
    assert constraints[2].lengths[2] == (5, 13)
    assert constraints[1].hcp == (0, 37)  # East only passed over 1NT: the table has no rule for that


def _random_views(seed: int, deals: int, opponents):
    """Every (view, hand) `SAYCBidder` meets bidding North-South against ``opponents`` on ``deals`` bundled deals."""
    data = load_dataset("valid")
    env = CompetitiveBiddingEnv(dataset=data)
    rng = np.random.default_rng(seed)
    bidder = SAYCBidder()
    out = []
    for row in rng.choice(len(data), deals, replace=False):
        _, info = env.reset(options={"index": int(row)})
        while True:
            view = info["view"]
            if info["seat"] % 2 == 0:
                out.append(view)
                call = bidder.act_view(view)
            else:
                call = opponents(view, rng)
            assert info["action_mask"][call], (view, call)
            _, _, done, _, info = env.step(call)
            if done:
                break
    return out


def _random_call(view, rng):
    legal = view.legal
    # mostly passes and cheap bids, so the auctions stay bridge-like but reach odd corners
    weights = np.array([6.0 if c == PASS else 1.0 / (1 + max(c - 3, 0) // 5) for c in legal])
    return int(rng.choice(legal, p=weights / weights.sum()))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**31 - 1))
def test_never_an_illegal_call_against_random_opponents(seed):
    views = _random_views(seed, 4, _random_call)
    assert views
    bidder = SAYCBidder()
    for view in views:
        assert view.legal_mask[bidder.act_view(view)]
        assert view.legal_mask[bidder.act(view.observation(), view.legal_mask.astype(np.int8))]


def test_table_calls_meet_their_own_reading():
    """Every call the bidder makes from a rule reads back (the hull of the rules making it) as a range its hand
    meets: the sampler never excludes the bidder's own hand."""
    rules = RuleBidder(competitive=True)
    views = _random_views(7, 60, lambda view, rng: rules.act_view(view))
    checked = 0
    for view in views:
        hand = SAYCHand.of(view.hand_bits)
        ctx = situation(list(view.calls))
        call, rule = table_call(hand, ctx, view.legal_mask)
        if call is None:
            continue
        shown = call_reading(ctx, call, len(view.calls))
        assert shown is not None, (view, rule)
        assert (shown.low or 0) <= hand.hcp <= (37 if shown.high is None else shown.high), (view, rule, shown)
        for suit, bounds in enumerate(shown.lengths):
            if bounds is not None:
                assert bounds[0] <= hand.lengths[suit] <= bounds[1], (view, rule, shown)
        assert hand.balanced or not shown.balanced
        checked += 1
    assert checked > 100


def test_the_world_sampler_reads_the_table():
    """PIMC's ``auction="sayc"``: worlds meet each hidden seat's constraint read from a `sayc` auction."""
    bidder = SAYCBidder()
    source = CompetitiveDealSource(load_dataset("valid"))
    checked = 0
    for row in range(12):
        state = BridgeState.start(source.deal_at(row))
        while state.phase == "auction":
            state = state.apply(bidder.act_view(state.view()))
        if state.phase != "play":
            continue
        view = state.apply(CARD_OFFSET + state.view().legal[0]).view()
        constraints = auction_constraints(view, system="sayc")
        stats = SamplingStats()
        worlds = rules_worlds(view, 10, seed=row, stats=stats, system="sayc")
        assert len(worlds) == 10
        if stats.rules_fallbacks == 0:
            for seat, constraint in constraints.items():
                assert constraint.accepts(worlds, seat).all()
                checked += constraint.hcp != (0, 37)
    assert checked >= 5


def test_spec_and_a_short_match():
    assert isinstance(load_agent("sayc", "competitive_bidding"), SAYCBidder)
    with pytest.raises(ValueError, match="competitive bidder"):
        load_agent("sayc", "uncontested_bidding")
    match = duplicate_match(SAYCBidder(), PassAgent(), data="valid", deals=40, names=("sayc", "pass"))
    assert match["boards"] == 40 and np.isfinite(match["imps_per_board"])


def test_sayc_is_frozen():
    """`sayc` judges the learned agents (issue #22): it was frozen at commit bd41bfd before any run it judges
    (docs/results.md). A change to it needs a new freeze, new figures and these hashes updated. The file hashes were
    renewed once, in the commit of issue #35 that only moved code (the modules into `agents/bidding/`, their import
    paths and three docstring references with them), and a second time, beyond what #35 allowed, in the commit that
    moved its table engine (rules, hand, context, matching and reading back) into `agents/bidding/engine.py` for the
    `rules` system to share: code moved, not changed, its calls identical on 192,021 positions of mixed auctions and
    its readings on 4,000 auctions; the pinned calls below are unchanged."""
    import hashlib
    from pathlib import Path

    import bridgerl.agents.bidding.sayc as sayc
    import bridgerl.agents.bidding.sayc_agreements as agreements

    frozen = {sayc: "e1f4ac4c0af80b5c5c85c229898b3cdacb499389b61f4b86acdb3977eb2328c2",
              agreements: "842a600fc00af6ef2f4242ca0463bb92ccef2ae7f21153bdc813699eccdb4946"}
    for module, digest in frozen.items():
        assert hashlib.sha256(Path(module.__file__).read_bytes()).hexdigest() == digest, module.__name__
    # and its behaviour, which also rests on the shared pieces it reads (fold, Picture, target_contract, the views):
    # its calls at all four seats on the first 60 test deals, as at bd41bfd
    bidder, source, calls = SAYCBidder(), CompetitiveDealSource(load_dataset("test")), []
    for row in range(60):
        state = BridgeState.start(source.deal_at(row))
        while state.phase == "auction":
            call = bidder.act_view(state.view())
            calls.append(call)
            state = state.apply(call)
        calls.append(-1)
    assert len(calls) == 620
    assert hashlib.sha256(",".join(map(str, calls)).encode()).hexdigest() == \
        "6c69f85e069a5ab4d7e94493ade9c6a5e3b1a1d430cadfb4ce775e949c999caa"
