"""Gymnasium spaces shared by the bridgerl envs."""

from __future__ import annotations

import weakref

import numpy as np
from gymnasium import spaces


class LegalActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` draws a legal action of its env's current state.

    The legal mask is also in ``info["action_mask"]``; a ``mask`` or ``probability`` passed to ``sample`` wins.
    When no action is legal (after the end) it samples from all ``n``."""

    def __init__(self, n: int, env, seed=None):
        super().__init__(n, seed=seed)
        self._env = weakref.ref(env)

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None:
            env = self._env()
            legal = env.legal_action_mask() if env is not None else None
            if legal is not None and legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __deepcopy__(self, memo):
        return spaces.Discrete(int(self.n), start=int(self.start))


def binary_space(n: int) -> spaces.MultiBinary:
    """``MultiBinary(n)`` with int8 samples, matching the envs' observations."""
    space = spaces.MultiBinary(n)
    space.dtype = np.dtype(np.int8)
    return space
