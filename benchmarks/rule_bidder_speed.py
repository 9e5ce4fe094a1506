"""Calls per second of the Python rule bidders (`rules`, `sayc`) in lockstep self-play over held-out deals: the
figure behind issue #22's choice to keep rule opponents out of PPO's compiled loop (docs/results.md).

    python benchmarks/rule_bidder_speed.py [--deals 2000]
"""

import argparse
import time

import numpy as np

from bridgerl.evaluation.bidding.competitive import play_table
from bridgerl.arena.specs import load_agent
from bridgerl.core import load_dataset


class Counting:
    def __init__(self, agent):
        self.agent, self.calls, self.seconds = agent, 0, 0.0

    def act_batch(self, observations, masks):
        start = time.perf_counter()
        out = self.agent.act_batch(observations, masks)
        self.seconds += time.perf_counter() - start
        self.calls += len(observations)
        return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=2000)
    args = parser.parse_args()
    data = load_dataset("valid")
    rows = np.arange(min(args.deals, len(data)))
    for spec in ("rules", "sayc"):
        ns, ew = Counting(load_agent(spec, "competitive_bidding")), Counting(load_agent(spec, "competitive_bidding"))
        play_table(ns, ew, data, rows)
        calls, seconds = ns.calls + ew.calls, ns.seconds + ew.seconds
        print(f"{spec}: {calls} calls in {seconds:.2f} s: {calls / seconds:,.0f} calls/s, "
              f"{1e6 * seconds / calls:.0f} us per call (one core, batches of up to 256 auctions)")


if __name__ == "__main__":
    main()
