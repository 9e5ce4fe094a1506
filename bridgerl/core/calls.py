"""Calls and their indices (thesis 2.1.3).

bid index b = (level - 1) * 5 + strain, 0..34 (1C..7NT).
Competitive call index: 0 Pass, 1 Double, 2 Redouble, 3 + b.
Uncontested action index: 0 Pass, 1 + b.
"""

from __future__ import annotations

from .cards import STRAINS, parse_strain

NUM_BIDS = 35
PASS, DOUBLE, REDOUBLE = 0, 1, 2
BID_OFFSET = 3
NUM_CALLS = NUM_BIDS + BID_OFFSET  # 38
NUM_UNCONTESTED_ACTIONS = NUM_BIDS + 1  # 36


def bid_index(level: int, strain: int) -> int:
    if not 1 <= level <= 7 or not 0 <= strain <= 4:
        raise ValueError(f"no bid at level {level}, strain {strain} (levels 1-7, strains 0-4)")
    return (level - 1) * 5 + strain


def bid_level(bid: int) -> int:
    return bid // 5 + 1


def bid_strain(bid: int) -> int:
    return bid % 5


def bid_name(bid: int) -> str:
    if not 0 <= bid < NUM_BIDS:
        raise ValueError(f"bid index {bid} is outside 0..34")
    return f"{bid_level(bid)}{STRAINS[bid_strain(bid)]}"


def call_name(call: int) -> str:
    """'Pass', 'X', 'XX' or a bid such as '3NT' for a competitive call index."""
    if call == PASS:
        return "Pass"
    if call == DOUBLE:
        return "X"
    if call == REDOUBLE:
        return "XX"
    if BID_OFFSET <= call < NUM_CALLS:
        return bid_name(call - BID_OFFSET)
    raise ValueError(f"call index {call} is outside 0..37")


def parse_call(text: str) -> int:
    """Competitive call index from 'P'/'Pass', 'X'/'D'/'Dbl', 'XX'/'R'/'Rdbl' or a bid like '1NT', '4S'."""
    t = text.strip().upper()
    if t in ("P", "PASS"):
        return PASS
    if t in ("X", "D", "DBL", "DOUBLE"):
        return DOUBLE
    if t in ("XX", "R", "RDBL", "REDOUBLE"):
        return REDOUBLE
    if len(t) >= 2 and t[0] in "1234567":
        return BID_OFFSET + bid_index(int(t[0]), parse_strain(t[1:]))
    raise ValueError(f"not a call: {text!r} (expected Pass, X, XX or a bid such as 1C ... 7NT)")


def uncontested_to_call(action: int) -> int:
    """Competitive call index of an uncontested action (0 Pass, 1 + bid)."""
    return PASS if action == 0 else action - 1 + BID_OFFSET


def call_to_uncontested(call: int) -> int:
    if call in (DOUBLE, REDOUBLE):
        raise ValueError("double and redouble do not exist in uncontested bidding")
    return 0 if call == PASS else call - BID_OFFSET + 1
