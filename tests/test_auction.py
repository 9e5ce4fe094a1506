"""Auction legality, end and final contract: property tests against endplay's ``Contract.from_auction``."""

import pytest
from endplay.types import Bid, Contract as EContract, Player
from hypothesis import given, settings, strategies as st

from bridgerl.core import (DOUBLE, PASS, REDOUBLE, Auction, AuctionOverError, IllegalCallError, call_name,
                           parse_call)


@st.composite
def legal_auctions(draw, finish=True):
    """A dealer and a random legal call sequence, biased towards passes so auctions end."""
    dealer = draw(st.integers(0, 3))
    auction = Auction(dealer)
    for _ in range(200):
        if auction.is_over or (not finish and draw(st.integers(0, 9)) == 0):
            break
        legal = auction.legal_calls()
        if PASS in legal and draw(st.integers(0, 2)) == 0:
            call = PASS
        else:
            call = draw(st.sampled_from(legal))
        auction = auction.add(call)
    return auction


def _endplay_contract(auction: Auction):
    bids = [Bid(call_name(c).replace("Pass", "P").replace("NT", "N")) for c in auction.calls]
    return EContract.from_auction(Player(auction.dealer), bids)


@settings(max_examples=400, deadline=None)
@given(legal_auctions())
def test_random_legal_auctions_end_in_the_right_contract(auction):
    assert auction.is_over
    assert not auction.legal_mask().any()
    contract = auction.contract()
    expected = _endplay_contract(auction)
    if contract is None:
        assert expected.is_passout()
        assert auction.calls == (PASS,) * 4
        return
    assert (contract.level, 3 - contract.strain if contract.strain < 4 else 4) == (expected.level, expected.denom)
    assert contract.declarer == expected.declarer
    assert contract.penalty == {1: 0, 2: 1, 4: 2}[int(expected.penalty)]
    # the auction ended with exactly three passes after the last non-pass call
    assert auction.calls[-3:] == (PASS,) * 3 and auction.calls[-4] != PASS


@settings(max_examples=400, deadline=None)
@given(legal_auctions(finish=False))
def test_every_state_of_a_legal_auction_is_consistent(auction):
    replay = Auction(auction.dealer)
    for call in auction.calls:
        assert replay.is_legal(call) and replay.legal_mask()[call]
        assert not replay.is_over and replay.legal_mask()[PASS]
        replay = replay.add(call)
    assert replay == auction
    mask = auction.legal_mask()
    for call in range(38):
        assert mask[call] == auction.is_legal(call)
        if not mask[call]:
            with pytest.raises(IllegalCallError):
                auction.add(call)


def test_pass_out_and_end_rules():
    auction = Auction.from_calls(1, ["P", "P", "P"])
    assert not auction.is_over  # all four players must have a chance
    auction = auction.add(PASS)
    assert auction.is_over and auction.is_passout and auction.contract() is None
    auction = Auction.from_calls(0, ["P", "P", "P", "1C", "P", "P"])
    assert not auction.is_over
    assert auction.add(PASS).contract().level == 1


def test_declarer_is_first_of_side_to_name_strain():
    # Thesis fig. 4.3: W 1C, E 1H, W 1S, E 4S -> West declares 4S.
    auction = Auction.from_calls(3, ["1C", "P", "1H", "P", "1S", "P", "4S", "P", "P", "P"])
    contract = auction.contract()
    assert (contract.level, contract.strain, contract.declarer) == (4, 3, 3)
    auction = Auction.from_calls(0, ["1S", "X", "XX", "P", "P", "P"])
    assert auction.contract().penalty == 2 and auction.contract().declarer == 0


@pytest.mark.parametrize("calls, bad, message", [
    (["1S"], "XX", "illegal call XX"),                 # redouble without a double
    (["1S", "P"], "X", "illegal call X by S"),         # double of partner
    (["1S", "X"], "X", "illegal call X"),              # double of a doubled bid
    (["1S", "X", "XX"], "X", "illegal call X"),        # double of a redoubled bid
    (["1S", "X", "P"], "XX", "illegal call XX by W"),  # redouble of partner's double
    (["2H"], "2D", "illegal call 2D"),                 # insufficient bid
    (["2H"], "2H", "illegal call 2H"),                 # same bid again
    ([], "X", "illegal call X by N"),                  # double with no bid
])
def test_illegal_calls_raise_clear_errors(calls, bad, message):
    auction = Auction.from_calls(0, calls)
    with pytest.raises(IllegalCallError, match=message) as info:
        auction.add(parse_call(bad))
    assert "legal calls are Pass" in str(info.value)


def test_call_after_end_and_unknown_calls():
    auction = Auction.from_calls(0, ["1NT", "P", "P", "P"])
    with pytest.raises(AuctionOverError, match="after the end of the auction"):
        auction.add(PASS)
    with pytest.raises(IllegalCallError, match="not a call index"):
        Auction(0).add(38)
    with pytest.raises(ValueError, match="not a call"):
        parse_call("8NT")
    assert Auction.from_calls(0, ["1S"]).can_double()  # East may double North
    assert not Auction.from_calls(0, ["1S", "P"]).can_double()  # South may not double partner
    assert Auction.from_calls(0, ["1S"]).legal_mask()[DOUBLE]
    assert not Auction.from_calls(0, ["1S"]).legal_mask()[REDOUBLE]
