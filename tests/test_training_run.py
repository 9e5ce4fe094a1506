"""The training run's rough edges: RunConfig, the trainer told which seat's return it reports, training never
importing evaluation, one DQfD large-margin loss, a NaN loss stopping the run with the last good checkpoint kept,
resume refusing a missing run, naming every setting that differs and naming the command of a run another trainer
made."""

import ast
import json
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest
from flax import struct

import bridgerl.core.stats
from bridgerl.agents.learned.checkpoint import load_weights
from bridgerl.training import bidding_recipe, demonstrations, dqn, run
from bridgerl.training.dqn import DQNConfig, DQNTrainer
from bridgerl.training.run import RunConfig, TrainingDiverged, train, train_competitive, train_uncontested
from helper_games import TinyState

ROOT = Path(__file__).resolve().parent.parent
TINY = {"hidden": (8,), "num_envs": 16, "min_replay": 32, "replay_size": 2000, "batch_size": 16}


def _imports(directory: str) -> set[str]:
    names = set()
    for path in (ROOT / directory).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names.add(("." * node.level) + (node.module or ""))
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
    return names


def test_training_and_evaluation_do_not_import_each_other():
    assert not [name for name in _imports("training") if "evaluation" in name]
    assert not [name for name in _imports("evaluation") if "training" in name]


def test_one_copy_of_the_shared_pieces():
    assert dqn.large_margin_loss is demonstrations.large_margin_loss
    assert bidding_recipe.mean_ci is bridgerl.core.stats.mean_ci
    import bridgerl.arena.play as play

    assert play.mean_ci is bridgerl.core.stats.mean_ci and not hasattr(DQNTrainer, "greedy_returns")
    source = (ROOT / "evaluation" / "bidding" / "uncontested.py").read_text()
    assert "env._" not in source  # the outcome comes from the episode's final info, not the env's internals


def test_large_margin_loss_by_hand():
    rng = np.random.default_rng(0)
    q = rng.normal(size=(6, 5)).astype(np.float32)
    mask = rng.random((6, 5)) < 0.7
    action = np.array([0, 1, 2, 3, 4, 0])
    mask[np.arange(6), action] = True
    expert = np.array([True, True, False, True, True, False])
    loss = float(demonstrations.large_margin_loss(jnp.asarray(q), jnp.asarray(mask), jnp.asarray(action),
                                                  jnp.asarray(expert), 0.5))
    rows = [np.max(np.where(mask[i], q[i] + 0.5 * (np.arange(5) != action[i]), -np.inf)) - q[i, action[i]]
            for i in range(6) if expert[i]]
    assert loss == pytest.approx(np.mean(rows), rel=1e-6)


@struct.dataclass
class _OneCall:
    """One call by seat 2 ends the episode; only seat 2 is rewarded (-1 for action 0, -2 for action 1)."""

    observation_size: int = struct.field(pytree_node=False, default=2)
    num_actions: int = struct.field(pytree_node=False, default=2)

    def init(self, key, index=None):
        return TinyState(jnp.int32(2), jnp.array([1, 0], jnp.int8), jnp.array([True, True]), jnp.zeros(4, jnp.float32),
                      jnp.bool_(False))

    def step(self, state, action):
        rewards = jnp.zeros(4, jnp.float32).at[2].set(-1.0 - action)
        return TinyState(jnp.int32(2), jnp.array([0, 1], jnp.int8), jnp.array([False, False]), rewards, jnp.bool_(True))


def test_the_trainer_is_told_whose_return_it_reports():
    """Without self-play the return is the seat the finished episode names (it was seat 0 unless the env had 36
    calls); with self-play it is seat 0's (North-South), and only self-play allows an opponent pool."""
    env = _OneCall()
    config = DQNConfig(hidden=(4,), num_envs=4, min_replay=1000, eps_start=1.0, eps_end=1.0)
    for self_play, nonzero in ((False, True), (True, False)):
        trainer = DQNTrainer(env, config, seed=0, self_play=self_play)
        _, metrics = trainer.run_steps(env, trainer.init(env), 5)
        assert int(metrics.episodes.sum()) == 20
        assert (float(metrics.return_sum.sum()) < 0) == nonzero
    with pytest.raises(ValueError, match="opponent pool needs the competitive env"):
        DQNTrainer(env, config.replace(pool_size=2), self_play=False)
    DQNTrainer(env, config.replace(pool_size=2), self_play=True)


