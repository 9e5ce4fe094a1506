"""The JAX envs equal the Python envs: every observation, mask and reward, on random legal episodes.

Each env and seed runs 500 episodes in the default tier and 2,000 in the slow tier (`pytest -m slow`, which CI runs
too); BRIDGERL_PARITY_EPISODES sets both (the 10,000-episode run is `BRIDGERL_PARITY_EPISODES=10000 pytest -m ""
tests/test_jax_parity.py`)."""

import os

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import bridgerl  # noqa: F401
from bridgerl.core import load_dataset
from bridgerl.envs import jaxenv

EPISODES = [int(os.environ.get("BRIDGERL_PARITY_EPISODES", "500")),
            pytest.param(int(os.environ.get("BRIDGERL_PARITY_EPISODES", "2000")), marks=pytest.mark.slow)]


def _parity(env_id, gym_id, jax_options, gym_options, seed, episodes, dataset="test"):
    dataset = load_dataset(dataset)
    jenv = jaxenv.make(env_id, dataset=dataset, **jax_options)
    pyenvs = [gym.make(gym_id, dataset=dataset, **gym_options).unwrapped for _ in range(episodes)]
    rng = np.random.default_rng(seed)
    rows = np.asarray(jenv.eligible) if hasattr(jenv, "eligible") else np.arange(jenv.owner.shape[0])
    index = rng.choice(rows, episodes)
    state = jax.jit(jax.vmap(jenv.init))(jax.random.split(jax.random.key(seed), episodes), jnp.asarray(index))
    step = jax.jit(jax.vmap(jenv.step))
    obs, infos = zip(*[env.reset(options={"index": int(i)}) for env, i in zip(pyenvs, index)])
    obs, infos = list(obs), list(infos)
    done = np.zeros(episodes, bool)
    steps = 0
    while not done.all():
        jobs, jmask = np.asarray(state.observation), np.asarray(state.legal_action_mask)
        jplayer, jrewards, jterm = np.asarray(state.current_player), np.asarray(state.rewards), np.asarray(state.terminated)
        actions = np.zeros(episodes, np.int32)
        for b in range(episodes):
            if done[b]:
                continue
            assert np.array_equal(jobs[b], obs[b]), (b, steps)
            assert np.array_equal(jmask[b], infos[b]["action_mask"].astype(bool)), (b, steps)
            assert jplayer[b] == infos[b]["seat"] and not jterm[b]
            legal = np.flatnonzero(jmask[b])
            actions[b] = legal[rng.integers(len(legal))]
        state = step(state, jnp.asarray(actions))
        jobs, jmask = np.asarray(state.observation), np.asarray(state.legal_action_mask)
        jrewards, jterm = np.asarray(state.rewards), np.asarray(state.terminated)
        for b in np.flatnonzero(~done):
            caller = infos[b]["seat"]
            obs[b], reward, terminated, _, infos[b] = pyenvs[b].step(int(actions[b]))
            steps += 1
            assert jterm[b] == terminated
            assert jrewards[b][caller] == reward, (b, reward, jrewards[b])
            if terminated:
                returns = infos[b].get("returns")
                if returns is None:  # uncontested: both partners get the reward, the silent seats 0
                    side = infos[b]["side"]
                    returns = [reward if seat % 2 == side else 0.0 for seat in range(4)]
                assert jrewards[b].tolist() == list(returns)
                assert np.array_equal(jobs[b], obs[b]) and jmask[b].all()  # all True after the end, as in pgx
                assert np.asarray(state.current_player)[b] == infos[b]["seat"]
                done[b] = True
    # a terminated state stays as it is, with its rewards zeroed
    again = step(state, jnp.zeros(episodes, jnp.int32))
    assert np.array_equal(np.asarray(again.observation), np.asarray(state.observation))
    assert not np.asarray(again.rewards).any() and np.asarray(again.terminated).all()
    return steps


@pytest.mark.parametrize("episodes", EPISODES)
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("options", [{}, {"opening_rules": False, "side": "NS", "reward": "points"}, {"side": "EW"}])
def test_uncontested_parity(seed, options, episodes):
    assert _parity("uncontested_bidding", "bridgerl/UncontestedBidding-v0", options, options, seed, episodes) > 0


@pytest.mark.parametrize("episodes", EPISODES)
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("reward", ["par_imps", "points"])
def test_competitive_parity(seed, reward, episodes):
    options = {"reward": reward}
    assert _parity("competitive_bidding", "bridgerl/CompetitiveBidding-v0", options, options, seed,
                   episodes // 2) > 0


def test_sampling_skips_like_python():
    from bridgerl.core.uncontested import UncontestedDealSource
    from bridgerl.core import load_dataset

    jenv = jaxenv.make("uncontested_bidding", dataset="test")
    source = UncontestedDealSource(load_dataset("test"))
    assert np.array_equal(np.asarray(jenv.eligible), source.eligible_rows("thesis"))
    states = jax.vmap(jenv.init)(jax.random.split(jax.random.key(0), 4096))
    assert np.isin(np.asarray(states.index), source.eligible_rows("thesis")).all()


def test_make_rejects_python_only_options():
    with pytest.raises(ValueError, match="self-play"):
        jaxenv.make("competitive_bidding", dataset="test", agent_seats="NS")
    with pytest.raises(ValueError, match="unknown JAX env"):
        jaxenv.make("card_play", dataset="test")
