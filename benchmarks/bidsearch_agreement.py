"""Does ``score=estimator`` choose as ``score=played`` does? (issue #65's goal: the same call on at least 90% of 2,000
searched decisions on valid.)

The base bids rows of ``valid`` from ``--start`` at all four seats; at each position two searches with the same
settings and the same seed decide: one scoring the contracts by the trick estimator, one by `models/card-player`
playing every contract out in its world. They draw the same worlds and roll out the same auctions (the seed, the
candidates and the models are the same; only the scoring differs), so a disagreement is the estimator's. Counted over
the positions both searched (two candidates or more, no fallback) until ``--decisions`` of them; also the share of
those where each changed BASE's call, and the mean absolute difference of their candidates' IMPs.

    python benchmarks/bidsearch_agreement.py --decisions 2000 --json runs/bs/agreement.json

Resumable: the decisions are appended to ``--out`` (JSON lines) and a rerun with the same settings goes on from them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument("--base", default="models/competitive-student")
    parser.add_argument("--options", default="", help="bidsearch options before base=, e.g. 'estimator=PATH,'")
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/bs/agreement.jsonl")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    from bridgerl.arena.specs import load_agent
    from bridgerl.core import load_dataset
    from bridgerl.core.board import VULS, dealers_for_boards, vul_codes_for_boards
    from bridgerl.core.bridge import BridgeState
    from bridgerl.core.competitive import CompetitiveDeal

    estimator = load_agent(f"bidsearch:{args.options}score=estimator,base={args.base}", "competitive_bidding")
    played = load_agent(f"bidsearch:{args.options}score=played,base={args.base}", "competitive_bidding")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    settings = {"base": args.base, "options": args.options, "start": args.start, "seed": args.seed}
    done = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    if done and done[0] != {"settings": settings}:
        raise SystemExit(f"{out} holds another run ({done[0]}); choose another --out")
    if not done:
        out.write_text(json.dumps({"settings": settings}) + "\n")
        done = [{"settings": settings}]
    rows = done[1:]
    data = load_dataset("valid")
    row = args.start + (rows[-1]["row"] + 1 - args.start if rows else 0)
    searched = sum(r["both"] for r in rows)
    with open(out, "a") as handle:
        while searched < args.decisions and row < len(data):
            board = data.boards[row:row + 1]
            state = BridgeState.start(CompetitiveDeal(data.owner[row], None, int(dealers_for_boards(board)[0]),
                                                      VULS[int(vul_codes_for_boards(board)[0])], int(board[0]), row))
            found = []
            while state.phase == "auction":
                obs, mask = state.auction_observation(), state.auction.legal_mask()
                seed = int(np.random.SeedSequence([args.seed, row, len(state.auction.calls)]).generate_state(1)[0])
                estimator.reseed(seed)
                played.reseed(seed)
                a, b = estimator.decide(obs, mask), played.decide(obs, mask)
                both = a.searched and b.searched and not a.fallback and not b.fallback
                if both:
                    found.append({"same": a.call == b.call, "estimator_changed": a.call != a.base_call,
                                  "played_changed": b.call != b.base_call,
                                  "imps_difference": float(np.mean([abs(x[2] - y[2]) for x, y in
                                                                    zip(a.candidates, b.candidates)]))})
                state = state.apply(int(a.base_call))  # the base's auction: the same positions for both
            record = {"row": row, "both": len(found), "decisions": found}
            handle.write(json.dumps(record) + "\n")
            handle.flush()
            rows.append(record)
            searched += len(found)
            row += 1
    decisions = [d for r in rows for d in r["decisions"]]
    summary = {**settings, "rows": len(rows), "decisions": len(decisions),
               "same_call": float(np.mean([d["same"] for d in decisions])) if decisions else float("nan"),
               "estimator_changed": float(np.mean([d["estimator_changed"] for d in decisions])) if decisions else 0.0,
               "played_changed": float(np.mean([d["played_changed"] for d in decisions])) if decisions else 0.0,
               "mean_abs_imps_difference": float(np.mean([d["imps_difference"] for d in decisions]))
               if decisions else 0.0}
    print(f"{summary['decisions']} decisions searched by both ({summary['rows']} valid rows from {args.start}): "
          f"the same call in {100 * summary['same_call']:.1f}%; changed BASE's call: estimator "
          f"{100 * summary['estimator_changed']:.1f}%, played {100 * summary['played_changed']:.1f}%; candidates' "
          f"IMPs differ by {summary['mean_abs_imps_difference']:.2f} on average")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
