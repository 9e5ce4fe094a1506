"""Play positions from whole-deal games, with the hidden hands known (`bridgerl data positions`, format in
`docs/datasets.md`, "Play positions").

A positions file is an ``.npz`` of two tables. *Deal arrays* (one row per deal played, D rows): ``row`` (the row of
the source dataset), ``board``, ``dealer``, ``vul`` (index into `board.VULS`), ``owner`` uint8[D, 52], ``dd``
uint8[D, 4, 5] (the source's DD table), ``auction`` int16[D, A] (the calls, -1 after the end), ``contract``
int8[D, 4] (level, strain, penalty, declarer; all -1 for a passed-out deal) and ``play`` int8[D, 52] (the cards in
the order played, -1 after the end). *Position arrays* (one row per card played, P rows): ``deal`` (index into the
deal arrays), ``step`` (cards played before it), ``player`` (the seat choosing: declarer for dummy's cards),
``seat`` (the hand the card comes from), ``legal`` bool[P, 52], ``choices`` (groups of equal legal cards), ``card``
(the card played) and ``dd`` int8[P, 52]: the double-dummy tricks the side to play takes from this position on (the
trick in progress included) after each legal card, -1 for the others. Scalars: ``format`` (1), ``source`` (the
dataset), ``ns``/``ew`` (the specs that bid and played), ``seed``; optional ``identity`` (JSON: the job that made
the file, `bridgerl.core.identity`: the specs as resolved, the SHA-256 of every checkpoint they loaded (the card
player's included), the data's content hash).

Optional (``bridgerl data positions --label-worlds K``): the position array ``worlds`` uint8[P, 52], for each
position with a choice the number of K worlds, sampled uniformly among the layouts consistent with the chooser's
view (all of them, each once, when there are no more than K), in which each legal card is double-dummy best (seed 004's training target of its ISSN; zeros at positions
without a choice), and the scalar ``label_worlds`` (K).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .auction import Auction
from .board import VULS
from .bridge import CARD_OFFSET, BridgeState
from .competitive import CompetitiveDeal
from .dataset import read_npz

FORMAT = 1
DEAL_ARRAYS = {"row": (np.int32, ()), "board": (np.int32, ()), "dealer": (np.uint8, ()), "vul": (np.uint8, ()),
               "owner": (np.uint8, (52,)), "dd": (np.uint8, (4, 5)), "auction": (np.int16, (None,)),
               "contract": (np.int8, (4,)), "play": (np.int8, (52,))}
POSITION_ARRAYS = {"deal": (np.int32, ()), "step": (np.uint8, ()), "player": (np.uint8, ()), "seat": (np.uint8, ()),
                   "legal": (np.bool_, (52,)), "choices": (np.uint8, ()), "card": (np.uint8, ()),
                   "dd": (np.int8, (52,))}
SCALARS = ("format", "source", "ns", "ew", "seed")
OPTIONAL_POSITION_ARRAYS = {"worlds": (np.uint8, (52,))}
"""Position arrays a file may hold (`generate_positions` with ``label_worlds``), with the scalar ``label_worlds``."""


UNKNOWN = 255
NO_DD = np.full((4, 5), UNKNOWN, np.uint8)
"""The ``dd`` of a deal without a DD table (one `bridgerl data positions --dealt` dealt itself): every entry 255."""


class PositionsError(ValueError):
    """A positions file that is missing, unreadable or not in the documented format (the message names it)."""


@dataclass(frozen=True)
class Positions:
    """A loaded positions file: ``deals`` and ``positions`` (dicts of arrays, the two tables) and ``meta`` (the
    scalars)."""

    deals: dict
    positions: dict
    meta: dict
    source: str = "<arrays>"

    def __len__(self) -> int:
        return len(self.positions["deal"])

    def state(self, i: int) -> BridgeState:
        """The whole-deal state of position ``i`` (its auction and the cards played before it), rebuilt by replay."""
        state = self.auction_state(i)
        for card in self.deals["play"][int(self.positions["deal"][i])][:int(self.positions["step"][i])]:
            state = state.apply(CARD_OFFSET + int(card))
        return state

    def auction_state(self, i: int) -> BridgeState:
        """The whole-deal state of position ``i``'s deal at the end of its auction (before any card): what `state`
        replays the cards onto, and what a reader of every position of a deal replays once."""
        if not 0 <= i < len(self):
            raise IndexError(f"{self.source}: position {i} out of range (0..{len(self) - 1})")
        d = int(self.positions["deal"][i])
        dd = self.deals["dd"][d]
        deal = CompetitiveDeal(self.deals["owner"][d], None if (dd == UNKNOWN).all() else dd,
                               int(self.deals["dealer"][d]),
                               VULS[int(self.deals["vul"][d])], int(self.deals["board"][d]), int(self.deals["row"][d]))
        state = BridgeState.start(deal)
        for call in auction_of(self, i).calls:
            state = state.apply(call)
        return state


def deal_table(states: list[BridgeState], rows: list[int]) -> dict:
    """The deal arrays of finished games (``states``, played from dataset ``rows``)."""
    width = max([1] + [len(s.auction.calls) for s in states])
    auction = np.full((len(states), width), -1, np.int16)
    contract = np.full((len(states), 4), -1, np.int8)
    play = np.full((len(states), 52), -1, np.int8)
    for i, s in enumerate(states):
        auction[i, :len(s.auction.calls)] = s.auction.calls
        c = s.auction.contract()
        if c is not None:
            contract[i] = (c.level, c.strain, c.penalty, c.declarer)
            play[i, :len(s.play.history)] = s.play.history
    return {"row": np.asarray(rows, np.int32), "board": np.array([s.deal.board for s in states], np.int32),
            "dealer": np.array([s.deal.dealer for s in states], np.uint8),
            "vul": np.array([VULS.index(s.deal.vul) for s in states], np.uint8),
            "owner": np.stack([np.asarray(s.deal.owner, np.uint8) for s in states]) if states else
            np.zeros((0, 52), np.uint8),
            "dd": np.stack([np.asarray(s.deal.dd, np.uint8) if s.deal.has_dd else NO_DD for s in states])
            if states else np.zeros((0, 4, 5), np.uint8),
            "auction": auction, "contract": contract, "play": play}


def concatenate(parts: list[tuple[dict, dict]]) -> tuple[dict, dict]:
    """Join (deal arrays, position arrays) tables in order: deal indices are shifted, auctions padded with -1; an
    optional position array (``worlds``) is kept when every part has it."""
    width = max([1] + [deals["auction"].shape[1] for deals, _ in parts])
    spec = dict(POSITION_ARRAYS)
    spec.update({k: v for k, v in OPTIONAL_POSITION_ARRAYS.items() if parts and all(k in p for _, p in parts)})
    deals_out = {k: [] for k in DEAL_ARRAYS}
    positions_out = {k: [] for k in spec}
    offset = 0
    for deals, positions in parts:
        for k in DEAL_ARRAYS:
            value = deals[k]
            if k == "auction":
                value = np.pad(value, ((0, 0), (0, width - value.shape[1])), constant_values=-1)
            deals_out[k].append(value)
        for k in spec:
            positions_out[k].append(positions[k] + offset if k == "deal" else positions[k])
        offset += len(deals["row"])
    empty_deals = {k: np.zeros((0, *(width if s is None else s for s in shape)), dtype)
                   for k, (dtype, shape) in DEAL_ARRAYS.items()}
    empty_positions = {k: np.zeros((0, *shape), dtype) for k, (dtype, shape) in spec.items()}
    return ({k: np.concatenate(v).astype(DEAL_ARRAYS[k][0]) if v else empty_deals[k] for k, v in deals_out.items()},
            {k: np.concatenate(v).astype(spec[k][0]) if v else empty_positions[k]
             for k, v in positions_out.items()})


def file_arrays(deals: dict, positions: dict, meta: dict) -> dict:
    """The arrays of a positions file: deal arrays as ``deal_NAME``, position arrays as ``pos_NAME``, scalars."""
    arrays = {f"deal_{k}": v for k, v in deals.items()}
    arrays.update({f"pos_{k}": v for k, v in positions.items()})
    arrays.update({k: np.asarray(meta[k]) for k in SCALARS})
    if "worlds" in positions:
        arrays["label_worlds"] = np.asarray(int(meta["label_worlds"]))
    if meta.get("identity") is not None:  # the job that made the file, checkpoint hashes included (JSON)
        arrays["identity"] = np.asarray(json.dumps(meta["identity"]))
    return arrays


def has_world_labels(path: str | os.PathLike) -> bool:
    """Whether a positions file carries sampled-world labels (``pos_worlds``), read from its index alone."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            return "pos_worlds.npy" in archive.namelist()
    except (OSError, zipfile.BadZipFile) as error:
        raise PositionsError(f"{path}: not a readable positions file ({error})") from None


