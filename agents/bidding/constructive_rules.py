"""`ConstructiveRuleBidder`: a natural constructive bidding system a bridge player would recognise (documented in
`docs/agents.md`), acting on the 89-bit uncontested observation (thesis fig. 4.4).

Openings follow the thesis rules (4.4.5). Later calls read the auction as a conversation: every bid of partner is
interpreted by the same system into a range of high-card points and minimum suit lengths, then the bidder
chooses a response or rebid (raises by points and fit, notrump responses, new suits forcing) or, once the
partnership's values are known, places the contract: game with 25+ combined points, small slam with 33+, grand
slam with 37+, in a known 8-card major fit, else notrump with a balanced hand, else the best minor fit.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bridgerl.agents.bidding.agreements import AGREEMENTS, constructive_reading
from bridgerl.core.calls import NUM_BIDS
from bridgerl.core.hand import HCP_PER_CARD
from bridgerl.core.uncontested import BIDS_OFFSET, HAND_OFFSET, INITIAL_PASS_BIT, OBSERVATION_SIZE

CLUBS, DIAMONDS, HEARTS, SPADES, NT = 0, 1, 2, 3, 4
GAME_POINTS = 25


def bid(level: int, strain: int) -> int:
    return (level - 1) * 5 + strain


@dataclass
class Picture:
    """What a partner's bids have shown: a points range and minimum lengths per suit (C, D, H, S)."""

    low: int = 0
    high: int = 37
    lengths: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    balanced: bool = False

    def show(self, low=None, high=None, suit=None, length=0, balanced=None):
        if low is not None:
            self.low = max(self.low, low)
        if high is not None:
            self.high = min(self.high, high)
        if self.high < self.low:
            self.high = self.low
        if suit is not None:
            self.lengths[suit] = max(self.lengths[suit], length)
        if balanced:
            self.balanced = True
            self.lengths = [max(x, 2) for x in self.lengths]

    @classmethod
    def of(cls, showings) -> Picture:
        """The picture the table entries read for partner's calls (`agreements.Shown`, in call order)
        draw: each narrows the range and raises the minimum lengths; a range left empty keeps its low end."""
        picture = cls()
        for entry in showings:
            if entry.extra:
                picture.show(picture.low + entry.extra)
            picture.show(entry.low, entry.high)
            for suit, bounds in enumerate(entry.lengths):
                if bounds is not None and bounds[0] > 0:
                    picture.show(suit=suit, length=bounds[0])
            if entry.balanced:
                picture.show(balanced=True)
        return picture

    @property
    def middle(self) -> float:
        """Expected points: the middle of the range, open-ended ranges read as six points wide."""
        return (self.low + min(self.high, self.low + 6)) / 2


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
        if not bids:
            return self._open(hand, mask)
        partner_opened = len(bids) % 2 == 1
        # the first call was a pass: by partner if partner did not open (the passer is then the responder)
        partner = read_partner(bids, partner_opened, partner_passed=initial_pass and not partner_opened)
        mine = [b for i, b in enumerate(bids) if (i % 2 == 0) != partner_opened]
        last = bids[-1]
        if partner_opened and len(bids) == 1:
            action = self._respond(hand, last, partner)
        elif not partner_opened and len(bids) == 2:
            action = self._opener_rebid(hand, bids[0], last, partner)
        else:
            action = None
        if action is None:
            action = self._place(hand, partner, bids, mine, partner_opened)
        return action

    @staticmethod
    def _open(hand: Hand, mask) -> int:
        """Open 12+, or 10-11 with the rule of 20 (lighter openings lost IMPs to overbids)."""
        if mask[0] and (hand.hcp < 12 and hand.hcp + int(np.sort(hand.lengths)[-2:].sum()) < 20):
            return 0
        for action in (10, 5):  # 2NT, 1NT when the rules allow
            if mask[action]:
                return action
        suits = [a for a in (4, 3, 2, 1) if mask[a]]
        return suits[0] if suits else 0

    def _respond(self, hand: Hand, opening: int, partner: Picture):
        level, strain = opening // 5 + 1, opening % 5
        points = hand.hcp
        if strain == NT:
            return self._respond_nt(hand, level)
        if AGREEMENTS["pass over a one-level suit opening"].covers(points):
            return 0
        major_fit = strain in (HEARTS, SPADES) and hand.lengths[strain] >= 3
        if major_fit:
            total = points + hand.shortness(strain)
            if total <= 10:
                return 1 + bid(2, strain)
            if total <= 12:
                return 1 + bid(3, strain)
            if total + partner.low >= 33:
                return 1 + bid(6, strain)
            return 1 + bid(4, strain)
        # a new four-card suit at the one level, majors up the line
        for suit in (HEARTS, SPADES):
            if suit > strain and hand.lengths[suit] >= 4 and level == 1:
                if not (suit == SPADES and hand.lengths[HEARTS] >= 4 and hand.lengths[HEARTS] >= hand.lengths[SPADES]
                        and HEARTS > strain):
                    return 1 + bid(1, suit)
                return 1 + bid(1, HEARTS)
        if strain == CLUBS and hand.lengths[DIAMONDS] >= 4 and points >= 6:
            if points < 11 or hand.lengths[DIAMONDS] >= 5:
                return 1 + bid(1, DIAMONDS)
        if points >= 11:
            # a new suit at the two level (five hearts, four of a minor), or notrump by strength
            for suit in (CLUBS, DIAMONDS, HEARTS):
                need = 5 if suit == HEARTS else 4
                if suit < strain and hand.lengths[suit] >= need:
                    return 1 + bid(2, suit)
            if hand.balanced and AGREEMENTS["2NT response"].covers(points):
                return 1 + bid(2, NT)
            if hand.balanced and AGREEMENTS["3NT response"].covers(points):
                return 1 + bid(3, NT)
            if strain in (CLUBS, DIAMONDS) and hand.lengths[strain] >= 4:
                return 1 + bid(3 if points <= 12 else 5 if hand.lengths[strain] >= 5 and not hand.balanced else 3,
                               strain if points <= 12 or not hand.balanced else NT)
            return 1 + bid(2, NT) if points <= 15 else 1 + bid(3, NT)
        if strain in (CLUBS, DIAMONDS) and hand.lengths[strain] >= 5:
            return 1 + bid(2, strain)
        return 1 + bid(1, NT)

    @staticmethod
    def _respond_nt(hand: Hand, level: int):
        opener_mid = AGREEMENTS["1NT opening" if level == 1 else "2NT opening"].middle
        points = hand.hcp
        long_major = max((HEARTS, SPADES), key=lambda s: (hand.lengths[s], s))
        combined = points + opener_mid
        if hand.lengths[long_major] >= 6 and combined >= 25:
            return 1 + bid(4, long_major)
        if combined >= 37:
            return 1 + bid(7, NT)
        if combined >= 33:
            return 1 + bid(6, NT)
        if combined >= 31:
            return 1 + bid(4, NT)
        if combined >= 25:
            if hand.lengths[long_major] >= 5:
                return 1 + bid(3, long_major)
            return 1 + bid(3, NT)
        if level == 1 and combined >= 23:
            return 1 + bid(2, NT)
        if level == 1 and hand.lengths[long_major] >= 5:
            return 1 + bid(2, long_major)
        return 0

    def _opener_rebid(self, hand: Hand, opening: int, response: int, partner: Picture):
        o_level, o_strain = opening // 5 + 1, opening % 5
        r_level, r_strain = response // 5 + 1, response % 5
        points = hand.hcp
        if o_strain == NT:
            top = AGREEMENTS["1NT opening" if o_level == 1 else "2NT opening"].high
            if r_strain in (HEARTS, SPADES) and r_level == 3:  # forcing five-card major: choose the game
                return 1 + bid(4, r_strain) if hand.lengths[r_strain] >= 3 else 1 + bid(3, NT)
            if response == bid(2, NT):  # invitation: accept with a maximum
                return 1 + bid(3, NT) if points >= top - 1 else 0
            if response == bid(4, NT):  # quantitative: small slam with a maximum
                return 1 + bid(6, NT) if points >= top else 0
            if r_strain in (HEARTS, SPADES) and r_level == 2:  # weak sign-off
                return 0
            return 0
        if r_strain == o_strain:  # partner raised us
            total = points + hand.shortness(o_strain)
            if r_level == 2:
                if total >= 19:
                    return 1 + bid(4, o_strain) if o_strain in (HEARTS, SPADES) else 1 + bid(3, NT)
                if total >= 16:
                    return 1 + bid(3, o_strain)
                return 0
            if r_level == 3:
                if total >= 14:
                    return 1 + bid(4, o_strain) if o_strain in (HEARTS, SPADES) else (
                        1 + bid(3, NT) if hand.balanced or o_strain < HEARTS else 0)
                return 0
            return None
        if r_strain == NT:
            if r_level == 1:
                if hand.balanced:
                    if points >= 18:
                        return 1 + bid(3, NT) if points >= 19 else 1 + bid(2, NT)
                    return 0
                if hand.lengths[o_strain] >= 6:
                    return 1 + bid(3 if points >= 16 else 2, o_strain)
                second = [s for s in range(4) if s != o_strain and hand.lengths[s] >= 4 and s < o_strain]
                if second:
                    return 1 + bid(2, max(second, key=lambda s: hand.lengths[s]))
                return 0
            return None
        # partner bid a new suit: forcing
        if hand.lengths[r_strain] >= 4 and r_strain in (HEARTS, SPADES):
            total = points + hand.shortness(r_strain)
            level = 2 if total <= 15 else 3 if total <= 18 else 4
            return 1 + bid(max(level, r_level + (0 if level > r_level else 1)), r_strain)
        if r_level == 1:
            for suit in (HEARTS, SPADES):
                if suit > r_strain and hand.lengths[suit] >= 4 and suit != o_strain:
                    return 1 + bid(1, suit)
            if hand.balanced:
                jump = AGREEMENTS["jump 2NT rebid"]
                if points <= AGREEMENTS["1NT rebid"].high:
                    return 1 + bid(1, NT)
                if points >= jump.low:
                    return 1 + bid(2, NT) if points <= jump.high else 1 + bid(3, NT)
            if hand.lengths[o_strain] >= 6:
                return 1 + bid(3 if points >= 16 else 2, o_strain)
            for suit in range(4):
                if suit < o_strain and hand.lengths[suit] >= 4:
                    return 1 + bid(2, suit)
            return 1 + bid(2, o_strain) if o_strain < NT else 1 + bid(1, NT)
        return None

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
