"""Gymnasium spaces shared by the bridgerl envs."""

from __future__ import annotations

import numpy as np
from gymnasium import spaces


class LegalActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``sample()`` draws a legal action of its env's current state.

    The legal mask is also in ``info["action_mask"]`` (and ``env.action_masks()``); a ``mask`` or ``probability``
    passed to ``sample`` wins. When no action is legal (before the first reset, after the end) it samples from all
    ``n``. The space holds its env by an ordinary reference, so it pickles and deep-copies: inside a copied env it
    follows the copy, and a space copied alone brings a copy of its env (and still samples legal actions). It
    compares equal to ``Discrete(n)``."""

    def __init__(self, n: int, env, seed=None):
        super().__init__(n, seed=seed)
        self.env = env

    def sample(self, mask=None, probability=None):
        if mask is None and probability is None:
            legal = self.env.legal_action_mask()
            if legal is not None and legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __repr__(self) -> str:
        return f"LegalActionSpace({int(self.n)})"


class MaskedEnv:
    """What every bridgerl Gymnasium env adds to ``gym.Env``: ``action_masks()`` (the method sb3-contrib's
    MaskablePPO and ``ActionMasker`` look for) on top of the env's own ``legal_action_mask()``, the illegal-action
    policy, and ``render_mode="human"`` shown at every ``reset`` and ``step`` as Gymnasium expects of that mode."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ("reset", "step"):  # an env's own reset and step show the table in human mode
            if name in cls.__dict__:
                setattr(cls, name, _shown(cls.__dict__[name]))

    def action_masks(self) -> np.ndarray:
        """int8[n]: the legal actions of the current state, the same values as ``info["action_mask"]``."""
        mask = self.legal_action_mask()
        if mask is None:
            raise RuntimeError("call reset() before action_masks()")
        return mask.astype(np.int8)

    # -- the illegal-action policy (`bridgerl.core.illegal`) ------------------------------------------------------
    _illegal_end = False  # the episode ended on an illegal action

    def _check_stepping(self) -> None:
        if self._illegal_end:
            raise RuntimeError("the episode ended on an illegal action; call reset()")

    def _penalised(self, observation, info: dict, reward: float):
        """The step that ends the episode on an illegal action: ``reward`` (the penalty), terminated, no legal
        action left, ``info["illegal_action"]`` True."""
        self._illegal_end = True
        info = {**info, "action_mask": np.zeros_like(info["action_mask"]), "illegal_action": True}
        return observation, float(reward), True, False, info


def binary_space(n: int) -> spaces.MultiBinary:
    """``MultiBinary(n)`` with int8 samples, matching the envs' observations."""
    space = spaces.MultiBinary(n)
    space.dtype = np.dtype(np.int8)
    return space


def _shown(method):
    """``method`` (reset or step), then the table printed when the env's ``render_mode`` is "human"."""
    import functools

    @functools.wraps(method)
    def shown(self, *args, **kwargs):
        result = method(self, *args, **kwargs)
        if getattr(self, "render_mode", None) == "human":
            self.render()
        return result

    return shown
