"""How close auction-aware worlds come to the real hidden hands (thesis 3.3.4, InterpretAuction).

On held-out deals a natural system's bidder (``--system rules``: ``RuleBidder(competitive=True)``; ``sayc``:
``SAYCBidder()``) bids at all four seats
(`bridgerl.core.bridge.BridgeState`, deals from `CompetitiveDealSource`); passed-out deals are skipped. The opening
lead is a random legal card (seeded); the position measured is declarer's first decision, dummy's card at trick 1,
where declarer sees its own hand and dummy's and the two defenders are hidden. For each method, ``--worlds`` worlds
are sampled there and each defender's hand in each world is compared with the real one:

- HCP within 2: the share of sampled hidden hands whose HCP is within +-2 of the real hand's;
- HCP error: the mean absolute HCP difference; length error: the mean absolute suit-length difference (per suit);
- shape within 1: the share whose four suit lengths are each within 1 of the real ones;
- worlds/s: worlds sampled per second (sampling only, no solving);
- fallbacks: rules, the share of samples where the auction's constraints met no world (sampled without them);
  policy, the share of samples that had to fill up with near misses (or unconstrained worlds).

Methods: none (`sample_worlds`, the auction ignored), rules (`rules_worlds` with the system's agreements: PIMC's
``auction=rules``, or ``auction=sayc``), policy (`policy_worlds`, the system's bidder replayed on unconstrained
candidates; what ``PIMCAgent(auction="policy")`` does) and policy-rules (the same on candidates from
`rules_worlds` with the rules system's agreements, ``prior="rules"``). "real hand in the system's constraints" is
the share of hidden hands the system's readings admit (`interpret_auction`, `sayc_constraints`).

    python benchmarks/auction_worlds.py --data test --deals 200 --worlds 20 --seed 0
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bridgerl.agents import RuleBidder, SAYCBidder
from bridgerl.agents.bidding.rules_agreements import interpret_auction
from bridgerl.agents.bidding.sayc import sayc_constraints
from bridgerl.agents.play.auction_worlds import SamplingStats, policy_worlds, rules_worlds
from bridgerl.core import load_dataset
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.competitive import CompetitiveDealSource
from bridgerl.core.hand import hcp, suit_lengths
from bridgerl.envs import sample_worlds

METHODS = ("none", "rules", "policy", "policy-rules")
SYSTEMS = ("rules", "sayc")


def positions(data: str, deals: int, seed: int, system: str = "rules"):
    """(state at declarer's first decision, the bidder) for the first ``deals`` deals of ``data`` not passed out,
    bid by ``system``'s bidder at all four seats."""
    dataset = load_dataset(data)
    source = CompetitiveDealSource(dataset)
    bidder = RuleBidder(competitive=True) if system == "rules" else SAYCBidder()
    rng = np.random.default_rng(seed)
    found = skipped = 0
    for row in range(len(dataset)):
        if found >= deals:
            break
        state = BridgeState.start(source.deal_at(row))
        while state.phase == "auction":
            state = state.apply(bidder.act_view(state.view()))
        if state.phase != "play":
            skipped += 1
            continue
        lead = state.view().legal
        state = state.apply(CARD_OFFSET + int(lead[rng.integers(len(lead))]))
        found += 1
        yield state, bidder
    positions.skipped = skipped


def measure(states, method: str, worlds: int, seed: int, max_candidates: int, system: str = "rules") -> dict:
    rng = np.random.default_rng(seed)
    stats = SamplingStats()
    seconds, within, hcp_err, len_err, shape, count, samples = 0.0, 0, 0.0, 0.0, 0, 0, 0
    for state, bidder in states:
        view = state.view()
        hidden = [s for s in range(4) if s not in view.known_hands()]
        start = time.perf_counter()
        if method == "none":
            owners = sample_worlds(view, worlds, seed=rng)
        elif method == "rules":
            owners = rules_worlds(view, worlds, seed=rng, stats=stats, system=system)
        else:
            owners = policy_worlds(view, worlds, {s: bidder for s in range(4)}, seed=rng,
                                   prior="rules" if method == "policy-rules" else "none",
                                   max_candidates=max_candidates, stats=stats)
        seconds += time.perf_counter() - start
        samples += 1
        real = state.deal.owner
        for seat in hidden:
            points = hcp(owners, seat)
            lengths = suit_lengths(owners, seat)
            diff = np.abs(points - hcp(real, seat))
            ldiff = np.abs(lengths - suit_lengths(real, seat))
            within += int((diff <= 2).sum())
            hcp_err += float(diff.sum())
            len_err += float(ldiff.mean(1).sum())
            shape += int((ldiff <= 1).all(1).sum())
            count += len(owners)
    if method == "rules":
        fallbacks = stats.rules_fallbacks / max(samples, 1)
    elif method.startswith("policy"):
        fallbacks = (stats.near_miss_samples + stats.unconstrained_samples) / max(samples, 1)
    else:
        fallbacks = 0.0
    return {"method": method, "hcp_within_2": within / count, "hcp_error": hcp_err / count,
            "length_error": len_err / count, "shape_within_1": shape / count,
            "worlds_per_second": stats.worlds / seconds if method != "none" else count / len(hidden) / seconds,
            "fallbacks": fallbacks, "samples": samples, "stats": stats}


def admitted(states, system: str = "rules") -> float:
    """Share of hidden hands that the system's constraints (`interpret_auction`, `sayc_constraints`) admit."""
    ok = total = 0
    for state, _ in states:
        view = state.view()
        hidden = [s for s in range(4) if s not in view.known_hands()]
        read = (interpret_auction(state.auction, state.deal.vul, hidden) if system == "rules" else
                sayc_constraints(state.auction, hidden))
        for seat, constraint in read.items():
            ok += int(constraint.accepts(state.deal.owner[None], seat)[0])
            total += 1
    return ok / max(total, 1)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="test", help="bundled split or .npz path (default test)")
    parser.add_argument("--deals", type=int, default=200, help="deals measured, passed-out ones skipped (200)")
    parser.add_argument("--worlds", type=int, default=20, help="worlds sampled per position (20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-candidates", type=int, default=2000, help="policy: candidates per sample (2000)")
    parser.add_argument("--methods", default=",".join(METHODS), help=f"comma-separated, of {', '.join(METHODS)}")
    parser.add_argument("--system", default="rules", choices=SYSTEMS,
                        help="the natural system that bids and whose agreements the rules method reads (rules)")
    args = parser.parse_args(argv)
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in METHODS]
    if unknown:
        parser.error(f"unknown methods {unknown}; choose from {METHODS}")
    states = list(positions(args.data, args.deals, args.seed, args.system))
    print(f"{len(states)} positions (declarer's first decision) from {args.data}, "
          f"{positions.skipped} passed-out deals skipped; {args.worlds} worlds each; seed {args.seed}")
    print(f"bid by {args.system}; real hand in {args.system} constraints: {admitted(states, args.system):.1%} "
          f"of hidden hands")
    print()
    print("| method | HCP within 2 | HCP error | length error | shape within 1 | worlds/s | fallbacks |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    results = []
    for method in methods:
        r = measure(states, method, args.worlds, args.seed, args.max_candidates, args.system)
        results.append(r)
        print(f"| {method} | {r['hcp_within_2']:.1%} | {r['hcp_error']:.2f} | {r['length_error']:.2f} | "
              f"{r['shape_within_1']:.1%} | {r['worlds_per_second']:,.0f} | {r['fallbacks']:.1%} |", flush=True)
    print()
    for r in results:
        if r["method"] != "none":
            s = r["stats"]
            print(f"{r['method']}: " + ", ".join(f"{k} {v}" for k, v in s.as_dict().items()))


if __name__ == "__main__":
    main()
