"""The one 95% confidence interval every report uses: the mean and the half-width of its normal interval."""

from __future__ import annotations

import math

import numpy as np


def mean_ci(values) -> tuple[float, float]:
    """(mean, half-width of the normal 95% CI: 1.96 sample standard deviations (ddof 1) over sqrt(n)).

    An empty input gives (nan, nan); a single value gives (value, nan)."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    if len(values) == 0:
        return float("nan"), float("nan")
    if len(values) < 2:
        return float(values.mean()), float("nan")
    return float(values.mean()), float(1.96 * values.std(ddof=1) / math.sqrt(len(values)))


def ci_text(ci: float, count: int) -> str:
    """"95% CI +/- x", or what stands in for it where one value gives no interval (never "nan")."""
    return f"95% CI +/- {ci:.2f}" if count > 1 and np.isfinite(ci) else "one value: no CI"
