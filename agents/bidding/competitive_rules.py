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

from bridgerl.agents.bidding.agreements import AGREEMENTS, partner_reading
from bridgerl.agents.bidding.constructive_rules import (CLUBS, DIAMONDS, GAME_POINTS, HEARTS, NT, SPADES,
                                                        ConstructiveRuleBidder, Hand, Picture, bid, target_contract)
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
        """The call once the opponents have bid."""
        mask = view.legal_mask
        cards = view.hand_bits.astype(bool)
        suits = cards.reshape(4, 13)
        hand = _Hand(view.hcp, suits.sum(1), suits[:, 12:7:-1])
        history = list(view.calls)
        bids = [(seat, call - BID_OFFSET) for seat, call in history if _is_bid(call)]
        opened_by_us = bids[0][0] in _OURS
        if opened_by_us:
            call = self._after_our_opening(hand, history, bids, mask)
        else:
            call = self._after_their_opening(hand, history, bids, mask)
        choice = call if call is not None else PASS
        return int(choice) if mask[choice] else PASS if mask[PASS] else int(np.flatnonzero(mask)[0])

    # -- they opened ------------------------------------------------------------------------------------------
    def _after_their_opening(self, hand: Hand, history, bids, mask):
        our_actions = [(seat, call) for seat, call in history if seat in _OURS and call != PASS]
        their_bids = [b for seat, b in bids if seat not in _OURS]
        last_bid = bids[-1][1]
        if not our_actions:
            return self._direct_action(hand, their_bids, last_bid, mask)
        partner_actions = [call for seat, call in our_actions if seat == _PARTNER]
        my_actions = [call for seat, call in our_actions if seat == _ME]
        if partner_actions and not my_actions:
            first = partner_actions[0]
            if first == DOUBLE:
                return self._advance_double(hand, history, their_bids, last_bid, mask)
            if _is_bid(first):
                return self._advance_overcall(hand, first - BID_OFFSET, their_bids, last_bid, bids, mask)
        picture = self._partner_picture(history)
        return self._compete(hand, picture, history, bids, mask)

    def _direct_action(self, hand: Hand, their_bids, last_bid: int, mask):
        """Overcall, 1NT overcall or takeout double over their bid at the one or two level; else pass."""
        their_suits = {b % 5 for b in their_bids if b % 5 < NT}
        level, strain = last_bid // 5 + 1, last_bid % 5
        if len(their_bids) == 1 and level == 1 and strain < NT:
            stopper = _stopper(hand, strain)
            if hand.balanced and AGREEMENTS["notrump overcall"].covers(hand.hcp) and stopper and \
                    mask[BID_OFFSET + bid(1, NT)]:
                return BID_OFFSET + bid(1, NT)
        for suit in sorted(range(4), key=lambda s: (-hand.lengths[s], -s)):
            if suit in their_suits or hand.lengths[suit] < AGREEMENTS["overcall"].own[0] or not _good_suit(hand, suit):
                continue
            cheapest = _cheapest(last_bid, suit)
            overcall = AGREEMENTS["overcall" if cheapest // 5 == 0 else "two-level overcall"]
            if cheapest // 5 <= 1 and overcall.covers(hand.hcp) and mask[BID_OFFSET + cheapest]:
                return BID_OFFSET + cheapest
        if len(their_bids) == 1 and level == 1 and strain < NT and mask[DOUBLE]:
            others = [s for s in range(4) if s != strain]
            shape = hand.lengths[strain] <= 1 or (hand.lengths[strain] == 2 and min(hand.lengths[others]) >= 3)
            double = AGREEMENTS["takeout double"]
            if (hand.hcp >= double.low and shape and min(hand.lengths[others]) >= double.unbid[0]) or hand.hcp >= 18:
                return DOUBLE
        return self._penalty_double(hand, None, their_bids, last_bid, mask, partner_points=0.0)

    def _advance_double(self, hand: Hand, history, their_bids, last_bid: int, mask):
        """Answer partner's takeout double: the longest unbid suit, jumping with 9-11, game with 12+."""
        free = history[-1][1] != PASS  # RHO acted: we need not bid
        if free and hand.hcp < 6:
            return None
        their_suits = {b % 5 for b in their_bids if b % 5 < NT}
        unbid = [s for s in range(4) if s not in their_suits]
        if not unbid:
            return None
        suit = max(unbid, key=lambda s: (hand.lengths[s] + (0.5 if s >= HEARTS else 0), s))
        stopped = all(_stopper(hand, s) for s in their_suits)
        if hand.hcp >= 12:
            if suit >= HEARTS and hand.lengths[suit] >= 4:
                return _bid_if_legal(bid(4, suit), mask)
            if stopped:
                return _bid_if_legal(bid(3, NT), mask)
        if stopped and hand.lengths[suit] < 4 and 6 <= hand.hcp <= 10:
            return _bid_if_legal(_cheapest(last_bid, NT), mask) if _cheapest(last_bid, NT) // 5 <= 1 else None
        cheapest = _cheapest(last_bid, suit)
        if 9 <= hand.hcp <= 11 and cheapest // 5 < 2:
            cheapest += 5
        return _bid_if_legal(cheapest, mask) if cheapest // 5 <= 2 else None

    def _advance_overcall(self, hand: Hand, overcall: int, their_bids, last_bid: int, bids, mask):
        """Raise partner's overcall with support (by points, to the law of total tricks), else notrump or pass."""
        suit = overcall % 5
        their_suits = {b % 5 for b in their_bids if b % 5 < NT}
        agreed = AGREEMENTS["overcall"]
        if suit == NT:
            notrump = AGREEMENTS["notrump overcall"]
            picture = Picture(notrump.low, notrump.high, balanced=notrump.balanced)
            return self._place(hand, picture, bids, mask)
        if hand.lengths[suit] >= 3:
            total = hand.hcp + hand.shortness(suit)
            trumps = hand.lengths[suit] + agreed.own[0]
            if total + 11 >= GAME_POINTS + 2:
                return _bid_if_legal(bid(_GAME_LEVEL[suit], suit), mask)
            level = min(trumps - 6, 3 if total >= 10 else 2)
            target = bid(level, suit)
            if target > last_bid:
                return _bid_if_legal(_cheapest(last_bid, suit) if total < 10 else target, mask)
            return None
        if hand.hcp >= 11 and all(_stopper(hand, s) for s in their_suits):
            return _bid_if_legal(bid(3, NT) if hand.hcp >= 13 else _cheapest(last_bid, NT), mask)
        shown = [agreed.own[0] if s == suit else 0 for s in range(4)]
        return self._penalty_double(hand, Picture(agreed.low, agreed.high, shown), their_bids, last_bid, mask)

    # -- we opened --------------------------------------------------------------------------------------------
    def _after_our_opening(self, hand: Hand, history, bids, mask):
        our_bids = [(seat, b) for seat, b in bids if seat in _OURS]
        their_bids = [b for seat, b in bids if seat not in _OURS]
        last_bid = bids[-1][1]
        picture = self._partner_picture(history)
        my_bids = [b for seat, b in our_bids if seat == _ME]
        if not my_bids and our_bids[0][0] == _PARTNER:
            return self._respond_over_interference(hand, our_bids[0][1], picture, their_bids, last_bid, mask)
        return self._compete(hand, picture, history, bids, mask)

    def _respond_over_interference(self, hand: Hand, opening: int, picture: Picture, their_bids, last_bid, mask):
        """Responder after their overcall: raise, penalty double, notrump with a stopper, a new suit, or pass."""
        strain = opening % 5
        their_suits = {b % 5 for b in their_bids if b % 5 < NT}
        if strain < NT and hand.lengths[strain] + picture.lengths[strain] >= 8 and hand.hcp >= 6:
            total = hand.hcp + hand.shortness(strain)
            if total + picture.low >= GAME_POINTS:
                return _bid_if_legal(bid(_GAME_LEVEL[strain], strain), mask)
            trumps = hand.lengths[strain] + picture.lengths[strain]
            level = min(trumps - 6, 3 if total >= 11 else 2)
            target = bid(level, strain) if total >= 11 else _cheapest(last_bid, strain)
            return _bid_if_legal(target, mask) if target > last_bid and target // 5 + 1 <= level else None
        double = self._penalty_double(hand, picture, their_bids, last_bid, mask)
        if double is not None:
            return double
        if hand.hcp >= 8 and hand.balanced and all(_stopper(hand, s) for s in their_suits):
            if hand.hcp + picture.low >= GAME_POINTS:
                return _bid_if_legal(bid(3, NT), mask)
            return _bid_if_legal(_cheapest(last_bid, NT), mask) if _cheapest(last_bid, NT) // 5 <= 1 else None
        if hand.hcp >= 10:
            for suit in sorted(range(4), key=lambda s: (-hand.lengths[s], -s)):
                if suit not in their_suits and suit != strain and hand.lengths[suit] >= 5:
                    cheapest = _cheapest(last_bid, suit)
                    return _bid_if_legal(cheapest, mask) if cheapest // 5 <= 2 else None
        return None

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


def _good_suit(hand: _Hand, suit: int) -> bool:
    """Two of the top three honours, or three of the top five."""
    top = hand.honours[suit]
    return bool(top[:3].sum() >= 2 or top.sum() >= 3)


def _stopper(hand: _Hand, suit: int) -> bool:
    """A, Kx, Qxx or Jxxx in their suit."""
    top, length = hand.honours[suit], hand.lengths[suit]
    return bool(top[0] or (top[1] and length >= 2) or (top[2] and length >= 3) or (top[3] and length >= 4))
