"""The 231-bit competitive bidding observation (thesis 4.5.2, figures 4.5-4.8) and its inverse: `AuctionEncoder`,
which keeps the auction's bits up to date one call at a time, the whole-sequence encoders built on it (`encode`,
`encode_auction`, `bid_values`) and `decode_auction`, which reads the calls back. Part of the competitive rules module
`bridgerl.core.competitive`, which re-exports every name here (import them from there); this module knows no deal,
result or view.

The observation, relative to the player to act: [0] we are vulnerable, [1] they are vulnerable; [2..3] passes
before the first bid (0-3), most significant bit first; then for each bid b = 0..34 a 5-bit number (MSB first) at
4 + 5 b whose value is code + 8 x passes_after; [179 + c] card c is in our hand. Codes: 0 bid not made, 1 made and
not doubled, 2 X, 3 X XX, 4 X P P XX, 5 P P X, 6 P P X XX, 7 P P X P P XX; passes_after (0-2) counts the passes
after the bid and its doubling calls before the next bid.
"""

from __future__ import annotations

import numpy as np

from .auction import Auction
from .calls import BID_OFFSET, DOUBLE, NUM_BIDS, PASS, REDOUBLE

OBSERVATION_SIZE = 231
AUCTION_OFFSET = 4
HAND_OFFSET = 179
# doubling pattern after a bid (passes written as 0, X as 1, XX as 2) -> code
_CODES = {(): 1, (DOUBLE,): 2, (DOUBLE, REDOUBLE): 3, (DOUBLE, PASS, PASS, REDOUBLE): 4,
          (PASS, PASS, DOUBLE): 5, (PASS, PASS, DOUBLE, REDOUBLE): 6, (PASS, PASS, DOUBLE, PASS, PASS, REDOUBLE): 7}
_PATTERNS = {code: pattern for pattern, code in _CODES.items()}


_FIELD_BITS = ((np.arange(32)[:, None] >> np.array([4, 3, 2, 1, 0])) & 1).astype(np.int8)  # value: 5 bits, MSB 1st


class AuctionEncoder:
    """Bits 2..178 of the observation kept up to date one call at a time, the one place the doubling codes are
    worked out: the Gymnasium env's step adds each call (a cost that does not grow with the auction, as the JAX env
    updates its bits in place) and `encode_auction` / `bid_values` fold a whole sequence through it. Add every call
    except the one that ends the auction: the terminal observation is the encoding before the final pass."""

    __slots__ = ("bits", "values", "leading", "_bid", "_pattern", "_passes")

    def __init__(self):
        self.bits = np.zeros(2 + 5 * NUM_BIDS, dtype=np.int8)
        self.values = np.zeros(NUM_BIDS, dtype=np.int64)  # per bid: code + 8 x passes_after (0: not made)
        self.leading = 0  # passes before the first bid
        self._bid, self._pattern, self._passes = -1, (), 0

    def add(self, call: int) -> None:
        if call >= BID_OFFSET:  # a new bid: its doubling pattern starts empty
            self._bid, self._pattern, self._passes = call - BID_OFFSET, (), 0
        elif self._bid < 0:
            self.leading += 1
            shown = min(self.leading, 3)
            self.bits[0], self.bits[1] = (shown >> 1) & 1, shown & 1
            return
        elif call == PASS:  # passes after the last X/XX are passes_after
            self._passes += 1
        else:  # X or XX: the passes before it join the doubling pattern
            self._pattern, self._passes = self._pattern + (PASS,) * self._passes + (call,), 0
        code = _CODES.get(self._pattern)
        if code is None or self._passes > 2:
            raise ValueError(f"not a legal auction: after bid {self._bid} come {list(self._pattern)} and "
                             f"{self._passes} passes")
        value = code + 8 * self._passes
        self.values[self._bid] = value
        start = 2 + 5 * self._bid
        self.bits[start:start + 5] = _FIELD_BITS[value]

    def copy(self) -> "AuctionEncoder":
        """An independent encoder at the same point of the auction (a search continues one auction many ways)."""
        out = AuctionEncoder()
        out.bits, out.values = self.bits.copy(), self.values.copy()
        out.leading, out._bid, out._pattern, out._passes = self.leading, self._bid, self._pattern, self._passes
        return out

    def observation(self, we_vulnerable: bool, they_vulnerable: bool, hand_bits: np.ndarray,
                    out: np.ndarray | None = None) -> np.ndarray:
        """The 231 values for the player to act (a new array, or written into ``out``)."""
        obs = np.empty(OBSERVATION_SIZE, dtype=np.int8) if out is None else out
        obs[0], obs[1] = we_vulnerable, they_vulnerable
        obs[2:HAND_OFFSET] = self.bits
        obs[HAND_OFFSET:] = hand_bits
        return obs

    def observations(self, vulnerable, hand_bits: np.ndarray) -> np.ndarray:
        """int8[4, 231]: the observation of each seat N, E, S, W at once (the calls bits are the same for all);
        ``vulnerable``: 4 bools, seat s's side vulnerable; ``hand_bits``: int8[4, 52] (`CompetitiveDeal.hands`)."""
        obs = np.empty((4, OBSERVATION_SIZE), dtype=np.int8)
        for seat in range(4):  # "they": the side of the seat on the left
            self.observation(vulnerable[seat], vulnerable[(seat + 1) % 4], hand_bits[seat], out=obs[seat])
        return obs