def load_positions(path: str | os.PathLike) -> Positions:
    """Load and check a positions file; a missing array, a wrong shape or an index out of range is one line naming
    the file."""
    path = Path(path)
    arrays = read_npz(path, "positions", PositionsError)
    missing = [f"deal_{k}" for k in DEAL_ARRAYS if f"deal_{k}" not in arrays]
    missing += [f"pos_{k}" for k in POSITION_ARRAYS if f"pos_{k}" not in arrays]
    missing += [k for k in SCALARS if k not in arrays]
    if missing:
        from .files import describe_file

        found = describe_file(path)
        if found and not found.startswith(("a .npz file of arrays", "a positions file")):
            raise PositionsError(f"{path}: {found}, not a positions file (make one with `bridgerl data positions`)")
        raise PositionsError(f"{path}: not a positions file (missing {', '.join(missing[:4])}"
                             f"{', ...' if len(missing) > 4 else ''}; make one with `bridgerl data positions`)")
    try:
        version = int(arrays["format"])
    except (TypeError, ValueError):
        version = None
    if version != FORMAT:
        raise PositionsError(f"{path}: positions format {arrays['format']!r}, this bridgerl reads {FORMAT}")
    deals = {k: arrays[f"deal_{k}"] for k in DEAL_ARRAYS}
    positions = {k: arrays[f"pos_{k}"] for k in POSITION_ARRAYS}
    optional = {k: v for k, v in OPTIONAL_POSITION_ARRAYS.items() if f"pos_{k}" in arrays}
    positions.update({k: arrays[f"pos_{k}"] for k in optional})
    if optional and "label_worlds" not in arrays:
        raise PositionsError(f"{path}: holds pos_worlds without the scalar label_worlds")
    for table, spec in ((deals, DEAL_ARRAYS), (positions, {**POSITION_ARRAYS, **optional})):
        n = len(table["row" if table is deals else "deal"]) if table[next(iter(spec))].ndim else -1
        for k, (dtype, shape) in spec.items():
            got = table[k].shape
            if (not got or got[0] != n or len(got) != 1 + len(shape)
                    or any(s is not None and s != g for s, g in zip(shape, got[1:]))):
                want = ", ".join(["N"] + ["A" if s is None else str(s) for s in shape])
                raise PositionsError(f"{path}: array {k!r} has shape {got}, expected ({want}) with N = {n}")
            if not np.can_cast(table[k].dtype, dtype, "same_kind"):
                raise PositionsError(f"{path}: array {k!r} holds {table[k].dtype}, expected {np.dtype(dtype)}")
    checks = [("deal", positions["deal"], 0, len(deals["row"]) - 1), ("step", positions["step"], 0, 51),
              ("card", positions["card"], 0, 51), ("player", positions["player"], 0, 3),
              ("seat", positions["seat"], 0, 3), ("dealer", deals["dealer"], 0, 3), ("vul", deals["vul"], 0, 3)]
    for name, values, low, high in checks:
        if len(values) and not (low <= values.min() and values.max() <= high):
            raise PositionsError(f"{path}: {name!r} values outside {low}..{high}")
    meta = {k: arrays[k].item() for k in SCALARS}
    meta["label_worlds"] = int(arrays["label_worlds"]) if optional else 0
    meta["identity"] = json.loads(str(arrays["identity"].item())) if "identity" in arrays else None
    return Positions(deals, positions, meta, str(path))


