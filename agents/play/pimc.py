"""Card-play agents: ``act(view: PlayerView) -> card``.

`PIMCAgent` is thesis Algorithm 1 (3.3.4): sample worlds, solve each double dummy, play the card with the best
mean. Equivalent cards (touching, or separated only by played cards) are one choice and the lowest is played;
ties in value between choices (less than 0.01 apart) are broken by the agent's seeded generator, or first by the
information score (``tiebreak="info"``, thesis 3.4.3, `bridgerl.agents.play.combined_defender`). Its worlds may follow
the auction (``auction="rules"`` or ``"policy"``, `bridgerl.agents.play.auction_worlds`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from bridgerl.agents.play.auction_worlds import METHODS as AUCTION_METHODS
from bridgerl.agents.play.auction_worlds import PRIORS as AUCTION_PRIORS
from bridgerl.agents.play.auction_worlds import SamplingStats, check_bidders, rules_worlds, sample_with_auction
from bridgerl.agents.play.combined_defender import DEFAULT_INFO_BUDGET, InformationScore
from bridgerl.agents.learned.simulation import DEFAULT_ISSN, DEFAULT_SSN, DEFAULT_T
from bridgerl.core.cards import SEATS
from bridgerl.core.constraints import HandConstraint
from bridgerl.core.dd import solve_positions
from bridgerl.envs import PlayerView

OBJECTIVES = ("tricks", "make")
GOALS = ("tricks", "sigma")
TIEBREAKS = ("random", "info")
SAMPLERS = ("uniform", "auction", "network")
REWEIGHS = ("none", "issn")
SOLVERS = ("dds", "ssn")
TIE_TOLERANCE = 0.01
"""Choices whose values differ by less than this (in tricks, or in probability for ``make``) are ties (thesis 3.4.3:
"a tolerance of 0.01"); strictly less, so means over 100 worlds or fewer, spaced 0.01 or more, never tie."""


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _one_of(name: str, value: str, allowed: tuple) -> str:
    """``value`` if it is one of ``allowed``, else the one-line error naming the setting."""
    if value not in allowed:
        raise ValueError(f"{name} must be one of {allowed}, got {value!r}")
    return value


def _check_objective(objective: str) -> str:
    return _one_of("objective", objective, OBJECTIVES)


def load_model(kind: str, path: str):
    """The network model at ``path`` (loaded once per process): ``kind`` "location" (the card-location model,
    `bridgerl.agents.learned.card_location.LocationModel`), "issn" or "ssn" (`bridgerl.agents.learned.simulation`)."""
    from bridgerl.agents.learned.checkpoint import cached_load

    if kind == "location":
        from bridgerl.agents.learned.card_location import LocationModel as cls
    elif kind == "issn":
        from bridgerl.agents.learned.simulation import PolicyModel as cls
    else:
        from bridgerl.agents.learned.simulation import SolverModel as cls
    return cached_load(cls, path)


def check_sampler(sampler: str, model: str, auction: str) -> str:
    """The auction method a ``sampler`` setting means (one-line errors for settings that do not go together):
    "uniform" keeps ``auction``; "auction" is uniform within the rule agreements' ranges (``auction="rules"``
    unless "policy" is asked for); "network" draws from the card-location ``model`` (``auction`` "none" or
    "rules")."""
    _one_of("sampler", sampler, SAMPLERS)
    _one_of("auction", auction, AUCTION_METHODS)
    if model and sampler != "network":
        raise ValueError("model=PATH is the card-location model of sampler='network'; give sampler=network too")
    if sampler == "network" and not model:
        raise ValueError("sampler='network' draws worlds from a card-location model: give model=PATH "
                         "(e.g. models/card-location)")
    if sampler == "network" and auction == "policy":
        raise ValueError("sampler='network' reads the auction through its model; with it, auction may be "
                         "'none', 'rules' or 'sayc' (the agreements' ranges kept by rejection), not 'policy'")
    if sampler == "auction" and auction == "none":
        return "rules"
    return auction


def draw_worlds(view: PlayerView, n: int, rng: np.random.Generator, sampler: str = "uniform", model: str = "",
                auction: str = "none", constraints: Mapping[int, HandConstraint] | None = None,
                max_tries: int = 200_000, bidders: Mapping[int, object] | None = None, max_candidates: int = 2000,
                prior: str = "none", stats: SamplingStats | None = None) -> np.ndarray:
    """uint8[k, 52]: the worlds a play agent reasons over, by its ``sampler`` (`check_sampler`) and ``auction``
    method (`bridgerl.agents.play.auction_worlds.sample_with_auction`); "network" draws from the card-location model at
    ``model`` (`learned.card_location.sample_located_worlds`)."""
    if sampler == "network":
        from bridgerl.agents.learned.card_location import sample_located_worlds

        location = load_model("location", model)

        def draw(view, n, constraints, rng, max_tries):
            return sample_located_worlds(view, location, n, rng, constraints, max_tries)

        if auction in ("rules", "sayc"):
            return rules_worlds(view, n, constraints, rng, max_tries, stats, draw, system=auction)
        return draw(view, n, constraints, rng, max_tries)
    return sample_with_auction(view, n, auction, bidders, constraints, seed=rng, max_tries=max_tries,
                               max_candidates=max_candidates, prior=prior, stats=stats)


def holdings_of(view: PlayerView, owners: np.ndarray) -> np.ndarray:
    """uint64[k, 4]: each seat's remaining cards (52-bit masks) in worlds [k, 52] at the view's position."""
    played = np.zeros(52, dtype=bool)
    played[[c for t in view.all_tricks() for c in t.cards]] = True
    held = (np.asarray(owners)[:, None, :] == np.arange(4)[None, :, None]) & ~played
    packed = np.packbits(held, axis=-1, bitorder="little")  # [k, 4, 7]
    packed = np.concatenate([packed, np.zeros(packed.shape[:-1] + (1,), np.uint8)], axis=-1)
    return np.ascontiguousarray(packed).view("<u8")[..., 0]


def solve_worlds(view: PlayerView, owners: np.ndarray, best: bool = False) -> np.ndarray:
    """int8[k, 52]: DD tricks (from now, for the side to play) of each legal card in each world; -1 if illegal
    (with ``best``: -1 too for every card that is not best in its world, a faster search)."""
    trick = list(view.current_trick.cards) + [-1] * (3 - len(view.current_trick.cards))
    return solve_positions(holdings_of(view, owners), view.contract.strain, view.current_trick.leader, trick,
                           best_cards=best)


def world_values(view: PlayerView, scores: np.ndarray, objective: str) -> np.ndarray:
    """float[k, 52] per-world value of each card: DD tricks, or 1/0 for reaching the side's target (make)."""
    if objective == "tricks":
        return scores.astype(np.float64)
    # DDS gives whole tricks; a network's values (solver="ssn") are rounded to the nearest trick
    return (view.tricks_won + np.asarray(scores, np.float64) >= view.tricks_needed - 0.5).astype(np.float64)


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