def test_run_config_checks_its_numbers():
    for bad in ({"steps": 0}, {"chunk": 0}, {"eval_deals": 0}, {"eval_every_steps": -1}, {"checkpoint_seconds": -1}):
        with pytest.raises(ValueError, match="must be"):
            RunConfig(out="x", **bad)


def test_competitive_training_needs_an_evaluator(tmp_path):
    with pytest.raises(ValueError, match="evaluate_agent"):
        train_competitive(tmp_path / "run", steps=32, data="test", overrides=TINY, progress=False)
    with pytest.raises(ValueError, match="evaluate_agent is for competitive training"):
        train(RunConfig(out=tmp_path / "run", steps=32, evaluate_agent=lambda agent: {}))
    assert not (tmp_path / "run").exists()


def test_resume_refuses_a_missing_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="no run to resume"):
        train_uncontested(tmp_path / "run", steps=32, data="test", overrides=TINY, progress=False, resume=True)
    assert not (tmp_path / "run").exists()


def test_resume_names_every_setting_that_differs(tmp_path):
    out = tmp_path / "run"
    train_uncontested(out, steps=32, data="test", eval_data="test", overrides=TINY, progress=False, command="x")
    with pytest.raises(ValueError) as error:
        train_uncontested(out, steps=32, seed=1, data="test", eval_data="test", progress=False, resume=True,
                          overrides={**TINY, "learning_rate": 1e-3, "batch_size": 8})
    message = str(error.value)
    assert "3 setting(s)" in message
    for key in ("config.batch_size: saved 16, now 8", "config.learning_rate", "seed: saved 0, now 1"):
        assert key in message, message


def test_a_nan_loss_stops_the_run_before_saving_it(tmp_path):
    out = tmp_path / "run"
    with pytest.raises(TrainingDiverged, match=r"training loss became nan at env step \d+; no checkpoint had been "
                                               r"saved in .*run yet"):
        train_uncontested(out, steps=320, data="test", eval_data="test", overrides={**TINY, "learning_rate": np.nan},
                          chunk=5, progress=False, command="x")
    assert not (out / "model.msgpack").exists() and not (out / "train_state.msgpack").exists()


def test_a_nan_loss_keeps_the_last_good_checkpoint(tmp_path, monkeypatch):
    """Every chunk is checkpointed (checkpoint_seconds=0); the third chunk's loss turns NaN at its second step."""
    real = DQNTrainer.run_steps
    calls = []

    def run_steps(self, env, ts, steps):
        ts, metrics = real(self, env, ts, steps)
        calls.append(steps)
        if len(calls) == 3:
            metrics = metrics.replace(loss=metrics.loss.at[1].set(jnp.nan))
        return ts, metrics

    monkeypatch.setattr(DQNTrainer, "run_steps", run_steps)
    out = tmp_path / "run"
    with pytest.raises(TrainingDiverged) as error:
        train_uncontested(out, steps=320, data="test", eval_data="test", overrides=TINY, chunk=5, progress=False,
                          command="x", checkpoint_seconds=0)
    assert str(error.value) == (f"training loss became nan at env step {2 * 80 + 2 * 16}; the last good checkpoint "
                                f"(env step 160) is kept in {out}")
    metadata, _ = load_weights(out / "model.msgpack")
    assert metadata["env_steps"] == 160
    assert [json.loads(line)["env_steps"] for line in (out / "log.jsonl").read_text().splitlines()] == [80, 160]
    # the saved state is the good one: resuming it (without the injected NaN) finishes the run
    monkeypatch.setattr(DQNTrainer, "run_steps", real)
    result = train_uncontested(out, steps=320, data="test", eval_data="test", overrides=TINY, chunk=5,
                               progress=False, command="x", resume=True)
    assert result["env_steps"] == 320 and np.isfinite(result["imps_per_deal"])