def merge_positions(parts: list[Positions]) -> tuple[dict, dict, dict]:
    """(deal arrays, position arrays, scalars) of ``parts`` joined in order (`concatenate`): position i of part j
    is position ``offset_j + i`` of the result with its deal index shifted by the deals before. Scalars the parts
    share are kept; others read "mixed" (``seed`` -1); ``identity`` lists each part's source, specs, seed, size
    and identity. The ``worlds`` labels are kept when every part has them with the same K; else a ValueError names
    the first part without (merge those parts apart, or give the training several files)."""
    if not parts:
        raise ValueError("no positions file to merge")
    with_worlds = [p for p in parts if "worlds" in p.positions]
    if with_worlds and len(with_worlds) != len(parts):
        first = next(p for p in parts if "worlds" not in p.positions)
        raise ValueError(f"{first.source} has no worlds labels while {with_worlds[0].source} has: merge the files "
                         f"with the same labels, or give `train card-player` both")
    ks = {p.meta["label_worlds"] for p in with_worlds}
    if len(ks) > 1:
        raise ValueError(f"the parts' worlds labels count different numbers of worlds ({sorted(ks)}): merge those "
                         "with the same --label-worlds")
    deals, positions = concatenate([(p.deals, p.positions) for p in parts])

    def shared(key, mixed):
        values = {p.meta[key] for p in parts}
        return values.pop() if len(values) == 1 else mixed

    meta = {"format": FORMAT, "source": shared("source", "mixed"), "ns": shared("ns", "mixed"),
            "ew": shared("ew", "mixed"), "seed": shared("seed", -1), "label_worlds": ks.pop() if ks else 0,
            "identity": {"command": "data merge-positions",
                         "parts": [{"file": p.source, "source": p.meta["source"], "ns": p.meta["ns"],
                                    "ew": p.meta["ew"], "seed": p.meta["seed"], "deals": len(p.deals["row"]),
                                    "positions": len(p), "identity": p.meta["identity"]} for p in parts]}}
    return deals, positions, meta


