"""Seconds per decision of `cardsearch` (issues #50, #66) beside PIMC with 20 worlds, the anchors, measured in the
same run on the same decisions (one `act` at a time, as a table asks; decisions with a real choice only).

    python benchmarks/card_search_speed.py [--specs cardsearch cardsearch:first=1] [--deals 10] [--decisions 30]

The decisions are those of ``--deals`` whole deals of the validation split, rules bidding, the released card player
at every seat. Prints each spec's seconds per decision and its ratio to PIMC-20's under the auction (issue #66's
anchor, ``pimc:worlds=20,auction=rules``), with plain PIMC-20 (issue #50's) beside it. Every spec first plays the
decisions once untimed, so JAX's compilations (``values=playout``'s engine compiles a few batch sizes) stay out.
"""

from __future__ import annotations

import argparse

from card_player_speed import decisions_per_second  # benchmarks/, run as a script

from bridgerl.core import load_dataset
from bridgerl.core.bridge import BridgeState
from bridgerl.core.competitive import CompetitiveDealSource
from bridgerl.arena.game import bid_auctions, play_out
from bridgerl.arena.specs import load_pair, load_play_agent


def decisions(deals: int, limit: int) -> list:
    source = CompetitiveDealSource(load_dataset("valid"))
    pair = load_pair("bid=rules,play=models/card-player", seed=0)
    views = []
    for row in range(deals):
        [state] = bid_auctions([BridgeState.start(source.deal_at(row))], [(pair, pair)], [row])
        if state.phase == "play":
            play_out(state, pair, pair, trace=lambda s, action, p: views.append(s.view()))
    return [v for v in views if len(v.equivalent_groups()) > 1][:limit]


def seconds_per_decision(spec: str, views: list) -> float:
    agent = load_play_agent(spec, seed=0)  # loads stay out of the timing
    for view in views:  # and compilations
        agent.act(view)
    return 1.0 / decisions_per_second(agent, views)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", nargs="+",
                        default=["cardsearch", "cardsearch:values=playout,worlds=16",
                                 "cardsearch:values=playout,worlds=16,engine=numpy"])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--decisions", type=int, default=30)
    args = parser.parse_args()
    views = decisions(args.deals, args.decisions)
    anchor = seconds_per_decision("pimc:worlds=20,auction=rules", views)
    print(f"{len(views)} decisions with a choice ({args.deals} valid deals, the released card player at every seat)")
    print(f"{'pimc:worlds=20,auction=rules (anchor)':40s} {anchor * 1000:9.1f} ms/decision")
    for spec in ["pimc:worlds=20"] + args.specs:
        seconds = seconds_per_decision(spec, views)
        print(f"{spec:40s} {seconds * 1000:9.1f} ms/decision  {seconds / anchor:6.2f} x the anchor")


if __name__ == "__main__":
    main()
