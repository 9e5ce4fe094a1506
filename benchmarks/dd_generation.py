"""Deals/s/core of `bridgerl data generate` against raw `endplay.dds.calc_all_tables`, measured in the same run.

Both solve the same deals on all cores. The anchor is calc_all_tables on prebuilt endplay Deals in batches of 40
(DDS's limit); the CLI figure is the whole command as a user runs it (process start, dealing, checkpoints, file).

    python benchmarks/dd_generation.py --deals 400
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

from bridgerl.core.dd import DDS_MAX_TABLES, owner_to_deal
from bridgerl.core.generate import deal_owners


def raw_dds(deals: int, seed: int) -> float:
    prebuilt = [owner_to_deal(o) for o in deal_owners(seed, deals)]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=400)
    parser.add_argument("--seed", type=int, default=123)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    rows = [("raw calc_all_tables (anchor)", raw_dds(args.deals, args.seed)),
            ("bridgerl data generate", cli(args.deals, args.seed)),
            (f"bridgerl data generate --workers {cores}", cli(args.deals, args.seed, "--workers", str(cores)))]
    anchor = args.deals / rows[0][1] / cores
    print(f"{args.deals} deals, seed {args.seed}, {cores} cores")
    print(f"{'':42s} {'seconds':>8s} {'deals/s/core':>13s} {'ratio':>6s}")
    for name, seconds in rows:
        rate = args.deals / seconds / cores
        print(f"{name:42s} {seconds:8.2f} {rate:13.2f} {rate / anchor:6.3f}")


if __name__ == "__main__":
    main()
