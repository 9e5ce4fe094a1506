"""`CompetitiveRuleBidder`: the competitive rule baseline of issue #10 (`docs/agents.md`), acting on the 231-bit
competitive observation (thesis 4.5.2).

While the opponents only pass, it bids the constructive `RuleBidder` system unchanged (thesis 4.4.5 openings).
Once they bid, a handful of simple agreements apply: overcalls with a good five-card suit, a 1NT overcall,
takeout doubles of a one-level suit opening with shortness, advances and raises of partner's overcall or double,
free bids and raises over their overcall, competing to the level of the law of total tricks with a known fit, and
penalty doubles when the opponents are clearly too high.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bridgerl.agents.bidding.agreements import AGREEMENTS, Picture, partner_reading
from bridgerl.agents.bidding.constructive_rules import (CLUBS, DIAMONDS, HEARTS, NT, SPADES, ConstructiveRuleBidder,
                                                        Hand, target_contract)
from bridgerl.agents.bidding.engine import TableHand, table_call
from bridgerl.agents.bidding.rules_agreements import RULES, situation
from bridgerl.agents.bidding.silent import SilentOpponents
from bridgerl.core.calls import BID_OFFSET, DOUBLE, PASS
from bridgerl.envs import AuctionView

_ME, _LHO, _PARTNER, _RHO = 0, 1, 2, 3
_OURS = (_ME, _PARTNER)
_GAME_LEVEL = {CLUBS: 5, DIAMONDS: 5, HEARTS: 4, SPADES: 4, NT: 3}


@dataclass
class _Hand(Hand):
    honours: np.ndarray = None  # bool[4, 5]: A K Q J T held, per suit C D H S


def _is_bid(call: int) -> bool:
    return call >= BID_OFFSET


class CompetitiveRuleBidder(SilentOpponents):
    """The constructive rule system plus simple competitive agreements (38 calls, 231-bit observations or an
    `AuctionView` through ``act_view``)."""

    def __init__(self, constructive=None):
        """``constructive``: the uncontested bidder (89-bit observations, 36 actions) used while the opponents
        pass; default the constructive rule system. Thesis 4.4.5 opening rules apply to it either way."""
        super().__init__(constructive if constructive is not None else ConstructiveRuleBidder())

    # -- reading the auction ----------------------------------------------------------------------------------
    def contested_call(self, view: AuctionView) -> int:
        """The call once the opponents have bid: the table's first decisions (`rules_table`), else the contract
        placed from the picture of partner."""
        mask = view.legal_mask
        history = list(view.calls)
        call, rule = table_call(RULES, TableHand.of(view.hand_bits), situation(history), mask)
        if rule is None:
            call = self._judgement(view, history, mask)
        choice = call if call is not None else PASS
        return int(choice) if mask[choice] else PASS if mask[PASS] else int(np.flatnonzero(mask)[0])

    def _judgement(self, view: AuctionView, history, mask):
        """Where the table names no situation: advancing partner's notrump overcall, and the later rounds."""
        suits = view.hand_bits.astype(bool).reshape(4, 13)
        hand = _Hand(view.hcp, suits.sum(1), suits[:, 12:7:-1])
        bids = [(seat, call - BID_OFFSET) for seat, call in history if _is_bid(call)]
        if bids[0][0] not in _OURS:
            ours = [(seat, call) for seat, call in history if seat in _OURS and call != PASS]
            partner = [call for seat, call in ours if seat == _PARTNER]
            if partner and not any(seat == _ME for seat, _ in ours) and _is_bid(partner[0]) and \
                    (partner[0] - BID_OFFSET) % 5 == NT:
                notrump = AGREEMENTS["notrump overcall"]
                picture = Picture(notrump.low, notrump.high, balanced=notrump.balanced)
                return self._place(hand, picture, bids, mask)
        return self._compete(hand, self._partner_picture(history), history, bids, mask)

    # -- later rounds -----------------------------------------------------------------------------------------
    def _compete(self, hand: Hand, picture: Picture, history, bids, mask):
        """Later rounds: bid the contract the picture supports, compete with a fit, or double them."""
        their_bids = [b for seat, b in bids if seat not in _OURS]
        last_seat, last_bid = bids[-1]
        if last_seat in _OURS:
            # our contract: raise only to reach a game or slam the picture supports
            target = target_contract(hand, picture)
            if target is not None and target > last_bid and target // 5 + 1 >= _GAME_LEVEL[target % 5]:
                return _bid_if_legal(target, mask)
            return None
        target = target_contract(hand, picture)
        if target is not None and target > last_bid:
            return _bid_if_legal(target, mask)
        fits = [s for s in range(4) if hand.lengths[s] + picture.lengths[s] >= 8]
        if fits:
            suit = max(fits, key=lambda s: (hand.lengths[s] + picture.lengths[s], s))
            trumps = int(hand.lengths[suit] + picture.lengths[suit])
            cheapest = _cheapest(last_bid, suit)
            if cheapest // 5 + 1 <= trumps - 6:
                return _bid_if_legal(cheapest, mask)
        return self._penalty_double(hand, picture, their_bids, last_bid, mask)

    def _place(self, hand: Hand, picture: Picture, bids, mask):
        target = target_contract(hand, picture)
        last_bid = bids[-1][1]
        return _bid_if_legal(target, mask) if target is not None and target > last_bid else None

    @staticmethod
    def _partner_picture(history) -> Picture:
        """Partner's points and lengths from our side's calls, read with the agreements (`partner_reading`): the
        constructive system after our opening; an overcall shows 8-17 and five cards, a takeout double 12+ and three
        cards in the unbid suits."""
        return Picture.of(partner_reading(history))

    @staticmethod
    def _penalty_double(hand: Hand, picture: Picture | None, their_bids, last_bid: int, mask,
                        partner_points: float | None = None):
        """Double their contract when they are clearly too high: at the three level or more with 23+ of the
        40 points on our side, or at the two level or more with a trump stack (five with two top honours)."""
        if not mask[DOUBLE] or not their_bids or their_bids[-1] != last_bid:
            return None
        level, strain = last_bid // 5 + 1, last_bid % 5
        partner = partner_points if partner_points is not None else (picture.middle if picture else 0.0)
        if level >= 3 and hand.hcp + partner >= 23:
            return DOUBLE
        if strain < NT and level >= 2 and hand.lengths[strain] >= 5 and _top_honours(hand, strain) >= 2 and \
                hand.hcp >= 10:
            return DOUBLE
        return None


def _cheapest(last_bid: int, strain: int) -> int:
    """The lowest bid in ``strain`` above ``last_bid``."""
    candidate = (last_bid // 5) * 5 + strain
    return candidate if candidate > last_bid else candidate + 5


def _bid_if_legal(target: int | None, mask):
    if target is None or target > 34 or not mask[BID_OFFSET + target]:
        return None
    return BID_OFFSET + target


def _top_honours(hand: _Hand, suit: int) -> int:
    return int(hand.honours[suit, :3].sum())
