"""Constraints on a seat's original 13 cards (HCP range, suit lengths, balanced), as drawn from an auction
(thesis 3.3.4: the DEALER conditions of Algorithm 1). Vectorized over batches of owner arrays."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .cards import SUITS
from .hand import hcp, is_balanced_lengths, suit_lengths

_ANY_LENGTH = (0, 13)


class FrozenMapping(Mapping):
    """A read-only mapping that pickles and deep-copies (``types.MappingProxyType`` does neither, and views travel
    in envs' ``info``, which vector envs and Stable-Baselines3 copy). Equal to a dict with the same items."""

    __slots__ = ("_items",)

    def __init__(self, items=()):
        object.__setattr__(self, "_items", dict(items))

    def __getitem__(self, key):
        return self._items[key]

    def __iter__(self):
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __setattr__(self, name, value):
        raise AttributeError("FrozenMapping is read-only")

    def __reduce__(self):
        return FrozenMapping, (self._items,)

    def __repr__(self) -> str:
        return f"FrozenMapping({self._items!r})"


@dataclass(frozen=True)
class HandConstraint:
    """HCP range (inclusive), per-suit length ranges (clubs, diamonds, hearts, spades), optional balanced shape."""

    hcp: tuple[int, int] = (0, 37)
    lengths: tuple[tuple[int, int], ...] = (_ANY_LENGTH,) * 4
    balanced: bool = False

    def __post_init__(self):
        lo, hi = self.hcp
        if not 0 <= lo <= hi <= 37:
            raise ValueError(f"HCP range {self.hcp} must satisfy 0 <= low <= high <= 37")
        if len(self.lengths) != 4:
            raise ValueError(f"lengths needs 4 (min, max) ranges for clubs, diamonds, hearts, spades, "
                             f"got {len(self.lengths)}")
        for suit, (lo, hi) in zip(SUITS, self.lengths):
            if not 0 <= lo <= hi <= 13:
                raise ValueError(f"length range ({lo}, {hi}) for {suit} must satisfy 0 <= min <= max <= 13")

    @classmethod
    def notrump_opener(cls, low: int = 15, high: int = 17) -> "HandConstraint":
        """A 1NT opening: ``low``-``high`` HCP, balanced."""
        return cls(hcp=(low, high), balanced=True)

    @classmethod
    def with_lengths(cls, hcp: tuple[int, int] = (0, 37), balanced: bool = False, **suits) -> "HandConstraint":
        """Keyword lengths by suit letter, e.g. ``with_lengths(hcp=(11, 16), H=(5, 13))``."""
        lengths = [_ANY_LENGTH] * 4
        for letter, bounds in suits.items():
            if letter.upper() not in SUITS:
                raise ValueError(f"unknown suit {letter!r}; use C, D, H or S")
            lengths[SUITS.index(letter.upper())] = tuple(bounds)
        return cls(tuple(hcp), tuple(lengths), balanced)

    def checks(self, owners: np.ndarray, seat: int) -> dict[str, np.ndarray]:
        """Each active condition's pass mask over owner arrays [N, 52], keyed by its description."""
        out = {}
        if self.hcp != (0, 37):
            points = hcp(owners, seat)
            out[f"{self.hcp[0]}-{self.hcp[1]} HCP"] = (points >= self.hcp[0]) & (points <= self.hcp[1])
        lengths = suit_lengths(owners, seat)
        for suit, (lo, hi) in enumerate(self.lengths):
            if (lo, hi) != _ANY_LENGTH:
                out[f"{lo}-{hi} {SUITS[suit]}"] = (lengths[..., suit] >= lo) & (lengths[..., suit] <= hi)
        if self.balanced:
            out["balanced"] = is_balanced_lengths(lengths)
        return out

    def accepts(self, owners: np.ndarray, seat: int) -> np.ndarray:
        """bool[N]: which owner arrays give ``seat`` a hand meeting every condition."""
        owners = np.asarray(owners)
        result = np.ones(owners.shape[:-1], dtype=bool)
        for passed in self.checks(owners, seat).values():
            result &= passed
        return result

    def __str__(self) -> str:
        parts = [f"{self.hcp[0]}-{self.hcp[1]} HCP"] if self.hcp != (0, 37) else []
        parts += [f"{lo}-{hi} {SUITS[s]}" for s, (lo, hi) in enumerate(self.lengths) if (lo, hi) != _ANY_LENGTH]
        if self.balanced:
            parts.append("balanced")
        return ", ".join(parts) or "any hand"
