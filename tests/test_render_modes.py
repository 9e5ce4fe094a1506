"""Render modes (issue #49, part): every Gymnasium and PettingZoo env renders the table as text ("ansi"), as an RGB
image of one fixed size ("rgb_array", what SB3's make_vec_env and video recorders ask for) or printed ("human");
any other mode is refused when the env is made, in one line."""

import gymnasium as gym
import numpy as np
import pytest

import bridgerl  # noqa: F401  (registers the ids)
from bridgerl.envs.rendering import IMAGE_TEXT, RENDER_MODES, text_image

IDS = ["bridgerl/UncontestedBidding-v0", "bridgerl/CompetitiveBidding-v0", "bridgerl/CardPlay-v0",
       "bridgerl/Bridge-v0"]
SHAPE = (16 + 11 * IMAGE_TEXT[1], 16 + 6 * IMAGE_TEXT[0], 3)


def _kwargs(env_id):
    return {"dataset": "test", **({"defender_worlds": 1} if env_id.endswith("CardPlay-v0") else {})}


@pytest.mark.parametrize("env_id", IDS)
def test_every_gymnasium_env_renders_text_an_image_or_prints(env_id, capsys):
    env = gym.make(env_id, render_mode="rgb_array", **_kwargs(env_id))
    assert env.metadata["render_modes"] == RENDER_MODES
    _, info = env.reset(seed=1)
    first = env.render()
    assert first.dtype == np.uint8 and first.shape == SHAPE
    assert (first < 128).any() and (first == 255).mean() > 0.5  # black text on white
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert env.render().shape == SHAPE  # every frame the same size
    text = gym.make(env_id, render_mode="ansi", **_kwargs(env_id))
    text.reset(seed=1)
    shown = text.render()
    assert isinstance(shown, str) and shown.startswith(("Board", "Contract"))
    human = gym.make(env_id, render_mode="human", **_kwargs(env_id))
    capsys.readouterr()
    _, info = human.reset(seed=1)  # human mode shows the table at every reset and step, as Gymnasium expects
    assert capsys.readouterr().out.strip() == text.render().strip()
    assert human.render() is None and capsys.readouterr().out.strip() == text.render().strip()
    human.step(int(np.flatnonzero(info["action_mask"])[0]))
    text.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert capsys.readouterr().out.strip() == text.render().strip()
    with pytest.raises(ValueError, match="render_mode must be None or one of 'ansi', 'rgb_array', 'human', got "
                                         "'rgb'"):
        gym.make(env_id, render_mode="rgb", **_kwargs(env_id))


@pytest.mark.parametrize("module", ["bridge_v0", "competitive_bidding_v0"])
def test_pettingzoo_envs_render_the_same_modes(module):
    import importlib

    aec = importlib.import_module(f"bridgerl.envs.pettingzoo.{module}")
    assert aec.raw_env(dataset="test", render_mode="ansi").render() is None  # nothing to show before reset()
    env = aec.env(dataset="test", render_mode="rgb_array")  # (PettingZoo's wrapper refuses render before reset)
    env.reset(seed=0)
    assert env.unwrapped.metadata["render_modes"] == RENDER_MODES
    assert env.render().shape == SHAPE
    with pytest.raises(ValueError, match="render_mode must be None or one of"):
        aec.env(dataset="test", render_mode="video")


def test_the_image_is_the_text():
    """Different tables give different images; suit symbols are drawn as letters; long text is cut, never grown."""
    a, b = text_image("N: ♠AKQ ♥2"), text_image("N: ♠AKJ ♥2")
    assert a.shape == b.shape == SHAPE and (a != b).any()
    assert (text_image("N: ♠AKQ ♥2") == text_image("N: SAKQ H2")).all()
    assert text_image("x" * 500 + "\n" * 100).shape == SHAPE


def test_competitive_bidding_infos_every_step_like_bridge():
    """`competitive_bidding_v0` gives every agent the infos of `bridge_v0` at every step, not only at the end."""
    from bridgerl.envs.pettingzoo import competitive_bidding_v0

    env = competitive_bidding_v0.env(dataset="test")
    env.reset(seed=2)
    steps = 0
    for agent in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        infos = env.infos
        assert set(infos) == set(env.agents) and len({str(sorted(i.items())) for i in infos.values()}) == 1
        info = infos[agent]
        assert {"seat", "dealer", "vul", "index", "board", "illegal_action"} <= set(info)
        assert info["illegal_action"] is False
        if termination or truncation:
            assert "contract" in info
            env.step(None)
            continue
        steps += 1
        env.step(int(np.flatnonzero(observation["action_mask"])[-1 if steps < 3 else 0]))
    assert steps >= 4
