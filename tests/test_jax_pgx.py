"""The JAX envs under pgx's calling convention: code written for pgx runs on them unchanged (pgx's README loop,
``pgx.experimental.auto_reset``), with pgx's attributes, all-True masks after the end and the penalty of an illegal
action. The envs never import pgx; these tests do, to run pgx's own wrapper over them."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from bridgerl.envs import jaxenv
from bridgerl.envs.jaxenv.api import ILLEGAL_PENALTY

ENVS = [("uncontested_bidding", {}, 36, 89), ("competitive_bidding", {}, 38, 231),
        ("uncontested_bidding", {"reward": "points"}, 36, 89), ("competitive_bidding", {"reward": "points"}, 38, 231),
        ("bridge", {}, 90, 802)]


@pytest.mark.parametrize("name,options,actions,bits", [*ENVS[:2], ENVS[4]])
def test_pgx_attributes_and_readme_loop(name, options, actions, bits):
    env = jaxenv.make(name, dataset="test", **options)
    assert (env.id, env.version, env.num_players, env.num_actions, env.observation_shape) == \
        (f"bridgerl/{name}", "v0", 4, actions, (bits,))
    # pgx's README loop, as written for pgx (a random policy stands in for its model)
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))
    keys = jax.random.split(jax.random.PRNGKey(42), 64)
    state = init(keys)
    assert not np.asarray(state.truncated).any()
    key = jax.random.PRNGKey(0)
    total = jnp.zeros((64, 4))
    while not (state.terminated | state.truncated).all():
        key, model_key, step_key = jax.random.split(key, 3)
        action = jax.random.categorical(model_key, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
        state = step(state, action, jax.random.split(step_key, 64))  # pgx's key argument, accepted
        total = total + state.rewards
    assert np.asarray(state.legal_action_mask).all()  # all True after the end, as in pgx
    again = step(state, jnp.zeros(64, jnp.int32))  # a finished game only has its rewards zeroed
    assert not np.asarray(again.rewards).any() and np.asarray(again.terminated).all()
    assert np.array_equal(np.asarray(again.observation), np.asarray(state.observation))
    assert np.isfinite(np.asarray(total)).all()


@pytest.mark.parametrize("name,options,actions,bits", [ENVS[0], ENVS[3]])
def test_an_illegal_action_ends_the_game_with_the_penalty(name, options, actions, bits):
    env = jaxenv.make(name, dataset="test", **options)
    penalty = ILLEGAL_PENALTY["points" if options.get("reward") == "points" else "imps"]
    state = env.init(jax.random.PRNGKey(3))
    for action in (int(jnp.argmin(state.legal_action_mask)), -1, actions):  # outside the mask, outside the range
        assert action >= actions or action < 0 or not bool(state.legal_action_mask[action])
        over = env.step(state, action)
        seat = int(state.current_player)
        rewards = np.asarray(over.rewards)
        assert bool(over.terminated) and np.asarray(over.legal_action_mask).all()
        if name == "uncontested_bidding":  # the bidding side pays, the silent seats get 0
            side = int(state.side)
            assert rewards.tolist() == [-penalty if s % 2 == side else 0.0 for s in range(4)]
        else:  # zero-sum: the caller's side pays the other side
            assert rewards.tolist() == [-penalty if s % 2 == seat % 2 else penalty for s in range(4)]
        assert int(over.current_player) == seat
        assert not np.asarray(env.step(over, 0).rewards).any()


@pytest.mark.parametrize("name", ["uncontested_bidding", "competitive_bidding", "bridge"])
def test_pgx_auto_reset_runs_our_envs(name):
    from pgx.experimental import auto_reset

    env = jaxenv.make(name, dataset="test")
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(1), 32))
    key = jax.random.PRNGKey(2)
    finished, reward_sum = 0, 0.0
    for _ in range(60 if name != "bridge" else 240):  # a whole deal is an auction and 52 cards
        key, act_key, step_key = jax.random.split(key, 3)
        action = jax.random.categorical(act_key, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
        state = step(state, action, jax.random.split(step_key, 32))
        done = np.asarray(state.terminated)
        finished += int(done.sum())
        reward_sum += float(np.asarray(state.rewards).sum())
        # a finished game is replaced by a fresh deal, keeping its terminal flag and rewards for this step
        assert not np.asarray(state.legal_action_mask).all(axis=1)[done].any()
    assert finished > 32 and np.isfinite(reward_sum)