def tied_best(values, tolerance: float = TIE_TOLERANCE) -> np.ndarray:
    """Indices of the values less than ``tolerance`` below the largest (the best and those tied with it)."""
    values = np.asarray(values, dtype=np.float64)
    return np.flatnonzero(values.max() - values < tolerance - 1e-9)


def choose(view: PlayerView, values: np.ndarray, rng: np.random.Generator,
           tolerance: float = TIE_TOLERANCE) -> int:
    """The lowest card of a best group of equals; groups whose values are less than ``tolerance`` apart tie, and
    ties are broken with ``rng``."""
    groups = view.equivalent_groups()
    best = tied_best([values[g[0]] for g in groups], tolerance)
    return groups[int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])][0]


SIGMA_CASES = ("safety", "safest", "safer")


def sigma_case(view: PlayerView, per_world: np.ndarray) -> str | None:
    """Which of thesis 3.5.4's cases a decision is, from per-world DD tricks [k, 52] (G the tricks the side still
    needs, H the choice with the highest mean, S the one with the highest mean - σ among those reaching G, H > S):
    "safety" (S >= G and σ_S = 0), "safest" (S - σ_S >= G > H - σ_H), "safer" (S - σ_S > H - σ_H >= G), or None
    (S is H, no choice reaches G, or none of the three)."""
    if len(per_world) < 2:
        return None
    reps = [g[0] for g in view.equivalent_groups()]
    mean = per_world[:, reps].mean(0)
    sigma = per_world[:, reps].std(0, ddof=1)
    need = view.tricks_needed - view.tricks_won
    reach = mean >= need - 1e-9
    if not reach.any():
        return None
    h = int(np.argmax(mean))
    s = int(np.flatnonzero(reach)[np.argmax((mean - sigma)[reach])])
    if not mean[h] - mean[s] > 1e-9:
        return None
    if sigma[s] < 1e-9:
        return "safety"
    if mean[s] - sigma[s] >= need - 1e-9 > mean[h] - sigma[h]:
        return "safest"
    if mean[s] - sigma[s] > mean[h] - sigma[h] >= need - 1e-9:
        return "safer"
    return None


