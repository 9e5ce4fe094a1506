"""Simple bidding baselines for any bridgerl bidding env (uncontested: 36 actions; competitive: 38 calls)."""

from __future__ import annotations

import numpy as np


class PassAgent:
    """Pass whenever legal (action 0); otherwise the lowest legal call (a forced opening)."""

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(np.asarray(action_mask))
        if len(legal) == 0:
            raise ValueError("no legal action in the mask: the episode is over")
        return int(legal[0])

    def act_batch(self, observations, action_masks) -> np.ndarray:
        masks = np.asarray(action_masks).astype(bool)
        if not masks.any(-1).all():
            raise ValueError("no legal action in some mask: an episode is over")
        return masks.argmax(-1)


class RandomBidder:
    """A uniformly random legal call, from its own seeded generator."""

    def __init__(self, seed: int | None = 0):
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed) -> None:
        """Restart the generator (whole-deal data reseeds every agent per deal, so a deal's calls do not depend on
        the deals before it)."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(np.asarray(action_mask))
        if len(legal) == 0:
            raise ValueError("no legal action in the mask: the episode is over")
        return int(legal[self.rng.integers(len(legal))])

    def act_batch(self, observations, action_masks) -> np.ndarray:
        masks = np.asarray(action_masks).astype(bool)
        keys = np.where(masks, self.rng.random(masks.shape), -1.0)
        return keys.argmax(-1)
