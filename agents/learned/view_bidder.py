"""`ViewBidder`: a competitive bidder that chooses calls for a batch of `AuctionView`s (``_choose(views)``, one
forward pass), with the three faces every bidder has: ``act_view``, ``act_batch`` (the env's observations read back
into views) and ``act``. brl's and BEN's networks by file (`brl`, `ben`) are such bidders."""

from __future__ import annotations

import numpy as np


class ViewBidder:
    def _choose(self, views) -> np.ndarray:
        raise NotImplementedError

    def act_view(self, view) -> int:
        return int(self._choose([view])[0])

    def act_batch(self, observations, masks) -> np.ndarray:
        """Calls for a batch of the competitive env's observations (read back into views), one forward pass."""
        from bridgerl.envs import AuctionView

        return self._choose([AuctionView.from_observation(o, m) for o, m in zip(observations, masks)])

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])