def test_a_resumed_bidder_run_logs_each_step_once(tmp_path):
    """A line written after the last checkpoint (a run killed between its log line and its checkpoint) is dropped
    when the run resumes (the one resume of every trainer, `training.state.resume_state`), so a learning curve
    reads every step once."""
    out = tmp_path / "run"
    train_uncontested(out, steps=160, data="test", eval_data="test", overrides=TINY, chunk=5, progress=False,
                      command="x", checkpoint_seconds=0)
    log = out / "log.jsonl"
    with open(log, "a") as handle:  # the line of a chunk whose checkpoint never came
        handle.write(json.dumps({"env_steps": 240, "updates": 0, "loss": 0.0}) + "\n")
    train_uncontested(out, steps=320, data="test", eval_data="test", overrides=TINY, chunk=5, progress=False,
                      command="x", resume=True)
    steps = [json.loads(line)["env_steps"] for line in log.read_text().splitlines()]
    assert steps == [80, 160, 240, 320] and len(set(steps)) == len(steps)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Tiny runs of three trainers (uncontested DQN, supervised card player, self-play card player), each made when a
    test first asks for it (``made(name)``: the uncontested one only in the slow tier), and the arguments (besides
    --out and --resume) of each `train` command of the test below."""
    from bridgerl.cli import main
    from bridgerl.core.dataset import load_dataset, make_dataset, save_dataset
    from helper_games import small_positions

    base = tmp_path_factory.mktemp("runs")
    test = load_dataset("test")
    deals = base / "deals.npz"
    save_dataset(deals, make_dataset(test.owner[:64], test.dd[:64], test.boards[:64]))
    positions = small_positions(tmp_path_factory, "train", 2, 100, "bid=rules,play=issn", 1)
    valid = small_positions(tmp_path_factory, "valid", 1, 0, "bid=rules,play=issn", 1)
    dqn = ["--data", str(deals), "--eval-data", str(deals), "--steps", "32", "--hidden", "8", "--num-envs", "16",
           "--min-replay", "32", "--replay-size", "2000", "--batch-size", "16", "--quiet"]
    supervised = ["--train", str(positions), "--valid", str(valid), "--hidden", "16", "--epochs", "1", "--batch-size",
                  "32", "--quiet"]
    selfplay = ["--init", str(base / "card-player"), "--deals", str(positions), "--valid", str(valid), "--tables", "4",
                "--updates", "1", "--minibatches", "2", "--eval-every", "1", "--warmup", "1", "--quiet"]
    commands = {"uncontested": dqn, "competitive --algo ppo": dqn[:6] + ["--quiet"], "card-player": supervised,
                "issn": supervised, "card-player-selfplay": selfplay}

    def made(name):
        if name == "card-player-selfplay":
            made("card-player")  # its --init
        if not (base / name).exists():
            assert main(["train", *name.split(), "--out", str(base / name), *commands[name]]) == 0, name
        return base / name

    return base, commands, made


# the saved uncontested DQN run in the slow tier (CI runs it; docs/conventions.md): the supervised and self-play runs
# here and a bidding run's saved state built by hand (test_cli_validation.py) stay in the default tier
@pytest.mark.parametrize("saved, command", [("card-player", "uncontested"), ("card-player", "competitive --algo ppo"),
                                            ("card-player", "issn"), ("card-player", "card-player-selfplay"),
                                            pytest.param("uncontested", "card-player", marks=pytest.mark.slow),
                                            ("card-player-selfplay", "card-player"),
                                            ("card-player-selfplay", "uncontested")])
def test_resume_on_a_run_of_another_trainer_names_its_command(runs, saved, command, capsys):
    """`--resume` on a run another `train` command made (the supervised and self-play trainers included): exit 2,
    one line naming the command found and the one that resumes it, nothing in the run touched."""
    from bridgerl.cli import main

    base, commands, made = runs
    out = made(saved)
    before = {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()}
    capsys.readouterr()
    assert main(["train", *command.split(), "--out", str(out), "--resume", *commands[command]]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "None" not in err[0] and "train bridge" not in err[0], err[0]
    assert err[0] == (f"bridgerl: error: {out / 'train_state.msgpack'}: --resume found a `train {saved}` run there, "
                      f"not a `train {command}` one; resume it with `bridgerl train {saved} --resume` and its "
                      "arguments, or choose another --out")
    assert {path.name: path.read_bytes() for path in out.iterdir() if path.is_file()} == before
    assert sorted(path.name for path in out.iterdir()) == sorted(before)
