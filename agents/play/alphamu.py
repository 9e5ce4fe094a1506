"""αμ search for declarer play (Cazenave & Ventos, "The αμ Search Algorithm for the Game of Bridge").

Max (declarer, who also plays dummy) must play the same card in every valid world (no strategy fusion); Min (the
defence) is assumed to see all hands and chooses per world. Nodes return Pareto fronts of 0/1 make-vectors
(`pareto.py`). After ``max_moves`` Max moves every valid world is solved double dummy (batched DDS); a Max node
with one Max move to go evaluates all its cards with one DDS call per world, which makes M=1 exactly PIMC with
the make objective. Transposition table (fronts and best moves, reused across iterative deepening), early cut,
root cut and equivalent-card pruning are as in the paper's section 4.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Mapping

import numpy as np

from bridgerl.agents.play import pareto
from bridgerl.agents.play.pimc import SeededAgent, choose, world_values
from bridgerl.core.constraints import HandConstraint
from bridgerl.core.dd import solve_positions
from bridgerl.core.play import ALL_CARDS, PlayState, equivalent_groups
from bridgerl.envs import PlayerView


@dataclass
class _Entry:
    front: list[int]
    best: int | None
    max_moves: int
    exact: bool


@dataclass
class SearchStats:
    """Counters of the searches an agent has made (reset with ``reset_stats``)."""

    searched: int = 0          # decisions where a search ran (more than one choice)
    differs: int = 0           # of those, the card chosen was not one PIMC (M=1) would choose
    seconds: float = 0.0       # time in searched decisions
    nodes: int = 0
    leaf_positions: int = 0    # world positions solved by DDS


class AlphaMuAgent(SeededAgent):
    """αμ declarer: ``max_moves`` Max moves of lookahead (M) over ``worlds`` sampled worlds.

    As a defender it plays like PIMC with the make objective (αμ with M=1). ``sampler`` and ``model``: where the
    worlds come from, as for `bridgerl.agents.play.pimc.PIMCAgent` ("uniform", "auction": within the rule agreements'
    ranges, "network": from the card-location model at ``model``)."""

    def __init__(self, max_moves: int = 3, worlds: int = 20, seed=None,
                 constraints: Mapping[int, HandConstraint] | None = None, transposition: bool = True,
                 early_cut: bool = True, root_cut: bool = True, max_tries: int = 200_000, sampler: str = "uniform",
                 model: str = ""):
        from bridgerl.agents.play.pimc import check_sampler, load_model

        super().__init__(seed)
        self.auction = check_sampler(sampler, model, "none")
        self.sampler, self.model = sampler, str(model)
        if sampler == "network":
            load_model("location", self.model)  # a model that does not load fails here
        if max_moves < 1 or worlds < 1:
            raise ValueError(f"max_moves and worlds must be at least 1, got {max_moves} and {worlds}")
        self.max_moves, self.worlds = int(max_moves), int(worlds)
        self.constraints = dict(constraints or {})
        self.transposition, self.early_cut, self.root_cut = transposition, early_cut, root_cut
        self.max_tries = max_tries
        self.stats = SearchStats()
        self.last_search: dict | None = None

    def reset_stats(self) -> None:
        self.stats = SearchStats()

    def sample(self, view: PlayerView) -> np.ndarray:
        from bridgerl.agents.play.pimc import draw_worlds

        return draw_worlds(view, self.worlds, self.rng, self.sampler, self.model, self.auction, self.constraints,
                           self.max_tries)

    def act(self, view: PlayerView) -> int:
        """The card to play; ``last_search`` keeps the decision's worlds and values (None when forced)."""
        self.last_search = None
        groups = view.equivalent_groups()
        if len(groups) == 1:
            return groups[0][0]
        start = time.perf_counter()
        worlds = self.sample(view)
        if view.is_declaring_side:
            values, pimc_values = self.root_values(view, worlds)
        else:
            values = pimc_values = _pimc_make_values(view, worlds)
        self.last_search = {"worlds": worlds, "values": values, "pimc_values": pimc_values}
        # exact ties only: the values are shares of worlds, and the search marks bounds 1e-6 below them
        card = choose(view, values, self.rng, tolerance=2e-9)
        self.stats.searched += 1
        self.stats.differs += bool(pimc_values[card] < pimc_values[[g[0] for g in groups]].max() - 1e-9)
        self.stats.seconds += time.perf_counter() - start
        return card

    def root_values(self, view: PlayerView, worlds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """float[52] probability of making for each root card after the deepest search, and after M=1 (PIMC)."""
        return _Search(self, view, worlds).run()


def _pimc_make_values(view: PlayerView, worlds: np.ndarray) -> np.ndarray:
    from bridgerl.agents.play.pimc import solve_worlds

    scores = solve_worlds(view, worlds)
    return np.where(scores[0] >= 0, world_values(view, scores, "make").mean(0), -1.0)


class _Search:
    """One αμ decision: iterative deepening over M = 1 .. max_moves from the root (a Max node)."""

    def __init__(self, agent: AlphaMuAgent, view: PlayerView, worlds: np.ndarray):
        self.agent = agent
        self.view = view
        self.needed = view.contract.tricks_needed
        history = [c for t in view.all_tricks() for c in t.cards]
        self.root = [PlayState.start(w, view.contract, history) for w in worlds]
        self.all_valid = (1 << len(self.root)) - 1
        self.table: dict = {}
        self.solved: dict[int, np.ndarray] = {}  # prefetched DDS scores by id of a Max node's first state

    def run(self) -> tuple[np.ndarray, np.ndarray]:
        groups = equivalent_groups(self.view.legal, self.root[0].completed_mask())
        moves = [g[0] for g in groups]
        values = np.full(52, -1.0)
        first = self._max_leaves(self.root, self.all_valid, moves)
        for card, vector in first.items():
            values[card] = vector.bit_count() / len(self.root)
        pimc = values.copy()
        best_score = max(values[moves])
        for depth in range(2, self.agent.max_moves + 1):
            ordered = sorted(moves, key=lambda c: -values[c])
            front: list[int] = []
            new_values = values.copy()
            for card in ordered:
                child = [s.play(card) for s in self.root]
                f = self._search(child, self.all_valid, depth - 1, front if self.agent.early_cut else None)
                new_values[card] = pareto.score(f, self.all_valid)
                if front and pareto.front_leq(f, front):
                    # Adds nothing to the moves tried before (perhaps cut early): never preferred to them.
                    new_values[card] = min(new_values[card], pareto.score(front, self.all_valid) - 1e-6)
                front = pareto.union(front, f)
                if self.agent.root_cut and new_values[card] >= best_score - 1e-12:
                    # No deeper result can beat the previous iteration's best: stop (paper 4.9).
                    for other in ordered[ordered.index(card) + 1:]:
                        new_values[other] = min(values[other], new_values[card] - 1e-6)
                    break
            values = new_values
            best_score = max(values[moves])
        # Equivalent cards share their group's value.
        for group in groups:
            values[group] = values[group[0]]
            pimc[group] = pimc[group[0]]
        return values, pimc

    # -- nodes --------------------------------------------------------------------------------------------
    def _key(self, states, valid: int):
        s = states[0]
        played = ALL_CARDS ^ (s.hands[0] | s.hands[1] | s.hands[2] | s.hands[3])
        return played, s.trick.cards, s.trick.leader, s.declarer_tricks, valid

    def _search(self, states: list[PlayState], valid: int, max_moves: int, alpha: list[int] | None) -> list[int]:
        """Front of the node where ``states[i]`` is the position in the i-th valid world (valid = their mask);
        ``max_moves`` >= 1 Max moves remain (a Max node with one left solves its cards double dummy)."""
        self.agent.stats.nodes += 1
        s = states[0]
        if s.declarer_tricks >= self.needed:
            return [valid]
        if s.defence_tricks > 13 - self.needed:
            return [0]
        declaring = s.controller % 2 == s.declarer % 2
        key = self._key(states, valid) if self.agent.transposition else None
        entry = self.table.get(key) if key is not None else None
        if entry is not None and entry.exact and entry.max_moves == max_moves:
            return entry.front
        if declaring:
            front, best, exact = self._max_node(states, valid, max_moves, entry)
        else:
            front, best, exact = self._min_node(states, valid, max_moves, alpha, entry)
        if key is not None:
            self.table[key] = _Entry(front, best, max_moves, exact)
        return front

    def _max_node(self, states, valid, max_moves, entry):
        moves = [g[0] for g in equivalent_groups(states[0].legal_cards(), states[0].completed_mask())]
        if max_moves == 1:
            vectors = self._max_leaves(states, valid, moves)
            best = max(vectors, key=lambda c: vectors[c].bit_count())
            return pareto.reduce(vectors.values()), best, True
        if entry is not None and entry.best in moves:
            moves.remove(entry.best)
            moves.insert(0, entry.best)
        front: list[int] = []
        best, best_count = None, -1
        for card in moves:
            f = self._search([s.play(card) for s in states], valid, max_moves - 1,
                             front if self.agent.early_cut else None)
            count = max((v.bit_count() for v in f), default=0)
            if count > best_count:
                best, best_count = card, count
            front = pareto.union(front, f)
            if best_count == valid.bit_count():
                break  # made in every valid world: nothing can do better
        return front, best, True

    def _min_node(self, states, valid, max_moves, alpha, entry):
        # A front from a search with no more Max moves is an upper bound: deeper search only lowers it.
        bound = entry is not None and entry.max_moves <= max_moves
        front = list(entry.front) if bound else [valid]
        if alpha is not None and pareto.front_leq(front, alpha):
            return front, entry.best if bound else None, False  # early cut (paper 4.8)
        worlds = _bits(valid)
        holders: dict[int, list[int]] = {}
        for i, s in enumerate(states):
            for card in s.legal_cards():
                holders.setdefault(card, []).append(i)
        moves = list(holders)
        if entry is not None and entry.best in holders:
            moves.remove(entry.best)
            moves.insert(0, entry.best)
        children = {card: [states[i].play(card) for i in holders[card]] for card in moves}
        if max_moves == 1:
            self._prefetch(list(children.values()))
        best, best_count = None, valid.bit_count() + 1
        for card in moves:
            idx = holders[card]
            child_valid = sum(1 << worlds[i] for i in idx)
            f = self._search(children[card], child_valid, max_moves, None)
            count = max((v.bit_count() for v in f), default=0)
            if count < best_count:
                best, best_count = card, count
            outside = valid & ~child_valid
            front = pareto.min_product(front, [v | outside for v in f])
            if front == [0]:
                break  # lost in every valid world: no other defence can do better
            if alpha is not None and pareto.front_leq(front, alpha):
                self._forget(children)
                return front, best, False
        self._forget(children)
        return front, best, True

    def _forget(self, children: dict) -> None:
        """Drop prefetched scores that a cut or a table hit left unused."""
        for group in children.values():
            self.solved.pop(id(group[0]), None)

    # -- double-dummy evaluation -------------------------------------------------------------------------
    def _positions(self, states):
        holdings = np.array([s.hands for s in states], dtype=np.uint64)
        trick = list(states[0].trick.cards) + [-1] * (3 - len(states[0].trick.cards))
        return holdings, states[0].strain, states[0].trick.leader, trick

    def _prefetch(self, groups: list[list[PlayState]]) -> None:
        """Solve the positions of every Max node among ``groups`` (the children of one Min node, one Max move to
        go) in a single DDS call: DDS's cost per call is larger than one small position's search."""
        todo = [g for g in groups if g[0].controller % 2 == g[0].declarer % 2 and not g[0].is_over
                and g[0].declarer_tricks < self.needed and g[0].defence_tricks <= 13 - self.needed]
        if len(todo) < 2:
            return
        states = [s for g in todo for s in g]
        holdings = np.array([s.hands for s in states], dtype=np.uint64)
        first = [s.trick.leader for s in states]
        trick = [list(s.trick.cards) + [-1] * (3 - len(s.trick.cards)) for s in states]
        scores = solve_positions(holdings, states[0].strain, first, trick).astype(np.int16)
        self.agent.stats.leaf_positions += len(states)
        start = 0
        for g in todo:
            self.solved[id(g[0])] = (g[0], scores[start:start + len(g)])  # the reference keeps the id unique
            start += len(g)

    def _max_leaves(self, states, valid: int, moves: list[int]) -> dict[int, int]:
        """Make-vector of each Max move followed by double-dummy play: one DDS call per world (PIMC)."""
        cached = self.solved.pop(id(states[0]), None)
        scores = cached[1] if cached is not None and cached[0] is states[0] else None
        if scores is None:
            holdings, strain, leader, trick = self._positions(states)
            scores = solve_positions(holdings, strain, leader, trick).astype(np.int16)
            self.agent.stats.leaf_positions += len(states)
        made = states[0].declarer_tricks + scores >= self.needed
        return {card: _vector(made[:, card], valid) for card in moves}


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _vector(flags: np.ndarray, valid: int) -> int:
    """Bitmask over the valid worlds (in order) from one flag per valid world."""
    vector = 0
    for flag, world in zip(flags, _bits(valid)):
        if flag:
            vector |= 1 << world
    return vector
