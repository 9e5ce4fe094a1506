"""Seconds a call of ``bidsearch:`` (issue #65), unbatched, on one core: the base network bids the first ``--deals``
rows of ``valid`` at all four seats, and at every position the search decides (reseeded from the position, as the
evaluations reseed it): the median time of the calls it searched, the time of each stage (sampling the worlds,
rolling the candidates out, scoring), the share of calls searched and changed, and its fallbacks. The anchor, in the
same run: BASE's own call at the same positions (one forward pass), and the ratio.

    python benchmarks/bidsearch_speed.py --deals 30                      # the defaults, BASE models/competitive-student
    python benchmarks/bidsearch_speed.py --deals 30 --base ben:runs/ben  # BEN's network as BASE
    python benchmarks/bidsearch_speed.py --deals 30 --options score=played,

One core: the process is pinned to CPU 0 and XLA, BLAS and onnxruntime run one thread (set before JAX loads).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(name, "1")

import numpy as np  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--base", default="models/competitive-student")
    parser.add_argument("--options", default="", help="bidsearch options before base=, e.g. 'worlds=16,'")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    from bridgerl.arena.specs import load_agent
    from bridgerl.core import load_dataset
    from bridgerl.core.board import dealers_for_boards, vul_codes_for_boards, VULS
    from bridgerl.core.bridge import BridgeState
    from bridgerl.core.competitive import CompetitiveDeal

    spec = f"bidsearch:{args.options}base={args.base}"
    search = load_agent(spec, "competitive_bidding", seed=args.seed)
    base = search.base
    data = load_dataset("valid")
    boards = data.boards[:args.deals]
    dealers, vuls = dealers_for_boards(boards), vul_codes_for_boards(boards)
    positions = []
    for row in range(args.deals):
        state = BridgeState.start(CompetitiveDeal(data.owner[row], None, int(dealers[row]), VULS[int(vuls[row])],
                                                  int(boards[row]), row))
        while state.phase == "auction":
            obs, mask = state.auction_observation(), state.auction.legal_mask()
            positions.append((obs, mask))
            state = state.apply(int(search.decide(obs, mask).base_call))  # warm-up too: every shape compiled once
    search.stats = type(search.stats)()
    base_seconds = []
    for k, (obs, mask) in enumerate(positions):
        tick = time.perf_counter()
        from bridgerl.agents.learned.bidsearch import bidder_calls

        bidder_calls(base, obs[None], mask[None])
        base_seconds.append(time.perf_counter() - tick)
        search.reseed(int(np.random.SeedSequence([args.seed, k]).generate_state(1)[0]))
        search.decide(obs, mask)
    summary = search.stats.summary()
    median = summary["median_seconds_per_searched_call"]
    anchor = float(np.median(base_seconds))
    out = {"spec": spec, "deals": args.deals, "positions": len(positions), **summary,
           "base_median_seconds_per_call": anchor, "ratio_searched_over_base": median / max(anchor, 1e-12)}
    print(f"{spec}: {len(positions)} calls of {args.deals} valid deals bid by the base; searched "
          f"{summary['searched']} ({100 * summary['searched_share']:.0f}%), changed {summary['changed']}, "
          f"fallbacks {summary['fallbacks']}, mean ESS {summary['mean_ess']:.1f}")
    stages = summary["mean_seconds"]
    print(f"median {median:.3f} s a searched call (mean: sampling {stages['sampling']:.3f}, rollouts "
          f"{stages['rollouts']:.3f}, scoring {stages['scoring']:.3f}); the base's own call (anchor): "
          f"{anchor * 1000:.2f} ms; ratio {median / max(anchor, 1e-12):.0f}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(out, handle, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
