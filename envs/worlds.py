"""World sampling for play agents (thesis 3.3.4, the DEALER step of Algorithm 1).

A world is a full original deal (uint8[52] owner array, played cards with the seats that played them) consistent
with a `PlayerView`: the cards it has seen, the voids shown, and per-seat constraints on the original hands.
Layouts are drawn uniformly; when the consistent layouts number no more than ``n``, all of them are returned.
"""

from __future__ import annotations

import itertools
import math
from typing import Mapping

import numpy as np

from bridgerl.core.constraints import HandConstraint
from bridgerl.core.card_play import PlayerView

ENUMERATION_LIMIT = 20_000
"""Layouts (before constraints) up to which a constrained sampler lists them all instead of drawing at random."""


class WorldSamplingError(ValueError):
    """No consistent world could be found: the view is inconsistent or a constraint is never met."""


def known_owner(view: PlayerView) -> np.ndarray:
    """int16[52]: the seat known to hold or have played each card, -1 for unseen cards."""
    owner = np.full(52, -1, dtype=np.int16)
    for trick in view.all_tricks():
        for seat, card in zip(trick.seats, trick.cards):
            owner[card] = seat
    for seat, cards in view.known_hands().items():
        owner[list(cards)] = seat
    return owner


def _layout_plan(view: PlayerView, known: np.ndarray):
    """Hidden seats, cards each still needs, cards forced to one seat by its partner's void, and the free cards."""
    hidden = [s for s in range(4) if s not in view.known_hands()]
    unseen = np.flatnonzero(known < 0)
    need = {s: 13 - int((known == s).sum()) for s in hidden}
    if sum(need.values()) != len(unseen) or min(need.values(), default=0) < 0:
        raise WorldSamplingError(f"inconsistent view: {len(unseen)} unseen cards for hidden seats needing {need}")
    forced = {s: [] for s in hidden}
    free = []
    for card in unseen:
        able = [s for s in hidden if not view.voids[s, card // 13]]
        if not able:
            raise WorldSamplingError(f"inconsistent view: every hidden seat has shown out of {'CDHS'[card // 13]}")
        if len(able) == 1:
            forced[able[0]].append(int(card))
        else:
            free.append(int(card))
    for seat in hidden:
        if len(forced[seat]) > need[seat]:
            raise WorldSamplingError(f"inconsistent view: seat {'NESW'[seat]} must hold {len(forced[seat])} cards "
                                     f"but has only {need[seat]} left")
    return hidden, need, forced, np.array(free, dtype=np.int64)


def _void_free_count(hidden, need, forced, free) -> int | None:
    """Number of layouts consistent with the voids, when every free card may go to every hidden seat."""
    counts = [need[s] - len(forced[s]) for s in hidden]
    if sum(counts) != len(free):
        raise WorldSamplingError("inconsistent view: the voids shown leave no consistent layout")
    total, left = 1, len(free)
    for count in counts:
        total *= math.comb(left, count)
        left -= count
    return total


def _fill(known: np.ndarray, hidden, forced, free: np.ndarray, order: np.ndarray, counts) -> np.ndarray:
    """Owner arrays [B, 52] from orders of the free cards [B, F]: the first counts[0] go to hidden[0], ..."""
    owners = np.broadcast_to(known.astype(np.uint8), (len(order), 52)).copy()
    for seat in hidden:
        owners[:, forced[seat]] = seat
    start = 0
    for seat, count in zip(hidden, counts):
        owners[np.arange(len(order))[:, None], free[order[:, start:start + count]]] = seat
        start += count
    return owners


def _enumerate(known: np.ndarray, hidden, forced, free: np.ndarray, counts) -> np.ndarray:
    """Every layout [L, 52] consistent with the voids (two hidden seats: each subset of the free cards for the
    first; three: nested subsets)."""
    if len(hidden) == 2:
        combos = np.fromiter(itertools.chain.from_iterable(itertools.combinations(range(len(free)), counts[0])),
                             dtype=np.int64).reshape(math.comb(len(free), counts[0]), counts[0])
        owners = np.broadcast_to(known.astype(np.uint8), (len(combos), 52)).copy()
        for seat in hidden:
            owners[:, forced[seat]] = seat
        owners[:, free] = hidden[1]
        owners[np.arange(len(combos))[:, None], free[combos]] = hidden[0]
        return owners
    rows = []
    for first in itertools.combinations(range(len(free)), counts[0]):
        rest = [i for i in range(len(free)) if i not in first]
        for second in itertools.combinations(rest, counts[1]):
            rows.append(list(first) + list(second) + [i for i in rest if i not in second])
    return _fill(known, hidden, forced, free, np.array(rows, dtype=np.int64).reshape(len(rows), len(free)), counts)


def _check(owners: np.ndarray, constraints: Mapping[int, HandConstraint], voids, hidden) -> tuple[np.ndarray, dict]:
    """Pass mask over worlds and each condition's pass counts (for the error message)."""
    ok = np.ones(len(owners), dtype=bool)
    tallies = {}
    for seat in hidden:  # voids only need checking when 3+ hidden seats share free cards
        for suit in np.flatnonzero(voids[seat]):
            holds = (owners[:, suit * 13:(suit + 1) * 13] == seat).any(1)
            ok &= ~holds
    for seat, constraint in constraints.items():
        for name, passed in constraint.checks(owners, seat).items():
            tallies[f"{'NESW'[seat]}: {name}"] = int(passed.sum())
            ok &= passed
    return ok, tallies


def sample_worlds(view: PlayerView, n: int, constraints: Mapping[int, HandConstraint] | None = None,
                  seed=None, max_tries: int = 200_000) -> np.ndarray:
    """Up to ``n`` worlds consistent with ``view``, drawn uniformly; uint8[k, 52] owner arrays of the whole deal.

    ``constraints`` (seat -> HandConstraint on that seat's original 13 cards) add to ``view.constraints``.
    ``seed`` is an int or a numpy Generator. When the consistent layouts are no more than ``n`` it returns all of
    them (k <= n, each once); otherwise k = n independent uniform draws (with constraints and at most
    ENUMERATION_LIMIT layouts, n distinct ones). Raises WorldSamplingError naming the failing condition if none is met within ``max_tries`` draws.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    constraints = {**dict(view.constraints), **dict(constraints or {})}
    known = known_owner(view)
    hidden, need, forced, free = _layout_plan(view, known)
    for seat, constraint in constraints.items():
        if seat not in hidden and not constraint.accepts(np.where(known == seat, seat, 4).astype(np.uint8), seat):
            raise WorldSamplingError(f"constraint on {'NESW'[seat]} ({constraint}) is not met by its known hand")
    constraints = {s: c for s, c in constraints.items() if s in hidden}
    counts = [need[s] - len(forced[s]) for s in hidden]
    check_voids = len(hidden) > 2 and view.voids[hidden].any()
    total = _void_free_count(hidden, need, forced, free)
    if (total <= n or (constraints and total <= ENUMERATION_LIMIT)) and not check_voids:
        owners = _enumerate(known, hidden, forced, free, counts)
        ok, tallies = _check(owners, constraints, view.voids, [])
        owners = owners[ok]
        if len(owners) == 0:
            raise WorldSamplingError(_failure(tallies, total, constraints))
        if len(owners) > n:
            owners = owners[np.sort(rng.choice(len(owners), n, replace=False))]
        return owners
    found, tried, tallies_sum = [], 0, {}
    batch = max(4 * n, 1024) if constraints or check_voids else n
    while sum(len(f) for f in found) < n and tried < max_tries:
        size = min(batch, max_tries - tried)
        order = np.argsort(rng.random((size, len(free))), axis=1)
        owners = _fill(known, hidden, forced, free, order, counts)
        ok, tallies = _check(owners, constraints, view.voids, hidden if check_voids else [])
        for key, value in tallies.items():
            tallies_sum[key] = tallies_sum.get(key, 0) + value
        found.append(owners[ok])
        tried += size
    owners = np.concatenate(found)[:n]
    if len(owners) < n:
        if len(owners) == 0:
            raise WorldSamplingError(_failure(tallies_sum, tried, constraints))
        raise WorldSamplingError(f"only {len(owners)} of {n} worlds met the constraints in {tried} draws; "
                                 f"raise max_tries or loosen: {_failure(tallies_sum, tried, constraints)}")
    return owners


def _failure(tallies: dict, tried: int, constraints) -> str:
    if not tallies:
        return "no layout is consistent with the voids shown"
    name, passed = min(tallies.items(), key=lambda kv: kv[1])
    listed = "; ".join(f"{'NESW'[s]}: {c}" for s, c in constraints.items())
    return f"constraint {name!r} was met by {passed} of {tried} layouts (constraints: {listed})"
