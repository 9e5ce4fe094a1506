"""Decision-time search against the network it searches with (issue #21): the same deals bid by the greedy DQN and
by `search:MODEL` (agents.search), the paired IMPs/deal difference with its 95% CI, and the cost per decision of
each, measured in the same run (the anchor: the network's own greedy call, through the same evaluation loop).

    python benchmarks/search_bidding.py --model models/uncontested-critic --data valid --deals 5000 --samples 1024
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from bridgerl.core.stats import mean_ci
from bridgerl.arena.specs import load_agent
from bridgerl.evaluation.bidding.uncontested import evaluate_uncontested


class _Counted:
    """Counts the decisions an agent makes (one per call in `act`, rows in `act_batch`)."""

    def __init__(self, agent):
        self.agent, self.decisions = agent, 0

    def act(self, observation, action_mask):
        self.decisions += 1
        return self.agent.act(observation, action_mask)

    def act_batch(self, observations, action_masks):
        self.decisions += len(observations)
        return self.agent.act_batch(observations, action_masks)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a run or model directory with model.msgpack and critic.msgpack")
    parser.add_argument("--data", default="valid", help="bundled split or .npz (default valid)")
    parser.add_argument("--deals", type=int, default=1000, help="first N rows (default 1000)")
    parser.add_argument("--samples", type=int, default=1024, help="partner hands sampled per decision")
    parser.add_argument("--min-kept", type=int, default=8, help="fewer kept hands: the network's own call")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="write the figures as JSON")
    args = parser.parse_args(argv)
    rows = {}
    for name, spec in (("network", f"dqn:{args.model}"),
                       ("search", f"search:{args.model},samples={args.samples},min_kept={args.min_kept}")):
        agent = _Counted(load_agent(spec, seed=args.seed))
        start = time.perf_counter()
        summary, outcomes = evaluate_uncontested(agent, args.data, deals=args.deals, agent_name=name)
        seconds = time.perf_counter() - start
        rows[name] = {"spec": spec, "imps_per_deal": summary["imps_per_deal"], "ci95": summary["ci95"],
                      "deals": summary["deals"], "decisions": agent.decisions,
                      "ms_per_decision": 1000 * seconds / max(agent.decisions, 1), "seconds": seconds,
                      "imps": np.array([o.imps for o in outcomes], dtype=np.float64)}
        kept = getattr(agent.agent, "kept", None)
        if kept:
            rows[name]["mean_kept_hands"] = float(np.mean(kept))
            rows[name]["fallback_share"] = float(np.mean(np.array(kept) < args.min_kept))
    difference, ci = mean_ci(rows["search"]["imps"] - rows["network"]["imps"])
    for name, row in rows.items():
        extra = ""
        if "mean_kept_hands" in row:
            extra = (f", {row['mean_kept_hands']:.0f} of {args.samples} hands kept on average, "
                     f"{100 * row['fallback_share']:.1f}% of decisions fell back on the network")
        print(f"{name:8s} {row['imps_per_deal']:+.2f} +/- {row['ci95']:.2f} IMPs/deal over {row['deals']} deals of "
              f"{args.data}; {row['decisions']} decisions, {row['ms_per_decision']:.2f} ms each{extra}")
    ratio = rows["search"]["ms_per_decision"] / rows["network"]["ms_per_decision"]
    print(f"search - network: {difference:+.3f} +/- {ci:.3f} IMPs/deal (paired, 95% CI); search costs {ratio:.0f}x "
          f"the network's time per decision")
    if args.json:
        from bridgerl.core.files import atomic_write_text

        payload = {name: {k: v for k, v in row.items() if k != "imps"} for name, row in rows.items()}
        payload["difference"] = {"imps_per_deal": difference, "ci95": ci, "time_ratio": ratio}
        atomic_write_text(args.json, json.dumps(payload, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
