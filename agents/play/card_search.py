"""A search on top of the learned card player (issue #50): play spec ``cardsearch[:...]``.

At a decision with a real choice (two or more groups of equal legal cards) the searcher deals up to ``worlds``
layouts of the cards it cannot see, consistent with its view (PIMC's sampler: uniform, or under the auction with
``auction``), and values each candidate card (one per group) in them. Two ways (``values``):

- ``dds`` (the default, the released recipe): the card player proposes and DDS checks it in a few worlds. A decision
  where the card player is sure (the entropy of its distribution over the groups of equal legal cards below ``gate``
  nats) is left to it. Otherwise ``first`` worlds are drawn and DDS finds their best cards (best cards only: the
  cheaper search); if the card player's own card is among them in each, it is played (most decisions stop here:
  about 94% with the released player and one world, 89% with three). Otherwise the other worlds are drawn, every
  world is solved for every card and the card with the most of (mean DD tricks over the worlds + ``prior`` x log of
  the card player's probability of its group) is played: the player's policy is the prior that breaks the near-ties
  a handful of worlds leave, and keeps the search from the random swings of a small sample. Like PIMC it values each
  world double dummy (strategy fusion inside a world), with at most ``worlds`` + ``first`` DDS positions a decision
  against PIMC-20's twenty.
- ``playout``: no DDS at all. Each candidate is played, then every seat plays the card player's card *from its own
  view of that world* (its own hand there, dummy's once shown, the cards played: no seat sees another's hand, so
  there is no strategy fusion) until the trick in progress is complete and ``depth`` more tricks are played; what
  is left is valued by the card player's value of every card (a network trained with ``train card-player --target
  both``: the best legal card's predicted DD tricks for the side on lead), or counted at the end of the deal (a full
  play-out, ``depth=13``). The card with the most tricks for the searcher's side on average over all ``worlds``
  wins; ties go to the card player's own choice. ``engine=jax`` (the default for play-outs to the end, issue #66)
  plays every (world, candidate) pair as a row of the JAX whole deal (`bridgerl.agents.play.playout`): one
  compiled loop, one matrix product per layer and card for all rows. ``engine=numpy`` (the only one for shorter
  play-outs, which read the card values) runs the numpy path of `CardPlayer` in batches over (world, candidate),
  with each row's features built in Python.

Decisions without a choice go to the card player. The same seed and view give the same card. What each setting
cost and gained on `valid` positions: `docs/results.md`, "The card player, second step (issue #50)" and "third step
(issue #66)".
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from bridgerl.agents.learned.card_player import DEFAULT_MODEL, CardPlayerAgent, one_blas_thread
from bridgerl.agents.play.pimc import SeededAgent, check_sampler, draw_worlds, holdings_of, load_model, solve_worlds
from bridgerl.core.card_play import PlayerView, view_of
from bridgerl.core.play import PlayState
from bridgerl.core.play_features import play_features

FULL = 13
"""``depth`` of a play-out to the end of the deal (no card values needed)."""

FIRST = 3
"""``first``'s default: worlds solved before the card player's card may be kept (issue #66 chose 3 over #50's 1 on
valid positions: `docs/results.md`, "The card player, third step")."""

VALUES = ("dds", "playout")
"""How candidates are valued in the worlds: DDS, or the card player's own play."""

ENGINES = ("jax", "numpy")
"""Where ``values=playout`` plays: batched in the JAX whole deal, or on the card player's numpy path."""

AFTER = ("dds", "playout")
"""``values=dds``: how a decision whose check failed is settled: DDS in every world, or JAX play-outs."""

KEEP = ("any", "sole")
"""``values=dds``: when the check keeps the player's card: best in each first world (``any``), or best there and
no other group best in each of them too (``sole``: a card as good in the worlds seen goes to the full search,
where the other worlds may show it better, as a safety play is)."""

_NEG = -1e9