def play_so_far(positions: Positions, which=None) -> dict:
    """The whole deal and the cards played before each position (all, or the indices ``which``), as arrays:
    ``index`` int[P], ``deal`` int[P], ``step`` int[P], ``owner`` int[P, 52], ``contract`` int[P, 4], ``history``
    int[P, 52] (the cards played in order, -1 after the last), ``history_seat`` int[P, 52] (who played each) and
    ``gone`` bool[P, 52] (the cards played)."""
    pos, deals = positions.positions, positions.deals
    index = np.arange(len(positions)) if which is None else np.asarray(which)
    d = pos["deal"][index].astype(np.int64)
    step = pos["step"][index].astype(np.int64)
    owner = deals["owner"][d].astype(np.int64)
    history = np.where(np.arange(52)[None, :] < step[:, None], deals["play"][d].astype(np.int64), -1)
    history_seat = np.where(history >= 0, np.take_along_axis(owner, np.maximum(history, 0), 1), -1)
    gone = np.zeros((len(index), 52), bool)
    r_idx, j_idx = np.nonzero(history >= 0)
    gone[r_idx, history[r_idx, j_idx]] = True
    return {"index": index, "deal": d, "step": step, "owner": owner, "contract": deals["contract"][d].astype(np.int64),
            "history": history, "history_seat": history_seat, "gone": gone}


def auction_of(positions: Positions, i: int) -> Auction:
    """The auction (dealer and calls) of position ``i``."""
    d = int(positions.positions["deal"][i])
    calls = positions.deals["auction"][d]
    return Auction.from_calls(int(positions.deals["dealer"][d]), [int(c) for c in calls[calls >= 0]])
