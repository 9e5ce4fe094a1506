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

import numpy as np

from bridgerl.agents import AlphaMuAgent, best_defence_values
from bridgerl.core import Contract, load_dataset
from bridgerl.core.play import PlayState
from bridgerl.envs import sample_worlds, view_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", type=int, default=300, help="dataset rows to try (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random play (default 1)")
    args = parser.parse_args()
    dataset = load_dataset("test")
    rng = np.random.default_rng(args.seed)
    positions = cards = disagree = 0
    exact_seconds = alphamu_seconds = 0.0
    for row in range(min(args.positions, len(dataset))):
        contract = Contract(3, 4, 0, 2) if row % 2 else Contract(4, 3, 0, 2)
        state = PlayState.start(dataset.owner[row], contract)
        left = int(rng.integers(2, 4))
        while not state.is_over and (len(state.tricks) < 13 - left or state.controller % 2 != 0):
            state = state.play(int(rng.choice(state.legal_cards())))
        if state.is_over:
            continue
        view = view_of(state)
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
