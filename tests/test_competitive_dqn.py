"""Competitive self-play DQN (issue #10): per-seat transitions on a hand-built auction, the opponent pool,
X/XX masking, checkpoints and resume."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx

from bridgerl.agents.learned.dqn import DQNAgent
from bridgerl.core import parse_call
from bridgerl.core.calls import DOUBLE, REDOUBLE
from bridgerl.envs import jaxenv
from bridgerl.evaluation.bidding.competitive import rule_baseline_evaluator
from bridgerl.training.demonstrations import PretrainConfig, agreement, pretrain_q, rule_demonstrations
from bridgerl.training.dqn import DQNConfig, DQNTrainer
from bridgerl.training.run import train_competitive

TINY = {"hidden": (16,), "num_envs": 16, "min_replay": 64, "replay_size": 4000}
TINY_PRETRAIN = PretrainConfig(deals=30, updates=1000, batch_size=64)


@pytest.fixture(scope="module")
def env():
    return jaxenv.make("competitive_bidding", dataset="test")


def _play(trainer, env, calls, row=0, opponent=-1, learner_side=0):
    """Step one auction through the trainer's bookkeeping; returns (observations per call, final state, stored
    transitions in order)."""
    ts = trainer.init(env)
    state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(0), 1), jnp.array([row]))
    ts = ts.replace(env_state=state, opponent=jnp.array([opponent], jnp.int32),
                    learner_side=jnp.array([learner_side], jnp.int32))
    observations, stored = [], []
    for call in calls:
        state = ts.env_state
        observations.append(np.asarray(state.observation[0]))
        action = jnp.array([call], jnp.int32)
        new_state = jax.vmap(env.step)(state, action)
        items, valid, ts = trainer._transitions(ts, state, action, new_state)
        for k in np.flatnonzero(np.asarray(valid)):
            stored.append(jax.tree.map(lambda a: np.asarray(a[k]), items))
        ts = ts.replace(env_state=new_state)
    return observations, ts.env_state, stored


def test_per_seat_transitions_on_a_hand_built_auction(env):
    """N 1C, E P, S 1H, W X, N P, E P, S P: each call's next state is the same seat's next turn, or the end."""
    calls = [parse_call(c) for c in "1C P 1H X P P P".split()]
    trainer = DQNTrainer(env, DQNConfig(hidden=(8,), num_envs=1), seed=0)
    observations, final, stored = _play(trainer, env, calls)
    assert bool(final.terminated[0]) and int(env.dealer[0]) == 0
    rewards = np.asarray(final.rewards[0])
    assert rewards[0] == rewards[2] == -rewards[1] == -rewards[3]
    # emission order: N's 1C completes at N's pass (call 4), E's at call 5, S's at call 6, then each seat's last
    # call (N, E, S, W) gets the end
    expected = [(0, 4), (1, 5), (2, 6), (4, None), (5, None), (6, None), (3, None)]
    assert len(stored) == len(calls) == len(expected)
    for item, (i, j) in zip(stored, expected):
        seat = i % 4
        assert (item.obs == observations[i]).all() and item.action == calls[i]
        if j is None:
            assert item.done and item.reward == rewards[seat] and not item.next_mask.any()
        else:
            assert not item.done and item.reward == 0 and (item.next_obs == observations[j]).all()
            assert item.next_mask.any()
    # West's double is answered by the end: West has no second call
    assert stored[6].action == DOUBLE and stored[6].done


def test_pool_opponents_calls_are_not_stored(env):
    calls = [parse_call(c) for c in "1C P 1H X P P P".split()]
    config = DQNConfig(hidden=(8,), num_envs=1, pool_size=2)
    trainer = DQNTrainer(env, config, seed=0, self_play=True)
    _, final, stored = _play(trainer, env, calls, opponent=0, learner_side=1)  # EW learn, NS are a snapshot
    assert [int(item.action) for item in stored] == [calls[1], calls[5], DOUBLE]
    assert [float(item.reward) for item in stored if item.done] == [float(final.rewards[0, 1]),
                                                                    float(final.rewards[0, 3])]


def test_pool_snapshots_and_opponent_draws(env):
    config = DQNConfig(hidden=(8,), num_envs=32, min_replay=64, batch_size=16, pool_size=3, pool_every=5,
                       pool_prob=0.5)
    trainer = DQNTrainer(env, config, seed=0, self_play=True)
    ts, metrics = trainer.run_steps(env, trainer.init(env), 120)
    assert int(ts.pool_count) == 1 + int(ts.updates) // 5 >= 3  # the starting network is the first snapshot
    assert int(metrics.pool_episodes.sum()) > 0
    opponents = np.asarray(ts.opponent)
    assert ((opponents >= -1) & (opponents < 3)).all()
    # the newest snapshot is a copy of the network at a recent update, not zeros
    newest = (int(ts.pool_count) - 1) % 3
    assert any(np.abs(np.asarray(leaf[newest])).sum() > 0 for leaf in jax.tree.leaves(ts.pool))
    with pytest.raises(ValueError, match="opponent pool needs the competitive env"):
        DQNTrainer(jaxenv.make("uncontested_bidding", dataset="test"), config)


def test_pool_anchor_keeps_the_starting_network(env):
    config = DQNConfig(hidden=(8,), num_envs=32, min_replay=64, batch_size=16, pool_size=3, pool_every=5,
                       pool_anchor=True)
    trainer = DQNTrainer(env, config, seed=0, self_play=True)
    start = trainer.init(env)
    ts, _ = trainer.run_steps(env, start, 120)
    assert int(ts.pool_count) >= 5  # slots 1 and 2 were overwritten several times
    for anchor, initial in zip(jax.tree.leaves(ts.pool), jax.tree.leaves(start.params)):
        assert np.array_equal(np.asarray(anchor[0]), np.asarray(initial))
    newest = 1 + (int(ts.pool_count) - 2) % 2
    assert any(not np.array_equal(np.asarray(a[newest]), np.asarray(b))
               for a, b in zip(jax.tree.leaves(ts.pool), jax.tree.leaves(start.params)))
    with pytest.raises(ValueError, match="pool_size >= 2"):
        DQNTrainer(env, config.replace(pool_size=1), seed=0, self_play=True)


def test_pretraining_learns_the_rule_bidders_calls(env):
    """DQfD-style pretraining: the greedy network repeats most of the rule bidder's calls it was shown."""
    demos = rule_demonstrations("test", deals=40, random_share=0.0)
    assert demos.obs.shape[1:] == (231,) and demos.expert.all()
    assert np.all(demos.mask[np.arange(len(demos.action)), demos.action])  # only legal calls
    trainer = DQNTrainer(env, DQNConfig(hidden=(64,), num_envs=1), seed=0)
    params = trainer.init(env).params
    before = agreement(trainer.graphdef, params, demos)
    params, losses = pretrain_q(trainer.graphdef, params, demos, steps=2000, batch_size=64, learning_rate=1e-3)
    after = agreement(trainer.graphdef, params, demos)
    assert after > 0.9 > before
    assert np.isfinite(losses["regression"]) and np.isfinite(losses["large_margin"])


