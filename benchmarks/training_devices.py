"""Training env steps/s against the number of devices (`--devices`, data parallel with jax.sharding), the one-device
trainer (no mesh) as the anchor measured in the same run.

    python benchmarks/training_devices.py [--devices 1 2 4] [--algo dqn ppo] [--preset-dqn small] [--seconds 20]

On a CPU it forces ``max(--devices)`` host devices (XLA_FLAGS) before JAX starts, so the figures show what sharding
costs or buys on the cores this machine has; on a multi-GPU machine the devices are the GPUs. Each row compiles the
trainer's step, then times whole compiled chunks for about ``--seconds``. The global sizes (num_envs, batch) stay the
preset's whatever the number of devices.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def measure(trainer, env, chunk: int, seconds: float, params=None) -> float:
    """Env steps per second of ``trainer`` (started from ``params``, or its initial network) over whole compiled
    chunks for about ``seconds``, after one chunk that compiles (shared by `fresh_training.py`)."""
    import jax

    ts = trainer.place(trainer.init(env, params))
    ts, _ = trainer.run_steps(env, ts, chunk)  # compile, and fill the replay past min_replay
    jax.block_until_ready(ts)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        ts, _ = trainer.run_steps(env, ts, chunk)
        jax.block_until_ready(ts)
        steps += chunk * trainer.steps_per_iteration
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--devices", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--algo", nargs="+", choices=["dqn", "ppo"], default=["dqn", "ppo"])
    parser.add_argument("--preset-dqn", default="small")
    parser.add_argument("--preset-ppo", default="small")
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args()

    from bridgerl.devices import request_host_devices

    request_host_devices(max(args.devices))
    import jax

    from bridgerl.envs import jaxenv
    from bridgerl.training import dqn, ppo
    from bridgerl.training.sharding import data_mesh

    print(f"{jax.device_count()} {jax.default_backend()} devices ({jax.devices()[0].device_kind}), "
          f"{os.cpu_count()} cores, jax {jax.__version__}")
    print(f"{'trainer':28s} {'devices':>7s} {'env steps/s':>12s} {'ratio':>6s}")
    for algo in args.algo:
        if algo == "dqn":
            env, config = jaxenv.make("uncontested_bidding", dataset="train"), dqn.PRESETS[args.preset_dqn]
            make, chunk, name = (lambda mesh: dqn.DQNTrainer(env, config, mesh=mesh)), 100, f"DQN {args.preset_dqn}"
        else:
            env, config = jaxenv.make("competitive_bidding", dataset="train"), ppo.PRESETS[args.preset_ppo]
            make, chunk, name = (lambda mesh: ppo.PPOTrainer(env, config, mesh=mesh)), 2, f"PPO {args.preset_ppo}"
        anchor = None
        for devices in args.devices:
            rate = measure(make(data_mesh(devices)), env, chunk, args.seconds)
            anchor = anchor or rate
            print(f"{name:28s} {devices:7d} {rate:12,.0f} {rate / anchor:6.2f}", flush=True)


if __name__ == "__main__":
    main()
