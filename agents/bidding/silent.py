"""`SilentOpponents`: a competitive bidder that hands the auction to a constructive (uncontested) bidder while the
opponents have not bid.

While the opponents have only passed (or doubled), the auction is the uncontested one of thesis 4.4 for our side:
the constructive bidder sees the 89-bit view of our side's calls (`AuctionView.uncontested`, thesis 4.4.5 opening
rules included) and chooses among its 36 actions; once the opponents have bid, the competitive bidder takes over.
The competitive rule baseline and a competitive DQN with an uncontested DQN beside it are both built this way.
"""

from __future__ import annotations

import numpy as np

from bridgerl.core.calls import PASS, uncontested_to_call
from bridgerl.envs import AuctionView


def constructive_calls(constructive, views: list[AuctionView], fixed: bool = False) -> np.ndarray:
    """The competitive calls (int64) ``constructive`` (an uncontested bidder: ``act``/``act_batch`` on 89 bits and
    36 actions) makes on the uncontested view of each auction. Where the opening rules leave no legal action, the
    call is a pass. ``fixed``: through its ``act_fixed`` when it has one (a network in batches of one shape)."""
    pairs = [view.uncontested() for view in views]
    observations = np.stack([obs for obs, _ in pairs])
    masks = np.stack([mask for _, mask in pairs])
    masks[~masks.any(1), 0] = True  # the opening rules leave only a pass
    if fixed and hasattr(constructive, "act_fixed"):
        chosen = np.asarray(constructive.act_fixed(observations, masks.astype(np.int8)))
    elif hasattr(constructive, "act_batch"):
        chosen = np.asarray(constructive.act_batch(observations, masks.astype(np.int8)))
    else:
        chosen = np.array([constructive.act(o, m.astype(np.int8)) for o, m in zip(observations, masks)])
    return np.array([uncontested_to_call(int(a)) if masks[i, int(a)] else PASS for i, a in enumerate(chosen)],
                    dtype=np.int64)


class SilentOpponents:
    """``constructive`` bids while the opponents have not bid; ``competitive`` (any competitive bidder: ``act_batch``
    on 231 bits and 38 calls, ``act_view`` on an `AuctionView`, or ``act``) once they have.

    A subclass may leave ``competitive`` out and define ``contested_call(view) -> call`` instead."""

    _fixed = False  # `act_fixed` in progress

    def __init__(self, constructive, competitive=None):
        if not callable(getattr(constructive, "act", None)):
            raise TypeError("constructive must be an uncontested bidder with act(observation, action_mask)")
        self.constructive = constructive
        self.competitive = competitive

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_view(self, view: AuctionView) -> int:
        return int(self._calls([view], None, None)[0])

    def act_batch(self, observations, action_masks) -> np.ndarray:
        observations, action_masks = np.asarray(observations), np.asarray(action_masks)
        if not action_masks.astype(bool).any(-1).all():
            raise ValueError("no legal action in the mask: the auction is over")
        views = [AuctionView.from_observation(o, m) for o, m in zip(observations, action_masks)]
        return self._calls(views, observations, action_masks)

    def act_fixed(self, observations, action_masks) -> np.ndarray:
        """`act_batch` with the bidders that have ``act_fixed`` (networks) asked through it: each position's call
        the same whatever positions come with it (`bridgerl.arena.game` bids through this)."""
        self._fixed = True
        try:
            return self.act_batch(observations, action_masks)
        finally:
            self._fixed = False

    def _calls(self, views, observations, action_masks) -> np.ndarray:
        calls = np.zeros(len(views), dtype=np.int64)
        silent = np.array([not view.opponents_have_bid for view in views], dtype=bool)
        if silent.any():
            calls[silent] = constructive_calls(self.constructive, [v for v, s in zip(views, silent) if s],
                                               fixed=self._fixed)
        if (~silent).any():
            contested = [v for v, s in zip(views, silent) if not s]
            calls[~silent] = self._contested_calls(contested, None if observations is None else observations[~silent],
                                                   None if action_masks is None else action_masks[~silent])
        return calls

    def _contested_calls(self, views, observations, action_masks) -> list[int] | np.ndarray:
        """The competitive bidder's calls: ``act_batch`` on the bits when it has one (the views give them when the
        caller had views only), else ``act_view``, else ``act``."""
        competitive = self.competitive
        if competitive is None:
            return [self.contested_call(view) for view in views]
        if hasattr(competitive, "act_batch"):
            if observations is None:
                observations = np.stack([view.observation() for view in views])
                action_masks = np.stack([view.legal_mask for view in views]).astype(np.int8)
            if self._fixed and hasattr(competitive, "act_fixed"):
                return np.asarray(competitive.act_fixed(observations, action_masks))
            return np.asarray(competitive.act_batch(observations, action_masks))
        if hasattr(competitive, "act_view"):
            return [int(competitive.act_view(view)) for view in views]
        return [int(competitive.act(view.observation(), view.legal_mask.astype(np.int8))) for view in views]

    def contested_call(self, view: AuctionView) -> int:
        raise NotImplementedError("give a competitive bidder or define contested_call(view)")
