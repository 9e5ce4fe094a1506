"""One illegal-action policy for every env (issue #49, part; `bridgerl.core.illegal`): by default an action outside
the mask ends the episode with the documented penalty for the side that chose it and ``info["illegal_action"]``
True (False on every other step); ``illegal="raise"`` raises. An unmasked random policy runs every env."""

import gymnasium as gym
import numpy as np
import pytest

import bridgerl  # noqa: F401  (registers the ids)
from bridgerl.core.illegal import ILLEGAL_PENALTY, check_illegal, penalty_returns

IDS = {"bridgerl/UncontestedBidding-v0": ("imps", 36), "bridgerl/CompetitiveBidding-v0": ("par_imps", 38),
       "bridgerl/CardPlay-v0": ("tricks", 52), "bridgerl/Bridge-v0": ("score", 90)}


def _make(env_id, **kwargs):
    extra = {"defender_worlds": 1} if env_id.endswith("CardPlay-v0") else {}
    return gym.make(env_id, dataset="test", **extra, **kwargs)


@pytest.mark.parametrize("env_id", list(IDS))
def test_an_unmasked_random_policy_runs_every_env_with_the_penalty(env_id):
    reward_mode, n = IDS[env_id]
    env = _make(env_id)
    rng = np.random.default_rng(0)
    illegal_ends = 0
    for episode in range(6):
        _, info = env.reset(seed=episode)
        done = False
        while not done:
            action = int(rng.integers(n))  # no mask
            legal = bool(info["action_mask"][action])
            _, reward, done, truncated, info = env.step(action)
            assert not truncated and info["illegal_action"] is (not legal)
            if not legal:
                illegal_ends += 1
                assert done and not info["action_mask"].any() and not env.unwrapped.action_masks().any()
                if not env_id.endswith("CardPlay-v0"):  # card play: the defence takes the rest (its forfeit)
                    penalty = ILLEGAL_PENALTY["imps" if "imps" in reward_mode else "points"]
                    assert reward == -penalty
                    if "returns" in info:
                        assert sorted(info["returns"]) == [-penalty, -penalty, penalty, penalty]
                with pytest.raises(RuntimeError, match="illegal action; call reset|call reset"):
                    env.unwrapped.step(0)
    assert illegal_ends >= 3  # random calls and cards are mostly illegal: the penalty was met


@pytest.mark.parametrize("env_id", list(IDS))
def test_raise_keeps_the_state(env_id):
    env = _make(env_id, illegal="raise").unwrapped
    _, info = env.reset(seed=1)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        env.step(bad)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    env.step(legal)  # nothing changed: the episode goes on
    with pytest.raises(ValueError, match="illegal must be one of 'penalty', 'raise'"):
        _make(env_id, illegal="ignore")


@pytest.mark.parametrize("module", ["bridge_v0", "competitive_bidding_v0"])
def test_pettingzoo_envs_take_the_penalty(module):
    import importlib

    aec = importlib.import_module(f"bridgerl.envs.pettingzoo.{module}")
    env = aec.env(dataset="test")
    env.reset(seed=0)
    first = env.agent_selection
    mask = env.observe(first)["action_mask"]
    assert env.infos[first]["illegal_action"] is False
    env.step(int(np.flatnonzero(mask == 0)[0]))
    side = ["north", "east", "south", "west"].index(first) % 2
    mode = "score" if module == "bridge_v0" else "par_imps"
    assert all(env.terminations.values())
    assert [env.rewards[a] for a in ["north", "east", "south", "west"]] == penalty_returns(side, mode)
    assert all(info["illegal_action"] for info in env.infos.values())
    for agent in list(env.agents):  # PettingZoo's way out: every agent steps None
        env.step(None)
    assert not env.agents


def test_the_policy_names():
    assert check_illegal("penalty") == "penalty" and check_illegal("forfeit", {"forfeit": "penalty"}) == "penalty"
    with pytest.raises(ValueError, match="illegal must be one of 'penalty', 'raise', got 'x'"):
        check_illegal("x")


def test_the_penalty_is_worse_than_any_legal_result_and_can_be_set():
    """The default penalty is below the worst legal result of its unit (24 IMPs; 7,600 points, 7NT redoubled and
    vulnerable, down 13); ``illegal_penalty=`` sets it in every framework; a bad value is refused in one line."""
    import jax

    from bridgerl.core.imps import imps
    from bridgerl.envs import jaxenv

    assert ILLEGAL_PENALTY["imps"] > abs(imps(-100_000)) == 24
    assert ILLEGAL_PENALTY["points"] > 7600
    for env_id, (reward_mode, n) in IDS.items():
        if env_id.endswith("CardPlay-v0"):
            continue
        env = _make(env_id, illegal_penalty=3.5)
        _, info = env.reset(seed=0)
        _, reward, done, _, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
        assert done and info["illegal_action"] and reward == -3.5, env_id
    from bridgerl.envs.pettingzoo import competitive_bidding_v0

    aec = competitive_bidding_v0.env(dataset="test", illegal_penalty=2.0)
    aec.reset(seed=0)
    aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"] == 0)[0]))
    assert sorted(aec.rewards.values()) == [-2.0, -2.0, 2.0, 2.0]
    for env_id in jaxenv.ENV_IDS:
        env = jaxenv.make(env_id, dataset="test", illegal_penalty=7.0)
        state = env.init(jax.random.key(0))
        bad = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
        rewards = sorted(np.asarray(env.step(state, bad).rewards).tolist())
        assert rewards == ([-7.0, -7.0, 0.0, 0.0] if env_id == "uncontested_bidding" else [-7.0, -7.0, 7.0, 7.0])
    for bad in (-1, float("nan"), float("inf"), "x"):
        with pytest.raises(ValueError, match="illegal_penalty must be a"):
            _make("bridgerl/CompetitiveBidding-v0", illegal_penalty=bad)
