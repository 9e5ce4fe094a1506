"""PPO for competitive bidding (issue #22, training.ppo): GAE and the PPO loss against hand computations, the actor
seeing only its seat, pool sampling and snapshots, bit-identical resume, and a tiny training run on CPU."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from bridgerl.agents import PPOAgent
from bridgerl.agents.learned.checkpoint import checkpoint_kind
from bridgerl.envs import jaxenv
from bridgerl.envs.jaxenv.competitive import observation_of
from bridgerl.evaluation.bidding.competitive import duplicate_match, rule_baseline_evaluator
from bridgerl.arena.specs import load_agent
from bridgerl.training.demonstrations import PretrainConfig
from bridgerl.training.ppo import PPOConfig, PPOTrainer, draw_opponents, gae, ppo_loss
from bridgerl.training.run import train_competitive

TINY = {"hidden": (16,), "num_envs": 8, "rollout": 8, "minibatches": 2, "epochs": 2, "pool_size": 3,
        "pool_every": 1}
TINY_PRETRAIN = PretrainConfig(deals=30, updates=1000, batch_size=64)


@pytest.fixture(scope="module")
def env():
    return jaxenv.make("competitive_bidding", dataset="test")


def test_gae_by_hand():
    # one auction: N E S W N, the last call ends it; NS +2, EW -2 (scaled IMPs)
    values = jnp.array([[0.1], [0.2], [0.3], [0.4], [0.5]])
    seats = jnp.array([[0], [1], [2], [3], [0]])
    dones = jnp.array([[False], [False], [False], [False], [True]])
    rewards = jnp.zeros((5, 1, 4)).at[4, 0].set(jnp.array([2.0, -2.0, 2.0, -2.0]))
    advantages, returns = gae(values, seats, dones, rewards, jnp.full((1, 4), 9.0), 1.0, 0.5)
    north_last = 2.0 - 0.5                                # North's last call: its reward, nothing after
    north_first = (0.0 + 0.5 - 0.1) + 0.5 * north_last    # followed by North's next call, not by East's
    expected = [north_first, -2.0 - 0.2, 2.0 - 0.3, -2.0 - 0.4, north_last]
    np.testing.assert_allclose(np.asarray(advantages)[:, 0], expected, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(returns), np.asarray(advantages) + np.asarray(values), rtol=1e-6)


def test_gae_bootstraps_each_seat_and_stops_at_the_end_of_an_auction():
    # auction 1: ... South calls (t0), West's call ends it (t1); auction 2 starts with North (t2), cut off
    values = jnp.array([[0.3], [0.4], [0.7]])
    seats = jnp.array([[2], [3], [0]])
    dones = jnp.array([[False], [True], [False]])
    rewards = jnp.zeros((3, 1, 4)).at[1, 0].set(jnp.array([1.0, -1.0, 1.0, -1.0]))
    bootstrap = jnp.array([[5.0, 6.0, 7.0, 8.0]])
    advantages, _ = gae(values, seats, dones, rewards, bootstrap, 0.9, 0.8)
    expected = [1.0 - 0.3,          # South's last call of auction 1: paid at its end, not bootstrapped from auction 2
                -1.0 - 0.4,
                0.9 * 5.0 - 0.7]    # North's call in the cut-off auction: North's bootstrap value
    np.testing.assert_allclose(np.asarray(advantages)[:, 0], expected, rtol=1e-6)


def test_ppo_loss_by_hand():
    logits = jnp.array([[1.0, 2.0, 0.5], [0.0, 0.3, -1.0], [2.0, 0.0, 0.0]])
    mask = jnp.array([[True, True, False], [True, True, True], [True, False, True]])
    action = jnp.array([1, 2, 0])
    old_logp = jnp.array([-0.5, -1.0, -0.2])
    advantages = jnp.array([1.0, -2.0, 0.5])
    returns = jnp.array([0.5, -1.0, 0.0])
    values = jnp.array([0.2, -0.5, 1.0])
    weight = jnp.array([1.0, 1.0, 0.0])  # the third row is a pool snapshot's call
    loss, parts = ppo_loss(logits, values, mask, action, old_logp, advantages, returns, weight, 0.2, 0.5, 0.01)

    def log_softmax(row, legal):
        z = np.where(legal, row, -np.inf)
        return z - np.log(np.exp(z - z.max()).sum()) - z.max()

    rows = [0, 1]
    logp = np.array([log_softmax(np.asarray(logits[i]), np.asarray(mask[i]))[int(action[i])] for i in rows])
    adv = np.asarray(advantages)[rows]
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    ratio = np.exp(logp - np.asarray(old_logp)[rows])
    policy = -np.mean(np.minimum(ratio * adv, np.clip(ratio, 0.8, 1.2) * adv))
    value = np.mean(0.5 * (np.asarray(values)[rows] - np.asarray(returns)[rows]) ** 2)
    entropy = np.mean([-(np.exp(lp[np.isfinite(lp)]) * lp[np.isfinite(lp)]).sum() for lp in
                       (log_softmax(np.asarray(logits[i]), np.asarray(mask[i])) for i in rows)])
    np.testing.assert_allclose(float(parts["policy"]), policy, rtol=1e-5)
    np.testing.assert_allclose(float(parts["value"]), value, rtol=1e-5)
    np.testing.assert_allclose(float(parts["entropy"]), entropy, rtol=1e-5)
    np.testing.assert_allclose(float(loss), policy + 0.5 * value - 0.01 * entropy, rtol=1e-5)
    assert 0 <= float(parts["clip_fraction"]) <= 1


def test_the_actor_sees_only_its_seat(env):
    trainer = PPOTrainer(env, PPOConfig(**TINY))
    ts = trainer.init(env)
    # half the auctions against a pool snapshot (slot 0), the learner on each side in turn: both acting paths
    ts = ts.replace(opponent=jnp.where(jnp.arange(8) % 2 == 0, 0, -1).astype(jnp.int32),
                    learner_side=(jnp.arange(8) // 2 % 2).astype(jnp.int32))
    state = ts.env_state
    key = jax.random.PRNGKey(1)
    _, row, _ = trainer._call(ts, env, key)
    # what is stored (and what the networks acted on) is the acting seat's own observation
    np.testing.assert_array_equal(np.asarray(row.obs), np.asarray(state.observation))
    owner = np.asarray(state._owner)
    player = np.asarray(state.current_player)
    np.testing.assert_array_equal(np.asarray(row.obs)[:, -52:], owner == player[:, None])
    # swap the cards of the two opponents of the player to act in every auction: the deal changes, the caller's
    # view does not, and neither do its call, its probability or its value, in self-play or against the pool
    swapped = owner.copy()
    for b in range(owner.shape[0]):
        left, right = (player[b] + 1) % 4, (player[b] + 3) % 4
        swapped[b][owner[b] == left], swapped[b][owner[b] == right] = right, left
    assert (swapped != owner).any()
    changed = ts.replace(env_state=state.replace(_owner=jnp.asarray(swapped, state._owner.dtype)))
    _, other, _ = trainer._call(changed, env, key)
    for field in ("obs", "mask", "action", "logp", "value", "learner"):
        np.testing.assert_array_equal(np.asarray(getattr(row, field)), np.asarray(getattr(other, field)))
    for seat in range(4):  # and each seat's view, the bootstrap's input, holds only its own cards
        view = np.asarray(jax.vmap(observation_of, in_axes=(0, None))(state, seat))
        np.testing.assert_array_equal(view[:, -52:], owner == seat)


def test_pool_scores_follow_the_learner_against_each_snapshot():
    from bridgerl.training.ppo import update_pool_score

    scores = jnp.array([1.0, -2.0, 0.0])
    opponent = jnp.array([0, 0, 1, -1, 2])
    finished = jnp.array([True, True, True, True, False])
    returns = jnp.array([3.0, 5.0, -4.0, 9.0, 7.0])
    new = np.asarray(update_pool_score(scores, opponent, finished, returns, rate=0.5))
    # slot 0: two auctions ended, mean 4 -> halfway from 1; slot 1: one, -4 -> halfway from -2; slot 2: none ended
    np.testing.assert_allclose(new, [2.5, -3.0, 0.0])


def test_pool_sampling():
    key = jax.random.PRNGKey(0)
    finished = jnp.ones(20_000, bool)
    old = jnp.full(20_000, -1, jnp.int32)
    # three of eight slots filled: only they are drawn, evenly, for about pool_prob of the auctions
    opponent, side = draw_opponents(key, finished, old, old, jnp.int32(3), 8, 0.5, jnp.zeros(8), 0.0)
    opponent = np.asarray(opponent)
    used = opponent[opponent >= 0]
    assert set(used.tolist()) == {0, 1, 2}
    assert abs(len(used) / len(opponent) - 0.5) < 0.02
    assert np.all(np.abs(np.bincount(used) / len(used) - 1 / 3) < 0.02)
    assert set(np.asarray(side).tolist()) == {0, 1}
    # with a priority, the snapshot the learner scores worst against comes most often
    scores = jnp.array([5.0, -5.0, 0.0, 0, 0, 0, 0, 0])
    prioritised, _ = draw_opponents(key, finished, old, old, jnp.int32(3), 8, 1.0, scores, 0.5)
    counts = np.bincount(np.asarray(prioritised), minlength=3)
    assert counts[1] > counts[2] > counts[0]
    # auctions still running keep their opponents; an empty pool means self-play
    kept, _ = draw_opponents(key, jnp.zeros(4, bool), jnp.array([2, -1, 0, 1]), jnp.zeros(4, jnp.int32),
                             jnp.int32(3), 8, 1.0, jnp.zeros(8), 0.0)
    assert np.asarray(kept).tolist() == [2, -1, 0, 1]
    empty, _ = draw_opponents(key, finished[:100], old[:100], old[:100], jnp.int32(0), 8, 1.0, jnp.zeros(8), 0.0)
    assert (np.asarray(empty) == -1).all()


def test_snapshots_fill_the_ring_and_keep_the_anchor(env):
    trainer = PPOTrainer(env, PPOConfig(**{**TINY, "pool_anchor": True}))
    ts = trainer.init(env)
    start = jax.tree.leaves(ts.params)[0]
    for step in range(5):
        ts = ts.replace(params=jax.tree.map(lambda p: p + 1.0, ts.params))
        ts = trainer._snapshot(ts)
    assert int(ts.pool_count) == 6
    first = jax.tree.leaves(ts.pool)[0]
    np.testing.assert_array_equal(np.asarray(first[0]), np.asarray(start))  # slot 0: the starting network
    assert {float(np.asarray(first[k] - start).mean()) for k in (1, 2)} == {4.0, 5.0}  # the two newest


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("ppo")
    kwargs = dict(preset="small", data="test", eval_data="test", overrides={**TINY, "bc_weight": 0.1}, chunk=2,
                  progress=False, command="pytest", eval_deals=30, eval_every_steps=128, pretrain=TINY_PRETRAIN,
                  evaluate_agent=rule_baseline_evaluator("test", 30), algo="ppo")
    result = train_competitive(out, steps=256, **kwargs)
    return out, kwargs, result


def test_tiny_training_run_saves_a_ppo_model(tiny_run):
    out, _, result = tiny_run
    assert result["env_steps"] == 256 and np.isfinite(result["vs_rules_imps_per_board"])
    assert checkpoint_kind(out) == "PPO"
    for spec in (f"ppo:{out}", str(out)):
        agent = load_agent(spec, "competitive_bidding")
        assert isinstance(agent, PPOAgent)
    match = duplicate_match(load_agent(str(out), "competitive_bidding"), load_agent("sayc", "competitive_bidding"),
                            data="test", deals=20)
    assert match["boards"] == 20
    with pytest.raises(ValueError, match="a PPO model, not a DQN one"):
        load_agent(f"dqn:{out}", "competitive_bidding")


def test_export_keeps_a_ppo_model(tiny_run, tmp_path):
    from bridgerl.cli import main

    out, _, _ = tiny_run
    assert main(["train", "export", str(out), "--out", str(tmp_path / "release"), "--dtype", "bfloat16"]) == 0
    assert checkpoint_kind(tmp_path / "release") == "PPO"
    agent = load_agent(str(tmp_path / "release"), "competitive_bidding")
    assert isinstance(agent, PPOAgent) and agent.metadata["dtype"] == "bfloat16"


def test_ppo_resume_gives_the_same_run(tiny_run, tmp_path):
    out, kwargs, _ = tiny_run
    train_competitive(tmp_path, steps=128, **kwargs)
    train_competitive(tmp_path, steps=256, resume=True, **kwargs)
    a, b = PPOAgent.load(out), PPOAgent.load(tmp_path)
    for x, y in zip(jax.tree.leaves(a._params), jax.tree.leaves(b._params)):
        assert np.array_equal(np.asarray(x), np.asarray(y))


def test_ppo_settings_are_checked(env, tmp_path):
    with pytest.raises(ValueError, match="minibatches"):
        PPOTrainer(env, PPOConfig(num_envs=8, rollout=3, minibatches=5))
    with pytest.raises(ValueError, match="batch_size: not a setting of ppo"):
        train_competitive(tmp_path, steps=64, overrides={"batch_size": 32}, algo="ppo",
                          evaluate_agent=rule_baseline_evaluator("test", 10), progress=False)
    with pytest.raises(ValueError, match="competitive env"):
        PPOTrainer(jaxenv.make("uncontested_bidding", dataset="test"), PPOConfig(**TINY))


def test_cross_table_and_the_held_out_curve(tiny_run, tmp_path, capsys):
    from bridgerl.cli import main
    from bridgerl.evaluation.bidding.cross_table import cell, cross_table, markdown
    from bridgerl.evaluation.reports.learning_curve import heldout_curve

    agents = {name: load_agent(name, "competitive_bidding") for name in ("pass", "rules", "sayc")}
    table = cross_table(agents, "test", deals=12)
    assert len(table["matches"]) == 3 and table["boards"] == 12
    value, ci = cell(table, "rules", "pass")
    assert cell(table, "pass", "rules") == (-value, ci) and cell(table, "sayc", "sayc") is None
    assert markdown(table).count("\n") == 4
    out, _, _ = tiny_run
    curve = heldout_curve(out, agents["pass"], "pass", "test", deals=10)
    assert curve["env_steps"].tolist() == [0, 128, 256] and np.isfinite(curve["imps"]).all()
    assert list(out.glob("heldout-pass_test_10.json"))
    png = tmp_path / "heldout.png"
    assert main(["evaluate", "curve", str(out), "--against", "pass", "--data", "test", "--deals", "10", "--out",
                 str(png), "--quiet"]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["evaluate", "cross", "pass", "random", "--deals", "5", "--data", "test", "--quiet"]) == 0
    assert "| pass |" in capsys.readouterr().out
