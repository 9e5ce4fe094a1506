"""Auction-aware world sampling for play agents (thesis 3.3.4, Algorithm 1: ``DEALER(INTERPRETAUCTION(hand,
auction, play), samples)``).

Two ways to let the auction shape the worlds a `PlayerView` allows:

- `rules_worlds`: the constraints `interpret_auction` reads from the calls of the seats hidden from the viewer
  (the rule system's agreements, `bidding.agreements`), passed to `sample_worlds`. When no world meets them
  (with the viewer's own cards they can be unsatisfiable), it samples without them and counts a fallback.
- `policy_worlds`: rejection against any bidding agent. Candidate worlds (unconstrained, or from `rules_worlds`) are
  replayed through the auction: at each call of a hidden seat, that seat's 231-bit observation in every candidate
  world goes to its bidder in one batch, and a world survives while the bidder makes the call seen. Worlds that
  reproduce every checked call are kept. Fallback, when fewer than ``n`` are consistent after ``max_candidates``
  candidates: fill with the candidates that reproduced the longest run of checked calls (most first), then, if the
  candidates ran out, with unconstrained worlds. `SamplingStats` counts each case. (Late in the play, when the
  prior lists every layout it allows, the consistent ones are all returned, however few.)

Calls of the seats the viewer sees (its own, dummy's once exposed) need no check. Both functions take the view's
own ``constraints`` and the caller's as `sample_worlds` does, and draw everything from ``seed`` (an int or a numpy
Generator), so a seeded agent stays deterministic. Without an auction in the view (plain card play) both are
`sample_worlds`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

import numpy as np

from bridgerl.agents.bidding.engine import intersect, makes_calls, table_checks
from bridgerl.agents.bidding.rules_agreements import RULES, interpret_auction
from bridgerl.core.auction import Auction
from bridgerl.core.board import is_vulnerable
from bridgerl.core.competitive import HAND_OFFSET, encode
from bridgerl.core.constraints import HandConstraint
from bridgerl.envs import PlayerView, WorldSamplingError, sample_worlds

METHODS = ("none", "rules", "sayc", "policy")
PRIORS = ("rules", "none")


@dataclass
class SamplingStats:
    """Counters of auction-aware sampling (one object may be shared by many calls)."""

    samples: int = 0              # calls that sampled with an auction
    worlds: int = 0               # worlds returned by them
    rules_fallbacks: int = 0      # rules: no world met the auction's constraints, sampled without them
    candidates: int = 0           # policy: candidate worlds replayed
    bidder_calls: int = 0         # policy: observations given to bidders
    consistent: int = 0           # policy: worlds returned that reproduce every checked call
    near_miss_samples: int = 0    # policy: samples filled up with the candidates that matched the most calls
    near_miss_worlds: int = 0
    unconstrained_samples: int = 0  # policy: samples filled up with unconstrained worlds (candidates ran out)
    unconstrained_worlds: int = 0
    table_candidates: int = 0     # rules: worlds within the readings' ranges replayed through the table
    table_fills: int = 0          # rules: worlds returned that the table would not have bid so (too few that would)

    def as_dict(self) -> dict:
        return asdict(self)

    def merge(self, other: SamplingStats) -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def hidden_seats(view: PlayerView) -> list[int]:
    """The seats whose cards the viewer does not see."""
    known = view.known_hands()
    return [seat for seat in range(4) if seat not in known]


def _explicit(view: PlayerView, constraints) -> dict[int, HandConstraint]:
    return {**dict(view.constraints), **dict(constraints or {})}


def auction_constraints(view: PlayerView, constraints: Mapping[int, HandConstraint] | None = None,
                        system: str = "rules") -> dict[int, HandConstraint]:
    """The hidden seats' constraints from the auction read with ``system``'s agreements ("rules":
    `interpret_auction`; "sayc": `bidding.sayc.sayc_constraints`), each intersected with the view's and the
    caller's constraint for that seat (which win where they contradict); seats left unconstrained are omitted."""
    explicit = _explicit(view, constraints)
    out = dict(explicit)
    if view.auction is None:
        return out
    if system == "sayc":
        from bridgerl.agents.bidding.sayc import sayc_constraints

        read = sayc_constraints(view.auction, hidden_seats(view))
    elif system == "rules":
        read = interpret_auction(view.auction, view.vul, hidden_seats(view))
    else:
        raise ValueError(f"agreements must be 'rules' or 'sayc', got {system!r}")
    for seat, constraint in read.items():
        if seat in explicit:
            constraint = intersect(constraint, explicit[seat])
        if constraint != HandConstraint():
            out[seat] = constraint
    return out


