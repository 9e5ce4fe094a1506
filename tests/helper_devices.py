"""Run by tests/test_devices.py in a fresh process that sees 4 forced host devices: trains tiny DQN and PPO runs on
1 and 4 devices and on 4 devices in two halves (resumed), a competitive self-play DQN with a pool on 4 devices whole
and in halves, and prints what the test checks as JSON."""

import json
import os
import sys

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax  # noqa: E402
import numpy as np  # noqa: E402

from bridgerl.agents.learned.checkpoint import FORMAT, PPO_FORMAT, load_weights  # noqa: E402
from bridgerl.envs import jaxenv  # noqa: E402
from bridgerl.evaluation.bidding.competitive import rule_baseline_evaluator  # noqa: E402
from bridgerl.training.dqn import DQNConfig, DQNTrainer  # noqa: E402
from bridgerl.training.run import train_competitive, train_uncontested  # noqa: E402
from bridgerl.training.sharding import data_mesh  # noqa: E402

DQN_TINY = {"hidden": (32, 32), "batch_size": 16, "min_replay": 64, "num_envs": 8, "replay_size": 1000}
PPO_TINY = {"hidden": (16,), "num_envs": 8, "rollout": 8, "minibatches": 2, "epochs": 2, "pool_size": 3,
            "pool_every": 1}


def weights(run):
    """(metadata, params) of a run's model."""
    path = os.path.join(run, "model.msgpack")
    return load_weights(path, PPO_FORMAT if os.path.basename(run).startswith("p") else FORMAT)


def leaves(run):
    _, params = weights(run)
    return [np.asarray(leaf) for leaf in jax.tree.leaves(params)]


def compare(a, b):
    """(largest absolute difference, bit-identical) between two runs' networks."""
    x, y = leaves(a), leaves(b)
    return (max(float(np.abs(p - q).max()) for p, q in zip(x, y)),
            all(np.array_equal(p, q) for p, q in zip(x, y)))


def main(root: str) -> None:
    out = {"devices": jax.device_count()}
    dqn = dict(preset="small", data="test", eval_data="test", overrides=DQN_TINY, chunk=20, progress=False,
               command="test")
    runs = {name: os.path.join(root, name) for name in ("d1", "d4", "d4half", "p1", "p4", "p4half", "c4", "c4half")}
    results = {"d1": train_uncontested(runs["d1"], steps=1600, **dqn),
               "d4": train_uncontested(runs["d4"], steps=1600, devices=4, **dqn)}
    train_uncontested(runs["d4half"], steps=800, devices=4, **dqn)
    results["d4half"] = train_uncontested(runs["d4half"], steps=1600, devices=4, resume=True, **dqn)
    ppo = dict(preset="small", data="test", eval_data="test", overrides=PPO_TINY, chunk=2, progress=False,
               command="test", eval_deals=20, eval_every_steps=128, evaluate_agent=rule_baseline_evaluator("test", 20),
               algo="ppo")
    results["p1"] = train_competitive(runs["p1"], steps=256, **ppo)
    results["p4"] = train_competitive(runs["p4"], steps=256, devices="all", **ppo)
    train_competitive(runs["p4half"], steps=128, devices=4, **ppo)
    results["p4half"] = train_competitive(runs["p4half"], steps=256, devices=4, resume=True, **ppo)
    # competitive self-play DQN with a pool of past networks (the pool's opponent rows split like the envs)
    self_play = dict(preset="small", data="test", eval_data="test", chunk=10, progress=False, command="test",
                     overrides={"hidden": (16,), "num_envs": 8, "batch_size": 16, "min_replay": 64, "replay_size": 2000,
                                "pool_size": 2, "pool_every": 20}, eval_deals=20, eval_every_steps=640,
                     evaluate_agent=rule_baseline_evaluator("test", 20))
    results["c4"] = train_competitive(runs["c4"], steps=1280, devices=4, **self_play)
    train_competitive(runs["c4half"], steps=640, devices=4, **self_play)
    results["c4half"] = train_competitive(runs["c4half"], steps=1280, devices=4, resume=True, **self_play)
    out["finite"] = {name: bool(np.isfinite(r.get("imps_per_deal", r.get("vs_rules_imps_per_board"))))
                     for name, r in results.items()}
    out["dqn_1_vs_4"], out["dqn_resumed"] = compare(runs["d1"], runs["d4"]), compare(runs["d4"], runs["d4half"])
    out["ppo_1_vs_4"], out["ppo_resumed"] = compare(runs["p1"], runs["p4"]), compare(runs["p4"], runs["p4half"])
    out["self_play_resumed"] = compare(runs["c4"], runs["c4half"])
    out["model_devices"] = [weights(runs[name])[0].get("devices") for name in ("d1", "d4", "p4")]
    # the state really is laid out over the devices: env rows split, parameters replicated
    env = jaxenv.make("uncontested_bidding", dataset="test")
    trainer = DQNTrainer(env, DQNConfig(**DQN_TINY), mesh=data_mesh(4))
    ts = trainer.place(trainer.init(env))
    row = jax.tree.leaves(ts.env_state)[0]
    out["env_rows_per_device"] = sorted({shard.data.shape[0] for shard in row.addressable_shards})
    out["param_replicated"] = bool(jax.tree.leaves(ts.params)[0].sharding.is_fully_replicated)
    try:
        DQNTrainer(env, DQNConfig(**{**DQN_TINY, "num_envs": 6}), mesh=data_mesh(4))
    except ValueError as exc:
        out["indivisible"] = str(exc)
    print("RESULT " + json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1])