class CardSearch(SeededAgent):
    """``cardsearch[:model=PATH,values=dds|playout,worlds=W,first=F,prior=P,gate=G,depth=D,engine=E,after=A,top=T,
    keep=K,auction=A,sampler=S,location=PATH]``: the module docstring's search.

    ``model``: the card player searched with (default ``models/card-player``); ``values``: ``dds`` (default) or
    ``playout``; ``worlds``: layouts per decision at most (default 6); ``first`` (dds): worlds solved before the
    card player's card may be kept (default 0: 3, or ``worlds`` if fewer; issue #66); ``prior`` (dds): weight of the
    card player's log-probability beside the mean DD tricks (default 0.3); ``gate`` (dds): the card player's entropy
    (nats) below which it plays without a search (default 0: always search); ``depth`` (playout): tricks played
    after the trick in progress before the card values judge the rest (13: to the end; fewer need a player with card
    values; -1: 0 for such a player, else 13); ``engine`` (playout): ``jax`` (default with ``depth=13``) or
    ``numpy`` (the default, and the only engine, for shorter play-outs); ``after`` (dds): how a decision whose check
    failed is settled, ``dds`` (every card solved in every world, the default) or ``playout`` (the player's group
    and the groups DDS found best in any of the first worlds played out in JAX); ``top`` (play-outs): at most T
    groups played out, the player's own among them (0: all); ``keep`` (dds): ``any`` (default) keeps the card
    player's card when it is best in each first world, ``sole`` only when no other group is best in each of them
    too; ``auction``: how worlds are drawn (rules, the default: under the rule system's agreements read from the
    calls, uniform where none hold; none: uniform among the layouts consistent with the view; sayc, policy: as
    PIMC's ``auction``); ``sampler``: ``uniform`` (default) or ``network``, the worlds drawn from the card-location
    model at ``location`` (default ``models/card-location``, issue #20) within the auction's ranges, as PIMC's
    ``sampler=network``. The defaults are the released recipe, chosen on valid positions (`docs/results.md`, "The
    card player, second step"; ``first`` in the third step)."""

    def __init__(self, model: str = DEFAULT_MODEL, values: str = "dds", worlds: int = 6, first: int = 0,
                 prior: float = 0.3, gate: float = 0.0, depth: int = FULL, engine: str = "", after: str = "dds",
                 top: int = 0, auction: str = "rules", sampler: str = "uniform", location: str = "", keep: str = "any",
                 seed=None):
        super().__init__(seed)
        if values not in VALUES:
            raise ValueError(f"values must be one of {', '.join(VALUES)}, got {values!r}")
        if worlds < 1:
            raise ValueError(f"worlds must be at least 1, got {worlds}")
        given_first, first = first != 0, (min(FIRST, worlds) if first == 0 else first)
        if not 1 <= first <= (worlds if values == "dds" else first):
            raise ValueError(f"first must be 1 .. worlds ({worlds}), or 0 for the default, got {first}")
        if not np.isfinite(prior) or prior < 0:
            raise ValueError(f"prior must be a finite number >= 0, got {prior}")
        if not np.isfinite(gate) or gate < 0:
            raise ValueError(f"gate must be a finite number of nats >= 0, got {gate}")
        other = ([name for name, given, default in (("first", given_first, False), ("prior", prior, 0.3),
                                                    ("gate", gate, 0.0), ("after", after, "dds"), ("keep", keep, "any"))
                  if given != default]
                 if values == "playout" else
                 [name for name, unset in (("depth", depth == FULL), ("engine", not engine), ("top", top == 0 or
                                                                                            after == "playout"))
                  if not unset])
        if other:
            raise ValueError(f"{', '.join(other)} set but not used by values={values} (first, prior, gate, after and "
                             f"keep go with values=dds, depth and engine with values=playout, top with play-outs)")
        if keep not in KEEP:
            raise ValueError(f"keep must be one of {', '.join(KEEP)}, got {keep!r}")
        if after not in AFTER:
            raise ValueError(f"after must be one of {', '.join(AFTER)}, got {after!r}")
        if top < 0 or top == 1:
            raise ValueError(f"top must be 0 (every candidate) or at least 2, got {top}")
        if engine and engine not in ENGINES:
            raise ValueError(f"engine must be one of {', '.join(ENGINES)}, got {engine!r}")
        if not -1 <= depth <= FULL:
            raise ValueError(f"depth must be -1 (auto), 0 (the card values after this trick) .. 13 (to the end), "
                             f"got {depth}")
        from bridgerl.agents.play.auction_worlds import METHODS

        if auction not in METHODS:
            raise ValueError(f"auction must be one of {', '.join(METHODS)}, got {auction!r}")
        if sampler not in ("uniform", "network"):
            raise ValueError(f"sampler must be uniform or network, got {sampler!r}")
        if sampler == "network":
            location = location or "models/card-location"
            check_sampler(sampler, location, auction)
            load_model("location", location)  # a wrong file refused now, in one line
        elif location:
            raise ValueError("location=PATH is the card-location model of sampler=network; give sampler=network too")
        self.sampler, self.location = sampler, location
        self.player = CardPlayerAgent(model)
        self.model, self.values, self.worlds, self.auction = str(model), values, int(worlds), auction
        self.first, self.prior = int(first), float(prior)
        self.gate = float(gate)
        self.depth = (0 if self.player.has_card_values else FULL) if depth < 0 else int(depth)
        if values == "playout" and self.depth < FULL and not self.player.has_card_values:
            raise ValueError(f"depth {depth}: {model} has no card values to judge a play-out cut short (train one "
                             f"with --target both, or use depth=13)")
        if values == "playout" and engine == "jax" and self.depth < FULL:
            raise ValueError(f"engine=jax plays to the end of the deal (depth 13), got depth {self.depth}: a shorter "
                             f"play-out reads the card values on engine=numpy")
        self.engine = ((engine or ("jax" if self.depth == FULL else "numpy")) if values == "playout" else
                       "jax" if after == "playout" else "")
        self.after, self.top, self.keep = after, int(top), keep
        self._playouts = None
        self.bidders: Mapping[int, object] | None = None
        self.rows = 0  # network rows evaluated (trick-loss counts them)
        self.solved = 0  # dds: decisions that solved their first worlds (the others passed the gate)
        self.searched = 0  # dds: decisions that went past the first worlds
        self.decisions = 0  # decisions with a choice

    @staticmethod
    def resolved_settings(settings: dict) -> dict:
        """The spec's settings as played (`bridgerl.arena.specs.resolved_play_spec`): ``first`` 0, the default, is
        recorded as the number of worlds it checks, so a later change of `FIRST` never passes for the same player."""
        if settings.get("values") == "dds" and int(settings.get("first", 0)) == 0:
            return {**settings, "first": min(FIRST, int(settings["worlds"]))}
        return settings

    def see_bidders(self, bidders: Mapping[int, object]) -> None:
        """The seats' bidders (for ``auction=policy``: worlds kept when they would have made the calls seen)."""
        self.bidders = dict(bidders)

    def sample(self, view: PlayerView, n: int | None = None) -> np.ndarray:
        """uint8[n, 52] (n = ``worlds`` by default): worlds of the decision, layouts consistent with ``view`` (and
        the auction, by ``auction``)."""
        return draw_worlds(view, self.worlds if n is None else n, self.rng, sampler=self.sampler, model=self.location,
                           auction=self.auction, bidders=self.bidders)

    def network_rows(self) -> int:
        return self.rows + self.player.network_rows()

    # -- the search ---------------------------------------------------------------------------------------------
    def act(self, view: PlayerView) -> int:
        with one_blas_thread():  # small products: BLAS threads only thrash
            return self._act(view)

    def _act(self, view: PlayerView) -> int:
        groups = view.equivalent_groups()
        if len(groups) < 2:
            return int(self.player.act(view))
        self.decisions += 1
        features = play_features(view, auction=self.player.auction)
        logits = self.player.outputs(features[None].astype(np.float32))[0]
        self.rows += 1
        legal = view.legal_mask()
        own = int(np.argmax(np.where(legal, logits, _NEG)))
        if self.values == "dds" and self.gate > 0 and _entropy(logits, legal, groups) < self.gate:
            return own  # the card player is sure: no search
        if self.values == "dds":
            return self._dds_choice(view, groups, own, logits, legal)
        worlds = self.sample(view)
        candidates = [groups[g][0] for g in self._top_groups(groups, own, logits, legal)]
        values = self.candidate_values(view, candidates, worlds)
        best = values.max()
        tied = [c for c, v in zip(candidates, values) if v >= best - 1e-9]
        if any(own in group for group in groups if group[0] in tied):
            return own  # the card player's own card when it is among the best
        return int(max(tied, key=lambda c: (logits[c], -c)))

    def _dds_choice(self, view: PlayerView, groups, own: int, logits: np.ndarray, legal: np.ndarray,
                    worlds: np.ndarray | None = None) -> int:
        """``values=dds``: the card player's card if it is among the best in the first worlds, else the best of
        mean DD tricks + prior x log-probability over every world. The worlds are drawn as they are needed (the
        first ``first``, then the rest: most decisions stop at the first), unless given."""
        if worlds is None:
            worlds = self.sample(view, self.first)
        # DDS asked for the best cards only (solutions=2, a faster search): -1 for every other card
        first = solve_worlds(view, worlds[: self.first], best=True)
        self.solved += 1
        if (first[:, own] >= 0).all() and (self.keep == "any" or not any(
                (first[:, group].max(1) >= 0).all() for group in groups if own not in group)):
            return own  # best in each of the first worlds (keep=sole: and no other group is)
        self.searched += 1
        group_of = {card: g for g, group in enumerate(groups) for card in group}
        if len(worlds) < self.worlds:
            worlds = np.concatenate([worlds, self.sample(view, self.worlds - len(worlds))])
        mass = _group_mass(logits, legal, groups)
        if self.after == "playout":  # the player's group and those DDS found best in a first world, played out
            best = [g for g, group in enumerate(groups) if (first[:, group].max(1) >= 0).any()]
            kept = self._top_groups(groups, own, logits, legal, among=best)
            values = self.candidate_values(view, [groups[g][0] for g in kept], worlds)
            score = np.full(len(groups), -np.inf)
            score[kept] = values + self.prior * np.log(np.maximum(mass[kept], 1e-12))
        else:
            scores = solve_worlds(view, worlds)  # every card's tricks in every world (the first ones again)
            means = scores.astype(np.float64).mean(0)
            score = np.array([means[group[0]] for group in groups]) + self.prior * np.log(np.maximum(mass, 1e-12))
        top = score.max()
        tied = [g for g in range(len(groups)) if score[g] >= top - 1e-9]
        if group_of[own] in tied:
            return own
        return int(groups[max(tied, key=lambda g: (mass[g], -groups[g][0]))][0])

    def _top_groups(self, groups, own: int, logits: np.ndarray, legal: np.ndarray, among=None) -> list[int]:
        """The groups a play-out values, in the groups' order: the player's own card's group and, of ``among`` (all
        groups by default), the ``top`` - 1 others of most probability (every one with ``top`` 0)."""
        mine = next(g for g, group in enumerate(groups) if own in group)
        others = [g for g in (range(len(groups)) if among is None else among) if g != mine]
        if self.top:
            mass = _group_mass(logits, legal, groups)
            others = sorted(others, key=lambda g: (-mass[g], g))[:self.top - 1]
        return sorted([mine] + others)

    def candidate_values(self, view: PlayerView, candidates: list[int], worlds: np.ndarray) -> np.ndarray:
        """float[C]: the searcher's side's total tricks in the deal after each candidate, averaged over ``worlds``
        (uint8[W, 52] layouts consistent with ``view``)."""
        if self.engine == "jax":
            if self._playouts is None:
                from bridgerl.agents.play.playout import JaxPlayouts

                self._playouts = JaxPlayouts(self.player)
            before = self._playouts.rows
            totals = self._playouts.totals(view, candidates, worlds)
            self.rows += self._playouts.rows - before
            return totals.mean(0)
        side = view.player % 2
        history = tuple(card for trick in view.all_tricks() for card in trick.cards)
        hands = holdings_of(view, worlds)
        states = []
        for w, owner in enumerate(worlds):
            root = PlayState(np.asarray(owner, np.uint8), view.contract, tuple(int(h) for h in hands[w]), view.tricks,
                             view.current_trick, view.declarer_tricks, history)
            states.extend(root.play(card) for card in candidates)
        stop = len(view.tricks) + 1 + self.depth  # tricks complete when the values take over
        active = [i for i, s in enumerate(states) if not s.is_over and len(s.tricks) < stop]
        while active:
            views = [view_of(states[i], auction=view.auction, vul=view.vul) for i in active]
            cards = self._cards(views)
            for i, card in zip(active, cards):
                states[i] = states[i].play(int(card))
            active = [i for i in active if not states[i].is_over and len(states[i].tricks) < stop]
        totals = np.array([_side_tricks(s, side) for s in states], np.float64)
        open_ = [i for i, s in enumerate(states) if not s.is_over]
        if open_:
            views = [view_of(states[i], auction=view.auction, vul=view.vul) for i in open_]
            features, legal = self._batch(views)
            _, values = self.player.card_values_of(features)
            for k, i in enumerate(open_):
                left = 13 - len(states[i].tricks)
                ahead = float(np.clip(np.where(legal[k], values[k], _NEG).max(), 0, left))  # the side to play's
                totals[i] += ahead if views[k].player % 2 == side else left - ahead
        return totals.reshape(len(worlds), len(candidates)).mean(0)

    def _batch(self, views: list[PlayerView]) -> tuple[np.ndarray, np.ndarray]:
        """(features float32[N, F], legal bool[N, 52]) of views evaluated together (counted in ``rows``)."""
        features = np.stack([play_features(v, auction=self.player.auction) for v in views]).astype(np.float32)
        legal = np.stack([v.legal_mask() for v in views])
        self.rows += len(views)
        return features, legal

    def _cards(self, views: list[PlayerView]) -> np.ndarray:
        """The card player's card for each view, in one batch."""
        features, legal = self._batch(views)
        return np.argmax(np.where(legal, self.player.outputs(features), _NEG), axis=1)

    def __repr__(self) -> str:
        how = (f"first={self.first}, prior={self.prior}, gate={self.gate}, after={self.after!r}, top={self.top}, "
               f"keep={self.keep!r}"
               if self.values == "dds" else f"depth={self.depth}, engine={self.engine!r}, top={self.top}")
        where = f", sampler='network', location={self.location!r}" if self.sampler == "network" else ""
        return (f"CardSearch(model={self.model!r}, values={self.values!r}, worlds={self.worlds}, {how}, "
                f"auction={self.auction!r}{where})")


def _probabilities(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """The card player's distribution over the legal cards (softmax of its outputs; 0 elsewhere)."""
    shifted = np.where(legal, logits - logits[legal].max(), _NEG)
    probability = np.exp(shifted)
    return probability / probability.sum()


def _group_mass(logits: np.ndarray, legal: np.ndarray, groups) -> np.ndarray:
    """float[G]: the card player's probability of each group of equal cards (equal cards share their mass)."""
    probability = _probabilities(logits, legal)
    return np.array([probability[list(group)].sum() for group in groups])


def _entropy(logits: np.ndarray, legal: np.ndarray, groups) -> float:
    """The entropy (nats) of the card player's distribution over the groups of equal cards (a choice among equals
    is no doubt)."""
    mass = _group_mass(logits, legal, groups)
    return float(-(mass * np.log(np.maximum(mass, 1e-30))).sum())


def _side_tricks(state: PlayState, side: int) -> int:
    """Tricks ``side`` (0 NS, 1 EW) has won so far."""
    return state.declarer_tricks if state.declarer % 2 == side else state.defence_tricks


__all__ = ["AFTER", "CardSearch", "ENGINES", "FIRST", "FULL", "KEEP", "VALUES"]