def test_dqfd_margin_loss_by_hand(env):
    """max_a [Q(s, a) + margin 1{a != a_E}] - Q(s, a_E) over legal calls, averaged over the expert's calls."""
    demos = rule_demonstrations("test", deals=2, random_share=0.0)
    config = DQNConfig(hidden=(8,), num_envs=1, batch_size=32, demo_weight=1.0, demo_margin=0.5)
    trainer = DQNTrainer(env, config, seed=0, demonstrations=demos)
    params = trainer.init(env).params
    key = jax.random.PRNGKey(3)
    loss = float(trainer._demo_margin_loss(params, trainer._demos, key))
    index = np.asarray(jax.random.randint(key, (32,), 0, len(demos.action)))
    q = np.asarray(trainer.q_values(params, jnp.asarray(demos.obs[index])))
    expected = []
    for row, i in enumerate(index):
        bonus = np.where(np.arange(38) == demos.action[i], 0.0, 0.5)
        expected.append(np.max(np.where(demos.mask[i], q[row] + bonus, -np.inf)) - q[row, demos.action[i]])
    assert loss == pytest.approx(np.mean(expected), rel=1e-5)
    with pytest.raises(ValueError, match="needs demonstrations"):
        DQNTrainer(env, config, seed=0)


@pytest.mark.parametrize("prefix, double, redouble", [
    ("", False, False),           # nothing to double
    ("1H", True, False),          # the opponents' bid
    ("1H P", False, False),       # partner's bid
    ("1H X", False, True),        # our bid doubled: redouble
    ("1H X P", False, False),     # partner's double: nothing
    ("1H X XX", False, False),    # already redoubled
    ("1H P P", True, False),      # balancing double of the opponents' bid
])
def test_double_and_redouble_masking(env, prefix, double, redouble):
    """The JAX env's mask for X/XX, and neither exploration nor a network that loves X/XX calls them illegally."""
    state = env.init(jax.random.PRNGKey(0), 0)
    for call in prefix.split():
        state = env.step(state, parse_call(call))
    mask = np.asarray(state.legal_action_mask)
    assert (mask[DOUBLE], mask[REDOUBLE]) == (double, redouble)
    trainer = DQNTrainer(env, DQNConfig(hidden=(8,), num_envs=64), seed=0)
    ts = trainer.init(env)
    batch = jax.tree.map(lambda a: jnp.broadcast_to(a, (64,) + a.shape), state)
    # push the network's Q-values for X and XX far above every other call
    params = jax.tree.map(lambda a: a, ts.params)
    bias = params["head"]["bias"][...]
    params["head"]["bias"][...] = bias.at[DOUBLE].set(1e6).at[REDOUBLE].set(1e6)
    ts = ts.replace(params=params)
    for epsilon in (0.0, 1.0):
        actions = np.asarray(trainer._act(ts, batch, jax.random.PRNGKey(1), epsilon))
        assert mask[actions].all()
        if epsilon == 0.0 and (double or redouble):
            assert set(actions) == {DOUBLE if double else REDOUBLE}
    agent = DQNAgent(nnx.merge(trainer.graphdef, params), {"env_id": "competitive_bidding",
                                                           "observation_size": 231, "num_actions": 38})
    assert mask[agent.act(np.asarray(state.observation), mask)]


