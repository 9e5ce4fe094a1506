"""The exact best-defence search against αμ at full depth on random small endings of held-out deals: agreement and
time, in the same run.

    python benchmarks/best_defence.py [--positions 300] [--seed 1]

Positions: rows of the bundled test split, 3NT or 4S by South, played at random until two or three tricks are left
and the declaring side is to choose; every consistent world is used (at most 400). αμ runs without cuts at depth 8
(full depth for three tricks), so both compute the same best-defence values; αμ marks bounds 1e-6 below a value,
so values within 2e-6 agree.
"""

from __future__ import annotations

import argparse
import time

from bridgerl.agents import AlphaMuAgent, best_defence_values
from bridgerl.agents.play.best_defence import random_endings
from bridgerl.envs import sample_worlds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=300, help="dataset rows to try (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random play (default 1)")
    args = parser.parse_args()
    positions = cards = disagree = 0
    exact_seconds = alphamu_seconds = 0.0
    for view in random_endings("test", seed=args.seed, rows=range(args.positions)):
        worlds = sample_worlds(view, 401, seed=0)
        if len(worlds) > 400:
            continue
        start = time.perf_counter()
        values = best_defence_values(view)
        exact_seconds += time.perf_counter() - start
        start = time.perf_counter()
        alphamu, _ = AlphaMuAgent(8, len(worlds), seed=0, early_cut=False, root_cut=False).root_values(view, worlds)
        alphamu_seconds += time.perf_counter() - start
        positions += 1
        for card, value in values.items():
            if alphamu[card] >= 0:
                cards += 1
                disagree += abs(alphamu[card] - value) > 2e-6
    print(f"{positions} positions, {cards} root cards compared, {disagree} disagreements; "
          f"exact search {exact_seconds:.2f} s, alphamu at full depth {alphamu_seconds:.2f} s "
          f"({alphamu_seconds / max(exact_seconds, 1e-9):.1f}x)")


if __name__ == "__main__":
    main()
