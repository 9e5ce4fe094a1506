"""Seconds per decision of `cardsearch` (issues #50, #66) beside PIMC with 20 worlds, the anchors, measured in the
same run on the same decisions (one `act` at a time, as a table asks; decisions with a real choice only).

    python benchmarks/card_search_speed.py [--specs cardsearch cardsearch:first=1] [--deals 10] [--decisions 30]
        [--batches 16 64 256] [--profile cardsearch "pimc:worlds=4,auction=rules"]

The decisions are those of ``--deals`` whole deals of the validation split, rules bidding, the released card player
at every seat. Prints each spec's seconds per decision and its ratio to PIMC-20's under the auction (issue #66's
anchor, ``pimc:worlds=20,auction=rules``), with plain PIMC-20 (issue #50's) beside it. Every spec first plays the
decisions once untimed, so JAX's compilations (``values=playout``'s engine compiles a few batch sizes) stay out.

Then the batched throughput (``--batches``): play-out cards a second of `values=playout`'s two engines with many
(world, candidate) rows at once, beside DDS's positions a second on the same decisions' worlds (what PIMC and
``values=dds`` spend), all in this run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

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


def time_shares(spec: str, views: list) -> tuple[float, dict]:
    """(ms a decision, {part: share of the time}) of ``spec`` over ``views`` under cProfile: DDS (``solve_worlds``),
    drawing the worlds (``draw_worlds``) and the rest (the network, Python). The profiler slows Python calls, so
    the shares are a guide, the seconds above the measure."""
    import cProfile
    import pstats

    agent = load_play_agent(spec, seed=0)
    for view in views:  # loads and compilations out
        agent.act(view)
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    for view in views:
        agent.act(view)
    profile.disable()
    total = time.perf_counter() - start
    stats = pstats.Stats(profile).stats
    spent = {part: sum(row[3] for (path, _, name), row in stats.items() if name == function and "agents/play" in path)
             for part, function in (("DDS", "solve_worlds"), ("drawing worlds", "draw_worlds"))}
    shares = {part: seconds / total for part, seconds in spent.items()}
    shares["the rest"] = 1.0 - sum(shares.values())
    return 1000 * total / len(views), shares


def batched_rates(views: list, rows: int, seconds: float = 3.0) -> tuple[float, float, float]:
    """(JAX play-out cards/s, numpy play-out cards/s, DDS positions/s) with ``rows`` worlds at once of each decision
    (one candidate, the card player's), decisions taken in turn for about ``seconds`` each."""
    from bridgerl.agents.play.card_search import CardSearch
    from bridgerl.agents.play.pimc import draw_worlds, solve_worlds
    from bridgerl.agents.play.playout import JaxPlayouts

    search = CardSearch(values="playout", worlds=rows, engine="numpy", seed=0)
    playouts = JaxPlayouts(search.player)
    rng = np.random.default_rng(0)
    worlds = []
    for view in views:
        drawn = draw_worlds(view, rows, rng)
        worlds.append(drawn[np.arange(rows) % len(drawn)])
    candidates = [[int(search.player.act(view))] for view in views]
    playouts.play(views[0], worlds[0], candidates[0])  # compile

    def rate(work) -> float:
        done, start, i = 0, time.perf_counter(), 0
        while time.perf_counter() - start < seconds or i == 0:
            done += work(views[i % len(views)], worlds[i % len(views)], candidates[i % len(views)])
            i += 1
        return done / (time.perf_counter() - start)

    def left(view) -> int:
        return 52 - 4 * len(view.tricks) - len(view.current_trick.cards)

    jax_rate = rate(lambda view, w, c: (playouts.play(view, w, c), rows * left(view))[1])
    numpy_rate = rate(lambda view, w, c: (search.candidate_values(view, c, w), rows * left(view))[1])
    dds_rate = rate(lambda view, w, c: (solve_worlds(view, w), rows)[1])
    return jax_rate, numpy_rate, dds_rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--specs", nargs="*",
                        default=["cardsearch", "cardsearch:values=playout,worlds=16",
                                 "cardsearch:values=playout,worlds=16,engine=numpy"])
    parser.add_argument("--deals", type=int, default=10)
    parser.add_argument("--decisions", type=int, default=30)
    parser.add_argument("--batches", type=int, nargs="*", default=[16, 64, 256],
                        help="rows (worlds of one decision) for the batched throughput; none to skip it")
    parser.add_argument("--profile", nargs="*", default=[], metavar="SPEC",
                        help="specs whose time is split (under cProfile) into DDS, drawing worlds and the rest")
    args = parser.parse_args()
    views = decisions(args.deals, args.decisions)
    anchor = seconds_per_decision("pimc:worlds=20,auction=rules", views)
    print(f"{len(views)} decisions with a choice ({args.deals} valid deals, the released card player at every seat)")
    print(f"{'pimc:worlds=20,auction=rules (anchor)':40s} {anchor * 1000:9.1f} ms/decision")
    for spec in ["pimc:worlds=20"] + args.specs:
        seconds = seconds_per_decision(spec, views)
        print(f"{spec:40s} {seconds * 1000:9.1f} ms/decision  {seconds / anchor:6.2f} x the anchor")
    for spec in args.profile:
        ms, shares = time_shares(spec, views)
        print(f"{spec:40s} profiled {ms:7.1f} ms/decision: " + ", ".join(f"{part} {share:.0%}"
                                                                           for part, share in shares.items()))
    if args.batches:
        print(f"\nbatched: {'rows':>5s} {'JAX play-out cards/s':>21s} {'numpy play-out cards/s':>23s} "
              f"{'DDS positions/s (anchor)':>25s}")
        for rows in args.batches:
            jax_rate, numpy_rate, dds_rate = batched_rates(views, rows)
            print(f"         {rows:5d} {jax_rate:21,.0f} {numpy_rate:23,.0f} {dds_rate:25,.1f}")


if __name__ == "__main__":
    main()
