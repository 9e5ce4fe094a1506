"""Seconds to sample and weight 100 worlds against the DDS time of those 100 worlds, measured in the same run
(issue #20: goal <= 0.5x).

Positions: whole deals of the bundled test split bid by the rule bidders and played double dummy (made here with
`bridgerl data positions`' generator into a temporary file), every decision with a choice, thinned evenly to
``--positions``. At each: the worlds drawn uniformly (`sample_worlds`) and from the card-location model
(`sample_located_worlds`), the ISSN's weights of the network's worlds over the last T = 3 choices of the other
players (`PolicyModel.world_log_weights`), the SSN's values of those worlds, and the anchor: DDS on the same 100
worlds (`solve_positions`, every legal card of each distinct world, as PIMC calls it). Ratios are sums of seconds
over all positions, then by trick. A first untimed pass over the positions compiles every batch shape.

    python benchmarks/inference_speed.py --positions 200
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from bridgerl.agents.learned.card_location import LocationModel, sample_located_worlds
from bridgerl.agents.play.pimc import solve_worlds
from bridgerl.agents.learned.simulation import PolicyModel, SolverModel
from bridgerl.core.positions import load_positions
from bridgerl.envs import sample_worlds
from bridgerl.evaluation.datasets.positions import generate_positions

PARTS = ("uniform sampling", "network sampling", "ISSN weights (T=3)", "SSN values", "DDS (anchor)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200, help="decisions timed (default 200)")
    parser.add_argument("--deals", type=int, default=12, help="test deals played to find them (default 12)")
    parser.add_argument("--worlds", type=int, default=100)
    parser.add_argument("--location", default="models/card-location")
    parser.add_argument("--issn", default="models/issn")
    parser.add_argument("--ssn", default="models/ssn")
    args = parser.parse_args()
    location, issn, ssn = (LocationModel.load(args.location), PolicyModel.load(args.issn),
                           SolverModel.load(args.ssn))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "positions.npz"
        generate_positions(path, data="test", deals=args.deals, start=2000, ns="bid=rules,play=dd",
                           ew="bid=rules,play=dd", seed=0, progress=False)
        positions = load_positions(path)
    chosen = np.flatnonzero(positions.positions["choices"] > 1)
    chosen = chosen[np.linspace(0, len(chosen) - 1, min(args.positions, len(chosen))).astype(int)]
    seconds = np.zeros((len(chosen), len(PARTS)))
    tricks = positions.positions["step"][chosen] // 4 + 1
    for timed in (False, True):  # the first pass compiles the networks' batch shapes and fills caches
        rng = np.random.default_rng(0)
        for k, i in enumerate(chosen):
            view = positions.state(int(i)).view()
            clock = time.perf_counter()
            sample_worlds(view, args.worlds, seed=rng)
            seconds[k, 0] = time.perf_counter() - clock
            clock = time.perf_counter()
            worlds = sample_located_worlds(view, location, args.worlds, rng)
            seconds[k, 1] = time.perf_counter() - clock
            clock = time.perf_counter()
            issn.world_log_weights(view, worlds, 3)
            seconds[k, 2] = time.perf_counter() - clock
            clock = time.perf_counter()
            ssn.solve_worlds(view, worlds)
            seconds[k, 3] = time.perf_counter() - clock
            distinct = np.unique(worlds, axis=0)
            clock = time.perf_counter()
            solve_worlds(view, distinct)
            seconds[k, 4] = time.perf_counter() - clock
    print(f"{len(chosen)} decisions with a choice ({args.deals} test deals from row 2000, rules bidding, double-dummy "
          f"play), {args.worlds} worlds each; milliseconds per decision and ratio to DDS on the same worlds")
    groups = [("all", np.ones(len(chosen), bool))] + [(f"tricks {a}-{b}", (tricks >= a) & (tricks <= b))
                                                       for a, b in ((1, 3), (4, 7), (8, 13))]
    print(f"{'':18s}" + "".join(f"{name:>16s}" for name, _ in groups))
    for p, part in enumerate(PARTS):
        cells = []
        for _, mask in groups:
            ms = 1000 * seconds[mask, p].mean()
            ratio = seconds[mask, p].sum() / seconds[mask, 4].sum()
            cells.append(f"{ms:8.2f} {ratio:6.3f}x")
        print(f"{part:18s}" + "".join(f"{c:>16s}" for c in cells))
    for name, parts in (("network + ISSN", (1, 2)), ("uniform + ISSN", (0, 2))):
        cells = [f"{seconds[mask][:, parts].sum() / seconds[mask, 4].sum():6.3f}x" for _, mask in groups]
        print(f"{name:18s}" + "".join(f"{c:>16s}" for c in cells) + "   (goal <= 0.5x)")


if __name__ == "__main__":
    main()
