"""The auction: legality of calls, its end, and the final contract (thesis 2.1.3-2.1.4).

Calls use the competitive index (0 Pass, 1 X, 2 XX, 3 + bid). `Auction` is immutable: `add` returns a new one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .calls import BID_OFFSET, DOUBLE, NUM_CALLS, PASS, REDOUBLE, call_name
from .cards import SEATS
from .contract import Contract


_BIDS_ABOVE = np.zeros((NUM_CALLS - BID_OFFSET + 1, NUM_CALLS), dtype=np.uint8)  # row b + 1: Pass, the bids above b
for _last in range(-1, NUM_CALLS - BID_OFFSET):
    _BIDS_ABOVE[_last + 1, PASS] = 1
    _BIDS_ABOVE[_last + 1, BID_OFFSET + _last + 1:] = 1
_BIDS_ABOVE = tuple(row.tobytes() for row in _BIDS_ABOVE)
_BOOL = np.dtype(bool)


class IllegalCallError(ValueError):
    """A call that the rules do not allow at this point of the auction."""


class AuctionOverError(IllegalCallError):
    """A call after the auction has ended."""


@dataclass(frozen=True)
class Auction:
    """Calls made so far, from ``dealer`` clockwise.

    Derived fields are kept up to date by `add`, so every query is O(1)."""

    dealer: int = 0
    calls: tuple[int, ...] = ()
    last_bid: int = -1          # bid index 0..34 of the highest bid, -1 if none
    last_bidder: int = -1       # seat that made it
    penalty: int = 0            # 0 none, 1 doubled, 2 redoubled, of the last bid
    trailing_passes: int = 0    # consecutive passes at the end
    # first seat of each side (NS, EW) to name each strain: index side * 5 + strain, -1 if none
    first_namer: tuple[int, ...] = field(default=(-1,) * 10)
    # derived once at construction (read at every step of an env, so plain attributes rather than properties)
    to_act: int = field(init=False, repr=False, compare=False)        # seat whose turn it is
    is_over: bool = field(init=False, repr=False, compare=False)      # four passes, or a bid and three passes

    def __post_init__(self):
        if not 0 <= self.dealer <= 3:
            raise ValueError(f"dealer {self.dealer} is outside 0..3 (N, E, S, W)")
        object.__setattr__(self, "to_act", (self.dealer + len(self.calls)) % 4)
        object.__setattr__(self, "is_over", _ends(self.last_bid, self.trailing_passes))

    @classmethod
    def from_calls(cls, dealer: int, calls) -> "Auction":
        """Replay ``calls`` (indices or strings) from ``dealer``; raises IllegalCallError on the first bad one."""
        from .calls import parse_call

        auction = cls(dealer)
        for call in calls:
            auction = auction.add(parse_call(call) if isinstance(call, str) else int(call))
        return auction

    @property
    def is_passout(self) -> bool:
        return self.last_bid < 0 and self.trailing_passes >= 4

    def can_double(self) -> bool:
        return (not self.is_over and self.last_bid >= 0 and self.penalty == 0
                and (self.last_bidder - self.to_act) % 2 == 1)

    def can_redouble(self) -> bool:
        return (not self.is_over and self.last_bid >= 0 and self.penalty == 1
                and (self.last_bidder - self.to_act) % 2 == 0)

    def is_legal(self, call: int) -> bool:
        if self.is_over or not 0 <= call < NUM_CALLS:
            return False
        if call == PASS:
            return True
        if call == DOUBLE:
            return self.can_double()
        if call == REDOUBLE:
            return self.can_redouble()
        return call - BID_OFFSET > self.last_bid

    def legal_mask(self) -> np.ndarray:
        """bool[38] over competitive call indices."""
        return np.frombuffer(self.legal_bytes(), _BOOL)

    def legal_bytes(self) -> bytearray:
        """38 bytes, 1 for each legal call (all 0 once the auction is over): what the masks are made of."""
        if self.is_over:
            return bytearray(NUM_CALLS)
        raw = bytearray(_BIDS_ABOVE[self.last_bid + 1])
        if self.last_bid >= 0:
            raw[DOUBLE] = self.can_double()
            raw[REDOUBLE] = self.can_redouble()
        return raw

    def legal_calls(self) -> list[int]:
        """The legal calls, lowest first (empty once the auction is over)."""
        if self.is_over:
            return []
        calls = [PASS]
        if self.last_bid >= 0:
            if self.can_double():
                calls.append(DOUBLE)
            elif self.can_redouble():
                calls.append(REDOUBLE)
        calls.extend(range(BID_OFFSET + self.last_bid + 1, NUM_CALLS))
        return calls

    def add(self, call: int) -> "Auction":
        """The auction after the player to act makes ``call``."""
        call = int(call)
        if self.is_over:
            raise AuctionOverError(f"call {_safe_name(call)} after the end of the auction ({self})")
        if not self.is_legal(call):
            legal = ", ".join(call_name(c) for c in self.legal_calls())
            raise IllegalCallError(
                f"illegal call {_safe_name(call)} by {SEATS[self.to_act]} after '{self}': legal calls are {legal}")
        seat = self.to_act
        calls = self.calls + (call,)
        if call == PASS:
            return _new_auction(self.dealer, calls, self.last_bid, self.last_bidder, self.penalty,
                                self.trailing_passes + 1, self.first_namer)
        if call in (DOUBLE, REDOUBLE):
            return _new_auction(self.dealer, calls, self.last_bid, self.last_bidder, call, 0, self.first_namer)
        bid = call - BID_OFFSET
        namer = self.first_namer
        slot = (seat % 2) * 5 + bid % 5
        if namer[slot] < 0:
            namer = namer[:slot] + (seat,) + namer[slot + 1:]
        return _new_auction(self.dealer, calls, bid, seat, 0, 0, namer)

    def declarer_of(self, side: int, strain: int) -> int:
        """First seat of ``side`` (0 NS, 1 EW) to have named ``strain``, or -1."""
        return self.first_namer[side * 5 + strain]

    def contract(self) -> Contract | None:
        """Final contract (None for a pass-out); the auction must be over."""
        if not self.is_over:
            raise ValueError(f"the auction '{self}' is not over yet")
        if self.last_bid < 0:
            return None
        strain = self.last_bid % 5
        declarer = self.declarer_of(self.last_bidder % 2, strain)
        return Contract(self.last_bid // 5 + 1, strain, self.penalty, declarer)

    def __str__(self) -> str:
        return " ".join(call_name(c) for c in self.calls) or "(no calls)"


def _new_auction(dealer, calls, last_bid, last_bidder, penalty, trailing_passes, first_namer) -> Auction:
    """``Auction(...)`` for fields already checked, with the derived fields worked out as ``__post_init__`` does,
    without the frozen dataclass's per-field ``__init__`` (a call is the hot path of every auction)."""
    auction = object.__new__(Auction)
    object.__setattr__(auction, "__dict__", {
        "dealer": dealer, "calls": calls, "last_bid": last_bid, "last_bidder": last_bidder, "penalty": penalty,
        "trailing_passes": trailing_passes, "first_namer": first_namer, "to_act": (dealer + len(calls)) % 4,
        "is_over": _ends(last_bid, trailing_passes)})
    return auction


def _ends(last_bid: int, trailing_passes: int) -> bool:
    """The auction is over: four passes, or a bid (doubled or not) and three passes."""
    return trailing_passes >= (4 if last_bid < 0 else 3)


def _safe_name(call: int) -> str:
    try:
        return call_name(call)
    except ValueError:
        return f"#{call} (not a call index 0..37)"
