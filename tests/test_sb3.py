"""Stable-Baselines3 and sb3-contrib over the bridgerl envs: SB3's ``check_env``, ``model.save``/``load``,
``SubprocVecEnv`` and a few hundred MaskablePPO steps on a bidding env and on ``Bridge-v0`` (NS against rule
opponents). SB3 needs torch, a large install: it is the opt-in ``sb3`` extra (``pip install -e ".[sb3]"``), and these
tests skip, with the reason, where it is missing. Run them alone with ``pytest -m sb3``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

pytestmark = pytest.mark.sb3

sb3 = pytest.importorskip("stable_baselines3", reason="Stable-Baselines3 is not installed: pip install -e '.[sb3]'")
sb3_contrib = pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed: pip install -e '.[sb3]'")

import bridgerl  # noqa: E402,F401  (registers the Gymnasium ids)
from bridgerl.agents import PIMCAgent, RuleBidder  # noqa: E402


def _bridge_ns():
    return gym.make("bridgerl/Bridge-v0", dataset="test", agent_seats="NS", opponent=RuleBidder(competitive=True),
                    opponent_play=PIMCAgent(worlds=1, seed=0), info_view=False)


def _uncontested():
    return gym.make("bridgerl/UncontestedBidding-v0", dataset="test")


@pytest.mark.parametrize("make", [_uncontested, _bridge_ns,
                                  lambda: gym.make("bridgerl/CompetitiveBidding-v0", dataset="test"),
                                  lambda: gym.make("bridgerl/CardPlay-v0", dataset="test", defender_worlds=1)],
                         ids=["uncontested", "bridge-ns", "competitive", "card_play"])
def test_sb3_check_env(make):
    from stable_baselines3.common.env_checker import check_env

    env = make()
    check_env(env.unwrapped, warn=True)
    env.close()


@pytest.mark.parametrize("make", [_uncontested, _bridge_ns], ids=["uncontested", "bridge-ns"])
def test_maskable_ppo_learns_a_few_hundred_steps_and_saves(make, tmp_path):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = make()
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=256)
    path = tmp_path / "model.zip"
    model.save(path)  # pickles the spaces (the legal-action space with its env) into the zip
    loaded = MaskablePPO.load(path, device="cpu")
    obs, info = env.reset(seed=3)
    for _ in range(40):
        masks = get_action_masks(env)
        assert np.array_equal(masks, info["action_mask"].astype(bool))
        action, _ = loaded.predict(obs, action_masks=masks, deterministic=True)
        assert info["action_mask"][int(action)]  # the mask is obeyed
        obs, _, done, _, info = env.step(int(action))
        if done:
            obs, info = env.reset()
    env.close()


def test_subproc_vec_env_steps_every_worker():
    from stable_baselines3.common.vec_env import SubprocVecEnv

    envs = SubprocVecEnv([_uncontested, _uncontested])
    envs.seed(0)
    obs = envs.reset()
    assert obs.shape == (2, 89)
    masks = np.stack(envs.env_method("action_masks"))
    for _ in range(20):
        actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
        obs, rewards, dones, infos = envs.step(actions)
        masks = np.stack(envs.env_method("action_masks"))
    assert obs.shape == (2, 89) and len(infos) == 2
    envs.close()


@pytest.mark.parametrize("env_id", ["bridgerl/UncontestedBidding-v0", "bridgerl/CompetitiveBidding-v0",
                                    "bridgerl/CardPlay-v0", "bridgerl/Bridge-v0"])
def test_make_vec_env_works_on_every_id(env_id):
    """SB3's usual start: make_vec_env passes render_mode="rgb_array" (issue #49)."""
    from stable_baselines3.common.env_util import make_vec_env

    kwargs = {"dataset": "test"}
    if env_id.endswith("CardPlay-v0"):
        kwargs["defender_worlds"] = 1
    if env_id.endswith("Bridge-v0"):
        kwargs.update(agent_seats="NS", opponent=RuleBidder(competitive=True), opponent_play=PIMCAgent(worlds=1),
                      info_view=False)
    vec = make_vec_env(env_id, n_envs=2, seed=0, env_kwargs=kwargs)
    vec.reset()
    frames = vec.get_images()
    assert len(frames) == 2 and all(f.dtype == np.uint8 and f.ndim == 3 and f.shape[2] == 3 for f in frames)
    vec.close()
