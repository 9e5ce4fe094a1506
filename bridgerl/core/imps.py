"""International Match Points (thesis Appendix, table A.8, full WBF scale up to 24 IMPs for 4000+)."""

from __future__ import annotations

import numpy as np

IMP_EDGES = np.array(
    [20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600, 750,
     900, 1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000],
    dtype=np.int32,
)
"""IMP_EDGES[k] is the smallest point difference worth k + 1 IMPs."""


def imps(difference):
    """Signed IMPs for a point difference (scalar or array); |difference| >= IMP_EDGES[k] earns k + 1."""
    diff = np.asarray(difference)
    magnitude = np.searchsorted(IMP_EDGES, np.abs(diff), side="right")
    result = np.sign(diff) * magnitude
    if result.ndim == 0:
        return int(result)
    return result.astype(np.int32)
