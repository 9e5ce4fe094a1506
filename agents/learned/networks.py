"""Q-networks (flax NNX): an MLP over the observation bits with one Q-value per action (thesis 4.4.4)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx


def dense_layers(inputs: int, hidden: tuple[int, ...], rngs: nnx.Rngs) -> nnx.List:
    """The hidden layers of the project's MLPs: Linear ``inputs`` -> hidden[0] -> ... (their parameter tree is
    ``layers.0``, ``layers.1``, ...)."""
    sizes = (inputs, *hidden)
    return nnx.List([nnx.Linear(a, b, rngs=rngs) for a, b in zip(sizes[:-1], sizes[1:])])


def relu_torso(layers, x: jax.Array) -> jax.Array:
    """The input as float32 through ``layers``, each followed by a ReLU."""
    x = x.astype(jnp.float32)
    for layer in layers:
        x = jax.nn.relu(layer(x))
    return x


class QNetwork(nnx.Module):
    """MLP with ReLU hidden layers; optional dueling head (value + centred advantages)."""

    def __init__(self, inputs: int, hidden: tuple[int, ...], actions: int, dueling: bool = False, *, seed: int = 0,
                 auxiliary: int = 0):
        """``auxiliary`` > 0 adds a linear head on the last hidden layer (`auxiliary_outputs`), a training signal for
        the shared torso; `training.run` drops it from the saved model, which then loads without it."""
        rngs = nnx.Rngs(seed)
        sizes = (inputs, *hidden)
        self.layers = dense_layers(inputs, hidden, rngs)
        self.dueling = dueling
        self.head = nnx.Linear(sizes[-1], actions, rngs=rngs)
        self.value = nnx.Linear(sizes[-1], 1, rngs=rngs) if dueling else None
        if auxiliary:  # an attribute only when used, so that networks without it keep their parameter tree
            self.auxiliary = nnx.Linear(sizes[-1], auxiliary, rngs=rngs)

    def torso(self, observation: jax.Array) -> jax.Array:
        return relu_torso(self.layers, observation)

    def auxiliary_outputs(self, observation: jax.Array) -> jax.Array:
        return self.auxiliary(self.torso(observation))

    def __call__(self, observation: jax.Array) -> jax.Array:
        x = self.torso(observation)
        q = self.head(x)
        if self.dueling:
            q = self.value(x) + q - q.mean(-1, keepdims=True)
        return q


class ActorCritic(nnx.Module):
    """PPO's network (issue #22): an MLP torso shared by a policy head (one logit per action) and a value head.
    Calling it gives the logits, so greedy acting (`masked_argmax`, `DQNAgent`'s machinery) treats it as it treats a
    Q-network; `policy_value` gives both heads. It reads one seat's observation only."""

    def __init__(self, inputs: int, hidden: tuple[int, ...], actions: int, *, seed: int = 0):
        rngs = nnx.Rngs(seed)
        sizes = (inputs, *hidden)
        self.layers = dense_layers(inputs, hidden, rngs)
        # small initial logits: the untrained policy is close to uniform over the legal calls (as in PPO practice)
        self.head = nnx.Linear(sizes[-1], actions, kernel_init=nnx.initializers.orthogonal(0.01), rngs=rngs)
        self.value = nnx.Linear(sizes[-1], 1, kernel_init=nnx.initializers.orthogonal(1.0), rngs=rngs)

    def torso(self, observation: jax.Array) -> jax.Array:
        return relu_torso(self.layers, observation)

    def policy_value(self, observation: jax.Array) -> tuple[jax.Array, jax.Array]:
        x = self.torso(observation)
        return self.head(x), self.value(x)[..., 0]

    def __call__(self, observation: jax.Array) -> jax.Array:
        return self.head(self.torso(observation))


NEG = -1e9  # logits of illegal calls: a probability of exactly 0, finite so that 0 * it is 0


def masked_log_softmax(logits, mask):
    """Log-probabilities over the legal calls (``mask``): the illegal ones get logits of -1e9 (probability 0, finite)."""
    return jax.nn.log_softmax(jnp.where(mask, logits, NEG), axis=-1)


def masked_argmax(q: jax.Array, mask: jax.Array) -> jax.Array:
    """Greedy legal action: argmax of ``jnp.where(mask, q, -inf)``."""
    return jnp.argmax(jnp.where(mask, q, -jnp.inf), axis=-1)


def apply_padded(fn, params, arrays, batch: int = 4096):
    """(numpy output, batches) of the jitted ``fn(params, *chunks)`` over the rows of ``arrays`` in chunks of at
    most ``batch``, each padded with zeros to a power of two or 1.5 times one (few shapes to compile, at most a
    third of the rows wasted)."""
    n = len(arrays[0])
    outs, batches = [], 0
    for start in range(0, max(n, 1), batch):
        stop = min(n, start + batch)
        m = stop - start
        size = 1 << max(m - 1, 0).bit_length()
        if size >= 4 and 3 * size // 4 >= m:
            size = 3 * size // 4
        chunk = []
        for a in arrays:
            padded = np.zeros((size, *a.shape[1:]), a.dtype)
            padded[:m] = a[start:stop]
            chunk.append(jnp.asarray(padded))
        outs.append(np.asarray(fn(params, *chunk))[:m])
        batches += 1
    return np.concatenate(outs), batches


DECISION_ROWS = 64
"""The one batch shape of the decisions a network agent makes while playing (`apply_fixed`): a row's output then
never depends on how many positions were asked at once (XLA on a CPU sums a matrix product in an order that depends
on the number of rows, so a position's scores differ in the last bits between a batch of 1 and a batch of 64)."""


def apply_fixed(fn, params, arrays, rows: int = DECISION_ROWS) -> np.ndarray:
    """numpy output of the jitted ``fn(params, *chunks)`` over the rows of ``arrays`` in chunks of exactly ``rows``
    (the last padded by repeating its first row): one compiled shape, and every row's output the same whatever else
    is in its batch."""
    n = len(arrays[0])
    if n == 0:  # the output's shape from one row of zeros
        return apply_fixed(fn, params, [np.zeros((1, *np.shape(a)[1:]), np.asarray(a).dtype) for a in arrays],
                           rows)[:0]
    outs = []
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        chunk = []
        for a in arrays:
            part = np.asarray(a[start:stop])
            if stop - start < rows:
                part = np.concatenate([part, np.repeat(part[:1], rows - (stop - start), axis=0)])
            chunk.append(jnp.asarray(part))
        outs.append(np.asarray(fn(params, *chunk))[:stop - start])
    return np.concatenate(outs)