def rules_worlds(view: PlayerView, n: int, constraints: Mapping[int, HandConstraint] | None = None, seed=None,
                 max_tries: int = 200_000, stats: SamplingStats | None = None, draw=None, system: str = "rules",
                 max_candidates: int = 400) -> np.ndarray:
    """Up to ``n`` worlds (uint8[k, 52] owner arrays) meeting the auction's constraints on the hidden seats
    (`auction_constraints`, read with ``system``'s agreements); when none can be found (`WorldSamplingError`),
    worlds without the auction's constraints (counted in ``stats.rules_fallbacks``). ``draw(view, n, constraints,
    rng, max_tries)`` makes the worlds (default: uniform, `sample_worlds`; the card-location model's sampler plugs
    in here).

    With the `rules` system the worlds are then replayed through the table its bidders bid from: a world is kept
    when each hidden seat's hand would have made that seat's table-decided calls (`engine.makes_calls`); more are
    drawn within the ranges until ``n`` pass or ``max_candidates`` were drawn (0: no replay), and worlds the table
    rejects fill the rest (``stats.table_fills``)."""
    rng = _rng(seed)
    if draw is None:
        def draw(view, n, constraints, rng, max_tries):
            return sample_worlds(view, n, constraints, seed=rng, max_tries=max_tries)
    if view.auction is None:
        return draw(view, n, constraints, rng, max_tries)
    stats = stats if stats is not None else SamplingStats()
    stats.samples += 1
    read = auction_constraints(view, constraints, system)
    try:
        owners = draw(view, n, read, rng, max_tries)
    except WorldSamplingError:
        stats.rules_fallbacks += 1
        owners = draw(view, n, constraints, rng, max_tries)
    else:
        if system == "rules" and max_candidates > 0:
            owners = _bid_by_the_table(view, n, owners, read, rng, max_tries, max_candidates, stats, draw)
    stats.worlds += len(owners)
    return owners


def _bid_by_the_table(view: PlayerView, n: int, owners: np.ndarray, read, rng, max_tries: int, max_candidates: int,
                      stats: SamplingStats, draw) -> np.ndarray:
    """Keep the worlds in which each hidden seat's hand would have made its calls by the rules table (the readings'
    ranges are the table's hull; this is the table itself); draw more within the ranges, up to ``max_candidates``
    in all, and fill up with worlds the table rejects when too few pass (`SamplingStats.table_fills`)."""
    checks = {seat: table_checks(RULES, view.auction, seat) for seat in hidden_seats(view)}
    checks = {seat: found for seat, found in checks.items() if found}
    if not checks:
        return owners
    kept, rejected, drawn = [], [], 0
    count = 0
    while True:
        drawn += len(owners)
        ok = np.array([all(makes_calls(RULES, found, owner == seat) for seat, found in checks.items())
                       for owner in owners], dtype=bool)
        kept.append(owners[ok])
        rejected.append(owners[~ok])
        count += int(ok.sum())
        if count >= n or drawn >= max_candidates or len(owners) < n:
            break
        try:
            owners = draw(view, n, read, rng, max_tries)
        except WorldSamplingError:  # the ranges met once but are rare: keep what was found, fill up below
            break
    stats.table_candidates += drawn
    out = np.concatenate(kept)[:n]
    if len(out) < n:
        fill = np.concatenate(rejected)[:n - len(out)]
        stats.table_fills += len(fill)
        out = np.concatenate([out, fill])
    return out


