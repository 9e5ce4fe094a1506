"""`DQNAgent`: a trained Q-network acting through any bridgerl bidding interface.

``act(observation, action_mask) -> action`` works with the Gymnasium envs, the OpenSpiel games (pass the tensor
and a mask of ``legal_actions()``) and the JAX envs (``state.observation``, ``state.legal_action_mask``);
``act_batch`` takes stacks of them. Illegal actions are never chosen.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from bridgerl.agents.checkpoint import load_weights
from bridgerl.agents.networks import QNetwork, masked_argmax

ENV_SIZES = {"uncontested_bidding": (89, 36), "competitive_bidding": (231, 38)}


def build_network(metadata: dict, seed: int = 0) -> QNetwork:
    return QNetwork(int(metadata["observation_size"]), tuple(metadata["hidden"]), int(metadata["num_actions"]),
                    bool(metadata.get("dueling", False)), seed=seed)


class DQNAgent:
    """Greedy policy of a Q-network (no exploration)."""

    def __init__(self, network: QNetwork, metadata: dict):
        self.metadata = dict(metadata)
        self._graphdef, self._params = nnx.split(network)
        self._q = jax.jit(lambda params, obs: nnx.merge(self._graphdef, params)(obs))
        self._greedy = jax.jit(lambda params, obs, mask: masked_argmax(nnx.merge(self._graphdef, params)(obs), mask))

    @classmethod
    def load(cls, path, env_id: str | None = None) -> "DQNAgent":
        """Load a checkpoint file (or a directory holding ``model.msgpack``); ``env_id`` checks it fits the env."""
        metadata, params = load_weights(path)
        if env_id is not None and metadata.get("env_id") != env_id:
            raise ValueError(f"{path}: this DQN was trained on {metadata.get('env_id')!r} "
                             f"({metadata.get('observation_size')} inputs, {metadata.get('num_actions')} actions), "
                             f"not {env_id!r}")
        network = build_network(metadata)
        state = nnx.state(network)
        nnx.replace_by_pure_dict(state, params)
        nnx.update(network, state)
        return cls(network, metadata)

    @property
    def env_id(self) -> str:
        return self.metadata.get("env_id", "")

    def _check(self, observations: np.ndarray, masks: np.ndarray) -> None:
        size, actions = int(self.metadata["observation_size"]), int(self.metadata["num_actions"])
        if observations.shape[-1] != size or masks.shape[-1] != actions:
            raise ValueError(f"this DQN ({self.env_id}) takes {size} observation values and {actions} actions, got "
                             f"{observations.shape[-1]} and {masks.shape[-1]}")
        if not np.asarray(masks).any(-1).all():
            raise ValueError("no legal action in the mask: the episode is over")

    def q_values(self, observations) -> np.ndarray:
        return np.asarray(self._q(self._params, jnp.asarray(observations)))

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations, action_masks) -> np.ndarray:
        observations, action_masks = np.asarray(observations), np.asarray(action_masks).astype(bool)
        self._check(observations, action_masks)
        # pad to a power of two: lockstep evaluation sends every batch size once, and each new shape would compile
        n = len(observations)
        size = 1 << max(n - 1, 0).bit_length()
        pad = ((0, size - n), (0, 0))
        actions = self._greedy(self._params, jnp.asarray(np.pad(observations, pad)),
                               jnp.asarray(np.pad(action_masks, pad, constant_values=True)))
        return np.asarray(actions)[:n]
