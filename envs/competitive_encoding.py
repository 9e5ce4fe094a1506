"""The 231-bit competitive bidding observation of thesis 4.5.2 (figures 4.5-4.8), and its inverse.

Relative to the player to act: [0] we are vulnerable, [1] they are vulnerable; [2..3] passes before the first bid
(0-3), most significant bit first; then for each bid b = 0..34 a 5-bit number (MSB first) at 4 + 5 b whose value is
code + 8 x passes_after; [179 + c] card c is in our hand. Codes: 0 bid not made, 1 made and not doubled, 2 X,
3 X XX, 4 X P P XX, 5 P P X, 6 P P X XX, 7 P P X P P XX; passes_after (0-2) counts the passes after the bid and its
doubling calls before the next bid.
"""

from __future__ import annotations

import numpy as np

from bridgerl.core.calls import BID_OFFSET, DOUBLE, NUM_BIDS, PASS, REDOUBLE
from bridgerl.core.hand import HCP_PER_CARD
from bridgerl.core.uncontested import encode_observation, opening_mask_from_features

OBSERVATION_SIZE = 231
AUCTION_OFFSET = 4
HAND_OFFSET = 179
# doubling pattern after a bid (passes written as 0, X as 1, XX as 2) -> code
_CODES = {(): 1, (DOUBLE,): 2, (DOUBLE, REDOUBLE): 3, (DOUBLE, PASS, PASS, REDOUBLE): 4,
          (PASS, PASS, DOUBLE): 5, (PASS, PASS, DOUBLE, REDOUBLE): 6, (PASS, PASS, DOUBLE, PASS, PASS, REDOUBLE): 7}
_PATTERNS = {code: pattern for pattern, code in _CODES.items()}


def bid_values(calls) -> tuple[int, np.ndarray]:
    """(leading passes, int[35] value per bid) for a call sequence."""
    values = np.zeros(NUM_BIDS, dtype=np.int64)
    calls = list(calls)
    first_bid = next((i for i, c in enumerate(calls) if c >= BID_OFFSET), len(calls))
    leading = first_bid
    i = first_bid
    while i < len(calls):
        bid = calls[i] - BID_OFFSET
        j = i + 1
        while j < len(calls) and calls[j] < BID_OFFSET:
            j += 1
        between = calls[i + 1:j]
        # the doubling part ends at the last X/XX; the passes after it are passes_after
        last_double = max((k for k, c in enumerate(between) if c != PASS), default=-1)
        pattern = tuple(between[:last_double + 1])
        passes_after = len(between) - (last_double + 1)
        if pattern not in _CODES or passes_after > 2:
            raise ValueError(f"calls {calls} are not a legal auction (after bid {bid}: {between})")
        values[bid] = _CODES[pattern] + 8 * passes_after
        i = j
    return leading, values


def encode_auction(calls) -> np.ndarray:
    """int8[177]: bits 2..178 of the observation (leading passes and the 35 bid fields)."""
    leading, values = bid_values(calls)
    bits = np.zeros(2 + 5 * NUM_BIDS, dtype=np.int8)
    bits[0], bits[1] = (min(leading, 3) >> 1) & 1, min(leading, 3) & 1
    shifts = np.array([4, 3, 2, 1, 0])
    bits[2:] = ((values[:, None] >> shifts) & 1).reshape(-1)
    return bits


def encode(calls, we_vulnerable: bool, they_vulnerable: bool, hand_bits: np.ndarray) -> np.ndarray:
    """The 231 values for the player to act after ``calls``."""
    obs = np.empty(OBSERVATION_SIZE, dtype=np.int8)
    obs[0], obs[1] = we_vulnerable, they_vulnerable
    obs[2:HAND_OFFSET] = encode_auction(calls)
    obs[HAND_OFFSET:] = hand_bits
    return obs


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


def opponents_have_bid(observation) -> bool:
    """Whether the opponents of the player to act have made a bid (not only passes or doubles)."""
    return any(seat in (1, 3) and call >= BID_OFFSET for seat, call in decode_auction(observation))


def uncontested_view(observation, mask) -> tuple[np.ndarray, np.ndarray]:
    """The auction as uncontested bidding sees it (thesis 4.4, fig. 4.4): (89-bit observation, bool[36] mask) from
    a 231-bit competitive observation and 38-call mask, keeping only our side's bids. Before our side's first bid
    the thesis 4.4.5 opening rules restrict the mask; an all-False mask means the rules leave only a pass."""
    observation = np.asarray(observation)
    ours = [call for seat, call in decode_auction(observation) if seat in (0, 2)]
    our_bids = [call - BID_OFFSET for call in ours if call >= BID_OFFSET]
    first_bid = next((i for i, call in enumerate(ours) if call >= BID_OFFSET), len(ours))
    hand_bits = observation[HAND_OFFSET:]
    view = encode_observation(observation[0], first_bid > 0, our_bids, hand_bits)  # [1]: one of us passed first
    mask = np.asarray(mask).astype(bool)
    mask36 = np.concatenate([mask[PASS:PASS + 1], mask[BID_OFFSET:]])
    if not our_bids:  # the opening: thesis 4.4.5 rules
        cards = hand_bits.astype(bool)
        mask36 &= opening_mask_from_features(cards.reshape(4, 13).sum(1), int(HCP_PER_CARD[cards].sum()))
    return view, mask36
