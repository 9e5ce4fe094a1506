"""Cost of ``rl_environment.Environment(game).reset()`` for every bridgerl OpenSpiel game that deals from a dataset,
on a dataset of ``--rows`` deals (default 100,000: the bundled training split repeated; the deals' content does not
change the cost of dealing).

    python benchmarks/openspiel_reset.py [--rows 100000] [--resets 2000]

A reset draws the deal through the game's chance nodes (a block of rows, then the row: `RowDealer`, about
2 x sqrt(N) outcomes listed in all) and builds the first time step (every player's observation tensor and legal
actions). Reported: the median and the 90th percentile over ``--resets`` resets, with OpenSpiel's C++ ``bridge``
(``use_double_dummy_result=False``; 52 chance moves deal it) beside them as the anchor of the same run.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

GAMES = ("bridgerl_uncontested_bidding", "bridgerl_competitive_bidding", "bridgerl_card_play", "bridgerl_bridge")


def big_dataset(rows: int, directory: Path) -> str:
    """A dataset file of ``rows`` deals: the bundled training split repeated."""
    from bridgerl.core import load_dataset, save_dataset
    from bridgerl.core.dataset import make_dataset

    train = load_dataset("train")
    take = np.arange(rows) % len(train)
    path = directory / f"rows{rows}.npz"
    save_dataset(path, make_dataset(train.owner[take], train.dd[take]))
    return str(path)


def reset_times(game, resets: int) -> np.ndarray:
    from open_spiel.python import rl_environment

    env = rl_environment.Environment(game)
    env.seed(0)
    for _ in range(20):  # warm-up: caches, lazy imports
        env.reset()
    times = np.empty(resets)
    for i in range(resets):
        start = time.perf_counter()
        env.reset()
        times[i] = time.perf_counter() - start
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=100_000, help="deals in the dataset (default 100,000)")
    parser.add_argument("--resets", type=int, default=2000, help="resets timed per game (default 2,000)")
    args = parser.parse_args()
    if args.rows < 1 or args.resets < 1:
        parser.error("--rows and --resets must be at least 1")
    import pyspiel

    import bridgerl.envs.openspiel  # noqa: F401  (registers the games)

    with tempfile.TemporaryDirectory() as tmp:
        path = big_dataset(args.rows, Path(tmp))
        table = [("OpenSpiel C++ bridge, use_double_dummy_result=False (anchor)",
                  pyspiel.load_game("bridge", {"use_double_dummy_result": False}))]
        table += [(f"{name} ({args.rows:,} rows)", pyspiel.load_game(name, {"dataset": path})) for name in GAMES]
        print(f"{'game':62s} {'median ms':>10s} {'p90 ms':>8s} {'outcomes':>9s}   ({args.resets} resets each)")
        for name, game in table:
            times = reset_times(game, args.resets) * 1e3
            state = game.new_initial_state()
            listed = 0
            while state.is_chance_node():
                outcomes = state.chance_outcomes()
                listed += len(outcomes)
                state.apply_action(outcomes[0][0])
            print(f"{name:62s} {np.median(times):10.3f} {np.percentile(times, 90):8.3f} {listed:9d}")


if __name__ == "__main__":
    main()