def _folded(calls) -> AuctionEncoder:
    encoder = AuctionEncoder()
    for call in calls:
        encoder.add(int(call))
    return encoder


def encoded_calls(auction: Auction) -> tuple[int, ...]:
    """The calls an observation of ``auction`` encodes: all of them, or once it is over all but the final pass
    (the terminal observation is the last one before it)."""
    return auction.calls[:-1] if auction.is_over else auction.calls


def auction_encoder(auction: Auction) -> AuctionEncoder:
    """An `AuctionEncoder` holding ``auction``'s `encoded_calls`, ready to `add` the calls that follow."""
    return _folded(encoded_calls(auction))


def bid_values(calls) -> tuple[int, np.ndarray]:
    """(leading passes, int[35] value per bid) for a call sequence."""
    encoder = _folded(calls)
    return encoder.leading, encoder.values


def encode_auction(calls) -> np.ndarray:
    """int8[177]: bits 2..178 of the observation (leading passes and the 35 bid fields)."""
    return _folded(calls).bits


def encode(calls, we_vulnerable: bool, they_vulnerable: bool, hand_bits: np.ndarray) -> np.ndarray:
    """The 231 values for the player to act after ``calls``."""
    return _folded(calls).observation(we_vulnerable, they_vulnerable, hand_bits)


def decode_auction(observation) -> list[tuple[int, int]]:
    """Rebuild the calls from a 231-value observation: [(relative seat, call)], seat 0 = the player to act,
    1 = left-hand opponent, 2 = partner, 3 = right-hand opponent; calls in competitive indices."""
    obs = np.asarray(observation).astype(np.int64)
    if obs.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"a competitive observation has 231 values, got shape {obs.shape}")
    leading = int(obs[2] * 2 + obs[3])
    fields = obs[AUCTION_OFFSET:HAND_OFFSET].reshape(NUM_BIDS, 5)
    values = fields @ np.array([16, 8, 4, 2, 1])
    calls = [PASS] * leading
    for bid in np.flatnonzero(values):
        code, passes_after = int(values[bid] % 8), int(values[bid] // 8)
        if code == 0 or code not in _PATTERNS or passes_after > 2:
            raise ValueError(f"bid field {bid} holds {values[bid]}, which no legal auction produces")
        calls += [BID_OFFSET + int(bid), *_PATTERNS[code], *([PASS] * passes_after)]
    n = len(calls)
    return [((i - n) % 4, call) for i, call in enumerate(calls)]
