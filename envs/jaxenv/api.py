"""pgx's calling convention, shared by the JAX envs, so that code written for pgx runs on them unchanged.

As in pgx (`pgx.core.Env`): ``step(state, action, key=None)`` (the key is accepted and unused: the bidding envs
are deterministic once dealt); ``State.truncated`` (always False: every auction ends); on the env ``id``,
``version``, ``num_players``, ``num_actions`` and ``observation_shape``; once the game has ended the legal mask is
all True (so a softmax over it never divides by zero) and stepping changes nothing but zeroes the rewards; an
illegal action (outside the mask, or outside ``0..num_actions - 1``) ends the game at once with a penalty for the
side that made it, in the reward's unit (`ILLEGAL_PENALTY`): each of its seats gets ``-penalty``; in the
competitive env each seat of the other side gets ``+penalty`` (zero-sum, as its rewards are), in the uncontested env
the silent seats get 0 (as always there). pgx itself is never imported.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from bridgerl.core.illegal import ILLEGAL_PENALTY  # noqa: F401  (re-exported; one table for every env: `bridgerl.core.illegal`)


class PgxEnv:
    """The attributes pgx's ``Env`` has, for an env with ``name``, ``num_actions`` and ``observation_size``."""

    name = ""
    version = "v0"
    num_players = 4  # rewards are per seat N, E, S, W in both bidding envs

    @property
    def id(self) -> str:
        return f"bridgerl/{self.name}"

    @property
    def observation_shape(self) -> tuple[int, ...]:
        return (self.observation_size,)


def pick_row(key, index, rows: int):
    """The dataset row an ``init`` deals: ``index`` when given, else one drawn uniformly with ``key``."""
    if index is None:
        index = jax.random.randint(key, (), 0, rows)
    return jnp.asarray(index, jnp.int32)


def is_legal(state, action):
    """Whether ``action`` is in ``0 .. num_actions - 1`` and in the state's legal mask."""
    action = jnp.asarray(action, jnp.int32)
    size = state.legal_action_mask.shape[-1]
    return (action >= 0) & (action < size) & state.legal_action_mask[jnp.clip(action, 0, size - 1)]


def step_like_pgx(state, action, play, penalty):
    """The next state under pgx's rules: ``play(state, action)`` for a legal action of a running game;
    ``penalty(state)`` (float32[4]) ends the game on an illegal one; a finished game only has its rewards zeroed."""
    action = jnp.asarray(action, jnp.int32)
    branch = jnp.where(state.terminated, 0, jnp.where(is_legal(state, action), 2, 1))
    return jax.lax.switch(branch, [
        lambda s: s.replace(rewards=jnp.zeros_like(s.rewards)),
        lambda s: s.replace(rewards=penalty(s), terminated=jnp.bool_(True),
                            legal_action_mask=jnp.ones_like(s.legal_action_mask)),
        lambda s: play(s, action)], state)
