"""Competitive bidding, the rules module of the game (thesis 2.1.3-2.1.4, 4.5.2): deal source, the 231-bit
observation and its inverse, the auction view a bidding agent may read, the result (the final contract scored with
its declarer's DD tricks, and par) and the text rendering. The Gymnasium, OpenSpiel, PettingZoo and JAX versions
import only this module (and the core it builds on).

The observation's encoding and decoding live in `bridgerl.core.competitive_observation` (which states the
layout) and are re-exported here.

Rewards: ``par_imps`` gives NS the IMPs of (NS score - NS par) and EW the negative; ``points`` gives NS its raw
score and EW the negative.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .auction import Auction
from .board import (VULS, dealer_for_board, dealers_for_boards, is_vulnerable, parse_vul, vul_codes_for_boards,
                    vul_for_board)
from .calls import BID_OFFSET, NUM_CALLS, NUM_UNCONTESTED_ACTIONS, PASS, call_name
from .cards import SEATS, hand_text, parse_seat
from .competitive_observation import (  # noqa: F401  (the observation's names, importable from here as before)
    AUCTION_OFFSET, HAND_OFFSET, OBSERVATION_SIZE, AuctionEncoder, auction_encoder, bid_values, decode_auction, encode,
    encode_auction, encoded_calls)
from .contract import Contract
from .dataset import Dataset, SharedSource
from .dd import solve_dd_table, solve_declarer_tricks
from .deals import check_nonempty, check_reset_options, check_row
from .hand import HCP_PER_CARD
from .imps import imps
from .par import par_score
from .pbn import parse_deal_option
from .scoring import SCORE_TABLE
from .uncontested import encode_observation, opening_mask_from_features

REWARDS = ("par_imps", "points")


# -- the auction view: what a bidding agent may read -----------------------------------------------------------
ME, LEFT, PARTNER, RIGHT = 0, 1, 2, 3


class AuctionView:
    """What the player to act sees of an auction: the bidding counterpart of `PlayerView`.

    ``calls``: the auction so far as (relative seat, call), oldest first; relative seats 0 = the player to act,
    1 = left-hand opponent, 2 = partner, 3 = right-hand opponent; calls are competitive indices (0 Pass, 1 X, 2 XX,
    3 + bid). ``hand``: the player's 13 cards, lowest first. ``legal``: the legal calls. ``seat``: the absolute seat
    (N=0 ... W=3) when known, ``None`` when the view was read back from an observation (which is relative).

    Treat it as immutable (its arrays are handed out as copies); the envs build one at every step, so its tuples
    are made on first use."""

    __slots__ = ("_calls", "_auction_calls", "_hand", "_hand_bits", "_legal", "_legal_mask", "we_vulnerable",
                 "they_vulnerable", "seat")

    def __init__(self, calls, hand, we_vulnerable: bool, they_vulnerable: bool, legal, seat: int | None = None):
        self._set(tuple((int(s), int(c)) for s, c in calls), None, tuple(int(c) for c in hand), None,
                  tuple(int(c) for c in legal), None, we_vulnerable, they_vulnerable, seat)

    def _set(self, calls, auction_calls, hand, hand_bits, legal, legal_mask, we, they, seat):
        self._calls, self._auction_calls, self._hand, self._hand_bits = calls, auction_calls, hand, hand_bits
        self._legal, self._legal_mask = legal, legal_mask
        self.we_vulnerable, self.they_vulnerable, self.seat = bool(we), bool(they), seat

    @classmethod
    def of(cls, auction: Auction, hand_bits: np.ndarray, we_vulnerable: bool, they_vulnerable: bool,
           legal_mask: np.ndarray | None = None) -> "AuctionView":
        """The view of the player to act in ``auction`` holding ``hand_bits`` (int8[52], kept, not copied: the envs
        pass arrays they never change)."""
        view = cls.__new__(cls)
        mask = auction.legal_mask() if legal_mask is None else np.asarray(legal_mask, dtype=bool)
        view._calls, view._auction_calls, view._hand, view._hand_bits = None, auction.calls, None, hand_bits
        view._legal, view._legal_mask, view.seat = None, mask, auction.to_act
        view.we_vulnerable, view.they_vulnerable = bool(we_vulnerable), bool(they_vulnerable)
        return view

    @classmethod
    def from_observation(cls, observation, action_mask) -> "AuctionView":
        """The view behind a 231-value observation and a 38-call mask (``seat`` unknown)."""
        observation = np.asarray(observation)
        mask = np.asarray(action_mask)
        if observation.shape != (OBSERVATION_SIZE,) or mask.shape != (NUM_CALLS,):
            raise ValueError(f"a competitive bidder takes {OBSERVATION_SIZE} observation values and {NUM_CALLS} "
                             f"actions, got {observation.shape} and {mask.shape}")
        view = cls.__new__(cls)
        view._set(tuple(decode_auction(observation)), None, None, observation[HAND_OFFSET:].astype(np.int8), None,
                  mask.astype(bool), observation[0], observation[1], None)
        return view

    @property
    def calls(self) -> tuple[tuple[int, int], ...]:
        if self._calls is None:
            n = len(self._auction_calls)
            self._calls = tuple(((i - n) % 4, call) for i, call in enumerate(self._auction_calls))
        return self._calls

    @property
    def hand(self) -> tuple[int, ...]:
        if self._hand is None:
            self._hand = tuple(np.flatnonzero(self._hand_bits).tolist())
        return self._hand

    @property
    def legal(self) -> tuple[int, ...]:
        if self._legal is None:
            self._legal = tuple(np.flatnonzero(self._legal_mask).tolist())
        return self._legal

    def __eq__(self, other) -> bool:
        if not isinstance(other, AuctionView):
            return NotImplemented
        # what the player sees, relative to its seat: a view read back from an observation (seat None) equals the
        # env's view of the same position
        return (self.calls, self.hand, self.legal, self.we_vulnerable, self.they_vulnerable) == (
            other.calls, other.hand, other.legal, other.we_vulnerable, other.they_vulnerable)

    __hash__ = None

    def __repr__(self) -> str:
        calls = " ".join(f"{'MLPR'[seat]}:{call_name(call)}" for seat, call in self.calls) or "-"
        hand = hand_text(np.where(self.hand_bits > 0, 0, 1), 0)  # an owner array where seat 0 holds our cards
        return (f"AuctionView(seat={self.seat}, calls=[{calls}], hand={hand}, vulnerable we={self.we_vulnerable} "
                f"they={self.they_vulnerable}, legal={len(self.legal)} calls)")

    @property
    def hand_bits(self) -> np.ndarray:
        """int8[52] (a copy)."""
        if self._hand_bits is None:
            bits = np.zeros(52, dtype=np.int8)
            bits[list(self._hand)] = 1
            self._hand_bits = bits
        return self._hand_bits.copy()

    @property
    def legal_mask(self) -> np.ndarray:
        """bool[38] (a copy)."""
        if self._legal_mask is None:
            mask = np.zeros(NUM_CALLS, dtype=bool)
            mask[list(self._legal)] = True
            self._legal_mask = mask
        return self._legal_mask.copy()

    @property
    def hcp(self) -> int:
        return int(HCP_PER_CARD[list(self.hand)].sum())

    @property
    def suit_lengths(self) -> np.ndarray:
        """int[4]: clubs, diamonds, hearts, spades."""
        return np.bincount(np.asarray(self.hand, dtype=np.int64) // 13, minlength=4)

    def observation(self) -> np.ndarray:
        """The 231-value observation of this view."""
        return encode([call for _, call in self.calls], self.we_vulnerable, self.they_vulnerable, self.hand_bits)

    @property
    def opponents_have_bid(self) -> bool:
        """Whether the opponents have made a bid (not only passes or doubles)."""
        return any(seat in (LEFT, RIGHT) and call >= BID_OFFSET for seat, call in self.calls)

    def uncontested(self) -> tuple[np.ndarray, np.ndarray]:
        """The auction as uncontested bidding sees it (thesis 4.4, fig. 4.4): (89-bit observation, bool[36] mask),
        keeping only our side's bids. Before our side's first bid the thesis 4.4.5 opening rules restrict the mask;
        an all-False mask means the rules leave only a pass."""
        ours = [call for seat, call in self.calls if seat in (ME, PARTNER)]
        our_bids = [call - BID_OFFSET for call in ours if call >= BID_OFFSET]
        first_bid = next((i for i, call in enumerate(ours) if call >= BID_OFFSET), len(ours))
        hand_bits = self.hand_bits
        view = encode_observation(self.we_vulnerable, first_bid > 0, our_bids, hand_bits)  # one of us passed first
        mask = self.legal_mask
        mask36 = np.concatenate([mask[PASS:PASS + 1], mask[BID_OFFSET:]])
        if not our_bids:  # the opening: thesis 4.4.5 rules
            mask36 &= opening_mask_from_features(self.suit_lengths, self.hcp)
        assert mask36.shape == (NUM_UNCONTESTED_ACTIONS,)
        return view, mask36


@dataclass(frozen=True)
class CompetitiveResult:
    contract: Contract | None   # None for a pass-out
    tricks: int                 # declarer's DD tricks (0 for a pass-out)
    score_ns: int
    par: "int | CompetitiveDeal"  # NS par, or the deal whose par it is (found on first use of ``par_ns``)

    @property
    def par_ns(self) -> int:
        """NS par. A result that holds its deal finds it only when asked: a deal without a DD table (resampled for
        a search) is then solved with DDS, which a reward of points never needs."""
        return int(self.par) if isinstance(self.par, (int, np.integer)) else self.par.par_ns

    def ns_reward(self, mode: str = "par_imps") -> float:
        if mode == "par_imps":
            return float(imps(self.score_ns - self.par_ns))
        return float(self.score_ns)

    def returns(self, mode: str = "par_imps") -> list[float]:
        """One value per seat N, E, S, W."""
        ns = self.ns_reward(mode)
        return [ns, -ns, ns, -ns]

    def info(self, mode: str) -> dict:
        """What the envs put in ``info`` at the end: ``contract`` (text), ``declarer`` (seat, -1 for a pass-out: every
        ``info`` key keeps one type), ``tricks``, ``score_ns``, ``par_ns`` and ``returns`` (N, E, S, W) under reward
        ``mode``."""
        return {"contract": contract_text(self.contract),
                "declarer": -1 if self.contract is None else self.contract.declarer, "tricks": self.tricks,
                "score_ns": self.score_ns, "par_ns": self.par_ns, "returns": self.returns(mode)}


def score_ns_for_tricks(contract: Contract, tricks: int, vul: str) -> int:
    """NS's duplicate score of ``contract`` when declarer takes ``tricks`` (NS negative when EW score)."""
    vulnerable = is_vulnerable(parse_vul(vul), contract.declarer)
    points = int(SCORE_TABLE[contract.bid, contract.penalty, int(vulnerable), int(tricks)])
    return points if contract.declarer % 2 == 0 else -points


