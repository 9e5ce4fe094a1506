"""Pieces every game's deal source shares: checking reset options and dataset rows.

Each game's rules module (`uncontested`, `competitive`, `card_play`) has its own deal source built on these: a deal
comes from a dataset row (sampled, or given by ``index``) or from PBN text (``deal``). Board number: the dataset's
``board`` array, else row + 1; PBN tags, else board 1.
"""

from __future__ import annotations

import numpy as np

from .dataset import Dataset


def check_reset_options(options: dict, known: set[str]) -> None:
    """Raise ValueError for unknown reset options, or for both 'index' and 'deal'."""
    if not options:
        return
    unknown = set(options) - known
    if unknown:
        raise ValueError(f"unknown reset option(s) {sorted(unknown)}; known: {sorted(known)}")
    if "index" in options and "deal" in options:
        raise ValueError("give either 'index' or 'deal' in reset options, not both")


def check_nonempty(dataset: Dataset) -> None:
    if len(dataset) == 0:
        raise ValueError(f"{dataset.source}: the dataset has no deals")


def check_row(dataset: Dataset, row) -> int:
    """``row`` as an int, or ValueError when it is not a row of ``dataset``."""
    if type(row) is not int:
        if isinstance(row, bool) or not isinstance(row, (int, np.integer)) and int(row) != row:
            raise ValueError(f"index must be an integer row, got {row!r}")
        row = int(row)
    if not 0 <= row < len(dataset):
        raise ValueError(f"index {row} is outside the dataset's rows 0..{len(dataset) - 1}")
    return row
