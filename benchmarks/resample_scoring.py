"""What scoring a resampled whole deal costs (`bridgerl_bridge`'s ``resample_from_infostate``: the deal is not a
dataset row, so DDS works out what the score needs), beside the whole DD table as the anchor in the same run.

    python benchmarks/resample_scoring.py [--deals 50]

Reported per deal, on the bundled test deals, one process: ``play="double_dummy"`` needs declarer's tricks in the
final contract (`bridgerl.core.dd.solve_declarer_tricks`, one DDS search from the opening lead);
``reward="par_imps"`` needs the whole table and par (`solve_dd_table` and `par_score`).
"""

from __future__ import annotations

import argparse
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=50, help="deals timed (default 50)")
    args = parser.parse_args()
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    from bridgerl.core import load_dataset
    from bridgerl.core.dd import solve_dd_table, solve_declarer_tricks
    from bridgerl.core.par import par_score

    data = load_dataset("test")
    owners = data.owner[:args.deals]
    solve_dd_table(owners[0])  # warm-up: DDS's threads and tables, endplay's par import
    par_score(data.dd[0], "none", 0)
    start = time.perf_counter()
    for i, owner in enumerate(owners):
        assert solve_declarer_tricks(owner, i % 4, 4) == data.dd[i, i % 4, 4]
    one = (time.perf_counter() - start) / len(owners)
    start = time.perf_counter()
    for owner in owners:
        par_score(solve_dd_table(owner), "none", 0)
    table = (time.perf_counter() - start) / len(owners)
    print(f"{'what a resampled deal needs':52s} {'ms/deal':>8s} {'ratio':>6s}   ({len(owners)} deals)")
    print(f"{'the DD table and par (anchor; reward=par_imps)':52s} {table * 1e3:8.1f} {1.0:6.2f}")
    print(f"{'declarer tricks in one contract (play=double_dummy)':52s} {one * 1e3:8.1f} {one / table:6.2f}")


if __name__ == "__main__":
    main()
