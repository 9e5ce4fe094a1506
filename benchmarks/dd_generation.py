"""Deals/s of `bridgerl data generate` (processes, or Ray workers with `--ray`) against raw
`endplay.dds.calc_all_tables`, measured in the same run.

    python benchmarks/dd_generation.py --deals 480 [--ray-workers 1 2]

The anchors are calc_all_tables on prebuilt endplay Deals in batches of 40 (DDS's limit): with DDS on one thread
(the per-core rate every row is compared with) and on all cores. The process routes are timed as the whole command
a user runs (process start, dealing, checkpoints, the file), divided by all the cores. The Ray route (one core per
worker) is timed in this process in two parts: solving (`generate` on a running local Ray instance: dealing, the
tasks, checkpoints, the file) and Ray's start and stop around it, a fixed cost of a few seconds whatever the job's
size; "whole" adds them. A multiple of 40 x workers deals keeps every worker busy to the end.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from endplay.dds import calc_all_tables

from bridgerl.core.dd import DDS_MAX_TABLES, owner_to_deal, set_dds_threads
from bridgerl.core.generate import deal_owners


def raw_dds(deals: int, seed: int, threads: int) -> float:
    prebuilt = [owner_to_deal(o) for o in deal_owners(seed, deals)]
    set_dds_threads(threads)
    start = time.perf_counter()
    for i in range(0, deals, DDS_MAX_TABLES):
        calc_all_tables(prebuilt[i:i + DDS_MAX_TABLES])
    return time.perf_counter() - start


def cli(deals: int, seed: int, *extra: str) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "bench.npz"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "bridgerl.cli", "data", "generate", "--deals", str(deals), "--seed",
                        str(seed), "--out", str(out), "--quiet", *extra], check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start


def ray_route(deals: int, seed: int, workers: int) -> tuple[float, float]:
    """(seconds solving, seconds of Ray's start and stop) of `generate --ray` with ``workers`` local workers."""
    import logging

    import ray

    from bridgerl.core.generate import generate

    start = time.perf_counter()
    ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False,
             logging_level=logging.ERROR)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp) / "bench.npz", deals, seed, workers=workers, progress=False, ray="local")
    solved = time.perf_counter()
    ray.shutdown()
    return solved - started, started - start + time.perf_counter() - solved


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=480)
    parser.add_argument("--seed", type=int, default=123)
    parser.add_argument("--ray-workers", type=int, nargs="*", default=[1, 2],
                        help="Ray rows to measure (none without Ray installed)")
    parser.add_argument("--no-processes", action="store_true", help="skip the process routes")
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    rows = [("raw calc_all_tables, 1 DDS thread (anchor)", raw_dds(args.deals, args.seed, 1), 1),
            (f"raw calc_all_tables, {cores} DDS threads", raw_dds(args.deals, args.seed, 0), cores)]
    if not args.no_processes:
        rows += [("bridgerl data generate", cli(args.deals, args.seed), cores),
                 (f"bridgerl data generate --workers {cores}", cli(args.deals, args.seed, "--workers", str(cores)),
                  cores)]
    for workers in args.ray_workers:
        solving, fixed = ray_route(args.deals, args.seed, workers)
        rows.append((f"data generate --ray --workers {workers} (solving)", solving, workers))
        rows.append((f"data generate --ray --workers {workers} (whole, +{fixed:.1f} s)", solving + fixed, workers))
    anchor = args.deals / rows[0][1]
    print(f"{args.deals} deals, seed {args.seed}, {cores} cores")
    print(f"{'':48s} {'seconds':>8s} {'deals/s':>8s} {'cores':>5s} {'deals/s/core':>13s} {'ratio':>6s}")
    for name, seconds, used in rows:
        rate = args.deals / seconds
        print(f"{name:48s} {seconds:8.2f} {rate:8.2f} {used:5d} {rate / used:13.2f} {rate / used / anchor:6.3f}")


if __name__ == "__main__":
    main()
