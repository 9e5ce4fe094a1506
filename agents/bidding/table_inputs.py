"""What the agreements engine's rules read (`bridgerl.agents.bidding.engine`): the hand (`TableHand`: HCP, suit
lengths, honours, and the hand judgements the tables' named tests use), the situation of the next call (`Context`:
the auction's facts, the suits a situation binds and the numbers it fixes) and the bidding arithmetic the rules
resolve their calls with (`bid`, `cheapest`, `legal_calls`). The engine re-exports every name here (import them from
there); this module knows no rule, table or system.

Seats are relative to the player to act (0 the player, 1 its left-hand opponent, 2 its partner, 3 its right-hand
opponent); strains C D H S N are 0..4; calls are the competitive indices (0 Pass, 1 X, 2 XX, 3 + bid).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bridgerl.core.calls import BID_OFFSET, DOUBLE, PASS, REDOUBLE

C, D, H, S, N = 0, 1, 2, 3, 4
_ME, _LHO, _PARTNER, _RHO = 0, 1, 2, 3
_OURS = (_ME, _PARTNER)
_STRAINS = {"C": C, "D": D, "H": H, "S": S, "N": N}

Bound = int | str


# -- the hand ---------------------------------------------------------------------------------------------------------
@dataclass
class TableHand:
    """What a table reads of a hand: HCP, suit lengths (C D H S), honours (A K Q J T per suit) and aces."""

    hcp: int
    lengths: np.ndarray
    honours: np.ndarray

    @classmethod
    def of(cls, hand_bits) -> TableHand:
        suits = np.asarray(hand_bits).astype(bool).reshape(4, 13)
        honours = suits[:, 12:7:-1]
        hcp = int((honours[:, :4] * np.array([4, 3, 2, 1])).sum())
        return cls(hcp, suits.sum(1), honours)

    @property
    def balanced(self) -> bool:
        return bool(self.lengths.min() >= 2 and (self.lengths == 2).sum() <= 1)

    @property
    def aces(self) -> int:
        return int(self.honours[:, 0].sum())

    def shortness(self, trumps: int | None) -> int:
        """Dummy points for shortness outside the trump suit (none without one)."""
        if trumps is None or trumps == N:
            return 0
        return int(sum({0: 3, 1: 2, 2: 1}.get(int(self.lengths[s]), 0) for s in range(4) if s != trumps))

    def stopper(self, suit: int | None) -> bool:
        """A, Kx, Qxx or Jxxx (no suit: true)."""
        if suit is None or suit == N:
            return True
        top, length = self.honours[suit], self.lengths[suit]
        return bool(top[0] or (top[1] and length >= 2) or (top[2] and length >= 3) or (top[3] and length >= 4))

    def good_suit(self, suit: int) -> bool:
        """Two of the top three honours, or three of the top five."""
        top = self.honours[suit]
        return bool(top[:3].sum() >= 2 or top.sum() >= 3)

    def decent_suit(self, suit: int) -> bool:
        """Two of the top five honours, one of them the ace, king or queen (a weak two's or preempt's suit)."""
        top = self.honours[suit]
        return bool(top.sum() >= 2 and top[:3].any())

    def opening_suit(self) -> int:
        """The suit of a one-level opening: the longest (the higher of two five- or six-card suits); without a
        five-card suit the longer minor, diamonds with four-four, clubs with three-three (and 4-4-3-2 with three
        diamonds opens 1D)."""
        lengths = self.lengths
        longest = int(lengths.max())
        if longest >= 5:
            return max(s for s in range(4) if lengths[s] == longest)
        clubs, diamonds = int(lengths[C]), int(lengths[D])
        if diamonds > clubs or (diamonds == clubs and diamonds >= 4):
            return D
        return C


# -- the situation ----------------------------------------------------------------------------------------------------
@dataclass
class Context:
    """The situation of the next call: its ``name`` (a table key or None), the bound suits, the last bid (-1: none)
    and who made it, the suits the opponents and anybody have named, whether the last call was not a pass, and the
    numbers the auction fixes (``values``). ``opening`` and ``showed`` serve the `sayc` situations."""

    history: list
    name: str | None = None
    suits: dict = field(default_factory=dict)
    last_bid: int = -1
    last_bidder: int | None = None
    their_suits: frozenset = frozenset()
    named: frozenset = frozenset()
    free: bool = False
    opening: int | None = None
    showed: int | None = None
    values: dict = field(default_factory=dict)

    @classmethod
    def of(cls, history) -> Context:
        """The context's auction facts after ``history`` ([(relative seat, call)], oldest first): the suits the
        opponents and anybody named, the last bid and its bidder, whether the last call was not a pass (no name)."""
        history = [(int(s), int(c)) for s, c in history]
        bids = [(i, s, c - BID_OFFSET) for i, (s, c) in enumerate(history) if c >= BID_OFFSET]
        ctx = cls(history)
        ctx.their_suits = frozenset(b % 5 for _, s, b in bids if s not in _OURS and b % 5 < N)
        ctx.named = frozenset(b % 5 for _, _, b in bids if b % 5 < N)
        if bids:
            ctx.last_bid, ctx.last_bidder = bids[-1][2], bids[-1][1]
        ctx.free = bool(history) and history[-1][1] != PASS
        return ctx

    def strain(self, ref: str) -> int | None:
        if ref in _STRAINS:
            return _STRAINS[ref]
        return self.suits.get(ref)

    def bound(self, value: Bound) -> int:
        """A rule's bound: a number, or the name of one of ``values``."""
        return value if isinstance(value, int) else self.values[value]


def bid(level: int, strain: int) -> int:
    return (level - 1) * 5 + strain


def cheapest(last_bid: int, strain: int) -> int:
    """The lowest bid in ``strain`` above ``last_bid`` (-1: none yet)."""
    if last_bid < 0:
        return strain
    candidate = (last_bid // 5) * 5 + strain
    return candidate if candidate > last_bid else candidate + 5


def legal_calls(history) -> np.ndarray:
    """bool[38]: the calls the player to act may make after ``history`` (relative seats, 0 the player to act)."""
    legal = np.zeros(BID_OFFSET + 35, dtype=bool)
    legal[PASS] = True
    last_bid = max((c - BID_OFFSET for _, c in history if c >= BID_OFFSET), default=-1)
    legal[BID_OFFSET + last_bid + 1:] = True
    last = next(((s, c) for s, c in reversed(history) if c != PASS), None)
    if last is not None and last[0] not in _OURS:  # the last call that was not a pass is the opponents'
        legal[DOUBLE] = last[1] >= BID_OFFSET
        legal[REDOUBLE] = last[1] == DOUBLE
    return legal
