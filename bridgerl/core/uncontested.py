"""Uncontested (constructive) bidding rules, thesis 4.4.

Two partners bid, the opponents pass throughout. The auction is a core `Auction` with the first bidder as dealer
and the opponents' passes inserted, so legality, the end of the auction and the declarer come from one place.
The first bid of the auction, whoever makes it, follows the opening rules of thesis 4.4.5; the contract is scored
with its declarer's DD tricks, doubled when it goes down two or more (4.4.3); the reward is the IMPs of
(score - constructive par).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .auction import Auction, AuctionOverError, IllegalCallError
from .board import is_vulnerable, parse_vul, vul_codes_for_boards, vul_for_board
from .calls import BID_OFFSET, NUM_UNCONTESTED_ACTIONS, PASS, bid_name, call_name, uncontested_to_call
from .cards import SEATS, hand_text
from .contract import DOUBLED, UNDOUBLED, Contract
from .dataset import Dataset, SharedSource, read_only
from .dd import solve_dd_table, solve_declarer_tricks
from .deals import check_nonempty, check_reset_options, check_row
from .hand import hcp, is_balanced_lengths, suit_lengths
from .imps import imps
from .par import constructive_par
from .pbn import parse_deal_option
from .scoring import SCORE_TABLE

OBSERVATION_SIZE = 89
"""[0] our side vulnerable, [1] an initial pass happened, [2 + b] bid b made, [37 + c] card c in our hand."""
VULNERABLE_BIT = 0
INITIAL_PASS_BIT = 1
BIDS_OFFSET = 2
HAND_OFFSET = 37
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


def side_rule_deals(owner: np.ndarray, side: int) -> tuple[bool, np.ndarray | None]:
    """(whether the thesis side rule (4.4.6) deals ``owner`` to ``side``, its DD table or None): the same answer as
    ``thesis_side(dd) == side and can_make_anything(dd)`` on the whole table, with fewer DDS searches. EW's
    constructive par is above 0 exactly when E or W makes 7 tricks somewhere, so one search of EW's likeliest
    contract (their longest fit of 8+ cards, else no trumps, by the partner longer in it or with more HCP) settles
    most deals: 7 tricks deal an EW deal (no table: DDS solves it if it is scored); otherwise the whole table
    decides."""
    owner = np.asarray(owner)
    east, west = suit_lengths(owner, 1), suit_lengths(owner, 3)
    fits = east + west
    strain = int(np.argmax(fits)) if fits.max() >= 8 else 4
    if strain < 4:
        declarer = 1 if east[strain] >= west[strain] else 3
    else:
        declarer = 1 if hcp(owner, 1) >= hcp(owner, 3) else 3
    if solve_declarer_tricks(owner, declarer, strain) >= 7:
        return side == 1, None
    dd = solve_dd_table(owner)
    return bool(thesis_side(dd) == side and can_make_anything(dd)), dd


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
    known_par: int | None = field(default=None, compare=False, repr=False)  # par, when the source computed it

    @property
    def first_bidder(self) -> int:
        return FIRST_BIDDER[self.side]

    @property
    def par(self) -> int:
        """Constructive par of the bidding side."""
        if self.known_par is not None:
            return self.known_par
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
    return calls_after_bid(auction.last_bid)


def calls_after_bid(last_bid: int) -> np.ndarray:
    """bool[36]: the legal calls once bid ``last_bid`` (0-34) has been made: Pass and every higher bid."""
    mask = np.zeros(NUM_UNCONTESTED_ACTIONS, dtype=bool)
    mask[0] = True
    mask[last_bid + 2:] = True
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
    bids = [call - BID_OFFSET for call in auction.calls if call >= BID_OFFSET]
    return encode_observation(deal.vulnerable, initial_pass(auction), bids,
                              deal.hand_bits(seat) if hand_bits is None else hand_bits)


def encode_observation(vulnerable: bool, initial_pass: bool, bids, hand_bits: np.ndarray) -> np.ndarray:
    """int8[89] (thesis fig. 4.4) from the side's vulnerability, whether it passed before its first bid, its bids
    (indices 0-34) and the hand's 52 card bits."""
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.int8)
    obs[VULNERABLE_BIT] = vulnerable
    obs[INITIAL_PASS_BIT] = initial_pass
    obs[BIDS_OFFSET + np.asarray(bids, dtype=np.int64)] = 1
    obs[HAND_OFFSET:] = hand_bits
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



# -- deal source ---------------------------------------------------------------------------------------------------
SIDE_OPTIONS = ("thesis", "NS", "EW")
RESET_OPTIONS = {"index", "deal", "vulnerable", "side"}


def parse_side_option(side) -> str:
    """'thesis', 'NS' or 'EW' from a string (any case) or 0/1."""
    if isinstance(side, str) and side.strip().lower() == "thesis":
        return "thesis"
    if isinstance(side, str) and side.strip().upper() in SIDES:
        return side.strip().upper()
    if side in (0, 1) and not isinstance(side, bool):
        return SIDES[side]
    raise ValueError(f"side must be one of {SIDE_OPTIONS}, got {side!r}")