def score_ns(contract: Contract | None, dd: np.ndarray, vul: str) -> tuple[int, int]:
    """(declarer's DD tricks, NS score) of a final contract; a pass-out scores 0."""
    if contract is None:
        return 0, 0
    tricks = int(dd[contract.declarer, contract.strain])
    return tricks, score_ns_for_tricks(contract, tricks, vul)


def result(auction: Auction, dd: np.ndarray, vul: str, par_ns: int | None = None) -> CompetitiveResult:
    """Result of a finished auction; ``par_ns`` is computed with DDS's par when not given."""
    contract = auction.contract()
    tricks, points = score_ns(contract, dd, vul)
    if par_ns is None:
        par_ns = par_score(dd, vul, auction.dealer)
    return CompetitiveResult(contract, tricks, points, int(par_ns))


# -- deal source ---------------------------------------------------------------------------------------------------
RESET_OPTIONS = {"index", "deal", "dealer", "vul"}
_SEAT_BITS = np.eye(4, dtype=np.int8)  # column s: the one-hot bits of seat s


class CompetitiveDeal:
    """Everything fixed for one competitive episode; par is computed once, on first use, and so is the DD table of
    a deal made without one (``dd=None``: a deal resampled for a search, solved with DDS only if it is scored)."""

    __slots__ = ("owner", "_dd", "dealer", "vul", "board", "index", "_par", "_vulnerable", "_cache", "_hands")

    def __init__(self, owner, dd, dealer: int, vul: str, board: int, index: int | None, par_ns: int | None = None,
                 par_cache: dict | None = None):
        """``par_cache``: a dict row -> par that a deal source shares among its deals of ``index``."""
        self.owner, self._dd, self.dealer, self.vul = owner, dd, int(dealer), parse_vul(vul)
        self.board, self.index, self._cache = int(board), index, par_cache
        self._par = par_ns if par_ns is not None or par_cache is None else par_cache.get(index)
        ns, ew = is_vulnerable(self.vul, 0), is_vulnerable(self.vul, 1)
        self._vulnerable = (ns, ew, ns, ew)
        self._hands = None

    @property
    def has_dd(self) -> bool:
        """Whether the deal came with its DD table (a resampled or self-dealt deal solves one only when asked)."""
        return self._dd is not None

    @property
    def dd(self) -> np.ndarray:
        """uint8[4, 5]: DD tricks of each declarer N, E, S, W in each strain C, D, H, S, NT."""
        if self._dd is None:
            self._dd = solve_dd_table(self.owner)
        return self._dd

    def dd_tricks(self, declarer: int, strain: int) -> int:
        """Declarer's DD tricks in ``strain``: the table's entry, or (a deal made without a table) one DDS search for
        this contract alone, several times cheaper than the whole table."""
        if self._dd is None:
            return solve_declarer_tricks(self.owner, declarer, strain)
        return int(self._dd[declarer, strain])

    @property
    def par_ns(self) -> int:
        if self._par is None:
            self._par = par_score(self.dd, self.vul, self.dealer)
            if self._cache is not None:
                self._cache[self.index] = self._par
        return self._par

    def __getstate__(self) -> dict:
        """Copies and pickles (OpenSpiel's clone and serialize) leave the source's shared par cache behind."""
        return {name: getattr(self, name) for name in self.__slots__ if name != "_cache"}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._cache = None

    def vulnerable(self, seat: int) -> bool:
        return self._vulnerable[seat % 4]

    def info(self) -> dict:
        """The deal's keys of the envs' ``info``: ``dealer``, ``vul``, ``index`` (the dataset row, -1 for a PBN
        deal: every ``info`` key keeps one type) and ``board``."""
        return {"dealer": self.dealer, "vul": self.vul, "index": -1 if self.index is None else self.index,
                "board": self.board}

    def hands(self) -> np.ndarray:
        """int8[4, 52]: the card bits of each seat N, E, S, W (read-only; worked out once)."""
        if self._hands is None:
            self._hands = _SEAT_BITS[:, self.owner]
            self._hands.setflags(write=False)
        return self._hands


