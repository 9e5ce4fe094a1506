"""Hand features: high-card points, suit lengths, balanced shape (thesis 2.1.11.1, 4.4.5).

All functions take owner arrays of shape [..., 52] and a seat, so they work on one deal or a batch.
"""

from __future__ import annotations

import numpy as np

_HCP_PER_RANK = np.array([0] * 9 + [1, 2, 3, 4], dtype=np.int32)
HCP_PER_CARD = np.tile(_HCP_PER_RANK, 4)
"""int32[52]: 4 for an ace, 3 king, 2 queen, 1 jack."""


def suit_lengths(owner: np.ndarray, seat) -> np.ndarray:
    """int32[..., 4]: number of clubs, diamonds, hearts, spades held by ``seat``."""
    held = np.asarray(owner) == np.asarray(seat)[..., None]
    return held.reshape(held.shape[:-1] + (4, 13)).sum(-1).astype(np.int32)


def hcp(owner: np.ndarray, seat) -> np.ndarray:
    """High-card points of ``seat`` (int or int32 array)."""
    held = np.asarray(owner) == np.asarray(seat)[..., None]
    points = (held * HCP_PER_CARD).sum(-1)
    return int(points) if np.ndim(points) == 0 else points.astype(np.int32)


def is_balanced_lengths(lengths: np.ndarray) -> np.ndarray:
    """Balanced = 4-3-3-3, 4-4-3-2 or 5-3-3-2: no singleton or void and at most one doubleton."""
    lengths = np.asarray(lengths)
    return (lengths.min(-1) >= 2) & ((lengths == 2).sum(-1) <= 1)


def is_balanced(owner: np.ndarray, seat) -> np.ndarray:
    result = is_balanced_lengths(suit_lengths(owner, seat))
    return bool(result) if np.ndim(result) == 0 else result