class UncontestedDealSource(SharedSource):
    """Deals of one dataset for uncontested bidding, with the side rule of thesis 4.4.6.

    ``deal_for_reset(rng, options)`` takes the reset options "index", "deal" (PBN, DD solved with DDS),
    "vulnerable" and "side"; without "index"/"deal" it samples a row (with the thesis side rule, among the deals
    where someone can make something)."""

    def __init__(self, dataset: Dataset, side: str = "thesis", opening_rules: bool = True):
        check_nonempty(dataset)
        self.dataset = dataset
        self.side = parse_side_option(side)
        self.opening_rules = bool(opening_rules)
        self._args = (self.side, self.opening_rules)  # what a pickle rebuilds it with (`SharedSource`)
        self._boards = dataset.boards.tolist()
        # read-only, as the dataset's own arrays: every copy of an env shares its source
        self.vuls = read_only(vul_codes_for_boards(dataset.boards))
        self.thesis_sides = read_only(np.asarray(thesis_side(dataset.dd), dtype=np.int8).reshape(len(dataset)))
        self.makeable_rows = read_only(np.flatnonzero(np.asarray(can_make_anything(dataset.dd)).reshape(len(dataset))))
        # constructive par of each side with its board's vulnerability, for every row at once
        self._par = [np.asarray(constructive_par(dataset.dd, np.full(len(dataset), side), (self.vuls >> side) & 1 == 1))
                     .reshape(len(dataset)).tolist() for side in (0, 1)]
        if self.side == "thesis" and len(self.makeable_rows) == 0:
            raise ValueError(f"{dataset.source}: no deal where either side can make a contract")

    def eligible_rows(self, side: str) -> np.ndarray:
        """Rows an episode may sample: with the thesis side rule, deals where someone can make something."""
        return self.makeable_rows if side == "thesis" else np.arange(len(self.dataset))

    def row_side(self, row: int, side: str) -> int:
        return int(self.thesis_sides[row]) if side == "thesis" else SIDES.index(side)

    def deal_at(self, row: int, side: str | None = None, vulnerable: bool | None = None) -> UncontestedDeal:
        row = check_row(self.dataset, row)
        side = self.side if side is None else parse_side_option(side)
        bidding = self.row_side(row, side)
        own_vul = bool(self.vuls[row] & (1 << bidding))
        vulnerable = own_vul if vulnerable is None else bool(vulnerable)
        return UncontestedDeal(self.dataset.owner[row], self.dataset.dd[row], bidding, vulnerable,
                               self._boards[row], row, self.opening_rules,
                               self._par[bidding][row] if vulnerable == own_vul else None)

    def deal_from_pbn(self, text: str, side: str | None = None, vulnerable: bool | None = None) -> UncontestedDeal:
        if getattr(self.dataset, "tricks", "dd") != "dd":
            raise ValueError("a PBN deal has no played-tricks table (its DD table is solved on the spot): reset with an 'index' into the dataset, or make the env with tricks='dd'")
        owner, board, vul, _dealer = parse_deal_option(text)
        dd = solve_dd_table(owner)
        side = self.side if side is None else parse_side_option(side)
        bidding = int(thesis_side(dd)) if side == "thesis" else SIDES.index(side)
        if vulnerable is None:
            vulnerable = is_vulnerable(parse_vul(vul) if vul else vul_for_board(board), bidding)
        return UncontestedDeal(owner, dd, bidding, bool(vulnerable), board, None, self.opening_rules)

    def deal_for_reset(self, rng: np.random.Generator, options: dict) -> UncontestedDeal:
        check_reset_options(options, RESET_OPTIONS)
        side = parse_side_option(options.get("side", self.side))
        vulnerable = options.get("vulnerable")
        if vulnerable is not None:
            vulnerable = bool(vulnerable)
        if "deal" in options:
            return self.deal_from_pbn(options["deal"], side, vulnerable)
        if "index" in options:
            return self.deal_at(options["index"], side, vulnerable)
        rows = self.eligible_rows(side)
        return self.deal_at(int(rows[rng.integers(len(rows))]), side, vulnerable)


# -- text ----------------------------------------------------------------------------------------------------------
contract_text = Contract.name_of


def render_text(deal: UncontestedDeal, auction: Auction, outcome: UncontestedResult | None = None) -> str:
    """Both hands of the bidding side and the auction, as a bridge player writes them."""
    lines = [f"Board {deal.board}{'' if deal.index is None else f' (row {deal.index})'}: "
             f"{SIDES[deal.side]} bidding, {'vulnerable' if deal.vulnerable else 'not vulnerable'}"]
    for seat in (deal.first_bidder, (deal.first_bidder + 2) % 4):
        lines.append(f"  {SEATS[seat]}: {hand_text(deal.owner, seat)}")
    own = [f"{SEATS[(deal.first_bidder + i) % 4]} {call_name(c)}" for i, c in enumerate(auction.calls) if i % 2 == 0]
    lines.append("  Auction: " + ("  ".join(own) if own else "(none yet)"))
    if outcome is not None:
        contract = "passed out" if outcome.contract is None else (
            f"{contract_text(outcome.contract)} by {SEATS[outcome.contract.declarer]}, {outcome.tricks} tricks")
        lines.append(f"  Result: {contract}, score {outcome.score}, par {outcome.par}, "
                     f"{outcome.reward_imps} IMPs")
    return "\n".join(lines) + "\n"