class DealtSource:
    """The deals `bridgerl data positions --dealt SEED` deals itself (`bridgerl.core.generate.dealt_owner`): deal k
    is board k + 1 (dealer and vulnerability from that number), without a DD table (nothing is solved for it)."""

    def __init__(self, seed: int):
        self.seed = int(seed)

    def deal_at(self, k: int) -> CompetitiveDeal:
        from .generate import dealt_owner

        board = int(k) + 1
        return CompetitiveDeal(dealt_owner(self.seed, k), None, dealer_for_board(board), vul_for_board(board), board,
                               int(k))


class CompetitiveDealSource(SharedSource):
    """Deals of one dataset for competitive bidding: dealer and vulnerability from the board number.

    ``deal_for_reset(rng, options)`` takes "index", "deal" (PBN; its Dealer/Vulnerable tags are used, DD solved
    with DDS), "dealer" and "vul"; without "index"/"deal" it samples a row uniformly."""

    def __init__(self, dataset: Dataset):
        check_nonempty(dataset)
        self.dataset = dataset
        self._boards = dataset.boards.tolist()
        self._dealers = dealers_for_boards(dataset.boards).tolist()
        self._vuls = [VULS[code] for code in vul_codes_for_boards(dataset.boards).tolist()]
        self._par: dict[int, int] = {}  # NS par of the rows played with their board's own dealer and vulnerability

    def deal_at(self, row: int, dealer: int | None = None, vul: str | None = None) -> CompetitiveDeal:
        row = check_row(self.dataset, row)
        cache = self._par if dealer is None and vul is None else None
        return CompetitiveDeal(self.dataset.owner[row], self.dataset.dd[row],
                               self._dealers[row] if dealer is None else dealer,
                               self._vuls[row] if vul is None else vul, self._boards[row], row,
                               par_cache=cache)

    def deal_for_reset(self, rng: np.random.Generator, options: dict) -> CompetitiveDeal:
        check_reset_options(options, RESET_OPTIONS)
        dealer = parse_seat(options["dealer"]) if options.get("dealer") is not None else None
        vul = parse_vul(options["vul"]) if options.get("vul") is not None else None
        if "deal" in options:
            if getattr(self.dataset, "tricks", "dd") != "dd":
                raise ValueError("a PBN deal has no played-tricks table (its DD table is solved on the spot): reset with an 'index' into the dataset, or make the env with tricks='dd'")
            owner, board, tag_vul, tag_dealer = parse_deal_option(options["deal"])
            if dealer is None:
                dealer = tag_dealer if tag_dealer is not None else dealer_for_board(board)
            vul = vul or tag_vul or vul_for_board(board)
            return CompetitiveDeal(owner, solve_dd_table(owner), dealer, vul, board, None)
        row = options["index"] if "index" in options else int(rng.integers(len(self.dataset)))
        return self.deal_at(row, dealer, vul)


