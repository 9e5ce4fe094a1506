"""Readings folded into a constraint (thesis 3.3.4, InterpretAuction): `Shown`, what one call is read to show, and
`fold`, one seat's readings intersected call by call into the `HandConstraint` the world samplers use; `intersect`
joins two constraints the same way. The agreements engine (`engine`) and the rule bidders' picture of partner
(`agreements`) read calls into `Shown` entries; this module knows no system.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from bridgerl.core.constraints import HandConstraint

_ANY = (0, 13)


@dataclass(frozen=True)
class Shown:
    """One table entry read for one call: the context ``key``, the call's ``position`` in the history it was read
    from, the HCP ends (None: not shown), length ranges per suit C D H S (None: not shown), balanced, extra."""

    key: str
    position: int
    low: int | None
    high: int | None
    lengths: tuple[tuple[int, int] | None, ...]
    balanced: bool = False
    extra: int = 0


# -- folding readings into a constraint (thesis 3.3.4, InterpretAuction) --------------------------------------------
_SHAPES = np.array([s for s in itertools.product(range(14), repeat=4) if sum(s) == 13], dtype=np.int64)  # [560, 4]
_BALANCED_SHAPES = (_SHAPES.min(1) >= 2) & ((_SHAPES == 2).sum(1) <= 1)


def _feasible(lengths, balanced: bool) -> bool:
    """Whether some 13-card shape meets the length ranges (and is balanced when asked)."""
    lo = np.array([r[0] for r in lengths])
    hi = np.array([r[1] for r in lengths])
    ok = ((_SHAPES >= lo) & (_SHAPES <= hi)).all(1)
    if balanced:
        ok &= _BALANCED_SHAPES
    return bool(ok.any())


def _intersect(current: tuple[int, int], new: tuple[int, int]) -> tuple[int, int]:
    """The intersection of two ranges; when empty, ``new`` (the later call's own range)."""
    low, high = max(current[0], new[0]), min(current[1], new[1])
    return (low, high) if low <= high else new


def fold(showings: Iterable[Shown]) -> HandConstraint:
    """A `HandConstraint` from the entries read for one seat's calls, intersected in call order. A range that the
    intersection would leave empty becomes the later call's own range (HCP and each suit alike), and a set of
    length ranges no 13-card shape meets becomes the later call's own lengths, so the result admits some hand."""
    points, lengths, balanced = (0, 37), [_ANY] * 4, False
    for entry in sorted(showings, key=lambda s: s.position):
        if entry.extra:
            points = (min(points[0] + entry.extra, 37), max(points[1], min(points[0] + entry.extra, 37)))
        if entry.low is not None or entry.high is not None:
            own = (entry.low if entry.low is not None else 0, entry.high if entry.high is not None else 37)
            points = _intersect(points, own)
        own_lengths = [r if r is not None else _ANY for r in entry.lengths]
        merged = [_intersect(current, new) for current, new in zip(lengths, own_lengths)]
        wanted = balanced or entry.balanced
        if _feasible(merged, wanted):
            lengths, balanced = merged, wanted
        elif _feasible(own_lengths, entry.balanced):
            lengths, balanced = own_lengths, entry.balanced
        else:  # a table entry no hand meets: read it as showing no shape
            lengths, balanced = [_ANY] * 4, False
    return HandConstraint(points, tuple(tuple(r) for r in lengths), balanced)


def intersect(first: HandConstraint, second: HandConstraint) -> HandConstraint:
    """Both constraints at once; where they contradict (an empty HCP or length range, or lengths no 13-card shape
    meets), ``second``'s own range is kept."""
    points = _intersect(first.hcp, second.hcp)
    lengths = [_intersect(a, b) for a, b in zip(first.lengths, second.lengths)]
    balanced = first.balanced or second.balanced
    if not _feasible(lengths, balanced):
        lengths, balanced = list(second.lengths), second.balanced
    return HandConstraint(points, tuple(tuple(r) for r in lengths), balanced)


__all__ = ["Shown", "fold", "intersect"]
