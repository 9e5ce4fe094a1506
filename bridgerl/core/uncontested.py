"""Uncontested (constructive) bidding rules, thesis 4.4.

Two partners bid, the opponents pass throughout. The auction is a core `Auction` with the first bidder as dealer
and the opponents' passes inserted, so legality, the end of the auction and the declarer come from one place.
The first bid of the auction, whoever makes it, follows the opening rules of thesis 4.4.5; the contract is scored
with its declarer's DD tricks, doubled when it goes down two or more (4.4.3); the reward is the IMPs of
(score - constructive par).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .auction import Auction, AuctionOverError, IllegalCallError
from .calls import NUM_UNCONTESTED_ACTIONS, PASS, bid_name, uncontested_to_call
from .cards import SEATS
from .contract import DOUBLED, UNDOUBLED, Contract
from .hand import hcp, is_balanced_lengths, suit_lengths
from .imps import imps
from .par import constructive_par
from .scoring import SCORE_TABLE

OBSERVATION_SIZE = 89
"""[0] our side vulnerable, [1] an initial pass happened, [2 + b] bid b made, [37 + c] card c in our hand."""
SIDES = ("NS", "EW")
FIRST_BIDDER = (0, 3)  # North for NS, West for EW (thesis fig. 4.3)
REWARDS = ("imps", "points")


def rule_openings_from_features(lengths: np.ndarray, points: np.ndarray) -> np.ndarray:
    """bool[..., 35]: which bids are rule openings (thesis 4.4.5) for hands with these suit lengths and HCP."""
    lengths = np.asarray(lengths)
    points = np.asarray(points)
    clubs, diamonds, hearts, spades = (lengths[..., i] for i in range(4))
    balanced = is_balanced_lengths(lengths)
    one_spade = (spades >= 5) & (spades >= lengths.max(-1))
    one_heart = (hearts >= 5) & (hearts >= diamonds) & (hearts >= clubs) & (hearts > spades)
    one_diamond = ~one_spade & ~one_heart & (diamonds > clubs)
    one_club = ~one_spade & ~one_heart & ~one_diamond
    mask = np.zeros(points.shape + (35,), dtype=bool)
    mask[..., 0], mask[..., 1], mask[..., 2], mask[..., 3] = one_club, one_diamond, one_heart, one_spade
    mask[..., 4] = balanced & (points >= 15) & (points <= 17)
    mask[..., 9] = balanced & (points >= 20) & (points <= 21)
    return mask


def opening_action_mask(owner: np.ndarray, seat) -> np.ndarray:
    """bool[..., 36]: uncontested actions allowed for the first bid of the auction.

    Fewer than 10 HCP must pass; 10-13 may pass or make a rule opening; more than 13 must make a rule opening."""
    return opening_mask_from_features(suit_lengths(owner, seat), hcp(owner, seat))


def opening_mask_from_features(lengths: np.ndarray, points: np.ndarray) -> np.ndarray:
    """`opening_action_mask` for hands given by suit lengths and HCP."""
    points = np.asarray(points)
    rules = rule_openings_from_features(lengths, points)
    mask = np.zeros(points.shape + (NUM_UNCONTESTED_ACTIONS,), dtype=bool)
    mask[..., 0] = points <= 13
    mask[..., 1:] = rules & (points >= 10)[..., None]
    return mask


def thesis_side(dd: np.ndarray, vulnerable_ns=False, vulnerable_ew=False) -> np.ndarray | int:
    """Bidding side of thesis 4.4.6: EW (1) unless EW's constructive par is 0, then NS (0). Vectorized."""
    dd = np.asarray(dd)
    ew_par = constructive_par(dd, np.ones(dd.shape[:-2], dtype=np.int64), vulnerable_ew)
    side = np.where(np.asarray(ew_par) > 0, 1, 0)
    return int(side) if side.ndim == 0 else side


def can_make_anything(dd: np.ndarray) -> np.ndarray | bool:
    """Whether either side makes some contract (7+ tricks for some declarer and strain). Vectorized."""
    result = np.asarray(dd).max(axis=(-2, -1)) >= 7
    return bool(result) if result.ndim == 0 else result


@dataclass(frozen=True)
class UncontestedDeal:
    """Everything fixed for one uncontested episode."""

    owner: np.ndarray           # uint8[52]
    dd: np.ndarray              # uint8[4, 5]
    side: int                   # 0 NS, 1 EW
    vulnerable: bool            # the bidding side's vulnerability
    board: int
    index: int | None = None    # dataset row, None for a deal given directly
    opening_rules: bool = True

    @property
    def first_bidder(self) -> int:
        return FIRST_BIDDER[self.side]

    @property
    def par(self) -> int:
        """Constructive par of the bidding side."""
        return constructive_par(self.dd, self.side, self.vulnerable)

    def hand_bits(self, seat: int) -> np.ndarray:
        return (self.owner == seat).astype(np.int8)

    def opening_mask(self, seat: int) -> np.ndarray:
        if not self.opening_rules:
            return np.ones(NUM_UNCONTESTED_ACTIONS, dtype=bool)
        return opening_action_mask(self.owner, seat)

    def new_auction(self) -> Auction:
        return Auction(self.first_bidder)


