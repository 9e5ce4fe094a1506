"""Calls per second of PPO training on fresh deals (issue #51) against the fixed table, same CPU, same recipe: the
anchor is `--reward playout` on the bundled train split's played table (every contract reached played out online),
measured in the same run; the table read as it is (`--reward table`) beside it.

    python benchmarks/fresh_training.py [--preset small] [--seconds 30] [--rounds 2]

Each trainer compiles its iteration, then whole compiled chunks are timed for about ``--seconds``; the trainers are
measured in turn, ``--rounds`` times (the best round of each kept), so a machine busy with other work slows them
alike. The card player is the one that made the bundled played tables (models/card-player).
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from training_devices import measure  # noqa: E402  (the benchmarks folder is not a package)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="small")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--chunk", type=int, default=2, help="compiled iterations per timed call")
    parser.add_argument("--start", default="models/competitive-played",
                        help="a PPO bidder of the preset's shape whose weights every trainer starts from (a trained "
                             "policy, as a run that cloned its teacher first: its auctions end as trained ones do); "
                             "'none': the untrained network")
    args = parser.parse_args()

    import jax

    from bridgerl.agents.learned.card_player import CardPlayer
    from bridgerl.core import load_dataset
    from bridgerl.envs import jaxenv
    from bridgerl.training import ppo

    data = load_dataset("train", tricks="played")
    player = CardPlayer.load(data.played_by["player"])
    config = ppo.PRESETS[args.preset]
    table_env = jaxenv.make("competitive_bidding", dataset=data)
    fresh_env = jaxenv.make("competitive_bidding", dataset="fresh", player=player, play_in_step=False)
    trainers = {
        "playout (fixed table, anchor)": (ppo.PPOTrainer(table_env, config.replace(playout=True), card_player=player),
                                          table_env),
        "table (fixed table, read)": (ppo.PPOTrainer(table_env, config), table_env),
        "fresh (duplicate vs self)": (ppo.PPOTrainer(fresh_env, config, card_player=player), fresh_env),
    }
    print(f"{jax.default_backend()} ({jax.devices()[0].device_kind}), {os.cpu_count()} cores, jax {jax.__version__}; "
          f"PPO preset {args.preset}: {config.num_envs} auctions x {config.rollout} calls an iteration, "
          f"hidden {config.hidden}; card player {data.played_by['player']} ({data.played_by['hash'][:12]})")
    params = None
    if args.start != "none":
        from bridgerl.agents import PPOAgent

        params = PPOAgent.load(args.start)._params
        print(f"every trainer starts from the weights of {args.start}")
    best = {name: 0.0 for name in trainers}
    for _ in range(args.rounds):
        for name, (trainer, env) in trainers.items():
            best[name] = max(best[name], measure(trainer, env, args.chunk, args.seconds, params))
    anchor = best["playout (fixed table, anchor)"]
    print(f"{'trainer':32s} {'calls/s':>9s} {'vs playout':>10s}")
    for name, rate in best.items():
        print(f"{name:32s} {rate:9.0f} {rate / anchor:10.2f}")


if __name__ == "__main__":
    main()
