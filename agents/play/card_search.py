"""A search on top of the learned card player (issue #50): play spec ``cardsearch[:...]``.

At a decision with a real choice (two or more groups of equal legal cards) the searcher deals ``worlds`` layouts of
the cards it cannot see, consistent with its view (PIMC's sampler: uniform, or under the auction with ``auction``),
and values each candidate card (one per group) in each world by the card player's own play in that world: the card
is played, then every seat plays the card player's card *from its own view of that world* (its own hand there,
dummy's once shown, the cards played: no seat sees another's hand, so there is no strategy fusion) until the trick
in progress is complete and ``depth`` more tricks are played; what is left is valued by the card player's value of
every card (a network trained with ``train card-player --target both``: the best legal card's predicted DD tricks
for the side on lead), or counted at the end of the deal (a full play-out, ``depth=13``, for a player without
card values). The card with the most tricks for the searcher's side on average over the worlds is played; ties (and
decisions without a choice) go to the card player's own choice. Nothing is solved double dummy.

All of it runs on the numpy path of `CardPlayer` in batches over (world, candidate): a step of the play-outs is one
matrix product per layer for every world and candidate still playing. The same seed and view give the same card.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from bridgerl.agents.learned.card_player import DEFAULT_MODEL, CardPlayerAgent
from bridgerl.agents.play.pimc import SeededAgent, draw_worlds, holdings_of
from bridgerl.core.card_play import PlayerView, view_of
from bridgerl.core.play import PlayState
from bridgerl.core.play_features import play_features

FULL = 13
"""``depth`` of a play-out to the end of the deal (no card values needed)."""

_NEG = -1e9


class CardSearch(SeededAgent):
    """``cardsearch[:model=PATH,worlds=W,depth=D,auction=A]``: the module docstring's search.

    ``model``: the card player searched with (default ``models/card-player``); ``worlds``: layouts per decision
    (default 8); ``depth``: tricks played after the trick in progress before the card values judge the rest (13,
    the default: play-outs to the end; fewer need a player with card values; -1: 0 for such a player, else 13);
    ``auction``: how worlds are drawn (none: uniform among the layouts consistent with the view; rules, sayc,
    policy: as PIMC's ``auction``). The defaults are not a measured recipe yet (`docs/results.md`, issue #50)."""

    def __init__(self, model: str = DEFAULT_MODEL, worlds: int = 8, depth: int = FULL, auction: str = "none",
                 seed=None):
        super().__init__(seed)
        if worlds < 1:
            raise ValueError(f"worlds must be at least 1, got {worlds}")
        if not -1 <= depth <= FULL:
            raise ValueError(f"depth must be -1 (auto), 0 (the card values after this trick) .. 13 (to the end), "
                             f"got {depth}")
        from bridgerl.agents.play.auction_worlds import METHODS

        if auction not in METHODS:
            raise ValueError(f"auction must be one of {', '.join(METHODS)}, got {auction!r}")
        self.player = CardPlayerAgent(model)
        self.model, self.worlds, self.auction = str(model), int(worlds), auction
        self.depth = (0 if self.player.has_card_values else FULL) if depth < 0 else int(depth)
        if self.depth < FULL and not self.player.has_card_values:
            raise ValueError(f"depth {depth}: {model} has no card values to judge a play-out cut short (train one "
                             f"with --target both, or use depth=13)")
        self.bidders: Mapping[int, object] | None = None
        self.rows = 0  # network rows evaluated (trick-loss counts them)

    def see_bidders(self, bidders: Mapping[int, object]) -> None:
        """The seats' bidders (for ``auction=policy``: worlds kept when they would have made the calls seen)."""
        self.bidders = dict(bidders)

    def network_rows(self) -> int:
        return self.rows + self.player.network_rows()

    # -- the search ---------------------------------------------------------------------------------------------
    def act(self, view: PlayerView) -> int:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):  # small products: BLAS threads only thrash
            return self._act(view)

    def _act(self, view: PlayerView) -> int:
        groups = view.equivalent_groups()
        own = int(self.player.act(view))
        if len(groups) < 2:
            return own
        candidates = [group[0] for group in groups]
        worlds = draw_worlds(view, self.worlds, self.rng, auction=self.auction, bidders=self.bidders)
        values = self.candidate_values(view, candidates, worlds)
        best = values.max()
        tied = [c for c, v in zip(candidates, values) if v >= best - 1e-9]
        if any(own in group for group in groups if group[0] in tied):
            return own  # the card player's own card when it is among the best
        logits = self.player.outputs(play_features(view, auction=self.player.auction))
        return int(max(tied, key=lambda c: (logits[c], -c)))

    def candidate_values(self, view: PlayerView, candidates: list[int], worlds: np.ndarray) -> np.ndarray:
        """float[C]: the searcher's side's total tricks in the deal after each candidate, averaged over ``worlds``
        (uint8[W, 52] layouts consistent with ``view``)."""
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
        legal = np.zeros((len(views), 52), bool)
        for k, v in enumerate(views):
            legal[k, list(v.legal)] = True
        self.rows += len(views)
        return features, legal

    def _cards(self, views: list[PlayerView]) -> np.ndarray:
        """The card player's card for each view, in one batch."""
        features, legal = self._batch(views)
        return np.argmax(np.where(legal, self.player.outputs(features), _NEG), axis=1)

    def __repr__(self) -> str:
        return (f"CardSearch(model={self.model!r}, worlds={self.worlds}, depth={self.depth}, "
                f"auction={self.auction!r})")


def _side_tricks(state: PlayState, side: int) -> int:
    """Tricks ``side`` (0 NS, 1 EW) has won so far."""
    return state.declarer_tricks if state.declarer % 2 == side else state.defence_tricks


__all__ = ["CardSearch", "FULL"]
