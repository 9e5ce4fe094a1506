"""Board number -> dealer and vulnerability (thesis 2.1.2 and table A.5).

Vulnerability is one of VULS = ('none', 'NS', 'EW', 'both'); index 0-3, bit 0 = NS vulnerable, bit 1 = EW vulnerable.
"""

from __future__ import annotations

VULS = ("none", "NS", "EW", "both")
# Table A.5, indexed by (board - 1) % 16.
_BOARD_VUL = (0, 1, 2, 3, 1, 2, 3, 0, 2, 3, 0, 1, 3, 0, 1, 2)


def _check_board(board: int) -> int:
    board = int(board)
    if board < 1:
        raise ValueError(f"board number {board} must be 1 or more")
    return board


def dealer_for_board(board: int) -> int:
    """Dealer seat: North on boards 1, 5, 9, ..., then clockwise."""
    return (_check_board(board) - 1) % 4


def vul_for_board(board: int) -> str:
    """Vulnerability name ('none', 'NS', 'EW', 'both') of a board (table A.5)."""
    return VULS[_BOARD_VUL[(_check_board(board) - 1) % 16]]


def vul_codes_for_boards(boards):
    """int8[N]: index into VULS (bit 0 NS, bit 1 EW vulnerable) for each board number (vectorized table A.5)."""
    import numpy as np

    boards = np.asarray(boards, dtype=np.int64)
    if boards.size and boards.min() < 1:
        raise ValueError(f"board numbers must be 1 or more, found {boards.min()}")
    return np.asarray(_BOARD_VUL, dtype=np.int8)[(boards - 1) % 16]


def dealers_for_boards(boards):
    """int8[N]: dealer seat for each board number (vectorized)."""
    import numpy as np

    return ((np.asarray(boards, dtype=np.int64) - 1) % 4).astype(np.int8)


_CANONICAL = frozenset(VULS)


def parse_vul(vul: str | int) -> str:
    """Normalise 'none'/'NS'/'EW'/'both' (also '-', 'None', 'All', 'Love', 0-3) to a VULS name."""
    if vul in _CANONICAL:  # already a VULS name: the common case, fast
        return vul
    if isinstance(vul, int) and not isinstance(vul, bool):
        if 0 <= vul < 4:
            return VULS[vul]
    elif isinstance(vul, str):
        key = vul.strip().lower()
        aliases = {"none": "none", "-": "none", "love": "none", "neither": "none", "o": "none",
                   "ns": "NS", "n-s": "NS", "ew": "EW", "e-w": "EW",
                   "both": "both", "all": "both", "b": "both"}
        if key in aliases:
            return aliases[key]
    raise ValueError(f"not a vulnerability: {vul!r} (expected 'none', 'NS', 'EW' or 'both')")


def is_vulnerable(vul: str, seat: int) -> bool:
    """Whether ``seat``'s side is vulnerable under ``vul``."""
    index = VULS.index(parse_vul(vul))
    return bool(index & (1 << (seat % 2)))


def turn_vul(vul: str, turns: int) -> str:
    """The vulnerability after the table turns by ``turns`` seats (odd turns swap NS and EW)."""
    vul = parse_vul(vul)
    return {"NS": "EW", "EW": "NS"}.get(vul, vul) if int(turns) % 2 else vul
