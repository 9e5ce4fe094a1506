"""Card-play agents: ``act(view: PlayerView) -> card``.

`PIMCAgent` is thesis Algorithm 1 (3.3.4): sample worlds, solve each double dummy, play the card with the best
mean. Equivalent cards (touching, or separated only by played cards) are one choice and the lowest is played;
ties in value between choices are broken by the agent's seeded generator. Its worlds may follow the auction
(``auction="rules"`` or ``"policy"``, `bridgerl.agents.auction_worlds`).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from bridgerl.agents.auction_worlds import METHODS as AUCTION_METHODS
from bridgerl.agents.auction_worlds import PRIORS as AUCTION_PRIORS
from bridgerl.agents.auction_worlds import SamplingStats, check_bidders, sample_with_auction
from bridgerl.core.cards import SEATS
from bridgerl.core.constraints import HandConstraint
from bridgerl.core.dd import solve_positions
from bridgerl.envs import PlayerView

OBJECTIVES = ("tricks", "make")
GOALS = ("tricks", "sigma")
TIE_TOLERANCE = 0.01
"""Choices whose values differ by less than this (in tricks, or in probability for ``make``) are ties (thesis 3.4.3:
"a tolerance of 0.01"); strictly less, so means over 100 worlds or fewer, spaced 0.01 or more, never tie."""


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _check_objective(objective: str) -> str:
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}")
    return objective


def holdings_of(view: PlayerView, owners: np.ndarray) -> np.ndarray:
    """uint64[k, 4]: each seat's remaining cards (52-bit masks) in worlds [k, 52] at the view's position."""
    played = np.zeros(52, dtype=bool)
    played[[c for t in view.all_tricks() for c in t.cards]] = True
    held = (np.asarray(owners)[:, None, :] == np.arange(4)[None, :, None]) & ~played
    packed = np.packbits(held, axis=-1, bitorder="little")  # [k, 4, 7]
    packed = np.concatenate([packed, np.zeros(packed.shape[:-1] + (1,), np.uint8)], axis=-1)
    return np.ascontiguousarray(packed).view("<u8")[..., 0]


def solve_worlds(view: PlayerView, owners: np.ndarray) -> np.ndarray:
    """int8[k, 52]: DD tricks (from now, for the side to play) of each legal card in each world; -1 if illegal."""
    trick = list(view.current_trick.cards) + [-1] * (3 - len(view.current_trick.cards))
    return solve_positions(holdings_of(view, owners), view.contract.strain, view.current_trick.leader, trick)


def world_values(view: PlayerView, scores: np.ndarray, objective: str) -> np.ndarray:
    """float[k, 52] per-world value of each card: DD tricks, or 1/0 for reaching the side's target (make)."""
    if objective == "tricks":
        return scores.astype(np.float64)
    return (view.tricks_won + scores.astype(np.int16) >= view.tricks_needed).astype(np.float64)


class SeededAgent:
    """A play agent drawing from its own generator; ``reseed`` restarts it (envs call it on a seeded reset)."""

    def __init__(self, seed=None):
        self.rng = _rng(seed)

    def reseed(self, seed) -> None:
        self.rng = _rng(seed)


