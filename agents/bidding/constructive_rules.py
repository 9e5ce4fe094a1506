"""`ConstructiveRuleBidder`: a natural constructive bidding system a bridge player would recognise (documented in
`docs/agents.md`), acting on the 89-bit uncontested observation (thesis fig. 4.4).

Openings follow the thesis rules (4.4.5). Later calls read the auction as a conversation: every bid of partner is
interpreted by the same system into a range of high-card points and minimum suit lengths, then the bidder
chooses a response or rebid (raises by points and fit, notrump responses, new suits forcing) or, once the
partnership's values are known, places the contract: game with 25+ combined points, small slam with 33+, grand
slam with 37+, in a known 8-card major fit, else notrump with a balanced hand, else the best minor fit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bridgerl.agents.bidding.agreements import Picture, constructive_reading
from bridgerl.agents.bidding.engine import TableHand, table_call
from bridgerl.agents.bidding.rules_agreements import RULES, constructive_history, situation
from bridgerl.core.calls import BID_OFFSET, NUM_BIDS, PASS, call_to_uncontested
from bridgerl.core.hand import HCP_PER_CARD
from bridgerl.core.uncontested import BIDS_OFFSET, HAND_OFFSET, INITIAL_PASS_BIT, OBSERVATION_SIZE

CLUBS, DIAMONDS, HEARTS, SPADES, NT = 0, 1, 2, 3, 4
GAME_POINTS = 25


def bid(level: int, strain: int) -> int:
    return (level - 1) * 5 + strain


@dataclass
class Hand:
    hcp: int
    lengths: np.ndarray  # C, D, H, S

    @property
    def balanced(self) -> bool:
        return bool(self.lengths.min() >= 2 and (self.lengths == 2).sum() <= 1)

    def longest(self) -> int:
        """Longest suit; ties go to the higher-ranking suit."""
        best = int(self.lengths.max())
        return max(s for s in range(4) if self.lengths[s] == best)

    def shortness(self, trumps: int) -> int:
        """Dummy points for shortness outside the trump suit."""
        return int(sum({0: 3, 1: 2, 2: 1}.get(int(self.lengths[s]), 0) for s in range(4) if s != trumps))


def decode(observation) -> tuple[Hand, list[int], bool]:
    """(our hand, bids so far in order, whether the first call was a pass) from the 89 bits."""
    obs = np.asarray(observation).astype(np.int64)
    if obs.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"the constructive rule bidder takes the {OBSERVATION_SIZE}-bit uncontested observation, "
                         f"got shape {obs.shape}")
    cards = obs[HAND_OFFSET:].astype(bool)
    hand = Hand(int(HCP_PER_CARD[cards].sum()), cards.reshape(4, 13).sum(1))
    bids = np.flatnonzero(obs[BIDS_OFFSET:BIDS_OFFSET + NUM_BIDS]).tolist()
    return hand, bids, bool(obs[INITIAL_PASS_BIT])


def read_partner(bids: list[int], partner_opened: bool, partner_passed: bool = False) -> Picture:
    """Interpret partner's bids (the odd positions counted back from the last bid) with our own system: the
    agreements of `bridgerl.agents.bidding.agreements` (`constructive_reading`) folded into a `Picture`. A partner who
    passed at the start holds at most 13 HCP."""
    return Picture.of(constructive_reading(bids, partner_opened, partner_passed))


def target_contract(hand: Hand, partner: Picture) -> int | None:
    """The game or slam (a bid index) that our hand and partner's picture support, else None: a known 8-card
    major fit first, then notrump with a balanced hand, then the longest minor fit (5m with 29+, else 3NT)."""
    fits = [s for s in range(4) if hand.lengths[s] + partner.lengths[s] >= 8]
    major_fits = [s for s in fits if s in (HEARTS, SPADES)]
    if major_fits:
        strain = max(major_fits, key=lambda s: (hand.lengths[s] + partner.lengths[s], s))
        combined = hand.hcp + hand.shortness(strain) + partner.middle
    elif hand.balanced or partner.balanced or not fits:
        strain = NT
        combined = hand.hcp + partner.middle
    else:
        strain = max(fits, key=lambda s: (hand.lengths[s] + partner.lengths[s], s))
        combined = hand.hcp + hand.shortness(strain) + partner.middle
    if combined >= 37:
        return bid(7, strain)
    if combined >= 33:
        return bid(6, strain)
    if combined >= GAME_POINTS:
        if strain < HEARTS:
            return bid(5, strain) if combined >= 29 else bid(3, NT)
        return bid(3 if strain == NT else 4, strain)
    return None


class ConstructiveRuleBidder:
    """The rule-based constructive bidder (uncontested, 89-bit observations, 36 actions): what ``RuleBidder()``
    gives."""

    def act(self, observation, action_mask) -> int:
        mask = np.asarray(action_mask).astype(bool)
        if not mask.any():
            raise ValueError("no legal action in the mask: the auction is over")
        choice = self._choose(observation, mask)
        if not 0 <= choice < len(mask) or not mask[choice]:  # the system may aim above 7NT
            choice = int(np.flatnonzero(mask)[0]) if not mask[0] else 0
        return int(choice)

    def act_batch(self, observations, action_masks) -> np.ndarray:
        return np.array([self.act(o, m) for o, m in zip(observations, action_masks)], dtype=np.int64)

    # -- the system ------------------------------------------------------------------------------------------
    def _choose(self, observation, mask) -> int:
        hand, bids, initial_pass = decode(observation)
        calls = np.zeros(BID_OFFSET + NUM_BIDS, dtype=bool)  # the uncontested actions as competitive calls
        calls[PASS], calls[BID_OFFSET:] = mask[0], mask[1:]
        ctx = situation(constructive_history(bids))
        call, rule = table_call(RULES, TableHand.of(np.asarray(observation)[HAND_OFFSET:]), ctx, calls)
        if rule is not None:  # the table: openings, responses, opener's rebid
            return call_to_uncontested(call)
        if not bids:
            return 0
        partner_opened = len(bids) % 2 == 1
        # the first call was a pass: by partner if partner did not open (the passer is then the responder)
        partner = read_partner(bids, partner_opened, partner_passed=initial_pass and not partner_opened)
        mine = [b for i, b in enumerate(bids) if (i % 2 == 0) != partner_opened]
        return self._place(hand, partner, bids, mine, partner_opened)

    @staticmethod
    def _place(hand: Hand, partner: Picture, bids: list[int], mine: list[int], partner_opened: bool) -> int:
        """Choose the final contract from the combined picture (the captaincy of the later rounds)."""
        last = bids[-1]
        target = target_contract(hand, partner)
        bid_strains = {b % 5 for b in bids[:-1]}
        partner_new_suit = last % 5 < 4 and last % 5 not in bid_strains and last // 5 + 1 < 4
        if target is None or target <= last:
            partner_suits = [b % 5 for b in bids if b not in mine and b % 5 < 4]
            if partner_new_suit and partner_opened and len(partner_suits) >= 2:
                # opener's new suit is not forcing: pass, or prefer opener's first suit when longer there
                first, second = partner_suits[0], last % 5
                if hand.lengths[first] > hand.lengths[second] and hand.lengths[first] >= 2:
                    cheapest = bid(last // 5 + 1, first) if bid(last // 5 + 1, first) > last else bid(last // 5 + 2, first)
                    return 1 + cheapest if cheapest // 5 + 1 <= 3 else 0
                return 0
            if partner_new_suit and len(mine) < 3:
                # a new suit is forcing: raise it with four, give preference with three, else cheapest notrump
                level_now = last // 5 + 1
                if hand.lengths[last % 5] >= 4 and bid(level_now + 1, last % 5) <= 34:
                    return 1 + bid(level_now + 1, last % 5)
                partner_suits = [b % 5 for i, b in enumerate(bids) if b not in mine and b % 5 < 4]
                for suit in partner_suits:
                    if hand.lengths[suit] >= 3:
                        cheapest = bid(level_now, suit) if bid(level_now, suit) > last else bid(level_now + 1, suit)
                        return 1 + cheapest if cheapest <= 34 else 0
                cheapest_nt = bid(level_now, NT)
                return 1 + cheapest_nt if cheapest_nt > last else 0
            return 0
        return 1 + target
