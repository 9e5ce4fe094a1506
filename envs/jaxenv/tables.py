"""Lookup tables for the JAX envs, built from the rules core (never re-derived by hand).

Per dataset row: DD tables, hands, board-derived dealer and vulnerability, constructive par and bidding side
(uncontested), opening-rule codes (uncontested), standard par (competitive). The score table and the IMP edges
come straight from `bridgerl.core` (`rules.py`).
"""

from __future__ import annotations

import numpy as np

from bridgerl.core import Dataset
from bridgerl.core.board import VULS, dealers_for_boards, vul_codes_for_boards
from bridgerl.core.par import constructive_par, par_score
from bridgerl.core.uncontested import (FIRST_BIDDER, can_make_anything, opening_action_mask, opening_mask_from_features,
                                       thesis_side)

# uncontested actions a rule opening can be: 1C, 1D, 1H, 1S, 1NT, 2NT
OPENING_ACTIONS = np.array([1, 2, 3, 4, 5, 10], dtype=np.int32)
PASS_BIT = 6


def board_vul_codes(dataset: Dataset) -> np.ndarray:
    """int8[N]: vulnerability index (bit 0 NS, bit 1 EW) of each row's board."""
    return vul_codes_for_boards(dataset.boards)


def board_dealers(dataset: Dataset) -> np.ndarray:
    return dealers_for_boards(dataset.boards)


def opening_codes(owner: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """uint8[N]: the opening mask of `bridgerl.core.uncontested.opening_action_mask` packed into 7 bits."""
    return pack_opening_mask(opening_action_mask(owner, seats))


def opening_code_table() -> np.ndarray:
    """uint8[14, 14, 14, 38]: the packed opening mask (`opening_codes`) of a hand with c clubs, d diamonds, h hearts
    (13 - c - d - h spades) and p HCP, at [c, d, h, p]; the rules core's `opening_mask_from_features` on every
    hand shape and point count (entries of impossible shapes are 0), for hands dealt inside jit."""
    c, d, h, p = np.meshgrid(np.arange(14), np.arange(14), np.arange(14), np.arange(38), indexing="ij")
    spades = 13 - c - d - h
    lengths = np.stack([c, d, h, np.maximum(spades, 0)], -1)
    codes = pack_opening_mask(opening_mask_from_features(lengths, p))
    return np.where(spades >= 0, codes, 0).astype(np.uint8)


def pack_opening_mask(mask: np.ndarray) -> np.ndarray:
    """uint8[...]: an opening mask bool[..., 36] packed into 7 bits (bit i: `OPENING_ACTIONS` [i], bit 6: pass)."""
    extra = np.delete(np.arange(1, 36), OPENING_ACTIONS - 1)
    if mask[..., extra].any():
        raise AssertionError("an opening outside 1C-1NT/2NT: the packed code would drop it")
    bits = mask[..., OPENING_ACTIONS].astype(np.uint8) << np.arange(6, dtype=np.uint8)
    return (bits.sum(-1) + (mask[..., 0].astype(np.uint8) << PASS_BIT)).astype(np.uint8)


def uncontested_tables(dataset: Dataset, side: str, opening_rules: bool) -> dict[str, np.ndarray]:
    """Numpy tables for the JAX uncontested env (`side`: 'thesis', 'NS' or 'EW')."""
    n = len(dataset)
    sides = (np.asarray(thesis_side(dataset.dd)).reshape(n).astype(np.int32) if side == "thesis"
             else np.full(n, ("NS", "EW").index(side), dtype=np.int32))
    vul_codes = board_vul_codes(dataset)
    vulnerable = ((vul_codes >> sides) & 1).astype(bool)
    first = np.asarray(FIRST_BIDDER, dtype=np.int64)[sides]
    if opening_rules:
        codes = np.stack([opening_codes(dataset.owner, first), opening_codes(dataset.owner, (first + 2) % 4)], 1)
    else:
        codes = np.full((n, 2), 0xFF, dtype=np.uint8)  # bit 7: no opening rules, every action legal
    eligible = (np.flatnonzero(np.asarray(can_make_anything(dataset.dd)).reshape(n)) if side == "thesis"
                else np.arange(n))
    return {"owner": dataset.owner, "dd": dataset.dd, "side": sides, "vulnerable": vulnerable,
            "par": np.asarray(constructive_par(dataset.dd, sides, vulnerable), dtype=np.int32).reshape(n),
            "opening": codes, "eligible": eligible.astype(np.int32)}


def competitive_tables(dataset: Dataset) -> dict[str, np.ndarray]:
    """Numpy tables for the JAX competitive env: dealer, vulnerability and standard par (DDS) per row."""
    dealers = board_dealers(dataset)
    vul_codes = board_vul_codes(dataset)
    par = np.array([par_score(dataset.dd[i], VULS[vul_codes[i]], int(dealers[i])) for i in range(len(dataset))],
                   dtype=np.int32)
    return {"owner": dataset.owner, "dd": dataset.dd, "dealer": dealers.astype(np.int32),
            "vul": vul_codes.astype(np.int32), "par": par}