@pytest.fixture(scope="module")
def tiny_competitive_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("competitive")
    overrides = {**TINY, "pool_size": 2, "pool_every": 20, "demo_weight": 1.0}
    result = train_competitive(out, preset="small", steps=3200, data="test", eval_data="test", overrides=overrides,
                               chunk=50, progress=False, command="pytest", eval_deals=40, eval_every_steps=1600,
                               pretrain=TINY_PRETRAIN, evaluate_agent=rule_baseline_evaluator("test", 40))
    return out, overrides, result


def test_competitive_checkpoint_round_trip(tiny_competitive_run):
    out, _, result = tiny_competitive_run
    agent = DQNAgent.load(out, env_id="competitive_bidding")
    assert agent.metadata["observation_size"] == 231 and agent.metadata["num_actions"] == 38
    assert agent.metadata["config"]["pool_size"] == 2 and agent.metadata["command"] == "pytest"
    from bridgerl.evaluation.bidding.competitive import duplicate_match
    from bridgerl.agents import RuleBidder

    match = duplicate_match(agent, RuleBidder(competitive=True), "test", deals=40)
    assert match["imps_per_board"] == pytest.approx(result["vs_rules_imps_per_board"], abs=1e-9)
    with pytest.raises(ValueError, match="trained on 'competitive_bidding'"):
        DQNAgent.load(out, env_id="uncontested_bidding")
    records = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    evaluations = [r["eval"] for r in records if "eval" in r]
    assert [e["deals"] for e in evaluations] == [40, 40, 40]  # the starting network, then every 1600 steps
    pretrain = [r["pretrain"] for r in records if "pretrain" in r]
    assert len(pretrain) == 1 and pretrain[0]["demonstration_calls"] > 100 and pretrain[0]["agreement"] > 0.5
    snapshots = sorted((out / "snapshots").glob("model-*.msgpack"))
    assert [p.name for p in snapshots] == ["model-0000000000.msgpack", "model-0000001600.msgpack",
                                           "model-0000003200.msgpack"]

    last = DQNAgent.load(snapshots[-1])
    obs = np.random.default_rng(0).integers(0, 2, (5, 231)).astype(np.int8)
    assert np.array_equal(last.q_values(obs), agent.q_values(obs))


