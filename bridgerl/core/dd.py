"""Double-dummy tables through endplay (DDS), and the one place where endplay's orders meet ours.

endplay orders strains spades=0, hearts=1, diamonds=2, clubs=3, NT=4 (``Denom``), the reverse of ours for suits;
its ``Vul`` is none=0, both=1, ns=2, ew=3. Seats agree (N=0, E=1, S=2, W=3).
Our DD table: uint8[4 declarer seats, 5 strains C, D, H, S, NT] of tricks for that declarer, led into from the left.
"""

from __future__ import annotations

import threading

import numpy as np

from .board import parse_vul
from .cards import owner_to_pbn

DDS_MAX_TABLES = 40
"""Deals per DDS ``CalcAllTables`` call with all five strains (DDS's MAXNOOFTABLES)."""
DDS_LOCK = threading.Lock()
"""One DDS search at a time in a process: DDS keeps one set of per-thread search memory, which two Python threads
(ctypes lets go of the GIL) would share; the web server's boards and tables, and the table manager's seats, run
agents in threads. Held for each batch call (a few ms to a second), so callers take turns batch by batch."""


def strain_to_endplay(strain: int) -> int:
    """Our strain (C=0 ... S=3, NT=4) -> endplay ``Denom`` value (S=0 ... C=3, NT=4). Its own inverse."""
    return 3 - strain if strain < 4 else 4


strain_from_endplay = strain_to_endplay
_STRAINS_FROM_ENDPLAY = [strain_from_endplay(e) for e in range(5)]  # our strain of each endplay strain row
_STRAIN_ROWS = np.array(_STRAINS_FROM_ENDPLAY)


def vul_to_endplay(vul: str):
    """endplay's ``Vul`` of a vulnerability ("none", "NS", "EW", "both" or an alias `parse_vul` reads)."""
    from endplay.types import Vul

    return getattr(Vul, _ENDPLAY_VUL[parse_vul(vul)])


_ENDPLAY_VUL = {"none": "none", "NS": "ns", "EW": "ew", "both": "both"}