def sigma_values(view: PlayerView, per_world: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The goal modification of thesis 3.4.4: float[52] to maximise, from per-world DD tricks [k, 52]. When more than
    one choice (group of equal cards) reaches the goal, i.e. its mean tricks are at least what the player's side
    still needs to make (declarer) or beat (defence) the contract, the value is mean - σ (σ the sample standard
    deviation over the worlds, ddof 1) and choices short of the goal are out; otherwise it is the mean, as without
    the goal. -1 for illegal cards."""
    mean = per_world.mean(0)
    sigma = per_world.std(0, ddof=1) if len(per_world) > 1 else np.zeros(per_world.shape[1])
    need = view.tricks_needed - view.tricks_won
    reach = legal & (mean >= need - 1e-9)
    if sum(bool(reach[group[0]]) for group in view.equivalent_groups()) < 2:
        return np.where(legal, mean, -1.0)
    return np.where(reach, mean - sigma, np.where(legal, -np.inf, -1.0))


def choose(view: PlayerView, values: np.ndarray, rng: np.random.Generator,
           tolerance: float = TIE_TOLERANCE) -> int:
    """The lowest card of a best group of equals; groups whose values are less than ``tolerance`` apart tie, and
    ties are broken with ``rng``."""
    groups = view.equivalent_groups()
    group_values = np.array([values[g[0]] for g in groups])
    best = np.flatnonzero(group_values.max() - group_values < tolerance - 1e-9)
    return groups[int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])][0]


class RandomAgent(SeededAgent):
    """Plays a uniformly random legal card."""

    def act(self, view: PlayerView) -> int:
        return int(view.legal[self.rng.integers(len(view.legal))])


class DoubleDummyAgent(SeededAgent):
    """Sees the whole deal (the upper-bound baseline): plays a card that is best double dummy.

    Give it the deal with ``see_deal(owner)``; the envs and `bridgerl.evaluation.play` do so at each deal's start.
    """

    def __init__(self, objective: str = "tricks", seed=None):
        super().__init__(seed)
        self.objective = _check_objective(objective)
        self.owner = None

    def see_deal(self, owner) -> None:
        self.owner = np.asarray(owner, dtype=np.uint8).copy()

    def card_values(self, view: PlayerView) -> np.ndarray:
        """float[52]: each legal card's double-dummy value in the true deal (-1 for illegal cards)."""
        if self.owner is None:
            raise ValueError("DoubleDummyAgent has not seen the deal: call see_deal(owner) first")
        for seat, cards in view.known_hands().items():
            if np.any(self.owner[list(cards)] != seat):
                raise ValueError(f"the deal DoubleDummyAgent saw does not match {SEATS[seat]}'s cards in the view")
        scores = solve_worlds(view, self.owner[None])
        values = world_values(view, scores, self.objective)[0]
        return np.where(scores[0] >= 0, values, -1.0)

    def act(self, view: PlayerView) -> int:
        if len(view.equivalent_groups()) == 1:
            return view.equivalent_groups()[0][0]
        return choose(view, self.card_values(view), self.rng)


class PIMCAgent(SeededAgent):
    """Perfect-information Monte Carlo (thesis Algorithm 1): ``worlds`` sampled layouts, each solved double dummy
    (DDS, batched), the card with the best mean tricks or probability of reaching the side's target. ``goal="sigma"``
    (with ``objective="tricks"``): among the choices whose mean reaches the tricks the side still needs, the one
    with the largest mean - σ (thesis 3.4.4, `sigma_values`), a safer line at the same expected result.

    ``auction`` (thesis 3.3.4, InterpretAuction): how the auction before the play shapes the worlds, when the view
    carries one (the whole deal; in plain card play all three are "none"): "none" ignores it; "rules" samples with
    the constraints the rule system's agreements read from the hidden seats' calls; "policy" keeps the worlds in
    which the hidden seats' bidders, replayed, make the calls seen (`bridgerl.agents.auction_worlds`; give the
    bidders with ``see_bidders``, as evaluation does at each table). ``max_candidates``: the most candidate worlds
    "policy" replays per decision; ``prior``: where they come from, "none" (uniform: right whatever the bidders'
    system) or "rules" (the rule agreements' constraints first: tighter, for rule bidders). ``sampling`` counts the
    auction-aware samples and their fallbacks."""

    def __init__(self, worlds: int = 100, objective: str = "tricks", seed=None,
                 constraints: Mapping[int, HandConstraint] | None = None, max_tries: int = 200_000,
                 auction: str = "none", max_candidates: int = 2000, prior: str = "none", goal: str = "tricks"):
        if goal not in GOALS:
            raise ValueError(f"goal must be one of {GOALS}, got {goal!r}")
        if goal == "sigma" and objective != "tricks":
            raise ValueError("goal='sigma' works on tricks (thesis 3.4.4): use it with objective='tricks'")
        if worlds < 1:
            raise ValueError(f"worlds must be at least 1, got {worlds}")
        if auction not in AUCTION_METHODS:
            raise ValueError(f"auction must be one of {AUCTION_METHODS}, got {auction!r}")
        if max_candidates < 1:
            raise ValueError(f"max_candidates must be at least 1, got {max_candidates}")
        if prior not in AUCTION_PRIORS:
            raise ValueError(f"prior must be one of {AUCTION_PRIORS}, got {prior!r}")
        self.worlds = int(worlds)
        super().__init__(seed)
        self.objective = _check_objective(objective)
        self.constraints = dict(constraints or {})
        self.max_tries = max_tries
        self.auction = auction
        self.max_candidates = int(max_candidates)
        self.prior = prior
        self.goal = goal
        self.bidders: dict[int, object] = {}
        self.sampling = SamplingStats()

    def see_bidders(self, bidders: Mapping[int, object]) -> None:
        """The bidding agents at the table, {seat: bidder with ``act_batch`` or ``act`` on 231-bit observations}:
        what ``auction="policy"`` replays."""
        self.bidders = check_bidders(bidders)

    def sample(self, view: PlayerView) -> np.ndarray:
        return sample_with_auction(view, self.worlds, self.auction, self.bidders, self.constraints, seed=self.rng,
                                   max_tries=self.max_tries, max_candidates=self.max_candidates, prior=self.prior,
                                   stats=self.sampling)

    def card_values(self, view: PlayerView, owners: np.ndarray | None = None) -> np.ndarray:
        """float[52]: each legal card's mean value over the worlds (sampled unless given), or its `sigma_values`
        with ``goal="sigma"``; -1 for illegal cards."""
        owners = self.sample(view) if owners is None else owners
        scores = solve_worlds(view, owners)
        legal = scores[0] >= 0
        per_world = world_values(view, scores, self.objective)
        if self.goal == "sigma":
            return sigma_values(view, per_world, legal)
        return np.where(legal, per_world.mean(0), -1.0)

    def act(self, view: PlayerView) -> int:
        groups = view.equivalent_groups()
        if len(groups) == 1:
            return groups[0][0]
        return choose(view, self.card_values(view), self.rng)

    def __repr__(self) -> str:
        auction = f", auction={self.auction!r}" if self.auction != "none" else ""
        goal = f", goal={self.goal!r}" if self.goal != "tricks" else ""
        return f"PIMCAgent(worlds={self.worlds}, objective={self.objective!r}{auction}{goal})"