def legal_actions_mask(deal: UncontestedDeal, auction: Auction, opening_mask: np.ndarray | None = None) -> np.ndarray:
    """bool[36] for the partner to act: Pass and every higher bid, restricted by the opening rules before any bid."""
    if auction.is_over:
        return np.zeros(NUM_UNCONTESTED_ACTIONS, dtype=bool)
    if auction.last_bid < 0:
        return deal.opening_mask(auction.to_act) if opening_mask is None else opening_mask
    mask = np.zeros(NUM_UNCONTESTED_ACTIONS, dtype=bool)
    mask[0] = True
    mask[auction.last_bid + 2:] = True
    return mask


def apply_action(deal: UncontestedDeal, auction: Auction, action: int, mask: np.ndarray | None = None) -> Auction:
    """The auction after the partner to act takes ``action`` (and the silent opponent passes)."""
    if auction.is_over:
        raise AuctionOverError(f"call {action_name(action) if 0 <= action < NUM_UNCONTESTED_ACTIONS else action} "
                               f"after the end of the auction ({auction}); call reset() for a new deal")
    if mask is None:
        mask = legal_actions_mask(deal, auction)
    if not 0 <= action < NUM_UNCONTESTED_ACTIONS or not mask[action]:
        legal = ", ".join(action_name(a) for a in np.flatnonzero(mask))
        what = action_name(action) if 0 <= action < NUM_UNCONTESTED_ACTIONS else f"#{action}"
        reason = " (opening rules)" if auction.last_bid < 0 and deal.opening_rules else ""
        raise IllegalCallError(f"illegal call {what} by {SEATS[auction.to_act]} after '{auction}'{reason}: "
                               f"legal actions are {legal or 'none (the auction is over)'}")
    auction = auction.add(uncontested_to_call(int(action)))
    if not auction.is_over:
        auction = auction.add(PASS)  # the silent opponent
    return auction


def action_name(action: int) -> str:
    return "Pass" if action == 0 else bid_name(int(action) - 1)


def initial_pass(auction: Auction) -> bool:
    return len(auction.calls) > 0 and auction.calls[0] == PASS


def observation(deal: UncontestedDeal, auction: Auction, seat: int, hand_bits: np.ndarray | None = None) -> np.ndarray:
    """int8[89] from ``seat``'s point of view (thesis fig. 4.4)."""
    bids = [call - 3 for call in auction.calls if call >= 3]
    return encode_observation(deal.vulnerable, initial_pass(auction), bids,
                              deal.hand_bits(seat) if hand_bits is None else hand_bits)


def encode_observation(vulnerable: bool, initial_pass: bool, bids, hand_bits: np.ndarray) -> np.ndarray:
    """int8[89] (thesis fig. 4.4) from the side's vulnerability, whether it passed before its first bid, its bids
    (indices 0-34) and the hand's 52 card bits."""
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.int8)
    obs[0] = vulnerable
    obs[1] = initial_pass
    obs[2 + np.asarray(bids, dtype=np.int64)] = 1
    obs[37:] = hand_bits
    return obs


@dataclass(frozen=True)
class UncontestedResult:
    contract: Contract | None   # None for a pass-out
    tricks: int                 # declarer's DD tricks (0 for a pass-out)
    score: int                  # bidding side's score
    par: int                    # constructive par
    reward_points: int          # score - par
    reward_imps: int            # IMPs of score - par, in [-24, 0]

    def reward(self, mode: str = "imps") -> float:
        return float(self.reward_imps if mode == "imps" else self.reward_points)


def result(deal: UncontestedDeal, auction: Auction) -> UncontestedResult:
    """Score of the finished auction (thesis 4.4.3)."""
    contract = auction.contract()
    par = deal.par
    if contract is None:
        return UncontestedResult(None, 0, 0, par, -par, int(imps(-par)))
    tricks = int(deal.dd[contract.declarer, contract.strain])
    penalty = DOUBLED if tricks <= contract.level + 6 - 2 else UNDOUBLED
    contract = Contract(contract.level, contract.strain, penalty, contract.declarer)
    points = int(SCORE_TABLE[contract.bid, penalty, int(deal.vulnerable), tricks])
    return UncontestedResult(contract, tricks, points, par, points - par, int(imps(points - par)))

