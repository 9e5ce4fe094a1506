"""Choosing the deal of an episode, shared by the Gymnasium and OpenSpiel bidding envs.

A deal comes from a dataset row (sampled or given by ``index``) or from PBN text (``deal``), whose DD table is
computed with DDS. Board number: the dataset's ``board`` array, else row + 1; PBN tags, else board 1.
"""

from __future__ import annotations

import numpy as np

from bridgerl.core import Dataset
from bridgerl.core.board import is_vulnerable, parse_vul, vul_codes_for_boards, vul_for_board
from bridgerl.core.dd import solve_dd_table
from bridgerl.core.pbn import parse_deal_option
from bridgerl.core.uncontested import SIDES, UncontestedDeal, can_make_anything, thesis_side

SIDE_OPTIONS = ("thesis", "NS", "EW")
_UNCONTESTED_RESET_KEYS = {"index", "deal", "vulnerable", "side"}


def check_reset_options(options: dict, known: set[str]) -> None:
    """Raise ValueError for unknown reset options, or for both 'index' and 'deal'."""
    unknown = set(options) - known
    if unknown:
        raise ValueError(f"unknown reset option(s) {sorted(unknown)}; known: {sorted(known)}")
    if "index" in options and "deal" in options:
        raise ValueError("give either 'index' or 'deal' in reset options, not both")


def parse_side_option(side) -> str:
    if isinstance(side, str) and side.strip().lower() == "thesis":
        return "thesis"
    if isinstance(side, str) and side.strip().upper() in SIDES:
        return side.strip().upper()
    if side in (0, 1) and not isinstance(side, bool):
        return SIDES[side]
    raise ValueError(f"side must be one of {SIDE_OPTIONS}, got {side!r}")


class UncontestedDealSource:
    """Deals of one dataset for the uncontested env, with the side rule of thesis 4.4.6."""

    def __init__(self, dataset: Dataset, side: str = "thesis", opening_rules: bool = True):
        self.dataset = dataset
        self.side = parse_side_option(side)
        self.opening_rules = bool(opening_rules)
        self.vuls = vul_codes_for_boards(dataset.boards)
        self.thesis_sides = np.asarray(thesis_side(dataset.dd), dtype=np.int8).reshape(len(dataset))
        self.makeable_rows = np.flatnonzero(np.asarray(can_make_anything(dataset.dd)).reshape(len(dataset)))
        if len(dataset) == 0:
            raise ValueError(f"{dataset.source}: the dataset has no deals")
        if self.side == "thesis" and len(self.makeable_rows) == 0:
            raise ValueError(f"{dataset.source}: no deal where either side can make a contract")

    def eligible_rows(self, side: str) -> np.ndarray:
        """Rows an episode may sample: with the thesis side rule, deals where someone can make something."""
        return self.makeable_rows if side == "thesis" else np.arange(len(self.dataset))

    def row_side(self, row: int, side: str) -> int:
        return int(self.thesis_sides[row]) if side == "thesis" else SIDES.index(side)

    def deal_at(self, row: int, side: str | None = None, vulnerable: bool | None = None) -> UncontestedDeal:
        if not 0 <= row < len(self.dataset):
            raise ValueError(f"index {row} is outside the dataset's rows 0..{len(self.dataset) - 1}")
        side = self.side if side is None else parse_side_option(side)
        bidding = self.row_side(row, side)
        if vulnerable is None:
            vulnerable = bool(self.vuls[row] & (1 << bidding))
        return UncontestedDeal(self.dataset.owner[row], self.dataset.dd[row], bidding, bool(vulnerable),
                               int(self.dataset.boards[row]), row, self.opening_rules)

    def deal_from_pbn(self, text: str, side: str | None = None, vulnerable: bool | None = None) -> UncontestedDeal:
        owner, board, vul, _dealer = parse_deal_option(text)
        dd = solve_dd_table(owner)
        side = self.side if side is None else parse_side_option(side)
        if side == "thesis":
            bidding = int(thesis_side(dd))
        else:
            bidding = SIDES.index(side)
        if vulnerable is None:
            vulnerable = is_vulnerable(parse_vul(vul) if vul else vul_for_board(board), bidding)
        return UncontestedDeal(owner, dd, bidding, bool(vulnerable), board, None, self.opening_rules)

    def deal_for_reset(self, rng: np.random.Generator, options: dict) -> UncontestedDeal:
        check_reset_options(options, _UNCONTESTED_RESET_KEYS)
        side = parse_side_option(options.get("side", self.side))
        vulnerable = options.get("vulnerable")
        if vulnerable is not None:
            vulnerable = bool(vulnerable)
        if "deal" in options:
            return self.deal_from_pbn(options["deal"], side, vulnerable)
        if "index" in options:
            return self.deal_at(int(options["index"]), side, vulnerable)
        rows = self.eligible_rows(side)
        return self.deal_at(int(rows[rng.integers(len(rows))]), side, vulnerable)


_COMPETITIVE_RESET_KEYS = {"index", "deal", "dealer", "vul"}


class CompetitiveDeal:
    """Everything fixed for one competitive episode; par is computed once, on first use."""

    __slots__ = ("owner", "dd", "dealer", "vul", "board", "index", "_par")

    def __init__(self, owner, dd, dealer: int, vul: str, board: int, index: int | None, par_ns: int | None = None):
        self.owner, self.dd, self.dealer, self.vul = owner, dd, int(dealer), parse_vul(vul)
        self.board, self.index, self._par = int(board), index, par_ns

    @property
    def par_ns(self) -> int:
        if self._par is None:
            from bridgerl.core.par import par_score

            self._par = par_score(self.dd, self.vul, self.dealer)
        return self._par

    def vulnerable(self, seat: int) -> bool:
        return is_vulnerable(self.vul, seat)


class CompetitiveDealSource:
    """Deals of one dataset for the competitive env: dealer and vulnerability from the board number."""

    def __init__(self, dataset: Dataset):
        if len(dataset) == 0:
            raise ValueError(f"{dataset.source}: the dataset has no deals")
        self.dataset = dataset

    def deal_at(self, row: int, dealer: int | None = None, vul: str | None = None) -> CompetitiveDeal:
        from bridgerl.core.board import dealer_for_board

        if not 0 <= row < len(self.dataset):
            raise ValueError(f"index {row} is outside the dataset's rows 0..{len(self.dataset) - 1}")
        board = int(self.dataset.boards[row])
        return CompetitiveDeal(self.dataset.owner[row], self.dataset.dd[row],
                               dealer_for_board(board) if dealer is None else dealer,
                               vul_for_board(board) if vul is None else vul, board, row)

    def deal_for_reset(self, rng: np.random.Generator, options: dict) -> CompetitiveDeal:
        from bridgerl.core.board import dealer_for_board
        from bridgerl.core.cards import parse_seat

        check_reset_options(options, _COMPETITIVE_RESET_KEYS)
        dealer = parse_seat(options["dealer"]) if options.get("dealer") is not None else None
        vul = parse_vul(options["vul"]) if options.get("vul") is not None else None
        if "deal" in options:
            owner, board, tag_vul, tag_dealer = parse_deal_option(options["deal"])
            dealer = dealer if dealer is not None else (tag_dealer if tag_dealer is not None else dealer_for_board(board))
            vul = vul or tag_vul or vul_for_board(board)
            return CompetitiveDeal(owner, solve_dd_table(owner), dealer, vul, board, None)
        row = int(options["index"]) if "index" in options else int(rng.integers(len(self.dataset)))
        return self.deal_at(row, dealer, vul)
