"""Played-tricks tables (issue #38): deals per second of `bridgerl data played` (the learned card player at all four
seats, 20 games a deal, batched in the JAX whole deal) beside raw DDS computing the DD tables of the same deals (the
anchor, measured in the same run), and how much the table moves when the level of the canonical auction changes.

    python benchmarks/played_tables.py [--model models/card-player] [--data valid] [--deals 1024]
                                       [--chunk 256] [--levels 1 4]

- ``speed``: `played_tables` on ``--deals`` rows (after one compiling chunk, which is not timed) and
  `solve_dd_tables` (DDS ``CalcAllTables``, its own threads) on the same rows; deals/s and the ratio.
- ``levels``: the same rows played with every contract bid at a fixed level (``--levels``) against the default
  ``dd`` level (DD tricks - 6, at least 1): the mean of the change, the mean absolute change and the share of the
  20 entries of a deal that change.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bridgerl.agents import CardPlayer
from bridgerl.core import load_dataset
from bridgerl.core.dd import solve_dd_tables
from bridgerl.evaluation.datasets.played import played_tables


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="models/card-player")
    parser.add_argument("--data", default="valid")
    parser.add_argument("--deals", type=int, default=1024)
    parser.add_argument("--chunk", type=int, default=256)
    parser.add_argument("--levels", type=int, nargs="*", default=[1, 4])
    args = parser.parse_args()
    player = CardPlayer.load(args.model)
    dataset = load_dataset(args.data)
    rows = np.arange(args.deals)
    played_tables(player, dataset, rows[:args.chunk], chunk=args.chunk)  # compiles (kept per player and chunk)
    start = time.perf_counter()
    table = played_tables(player, dataset, rows, chunk=args.chunk)
    played_rate = len(rows) / (time.perf_counter() - start)
    start = time.perf_counter()
    solve_dd_tables(dataset.owner[rows])
    dds_rate = len(rows) / (time.perf_counter() - start)
    print(f"played tables: {played_rate:,.1f} deals/s ({played_rate * 20:,.0f} games/s, chunks of {args.chunk}); "
          f"raw DDS tables (anchor): {dds_rate:,.1f} deals/s; ratio played/DDS {played_rate / dds_rate:.2f}")
    for level in args.levels:
        other = played_tables(player, dataset, rows, level=level, chunk=args.chunk).astype(np.int64)
        change = other - table.astype(np.int64)
        print(f"level {level} instead of the DD level: mean change {change.mean():+.3f} tricks, mean |change| "
              f"{np.abs(change).mean():.3f}, entries changed {(change != 0).mean():.1%} ({len(rows)} deals of "
              f"{args.data})")


if __name__ == "__main__":
    main()