def card_to_endplay(card: int):
    """Our card (suit * 13 + rank, C=0 ... S=3, 2=0 ... A=12) -> endplay ``Card`` (suit a ``Denom``, rank a
    ``Rank``: 2 = 0x4 ... A = 0x4000)."""
    from endplay.types import Card, Denom, Rank

    return Card(suit=Denom(strain_to_endplay(card // 13)), rank=Rank(1 << (card % 13 + 2)))


def card_from_endplay(card) -> int:
    """endplay ``Card`` -> our card; endplay's stand-in for an unknown card (suit 4) raises ValueError."""
    suit = int(card.suit)
    if not 0 <= suit < 4:
        raise ValueError(f"endplay card {card} has no suit")
    return strain_from_endplay(suit) * 13 + int(card.rank).bit_length() - 3


def owner_to_deal(owner: np.ndarray):
    """endplay ``Deal`` for an owner array."""
    from endplay.types import Deal

    return Deal(owner_to_pbn(owner))


def dd_from_endplay(table) -> np.ndarray:
    """uint8[4, 5] in our order from an endplay ``DDTable``."""
    raw = np.array(table._data.resTable, dtype=np.uint8)  # [endplay denom, seat]
    return np.ascontiguousarray(raw[[3, 2, 1, 0, 4], :].T)


def dd_to_endplay(dd: np.ndarray):
    """endplay ``DDTable`` holding our uint8[4, 5] table."""
    from endplay.dds.ddtable import DDTable

    return DDTable(dd_table_results(dd))


def dd_table_results(dd: np.ndarray):
    """DDS's ``ddTableResults`` (endplay's ctypes binding) holding our uint8[4, 5] table: what DDS's par functions
    read."""
    import endplay._dds as _dds

    dd = np.asarray(dd)
    if dd.shape != (4, 5):
        raise ValueError(f"a DD table has shape (4, 5), got {dd.shape}")
    # DDS's ddTableResults is int resTable[strain][seat] with endplay's strain order (S H D C NT)
    return _dds.ddTableResults.from_buffer_copy(dd.T[_STRAIN_ROWS].astype(np.int32).tobytes())


def solve_dd_tables(owners: np.ndarray) -> np.ndarray:
    """uint8[N, 4, 5] DD tables for owner arrays uint8[N, 52], batched through ``endplay.dds.calc_all_tables``.

    DDS spreads each batch over its own threads (all cores by default)."""
    from endplay.dds import calc_all_tables

    owners = np.asarray(owners)
    if owners.ndim == 1:
        owners = owners[None]
    result = np.empty((len(owners), 4, 5), dtype=np.uint8)
    for start in range(0, len(owners), DDS_MAX_TABLES):
        deals = [owner_to_deal(o) for o in owners[start:start + DDS_MAX_TABLES]]
        with DDS_LOCK:
            tables = calc_all_tables(deals)
        for i, table in enumerate(tables):
            result[start + i] = dd_from_endplay(table)
    return result


def set_dds_threads(threads: int) -> None:
    """Number of threads DDS uses in this process (0 = all cores)."""
    import endplay._dds as _dds

    with DDS_LOCK:
        _dds.SetMaxThreads(int(threads))


def solve_dd_table(owner: np.ndarray) -> np.ndarray:
    """uint8[4, 5] DD table of one deal."""
    return solve_dd_tables(np.asarray(owner)[None])[0]


def solve_declarer_tricks(owner: np.ndarray, declarer: int, strain: int) -> int:
    """Declarer's DD tricks in ``strain`` (0-3 C, D, H, S; 4 NT) on one deal: one DDS search from the opening lead
    (the table's entry without solving the other 19)."""
    from .play import hand_masks

    holdings = np.array([hand_masks(np.asarray(owner, dtype=np.uint8))], dtype=np.uint64)
    return 13 - int(solve_positions(holdings, strain, (int(declarer) + 1) % 4, best_only=True)[0])



def declarer_total(play) -> int:
    """Declarer's total tricks on the deal of a `PlayState` when all four play double dummy from its position on
    (the tricks already won, the trick in progress and the rest): one DDS search."""
    trick = list(play.trick.cards) + [-1] * (3 - len(play.trick.cards))
    best = int(solve_positions(np.array([play.hands], np.uint64), play.strain, play.trick.leader, [trick],
                               best_only=True)[0])
    declaring = play.controller % 2 == play.declarer % 2
    return play.declarer_tricks + (best if declaring else 13 - len(play.tricks) - best)


DDS_MAX_BOARDS = 200
"""Positions per DDS ``SolveAllBoardsBin`` call (DDS's MAXNOOFBOARDS)."""

_DEAL_INTS = 24  # trump, first, currentTrickSuit[3], currentTrickRank[3], remainCards[4][4]
_FUTURE_INTS = 54  # nodes, cards, suit[13], rank[13], equals[13], score[13]


def _boards_buffer(holdings: np.ndarray, strain: int, first: np.ndarray, trick: np.ndarray,
                   solutions: int = 3) -> np.ndarray:
    """int32 array laid out as DDS's ``boards`` struct (binary input of SolveAllBoardsBin, target -1, mode 1)."""
    n = len(holdings)
    buf = np.zeros(1 + DDS_MAX_BOARDS * _DEAL_INTS + 3 * DDS_MAX_BOARDS, dtype=np.int32)
    buf[0] = n
    deals = buf[1:1 + DDS_MAX_BOARDS * _DEAL_INTS].reshape(DDS_MAX_BOARDS, _DEAL_INTS)[:n]
    deals[:, 0] = strain_to_endplay(strain)
    deals[:, 1] = first
    played = trick >= 0
    deals[:, 2:5] = np.where(played, 3 - trick // 13, 0)
    deals[:, 5:8] = np.where(played, trick % 13 + 2, 0)
    # remainCards[seat][DDS suit S, H, D, C]: rank r (2..14) at bit r; our suit s sits at bits 13s..13s+12.
    shifts = np.array([39, 26, 13, 0], dtype=np.uint64)
    suits = (holdings[:, :, None] >> shifts) & np.uint64(0x1FFF)
    deals[:, 8:24] = (suits << np.uint64(2)).reshape(n, 16).astype(np.int32)
    tail = buf[1 + DDS_MAX_BOARDS * _DEAL_INTS:].reshape(3, DDS_MAX_BOARDS)
    tail[0, :n] = -1  # target: the most tricks
    tail[1, :n] = solutions  # 3: every legal card with its score; 1: one best card
    tail[2, :n] = 1  # mode: always search
    return buf


def _card_scores(solved: np.ndarray) -> np.ndarray:
    """int8[N, 52] from DDS ``futureTricks`` rows: tricks for each legal card (equal cards expanded), -1 if illegal."""
    n = len(solved)
    count, suit, rank, equals, score = (solved[:, 1], solved[:, 2:15], solved[:, 15:28], solved[:, 28:41],
                                        solved[:, 41:54])
    valid = (np.arange(13) < count[:, None]) & (score >= 0)
    holding = (np.left_shift(1, rank) | equals) >> 2
    has_rank = ((holding[:, :, None] >> np.arange(13)) & 1).astype(bool) & valid[:, :, None]
    cards = (3 - suit)[:, :, None] * 13 + np.arange(13)
    rows = np.broadcast_to(np.arange(n)[:, None, None], has_rank.shape)
    out = np.full((n, 52), -1, dtype=np.int8)
    out[rows[has_rank], cards[has_rank]] = np.broadcast_to(score[:, :, None], has_rank.shape)[has_rank]
    return out


_SOLVED = [0]


def positions_solved() -> int:
    """Positions `solve_positions` has sent to DDS in this process (for cost tables: read it before and after)."""
    return _SOLVED[0]


def solve_positions(holdings: np.ndarray, strain: int, first, trick=None, best_only: bool = False,
                    best_cards: bool = False) -> np.ndarray:
    """Double-dummy tricks for every legal card of the seat to play, in many positions at once.

    ``holdings``: uint64[N, 4] remaining cards of N, E, S, W as 52-bit masks (bit = our card index);
    ``first``: the seat that led the current trick (int or int[N]); ``trick``: int[N, 3] cards already played to
    it in order, -1 where none. Returns int8[N, 52]: tricks the side to play wins from here (the current trick
    included) after playing that card, -1 for cards it may not play. Batched through DDS ``SolveAllBoardsBin``
    (DDS spreads each batch of up to 200 positions over its own threads). With ``best_only`` it returns int8[N]:
    the tricks of the side to play with best play (DDS searches one best card, which is faster). With
    ``best_cards`` it returns int8[N, 52] with the best cards' tricks only (-1 for every other card: DDS lists the
    optimal cards alone, about 8% faster), which is all a count of best cards needs.
    """
    import ctypes

    import endplay._dds as _dds

    holdings = np.ascontiguousarray(holdings, dtype=np.uint64)
    if holdings.ndim != 2 or holdings.shape[1] != 4:
        raise ValueError(f"holdings must have shape (N, 4), got {holdings.shape}")
    n = len(holdings)
    _SOLVED[0] += n
    first = np.broadcast_to(np.asarray(first, dtype=np.int32), (n,))
    trick = np.full((n, 3), -1, np.int32) if trick is None else np.broadcast_to(np.asarray(trick, np.int32), (n, 3))
    out = np.empty((n,) if best_only else (n, 52), dtype=np.int8)
    for start in range(0, n, DDS_MAX_BOARDS):
        stop = min(n, start + DDS_MAX_BOARDS)
        buf = _boards_buffer(holdings[start:stop], strain, first[start:stop], trick[start:stop],
                             solutions=1 if best_only else 2 if best_cards else 3)
        result = np.zeros(1 + DDS_MAX_BOARDS * _FUTURE_INTS, dtype=np.int32)
        with DDS_LOCK:
            code = _dds._dll.SolveAllBoardsBin(ctypes.c_void_p(buf.ctypes.data), ctypes.c_void_p(result.ctypes.data))
        if code != 1:
            raise _dds.DDSError.from_code(code)
        solved = result[1:].reshape(DDS_MAX_BOARDS, _FUTURE_INTS)[:stop - start]
        out[start:stop] = solved[:, 41] if best_only else _card_scores(solved)
    return out
