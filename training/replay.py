"""A uniform replay buffer in pure JAX: fixed-size arrays in a pytree, circular writes, uniform sampling."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct


@struct.dataclass
class Transitions:
    obs: jnp.ndarray         # int8[..., O]
    action: jnp.ndarray      # int32[...]
    reward: jnp.ndarray      # float32[...]
    next_obs: jnp.ndarray    # int8[..., O]
    next_mask: jnp.ndarray   # bool[..., A]: legal actions in next_obs (all False when done)
    done: jnp.ndarray        # bool[...]


@struct.dataclass
class Replay:
    data: Transitions
    position: jnp.ndarray
    size: jnp.ndarray

    @property
    def capacity(self) -> int:
        return jax.tree.leaves(self.data)[0].shape[0]


def replay_init(capacity: int, observation_size: int, num_actions: int) -> Replay:
    data = Transitions(obs=jnp.zeros((capacity, observation_size), jnp.int8), action=jnp.zeros(capacity, jnp.int32),
                       reward=jnp.zeros(capacity, jnp.float32),
                       next_obs=jnp.zeros((capacity, observation_size), jnp.int8),
                       next_mask=jnp.zeros((capacity, num_actions), bool), done=jnp.zeros(capacity, bool))
    return Replay(data, jnp.int32(0), jnp.int32(0))


def replay_init_like(capacity: int, example) -> Replay:
    """An empty buffer of ``capacity`` rows shaped like one row ``example`` (any pytree of arrays)."""
    data = jax.tree.map(lambda leaf: jnp.zeros((capacity,) + jnp.shape(leaf), jnp.asarray(leaf).dtype), example)
    return Replay(data, jnp.int32(0), jnp.int32(0))


def replay_add(replay: Replay, items: Transitions, valid: jnp.ndarray) -> Replay:
    """Append the rows of ``items`` whose ``valid`` flag is set, in order (a flat batch [K, ...])."""
    capacity = replay.capacity
    offsets = jnp.cumsum(valid) - 1
    index = jnp.where(valid, (replay.position + offsets) % capacity, capacity)  # out of range: dropped
    data = jax.tree.map(lambda store, new: store.at[index].set(new.astype(store.dtype), mode="drop"),
                        replay.data, items)
    count = valid.sum().astype(jnp.int32)
    return Replay(data, (replay.position + count) % capacity, jnp.minimum(replay.size + count, capacity))


def replay_sample(replay: Replay, key: jax.Array, batch_size: int) -> Transitions:
    index = jax.random.randint(key, (batch_size,), 0, jnp.maximum(replay.size, 1))
    return jax.tree.map(lambda store: store[index], replay.data)
