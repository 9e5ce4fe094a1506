"""Checking an action index handed to an env: whole numbers only, never truncated."""

from __future__ import annotations

import numpy as np


def action_index(action, n: int) -> int:
    """``action`` as an int, refusing what is not a whole number (1.5, "3", True) with a one-line error; whether it
    is legal is the rules' business (they name the legal actions)."""
    if type(action) is int:  # the usual cases, fast
        return action
    if isinstance(action, np.integer):
        return int(action)
    value = np.asarray(action)
    if value.ndim != 0 or value.dtype == bool or not np.issubdtype(value.dtype, np.number) \
            or not np.isfinite(value) or value != np.floor(value):
        raise ValueError(f"action must be an integer in 0..{n - 1}, got {action!r}")
    return int(value)
