"""Greedy rollouts of a Q-network on dataset rows, all in parallel in one jitted `lax.fori_loop`: how the training
runs (`bridgerl.training.run`) score the network the DQN step (`bridgerl.training.dqn`) trains."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import nnx

from bridgerl.agents.learned.networks import masked_argmax


def evaluate_greedy(graphdef, params, env, indices, max_calls: int = 40):
    """Greedy rollouts of a Q-network on every row of ``indices`` (all in parallel); returns the summed reward of
    the first bidder's seat per deal (uncontested) or NS (competitive: a 320-call cap)."""
    return _evaluate(graphdef, params, env, jnp.asarray(indices), max_calls)


def _evaluate_impl(graphdef, params, env, indices, max_calls):
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), indices.shape[0]), indices)
    seat = state.current_player

    def body(_, carry):
        state, total = carry
        q = nnx.merge(graphdef, params)(state.observation)
        action = masked_argmax(q, state.legal_action_mask)
        state = jax.vmap(env.step)(state, action)
        return state, total + state.rewards[jnp.arange(seat.shape[0]), seat]

    state, total = jax.lax.fori_loop(0, max_calls, body, (state, jnp.zeros(indices.shape[0], jnp.float32)))
    return total, state.terminated


_evaluate = jax.jit(_evaluate_impl, static_argnums=(0, 4))


__all__ = ["evaluate_greedy"]
