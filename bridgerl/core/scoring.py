"""Duplicate scoring (thesis Appendix, tables A.1-A.4).

`score` is the declaring side's score. `SCORE_TABLE[bid, penalty, vulnerable, tricks]` holds every value,
for vectorized code and the JAX envs.
"""

from __future__ import annotations

import numpy as np

from .calls import NUM_BIDS
from .contract import DOUBLED, REDOUBLED, UNDOUBLED


def _trick_value(strain: int) -> int:
    return 20 if strain < 2 else 30


def score(level: int, strain: int, penalty: int, vulnerable: bool, tricks: int) -> int:
    """Duplicate score for the declaring side of ``level``/``strain`` with ``tricks`` tricks taken."""
    if not 0 <= tricks <= 13:
        raise ValueError(f"tricks {tricks} is outside 0..13")
    if not 1 <= level <= 7 or not 0 <= strain <= 4 or penalty not in (0, 1, 2):
        raise ValueError(f"no contract with level {level}, strain {strain}, penalty {penalty}")
    result = tricks - (level + 6)
    if result < 0:
        down = -result
        if penalty == UNDOUBLED:
            return -(100 if vulnerable else 50) * down
        if vulnerable:
            points = 200 + 300 * (down - 1)
        else:
            points = 100 + 200 * min(down - 1, 2) + 300 * max(down - 3, 0)
        return -points * (2 if penalty == REDOUBLED else 1)
    multiplier = (1, 2, 4)[penalty]
    contract_points = (_trick_value(strain) * level + (10 if strain == 4 else 0)) * multiplier
    total = contract_points
    total += (500 if vulnerable else 300) if contract_points >= 100 else 50
    if level == 6:
        total += 750 if vulnerable else 500
    elif level == 7:
        total += 1500 if vulnerable else 1000
    if penalty == UNDOUBLED:
        total += _trick_value(strain) * result
    else:
        total += 50 if penalty == DOUBLED else 100  # the 'insult'
        total += (200 if vulnerable else 100) * result * (multiplier // 2)
    return total


def _build_score_table() -> np.ndarray:
    table = np.zeros((NUM_BIDS, 3, 2, 14), dtype=np.int32)
    for bid in range(NUM_BIDS):
        for penalty in range(3):
            for vul in range(2):
                for tricks in range(14):
                    table[bid, penalty, vul, tricks] = score(bid // 5 + 1, bid % 5, penalty, bool(vul), tricks)
    table.setflags(write=False)
    return table


SCORE_TABLE = _build_score_table()
"""int32[35 bids, 3 penalties, 2 vulnerable, 14 tricks]: declaring side's score."""


PASSED_OUT, PARTSCORE, GAME, SMALL_SLAM, GRAND_SLAM = -1, 0, 1, 2, 3
BONUS_NAMES = {PASSED_OUT: "passed out", PARTSCORE: "partscore", GAME: "game", SMALL_SLAM: "small slam",
               GRAND_SLAM: "grand slam"}


def bonus_level(level: int | None, strain: int | None = None) -> int:
    """Bonus class of an undoubled contract: partscore 0, game 1 (3NT, 4H/4S, 5C/5D and up), small slam 2,
    grand slam 3; -1 for a pass-out (``level`` None or 0)."""
    if not level:
        return PASSED_OUT
    if level == 7:
        return GRAND_SLAM
    if level == 6:
        return SMALL_SLAM
    contract_points = _trick_value(strain) * level + (10 if strain == 4 else 0)
    return GAME if contract_points >= 100 else PARTSCORE