@dataclass
class TieStats:
    """What an agent's tie-breaks did: ``decisions`` with a choice (two or more groups of equals), ``tied`` those
    with two or more choices within the tolerance of the best, ``info_decided`` ties the information score settled
    (one choice left), ``random_draws`` ties left to the seeded draw (among those the score kept, if it ran)."""

    decisions: int = 0
    tied: int = 0
    info_decided: int = 0
    random_draws: int = 0


class RandomAgent(SeededAgent):
    """Plays a uniformly random legal card."""

    def act(self, view: PlayerView) -> int:
        return int(view.legal[self.rng.integers(len(view.legal))])


class DoubleDummyAgent(SeededAgent):
    """Sees the whole deal (the upper-bound baseline): plays a card that is best double dummy.

    Give it the deal with ``see_deal(owner)``; the envs and `bridgerl.arena.play` do so at each deal's start.
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
    ``tiebreak="info"``: choices within 0.01 of the best are ranked by their information score over the same worlds
    (thesis 3.4.3, `combined_defender.InformationScore`: the declaring side's combined-defender claim
    after the trick; the defence takes the smallest, declarer the largest), and only what is still tied goes to the
    seeded draw. ``info_budget``: search nodes per combined-defender value inside it. ``ties`` counts what the
    tie-breaks did (`TieStats`); ``last`` describes the last decision (the tied cards, those the information score kept
    when it ran; whether the draw chose; the σ case of `sigma_case`; the sampled "worlds", their DD tricks per card
    "scores" [k, 52], their "weights" and the "values" the card was chosen by).

    ``auction`` (thesis 3.3.4, InterpretAuction): how the auction before the play shapes the worlds, when the view
    carries one (the whole deal; in plain card play all three are "none"): "none" ignores it; "rules" samples with
    the constraints the rule system's agreements read from the hidden seats' calls; "sayc" the same with the `sayc`
    system's table (`bridgerl.agents.bidding.sayc.sayc_constraints`, for `sayc` bidders); "policy" keeps the worlds in
    which the hidden seats' bidders, replayed, make the calls seen (`bridgerl.agents.play.auction_worlds`; give the
    bidders with ``see_bidders``, as evaluation does at each table). ``max_candidates``: the most candidate worlds
    "policy" replays per decision; ``prior``: where they come from, "none" (uniform: right whatever the bidders'
    system) or "rules" (the rule agreements' constraints first: tighter, for rule bidders). ``sampling`` counts the
    auction-aware samples and their fallbacks.

    ``sampler`` (issue #20): "uniform" (every world consistent with the view alike, shaped by ``auction``),
    "auction" (uniform within the rule agreements' ranges: ``auction="rules"``) or "network" (seed 003: drawn from
    a card-location model, ``model``: its path, e.g. ``models/card-location``;
    `learned.card_location.sample_located_worlds`, which reads the auction and the play itself); the hard
    constraints (known cards, counts, voids) always hold.

    ``reweigh="issn"`` (seed 004, simulation reweighing): each world counts in the mean in proportion to the
    likelihood, by the ISSN at ``issn``, of the other players' last ``T`` choices had it been the deal
    (`bridgerl.agents.learned.simulation.PolicyModel.world_log_weights`); ``last["ess"]`` is the effective number of worlds
    (1 / sum of squared weights). ``solver="ssn"``: the worlds are valued by the SSN at ``ssn`` instead of DDS (no
    DDS call at all)."""

    def __init__(self, worlds: int = 100, objective: str = "tricks", seed=None,
                 constraints: Mapping[int, HandConstraint] | None = None, max_tries: int = 200_000,
                 auction: str = "none", max_candidates: int = 2000, prior: str = "none", goal: str = "tricks",
                 tiebreak: str = "random", info_budget: int = DEFAULT_INFO_BUDGET, sampler: str = "uniform",
                 model: str = "", reweigh: str = "none", T: int = DEFAULT_T, issn: str = DEFAULT_ISSN,
                 solver: str = "dds", ssn: str = DEFAULT_SSN):
        _one_of("tiebreak", tiebreak, TIEBREAKS)
        auction = check_sampler(sampler, model, auction)
        _one_of("reweigh", reweigh, REWEIGHS)
        _one_of("solver", solver, SOLVERS)
        unused = [name for name, given, used in (("T", T != DEFAULT_T, reweigh == "issn"),
                                                 ("issn", issn != DEFAULT_ISSN, reweigh == "issn"),
                                                 ("ssn", ssn != DEFAULT_SSN, solver == "ssn")) if given and not used]
        if unused:
            raise ValueError(f"{', '.join(unused)} set but not used: T and issn go with reweigh=issn, ssn with "
                             "solver=ssn")
        if reweigh == "issn" and T < 1:
            raise ValueError(f"T (choices reweighed) must be at least 1, got {T}")
        if reweigh == "issn" and goal == "sigma":
            raise ValueError("goal='sigma' ranks by the spread over equally likely worlds; it does not take "
                             "reweigh='issn'")
        _one_of("goal", goal, GOALS)
        _one_of("prior", prior, AUCTION_PRIORS)
        if info_budget < 0:
            raise ValueError(f"info_budget must be 0 (sure-trick lines only) or more, got {info_budget}")
        if goal == "sigma" and objective != "tricks":
            raise ValueError("goal='sigma' works on tricks (thesis 3.4.4): use it with objective='tricks'")
        if worlds < 1:
            raise ValueError(f"worlds must be at least 1, got {worlds}")
        if max_candidates < 1:
            raise ValueError(f"max_candidates must be at least 1, got {max_candidates}")
        self.worlds = int(worlds)
        super().__init__(seed)
        self.objective = _check_objective(objective)
        self.constraints = dict(constraints or {})
        self.max_tries = max_tries
        self.auction = auction
        self.max_candidates = int(max_candidates)
        self.prior = prior
        self.goal = goal
        self.tiebreak = tiebreak
        self.sampler = sampler
        self.model = str(model)
        self.reweigh, self.T, self.issn = reweigh, int(T), str(issn)
        self.solver, self.ssn = solver, str(ssn)
        for kind, path in self.models().items():
            load_model(kind, path)  # a model that does not load fails here, not at the first card
        self.information = InformationScore(info_budget)
        self.bidders: dict[int, object] = {}
        self.sampling = SamplingStats()
        self.ties = TieStats()
        self.last: dict = {}
        self._worlds: np.ndarray | None = None
        self._weights: np.ndarray | None = None

    def see_bidders(self, bidders: Mapping[int, object]) -> None:
        """The bidding agents at the table, {seat: bidder with ``act_batch`` or ``act`` on 231-bit observations}:
        what ``auction="policy"`` replays."""
        self.bidders = check_bidders(bidders)

    def models(self) -> dict:
        """{kind: path} of the networks this agent uses ("location", "issn", "ssn"; `load_model`)."""
        used = {"location": self.model if self.sampler == "network" else None,
                "issn": self.issn if self.reweigh == "issn" else None,
                "ssn": self.ssn if self.solver == "ssn" else None}
        return {kind: path for kind, path in used.items() if path is not None}

    def network_rows(self) -> int:
        """Positions its networks have evaluated so far in this process (for the cost tables; shared by agents
        that load the same model)."""
        return sum(load_model(kind, path).rows for kind, path in self.models().items())

    def sample(self, view: PlayerView) -> np.ndarray:
        return draw_worlds(view, self.worlds, self.rng, self.sampler, self.model, self.auction, self.constraints,
                           self.max_tries, self.bidders, self.max_candidates, self.prior, self.sampling)

    def solve(self, view: PlayerView, owners: np.ndarray) -> np.ndarray:
        """[k, 52]: each legal card's tricks in each world (-1 for illegal cards), by DDS or the SSN; a repeated
        world is solved once."""
        distinct, where = np.unique(owners, axis=0, return_inverse=True)
        return self._solve_distinct(view, distinct)[where.reshape(-1)]

    def world_weights(self, view: PlayerView, owners: np.ndarray) -> np.ndarray | None:
        """float[k] summing to 1 (``reweigh="issn"``), or None (the worlds count alike)."""
        if self.reweigh != "issn":
            return None
        distinct, where = np.unique(owners, axis=0, return_inverse=True)
        return self._weights_of(view, distinct, where.reshape(-1))

    def _solve_distinct(self, view: PlayerView, distinct: np.ndarray) -> np.ndarray:
        if self.solver == "ssn":
            return load_model("ssn", self.ssn).solve_worlds(view, distinct)
        return solve_worlds(view, distinct)

    def _weights_of(self, view: PlayerView, distinct: np.ndarray, where: np.ndarray) -> np.ndarray | None:
        """Weights of the worlds ``distinct[where]``, each distinct world weighed once (None without reweighing)."""
        if self.reweigh != "issn":
            return None
        from bridgerl.agents.learned.simulation import normalised_weights

        return normalised_weights(load_model("issn", self.issn).world_log_weights(view, distinct, self.T)[where])

    def card_values(self, view: PlayerView, owners: np.ndarray | None = None) -> np.ndarray:
        """float[52]: each legal card's mean value over the worlds (sampled unless given), or its `sigma_values`
        with ``goal="sigma"``; -1 for illegal cards."""
        owners = self.sample(view) if owners is None else owners
        distinct, where = np.unique(owners, axis=0, return_inverse=True)  # a repeated world is solved once
        where = where.reshape(-1)
        scores = self._solve_distinct(view, distinct)[where]
        legal = scores[0] >= 0
        per_world = world_values(view, scores, self.objective)
        weights = self._weights_of(view, distinct, where)
        self._worlds, self._weights = owners, weights
        # the decision's worlds, their DD tricks per card [k, 52] and weights (None: alike), and the values returned
        self.last = {"case": sigma_case(view, per_world) if self.objective == "tricks" else None,
                     "worlds": owners, "scores": scores, "weights": weights}
        if self.goal == "sigma":
            values = sigma_values(view, per_world, legal)
        elif weights is not None:
            self.last["ess"] = float(1.0 / np.square(weights).sum())
            values = np.where(legal, weights @ per_world, -1.0)
        else:
            values = np.where(legal, per_world.mean(0), -1.0)
        self.last["values"] = values
        return values

    def act(self, view: PlayerView) -> int:
        groups = view.equivalent_groups()
        if len(groups) == 1:
            self.last = {}
            return groups[0][0]
        values = self.card_values(view)
        self.ties.decisions += 1
        best = tied_best([values[g[0]] for g in groups])
        self.last["tied"] = [groups[i][0] for i in best]
        if len(best) > 1:
            self.ties.tied += 1
            if self.tiebreak == "info":
                scores = self.information_scores(view, self.last["tied"])
                kept = tied_best(scores if view.is_declaring_side else -scores)
                if len(kept) == 1:
                    self.ties.info_decided += 1
                best = best[kept]
                self.last["tied"] = [groups[i][0] for i in best]  # what the draw (if any) chooses among
        self.last["draw"] = len(best) > 1
        if len(best) > 1:
            self.ties.random_draws += 1
        return groups[int(best[self.rng.integers(len(best))]) if len(best) > 1 else int(best[0])][0]

    def information_scores(self, view: PlayerView, cards, owners: np.ndarray | None = None) -> np.ndarray:
        """float[len(cards)]: each card's information score, the mean over the worlds (the last decision's unless
        given) of the declaring side's combined-defender tricks after the trick the card plays to."""
        weights = self._weights if owners is None else self.world_weights(view, owners)
        owners = self._worlds if owners is None else owners
        if owners is None:
            owners = self.sample(view)
            weights = self.world_weights(view, owners)
        scores = self.information.scores(view, owners, [int(c) for c in cards])
        return scores.mean(0) if weights is None else weights @ scores

    def __repr__(self) -> str:
        auction = f", auction={self.auction!r}" if self.auction != "none" else ""
        goal = f", goal={self.goal!r}" if self.goal != "tricks" else ""
        tiebreak = f", tiebreak={self.tiebreak!r}" if self.tiebreak != "random" else ""
        sampler = f", sampler={self.sampler!r}" if self.sampler != "uniform" else ""
        sampler += f", model={self.model!r}" if self.sampler == "network" else ""
        reweigh = f", reweigh='issn', T={self.T}, issn={self.issn!r}" if self.reweigh == "issn" else ""
        solver = f", solver='ssn', ssn={self.ssn!r}" if self.solver == "ssn" else ""
        return (f"PIMCAgent(worlds={self.worlds}, objective={self.objective!r}{auction}{goal}{tiebreak}{sampler}"
                f"{reweigh}{solver})")

