"""Q-networks (flax NNX): an MLP over the observation bits with one Q-value per action (thesis 4.4.4)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx


class QNetwork(nnx.Module):
    """MLP with ReLU hidden layers; optional dueling head (value + centred advantages)."""

    def __init__(self, inputs: int, hidden: tuple[int, ...], actions: int, dueling: bool = False, *, seed: int = 0):
        rngs = nnx.Rngs(seed)
        sizes = (inputs, *hidden)
        self.layers = nnx.List([nnx.Linear(a, b, rngs=rngs) for a, b in zip(sizes[:-1], sizes[1:])])
        self.dueling = dueling
        self.head = nnx.Linear(sizes[-1], actions, rngs=rngs)
        self.value = nnx.Linear(sizes[-1], 1, rngs=rngs) if dueling else None

    def __call__(self, observation: jax.Array) -> jax.Array:
        x = observation.astype(jnp.float32)
        for layer in self.layers:
            x = jax.nn.relu(layer(x))
        q = self.head(x)
        if self.dueling:
            q = self.value(x) + q - q.mean(-1, keepdims=True)
        return q


def masked_argmax(q: jax.Array, mask: jax.Array) -> jax.Array:
    """Greedy legal action: argmax of ``jnp.where(mask, q, -inf)``."""
    return jnp.argmax(jnp.where(mask, q, -jnp.inf), axis=-1)