# -- text ----------------------------------------------------------------------------------------------------------
contract_text = Contract.name_of


def deal_and_auction_lines(deal: CompetitiveDeal, auction: Auction) -> list[str]:
    """The board line, the four hands and the auction in the usual W N E S columns."""
    lines = [f"Board {deal.board}{'' if deal.index is None else f' (row {deal.index})'}: dealer "
             f"{SEATS[deal.dealer]}, vulnerable {deal.vul}"]
    for seat in range(4):
        lines.append(f"  {SEATS[seat]}: {hand_text(deal.owner, seat)}")
    order = [3, 0, 1, 2]
    cells = [""] * order.index(deal.dealer) + [call_name(c) for c in auction.calls]
    lines.append("  " + "".join(f"{SEATS[s]:<6}" for s in order))
    for row in range(0, len(cells), 4):
        lines.append("  " + "".join(f"{c:<6}" for c in cells[row:row + 4]))
    return lines


def render_text(deal: CompetitiveDeal, auction: Auction, outcome: CompetitiveResult | None = None) -> str:
    """Four hands and the auction in the usual W N E S columns."""
    lines = deal_and_auction_lines(deal, auction)
    if outcome is not None:
        what = "passed out" if outcome.contract is None else (
            f"{contract_text(outcome.contract)} by {SEATS[outcome.contract.declarer]}, {outcome.tricks} tricks")
        lines.append(f"  Result: {what}, NS {outcome.score_ns}, par NS {outcome.par_ns}")
    return "\n".join(lines) + "\n"
