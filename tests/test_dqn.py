"""DQN: network shapes, masking, TD targets on a tiny MDP with known Q*, checkpoints, resume determinism."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from flax import nnx, struct

from bridgerl.agents.learned.dqn import DQNAgent
from bridgerl.agents.learned.networks import QNetwork, masked_argmax
from bridgerl.training.dqn import DQNConfig, DQNTrainer
from bridgerl.training.run import train_uncontested
from helper_games import TinyState


def test_network_shapes():
    for dueling in (False, True):
        net = QNetwork(89, (64, 32), 36, dueling=dueling)
        assert net(jnp.zeros((5, 89), jnp.int8)).shape == (5, 36)
    thesis = QNetwork(89, (1024,) * 4, 36)
    params = sum(x.size for x in jax.tree.leaves(nnx.state(thesis)))
    assert params == 89 * 1024 + 1024 + 3 * (1024 * 1024 + 1024) + 1024 * 36 + 36


def test_masked_argmax_never_picks_illegal():
    q = jnp.array([[5.0, 1.0, 9.0], [0.0, -1.0, -2.0]])
    mask = jnp.array([[True, True, False], [False, True, True]])
    assert masked_argmax(q, mask).tolist() == [0, 1]


@struct.dataclass
class TinyMDP:
    """Two decisions with known Q*. State 0: action 0 ends with -1, action 1 leads to state 1. State 1: action 0
    ends with -3, action 1 ends with -2. Action 2 is never legal. Q*(0) = (-1, -2), Q*(1) = (-3, -2)."""

    observation_size: int = struct.field(pytree_node=False, default=2)
    num_actions: int = struct.field(pytree_node=False, default=3)

    def init(self, key, index=None):
        return TinyState(jnp.int32(0), jnp.array([1, 0], jnp.int8), jnp.array([True, True, False]),
                         jnp.zeros(4, jnp.float32), jnp.bool_(False))

    def step(self, state, action):
        at_start = state.observation[0] == 1
        ends = ~at_start | (action == 0)
        reward = jnp.where(at_start, -1.0, jnp.where(action == 0, -3.0, -2.0))
        return TinyState(jnp.int32(0), jnp.array([0, 1], jnp.int8), jnp.where(ends, False, jnp.array([True, True, False])),
                         jnp.where(ends, reward, 0.0) * jnp.ones(4, jnp.float32), ends)


@pytest.mark.parametrize("transitions, double_q", [("seat", False), ("team", True)])
def test_q_learning_reaches_known_values(transitions, double_q):
    env = TinyMDP()
    config = DQNConfig(hidden=(16,), learning_rate=3e-3, batch_size=32, replay_size=2000, min_replay=64, num_envs=8,
                       target_every=20, eps_start=1.0, eps_end=1.0, eps_decay_steps=1, transitions=transitions,
                       double_q=double_q)
    trainer = DQNTrainer(env, config, seed=0)
    ts = trainer.init(env)
    for _ in range(6):
        ts, metrics = trainer.run_steps(env, ts, 250)
    q = np.asarray(trainer.q_values(ts.params, jnp.array([[1, 0], [0, 1]], jnp.int8)))
    assert np.allclose(q[:, :2], [[-1, -2], [-3, -2]], atol=0.15), q
    # exploring with epsilon 1 only ever stores legal actions
    stored = np.asarray(ts.replay.data.action[: int(ts.replay.size)])
    assert set(np.unique(stored)) <= {0, 1}


def test_exploration_respects_the_mask():
    from bridgerl.envs import jaxenv

    env = jaxenv.make("uncontested_bidding", dataset="test")
    trainer = DQNTrainer(env, DQNConfig(hidden=(8,), num_envs=256), seed=0)
    ts = trainer.init(env)
    state = ts.env_state
    for epsilon in (1.0, 0.5, 0.0):
        for i in range(5):
            state = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(i), 256))
            action = trainer._act(ts, state, jax.random.PRNGKey(100 + i), epsilon)
            assert np.asarray(state.legal_action_mask)[np.arange(256), np.asarray(action)].all()


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    overrides = {"hidden": (16,), "num_envs": 16, "min_replay": 64, "replay_size": 4000}
    result = train_uncontested(out, preset="small", steps=3200, data="test", eval_data="test", overrides=overrides,
                               chunk=50, progress=False, command="pytest")
    return out, overrides, result


def test_checkpoint_round_trip(tiny_run):
    out, _, result = tiny_run
    agent = DQNAgent.load(out, env_id="uncontested_bidding")
    assert agent.metadata["command"] == "pytest" and agent.metadata["observation_size"] == 89
    obs = np.random.default_rng(0).integers(0, 2, (7, 89)).astype(np.int8)
    mask = np.ones((7, 36), bool)
    mask[:, 0] = False
    actions = agent.act_batch(obs, mask)
    assert (actions != 0).all() and actions.shape == (7,)
    from bridgerl.evaluation.bidding.uncontested import evaluate_uncontested

    summary, _ = evaluate_uncontested(agent, "test")
    assert summary["imps_per_deal"] == pytest.approx(result["imps_per_deal"], abs=1e-9)  # Python env == JAX env
    with pytest.raises(ValueError, match="trained on 'uncontested_bidding'"):
        DQNAgent.load(out, env_id="competitive_bidding")
    with pytest.raises(ValueError, match="takes 89 observation values"):
        agent.act(np.zeros(231), np.ones(38))


def test_half_precision_weights(tiny_run, tmp_path):
    from bridgerl.agents.learned.checkpoint import load_weights, save_weights

    out, _, _ = tiny_run
    metadata, params = load_weights(out / "model.msgpack")
    save_weights(tmp_path / "half.msgpack", params, metadata, dtype="bfloat16")
    half = DQNAgent.load(tmp_path / "half.msgpack")
    full = DQNAgent.load(out)
    obs = np.random.default_rng(1).integers(0, 2, (50, 89)).astype(np.int8)
    assert np.abs(half.q_values(obs) - full.q_values(obs)).max() < 0.1
    assert (tmp_path / "half.msgpack").stat().st_size < (out / "model.msgpack").stat().st_size
    (tmp_path / "bad.msgpack").write_bytes(b"nope")
    with pytest.raises(ValueError, match="not a readable DQN checkpoint"):
        DQNAgent.load(tmp_path / "bad.msgpack")


def test_resume_gives_the_same_run(tiny_run, tmp_path):
    out, overrides, _ = tiny_run
    half = tmp_path / "half"
    train_uncontested(half, preset="small", steps=1600, data="test", eval_data="test", overrides=overrides,
                      chunk=50, progress=False, command="pytest")
    # continue the same run to 3200 steps
    train_uncontested(half, preset="small", steps=3200, data="test", eval_data="test", overrides=overrides,
                      chunk=50, progress=False, command="pytest", resume=True)
    a = DQNAgent.load(out)
    b = DQNAgent.load(half)
    for x, y in zip(jax.tree.leaves(a._params), jax.tree.leaves(b._params)):
        assert np.array_equal(np.asarray(x), np.asarray(y))
    with pytest.raises(FileExistsError, match="pass --resume"):
        train_uncontested(half, preset="small", steps=3200, data="test", overrides=overrides, progress=False)


def test_a_directory_holding_a_model_is_not_overwritten(tiny_run, tmp_path):
    """A released model copied into --out (model.msgpack, no train state) is not replaced without --force; --force
    starts a fresh run and drops the old log."""
    out, overrides, _ = tiny_run
    target = tmp_path / "release"
    target.mkdir()
    (target / "model.msgpack").write_bytes((out / "model.msgpack").read_bytes())
    (target / "log.jsonl").write_text('{"old": true}\n')
    before = (target / "model.msgpack").read_bytes()
    with pytest.raises(FileExistsError, match="--force to replace it"):
        train_uncontested(target, preset="small", steps=64, data="test", overrides=overrides, progress=False)
    assert (target / "model.msgpack").read_bytes() == before
    with pytest.raises(ValueError, match="give one of them"):
        train_uncontested(target, preset="small", steps=64, data="test", overrides=overrides, progress=False,
                          resume=True, force=True)
    train_uncontested(target, preset="small", steps=64, data="test", eval_data="test", overrides=overrides,
                      chunk=2, progress=False, command="pytest", force=True)
    assert '"old"' not in (target / "log.jsonl").read_text() and (target / "train_state.msgpack").exists()


def test_eval_every_sets_the_held_out_evaluations(tmp_path):
    import json

    overrides = {"hidden": (16,), "num_envs": 16, "min_replay": 64, "replay_size": 4000}
    train_uncontested(tmp_path, preset="small", steps=3200, data="test", eval_data="test", overrides=overrides,
                      chunk=50, progress=False, command="pytest", eval_every_steps=800)
    records = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    assert [r["env_steps"] for r in records if "eval" in r] == [800, 1600, 2400, 3200]


@pytest.mark.parametrize("command", ["uncontested", pytest.param("competitive", marks=pytest.mark.slow)])
def test_train_command_line_parses_its_flags(command, tmp_path, capsys):
    """The README's main job goes through `bridgerl train uncontested`: every flag of each train command is read
    (a flag of one command missing from the other once broke the uncontested command)."""
    from bridgerl.cli import main

    out = tmp_path / command
    args = ["train", command, "--out", str(out), "--steps", "64", "--data", "test", "--hidden", "8",
            "--num-envs", "32", "--min-replay", "32", "--dueling", "--quiet"]
    if command == "competitive":
        args += ["--pool-size", "2", "--pool-anchor", "--eval-deals", "8"]
    assert main(args) == 0
    assert (out / "model.msgpack").exists()
    assert "model:" in capsys.readouterr().out