def test_competitive_resume_gives_the_same_run(tiny_competitive_run, tmp_path):
    out, overrides, _ = tiny_competitive_run
    kwargs = dict(preset="small", data="test", eval_data="test", overrides=overrides, chunk=50, progress=False,
                  command="pytest", eval_deals=40, eval_every_steps=1600, pretrain=TINY_PRETRAIN,
                  evaluate_agent=rule_baseline_evaluator("test", 40))
    train_competitive(tmp_path, steps=1600, **kwargs)
    train_competitive(tmp_path, steps=3200, resume=True, **kwargs)
    a, b = DQNAgent.load(out), DQNAgent.load(tmp_path)
    for x, y in zip(jax.tree.leaves(a._params), jax.tree.leaves(b._params)):
        assert np.array_equal(np.asarray(x), np.asarray(y))


def test_learning_curve_from_the_log(tiny_competitive_run, tmp_path, capsys):
    from bridgerl.cli import main
    from bridgerl.evaluation.reports.learning_curve import read_curve

    out, _, _ = tiny_competitive_run
    curve = read_curve(out)
    assert curve["env_steps"].tolist() == [0, 1600, 3200] and (curve["ci95"] > 0).all()
    png = tmp_path / "curve.png"
    assert main(["evaluate", "curve", str(out), "--labels", "tiny", "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "tiny: 3 evaluations" in capsys.readouterr().out
    assert main(["evaluate", "curve", str(out), "--out", str(png)]) == 2  # an existing plot is kept without --force
    assert "pass --force" in capsys.readouterr().err
    assert main(["evaluate", "curve", str(out), "--out", str(png), "--force"]) == 0
    (tmp_path / "empty.jsonl").write_text('{"env_steps": 0}\n')
    with pytest.raises(ValueError, match="no held-out evaluation"):
        read_curve(tmp_path / "empty.jsonl")


def test_constructive_bidder_while_the_opponents_pass(env, tmp_path):
    """A competitive DQN with a constructive (uncontested) DQN: silent opponents -> the uncontested DQN on the
    uncontested view, opening rules included; once they bid -> the competitive network. Saved and loaded together."""
    from pathlib import Path

    from bridgerl.agents.learned.checkpoint import save_weights
    from bridgerl.core.calls import uncontested_to_call
    from bridgerl.core import Auction
    from bridgerl.envs import AuctionView
    from bridgerl.envs.competitive_encoding import encode

    model = Path(__file__).resolve().parents[1] / "models" / "uncontested-dqn" / "model.msgpack"
    constructive = DQNAgent.load(model, env_id="uncontested_bidding")
    trainer = DQNTrainer(env, DQNConfig(hidden=(16,), num_envs=1), seed=0)
    metadata = {"env_id": "competitive_bidding", "observation_size": 231, "num_actions": 38, "hidden": [16],
                "dueling": False, "constructive": "helper.msgpack"}
    params = trainer.init(env).params
    save_weights(tmp_path / "model.msgpack", nnx.to_pure_dict(params), metadata)
    (tmp_path / "helper.msgpack").write_bytes(model.read_bytes())
    agent = DQNAgent.load(tmp_path)
    network_only = DQNAgent(nnx.merge(trainer.graphdef, params), {**metadata, "constructive": None})
    assert agent.constructive is not None and network_only.constructive is None

    rng = np.random.default_rng(0)
    checked = {"silent": 0, "contested": 0}
    for _ in range(40):
        hand = np.zeros(52, np.int8)
        hand[rng.choice(52, 13, replace=False)] = 1
        for auction in ("", "P", "1H P", "1C", "P 1S X", "1D P 1H"):
            calls = [parse_call(c) for c in auction.split()]
            obs, mask = encode(calls, False, True, hand), Auction.from_calls(0, calls).legal_mask()
            action = agent.act(obs, mask)
            assert mask[action]
            theirs = [c for i, c in enumerate(calls) if (len(calls) - i) % 2 == 1 and c >= 3]
            if theirs:
                assert action == network_only.act(obs, mask)
                checked["contested"] += 1
            else:
                view, mask36 = AuctionView.from_observation(obs, mask).uncontested()
                expected = uncontested_to_call(constructive.act(view, mask36)) if mask36.any() else 0
                assert action == expected
                checked["silent"] += 1
    assert checked["silent"] and checked["contested"]
    with pytest.raises(ValueError, match="constructive bidder is an uncontested DQN"):
        DQNAgent(nnx.merge(trainer.graphdef, params), metadata, constructive=network_only)