def _act(bidder, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    if hasattr(bidder, "act_batch"):
        return np.asarray(bidder.act_batch(observations, masks)).astype(np.int64)
    return np.array([int(bidder.act(o, m)) for o, m in zip(observations, masks)], dtype=np.int64)


def check_bidders(bidders: Mapping[int, object]) -> dict[int, object]:
    """{seat: bidder} with seats 0-3 and bidders that have ``act_batch`` or ``act``."""
    out = {}
    for seat, bidder in dict(bidders).items():
        if not 0 <= int(seat) <= 3:
            raise ValueError(f"bidders: seat {seat} is outside 0..3 (N, E, S, W)")
        if not callable(getattr(bidder, "act_batch", None)) and not callable(getattr(bidder, "act", None)):
            raise TypeError(f"bidders: the bidder of seat {seat} ({type(bidder).__name__}) has neither "
                            f"act_batch(observations, masks) nor act(observation, mask)")
        out[int(seat)] = bidder
    return out


def replay(auction: Auction, vul: str, owners: np.ndarray, bidders: Mapping[int, object],
           seats=None) -> tuple[np.ndarray, int, int]:
    """Replay ``auction`` in each world of ``owners`` [k, 52]: at each call of a seat in ``seats`` (default all) that
    has a bidder, that seat's observation (`bridgerl.core.competitive.encode`) in every world still matching goes
    to its bidder in one batch. Returns (int[k]: checked calls each world reproduced before its first miss, the
    number of checked calls, the observations given to bidders); a world is consistent when the first equals the
    second."""
    owners = np.asarray(owners)
    seats = set(range(4) if seats is None else seats) & set(bidders)
    matched = np.zeros(len(owners), dtype=np.int64)
    alive = np.arange(len(owners))
    checks = asked = 0
    partial = Auction(auction.dealer)
    for i, call in enumerate(auction.calls):
        seat = partial.to_act
        if seat in seats:
            checks += 1
            if len(alive):
                base = encode(auction.calls[:i], is_vulnerable(vul, seat), is_vulnerable(vul, seat + 1),
                              np.zeros(52, dtype=np.int8))
                observations = np.repeat(base[None], len(alive), axis=0)
                observations[:, HAND_OFFSET:] = owners[alive] == seat
                masks = np.repeat(partial.legal_mask().astype(np.int8)[None], len(alive), axis=0)
                chosen = _act(bidders[seat], observations, masks)
                asked += len(alive)
                alive = alive[chosen == call]
                matched[alive] += 1
        partial = partial.add(call)
    return matched, checks, asked


def policy_worlds(view: PlayerView, n: int, bidders: Mapping[int, object],
                  constraints: Mapping[int, HandConstraint] | None = None, seed=None, prior: str = "none",
                  max_candidates: int = 2000, batch: int | None = None, max_tries: int = 200_000,
                  stats: SamplingStats | None = None) -> np.ndarray:
    """Up to ``n`` worlds in which every hidden seat's bidder (``bidders``: {seat: agent with ``act_batch``
    (observations [B, 231], masks [B, 38]) or ``act``}) would have made the calls of ``view.auction``.

    Candidates come in batches of ``batch`` (default max(4 n, 64)) from ``prior``, at most ``max_candidates`` in
    all: "none" (`sample_worlds`: the consistent worlds are then a uniform draw from those the bidders' policies
    allow, whatever their system) or "rules" (`rules_worlds`: tighter and faster to fill when the bidders play the
    rule system, whose agreements it assumes; after a rules fallback the sample's later batches draw without them).
    Fallback when fewer than ``n`` are consistent: the candidates that reproduced the longest run of checked calls
    fill the rest, then unconstrained worlds if the candidates ran out (``stats`` counts both). When the prior lists
    every layout it allows (late in the play), the consistent ones are returned, however few, or the best near
    misses if none is. Hidden seats without a bidder are not checked."""
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {PRIORS}, got {prior!r}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    rng = _rng(seed)
    if view.auction is None:
        return sample_worlds(view, n, constraints, seed=rng, max_tries=max_tries)
    bidders = check_bidders(bidders)
    stats = stats if stats is not None else SamplingStats()
    seats = [seat for seat in hidden_seats(view) if seat in bidders]
    batch = max(4 * n, 64) if batch is None else int(batch)
    drawn, found, misses, miss_scores = 0, [], [], []
    count, exhausted = 0, False
    inner = SamplingStats()
    while count < n and drawn < max_candidates:
        size = min(batch, max_candidates - drawn)
        if prior == "rules" and not inner.rules_fallbacks:  # once its constraints failed, draw without them
            candidates = rules_worlds(view, size, constraints, seed=rng, max_tries=max_tries, stats=inner)
        else:
            candidates = sample_worlds(view, size, constraints, seed=rng, max_tries=max_tries)
        drawn += len(candidates)
        matched, checks, asked = replay(view.auction, view.vul, candidates, bidders, seats)
        stats.bidder_calls += asked
        ok = matched == checks
        found.append(candidates[ok])
        misses.append(candidates[~ok])
        miss_scores.append(matched[~ok])
        count += int(ok.sum())
        if len(candidates) < size:  # the prior listed every layout it allows: drawing again repeats them
            exhausted = True
            break
    stats.samples += 1
    stats.candidates += drawn
    stats.rules_fallbacks += inner.rules_fallbacks
    owners = np.concatenate(found)[:n] if found else np.zeros((0, 52), dtype=np.uint8)
    stats.consistent += len(owners)
    if exhausted and len(owners):  # every allowed layout was replayed: the consistent ones are all there are
        stats.worlds += len(owners)
        return owners
    if len(owners) < n and misses:
        pool, scores = np.concatenate(misses), np.concatenate(miss_scores)
        best = pool[np.argsort(-scores, kind="stable")[:n - len(owners)]]
        if len(best):
            stats.near_miss_samples += 1
            stats.near_miss_worlds += len(best)
            owners = np.concatenate([owners, best])
    if len(owners) < n and not exhausted:
        extra = sample_worlds(view, n - len(owners), constraints, seed=rng, max_tries=max_tries)
        stats.unconstrained_samples += 1
        stats.unconstrained_worlds += len(extra)
        owners = np.concatenate([owners, extra])
    stats.worlds += len(owners)
    return owners


def sample_with_auction(view: PlayerView, n: int, method: str = "none", bidders: Mapping[int, object] | None = None,
                        constraints: Mapping[int, HandConstraint] | None = None, seed=None,
                        max_tries: int = 200_000, max_candidates: int = 2000, prior: str = "none",
                        stats: SamplingStats | None = None) -> np.ndarray:
    """Worlds by ``method``: "none" (`sample_worlds`: the auction is ignored), "rules" (`rules_worlds`), "sayc"
    (`rules_worlds` with the `sayc` system's agreements) or "policy"
    (`policy_worlds` with candidates from ``prior``; needs ``bidders``). Without an auction in the view all three
    are `sample_worlds`."""
    if method not in METHODS:
        raise ValueError(f"auction method must be one of {METHODS}, got {method!r}")
    if method == "none" or view.auction is None:
        return sample_worlds(view, n, constraints, seed=seed, max_tries=max_tries)
    if method in ("rules", "sayc"):
        return rules_worlds(view, n, constraints, seed=seed, max_tries=max_tries, stats=stats, system=method)
    if not bidders:
        raise ValueError("auction='policy' replays the auction with the bidders: give them first "
                         "(PIMCAgent.see_bidders({seat: bidder}), as evaluation does at each table)")
    return policy_worlds(view, n, bidders, constraints, seed=seed, prior=prior, max_candidates=max_candidates,
                         max_tries=max_tries, stats=stats)


__all__ = ["METHODS", "PRIORS", "SamplingStats", "auction_constraints", "check_bidders", "hidden_seats",
           "policy_worlds", "replay", "rules_worlds", "sample_with_auction"]
