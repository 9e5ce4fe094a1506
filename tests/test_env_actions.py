"""Actions that are not whole numbers are refused with a one-line error, never truncated (1.5 used to play 1)."""

import gymnasium as gym
import numpy as np
import pytest

import bridgerl  # noqa: F401  (registers the Gymnasium ids)
from bridgerl.agents import RandomAgent
from bridgerl.core.actions import action_index
from bridgerl.envs.pettingzoo import competitive_bidding_v0

BAD = [1.5, "1", True, np.float32(2.25), np.array([1, 2]), float("nan")]


@pytest.mark.parametrize("bad", BAD, ids=repr)
def test_action_index_refuses(bad):
    with pytest.raises(ValueError, match="action must be an integer"):
        action_index(bad, 38)


def test_action_index_accepts_whole_numbers():
    assert action_index(3, 38) == 3 and action_index(np.int8(4), 38) == 4 and action_index(np.array(5), 38) == 5
    assert action_index(2.0, 38) == 2


@pytest.mark.parametrize("env_id, kwargs", [("bridgerl/UncontestedBidding-v0", {}),
                                             ("bridgerl/CompetitiveBidding-v0", {}),
                                             ("bridgerl/CardPlay-v0", {"defenders": RandomAgent(seed=0)})])
def test_gymnasium_envs_refuse_a_fractional_action(env_id, kwargs):
    env = gym.make(env_id, dataset="test", **kwargs).unwrapped
    _, info = env.reset(seed=0)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    before = env.legal_action_mask().copy()
    with pytest.raises(ValueError, match="action must be an integer"):
        env.step(legal + 0.5)
    assert (env.legal_action_mask() == before).all()  # nothing was played
    env.step(legal)


def test_pettingzoo_refuses_a_fractional_action():
    env = competitive_bidding_v0.raw_env(dataset="test")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action must be an integer"):
        env.step(0.5)
    env.step(0)
