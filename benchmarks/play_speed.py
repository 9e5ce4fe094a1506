"""Seconds per card of `PIMCAgent` against raw DDS time per world, and of `AlphaMuAgent` against PIMC, measured in
the same run.

Positions: 3NT by South on bundled test deals, at trick 1 (dummy's card after the opening lead, which a random
defender makes) and at trick 7 (the first decision of the declaring side after six tricks played double dummy).
Anchor: `endplay.dds.solve_all_boards` on the same worlds, prebuilt as endplay Deals (building them is not
timed). Ratio = PIMC seconds per world / anchor seconds per world (goal <= 1.1).

αμ: declaring-side decisions with more than one choice, spread over whole deals (3NT S played double dummy),
timed for M = 2 and 3 with 20 worlds, with and without the transposition table and cuts; the anchor is PIMC
(make objective) with the same worlds on the same decisions (goal: M=3 mean <= 10x PIMC).

Information score (thesis 3.4.3, figure 3.11): at the same positions (trick 1 and trick 7, declaring side and
defence), the seconds of one candidate card's information score in one world (a one-trick minimax whose leaves are
combined-defender searches, a fresh memory per position as in play) against one DDS call (all cards of one world,
the anchor above); goal <= 0.2x. Enhanced PIMC (information-score ties and the σ goal) against base PIMC over whole
deals at equal worlds, seconds per card (figure 3.12); goal <= 2x.

    python benchmarks/play_speed.py --deals 10 --worlds 100 --alphamu-positions 30
    python benchmarks/play_speed.py --deals 0 --alphamu-positions 0 --info-positions 20 --play-deals 8 --worlds 20
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from endplay.dds import solve_all_boards
from endplay.types import Card, Denom, Player

from bridgerl.agents import AlphaMuAgent, DoubleDummyAgent, PIMCAgent
from bridgerl.agents.play.combined_defender import DEFAULT_INFO_BUDGET, InformationScore, load_search
from bridgerl.core import Contract, load_dataset
from bridgerl.core.cards import card_name
from bridgerl.core.dd import DDS_MAX_BOARDS, owner_to_deal, strain_to_endplay
from bridgerl.core.play import PlayState
from bridgerl.envs import view_of


def endplay_deals(view, state: PlayState, worlds: np.ndarray) -> list:
    deals = []
    for owner in worlds:
        deal = owner_to_deal(owner)
        deal.trump = Denom(strain_to_endplay(state.strain))
        deal.first = Player((state.declarer + 1) % 4)
        for card in state.history:
            deal.play(Card(card_name(card)))
        deals.append(deal)
    return deals


def raw_dds(deals: list) -> float:
    start = time.perf_counter()
    for i in range(0, len(deals), DDS_MAX_BOARDS):
        solve_all_boards(deals[i:i + DDS_MAX_BOARDS])
    return time.perf_counter() - start


def double_dummy_starts():
    """(row, opening position of 3NT by South, an oracle that sees that deal) for each bundled test deal."""
    dataset = load_dataset("test")
    oracle = DoubleDummyAgent(seed=0)
    for row in range(len(dataset)):
        state = PlayState.start(dataset.owner[row], Contract.parse("3NT S"))
        oracle.see_deal(state.owner)
        yield row, state, oracle


def positions(deals: int, trick: int) -> list[PlayState]:
    """Decisions of the declaring side with at least two different choices, at the given trick."""
    found = []
    for row, state, oracle in double_dummy_starts():
        rng = np.random.default_rng(row)
        while not state.is_over and len(state.tricks) < trick - 1:
            state = state.play(oracle.act(view_of(state)))
        if trick == 1:
            state = state.play(int(rng.choice(state.legal_cards())))
        while state.controller % 2 != state.declarer % 2:
            state = state.play(oracle.act(view_of(state)))
        if len(view_of(state).equivalent_groups()) > 1:
            found.append(state)
        if len(found) == deals:
            return found
    return found


def measure(states: list[PlayState], worlds: int, repeats: int) -> tuple[float, float, int]:
    """Total PIMC seconds, total anchor seconds and worlds solved (best of ``repeats`` for each position)."""
    pimc_total = anchor_total = 0.0
    solved = 0
    for i, state in enumerate(states):
        view = view_of(state)
        sample = PIMCAgent(worlds, seed=i).sample(view)
        deals = endplay_deals(view, state, sample)
        anchor_total += min(raw_dds(deals) for _ in range(repeats))
        times = []
        for _ in range(repeats):
            agent = PIMCAgent(worlds, seed=i)
            start = time.perf_counter()
            agent.act(view)
            times.append(time.perf_counter() - start)
        pimc_total += min(times)
        solved += len(sample)
    return pimc_total, anchor_total, solved


def defence_positions(deals: int, trick: int) -> list[PlayState]:
    """Decisions of a defender with at least two different choices, in the given trick (double-dummy play before)."""
    found = []
    for row, state, oracle in double_dummy_starts():
        while not state.is_over and len(state.tricks) < trick - 1:
            state = state.play(oracle.act(view_of(state)))
        while not state.is_over and len(state.tricks) == trick - 1:
            view = view_of(state)
            if not view.is_declaring_side and len(view.equivalent_groups()) > 1:
                found.append(state)
                break
            state = state.play(oracle.act(view))
        if len(found) == deals:
            return found
    return found


def information_times(states: list[PlayState], worlds: int, budget: int) -> tuple:
    """(seconds of all information scores, seconds of raw DDS on the same worlds, candidate-worlds, worlds,
    combined-defender values left inexact / computed)."""
    info = dds = 0.0
    candidate_worlds = solved = inexact = calls = 0
    for i, state in enumerate(states):
        view = view_of(state)
        sample = PIMCAgent(worlds, seed=i).sample(view)
        dds += raw_dds(endplay_deals(view, state, sample))
        cards = [group[0] for group in view.equivalent_groups()]
        score = InformationScore(budget)
        start = time.perf_counter()
        score.scores(view, sample, cards)
        info += time.perf_counter() - start
        candidate_worlds += len(cards) * len(sample)
        solved += len(sample)
        inexact += score.search.inexact
        calls += score.search.calls
    return info, dds, candidate_worlds, solved, inexact, calls


def decisions(count: int) -> list[PlayState]:
    """Declaring-side decisions with at least two choices, every third one of whole double-dummy deals."""
    found = []
    for row, state, oracle in double_dummy_starts():
        while not state.is_over:
            view = view_of(state)
            if view.is_declaring_side and len(view.equivalent_groups()) > 1 and len(state.history) % 3 == row % 3:
                found.append(state)
                if len(found) == count:
                    return found
            state = state.play(oracle.act(view))
    return found


def alphamu_times(states: list[PlayState], worlds: int, configs) -> dict[str, list[float]]:
    times = {name: [] for name, _ in configs}
    for i, state in enumerate(states):
        view = view_of(state)
        for name, make in configs:
            agent = make(i)
            start = time.perf_counter()
            agent.act(view)
            times[name].append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=10, help="positions per trick")
    parser.add_argument("--worlds", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=2, help="best of N timings per position")
    parser.add_argument("--alphamu-positions", type=int, default=30, help="decisions for the αμ table (0: skip)")
    parser.add_argument("--alphamu-worlds", type=int, default=20)
    parser.add_argument("--info-positions", type=int, default=10,
                        help="positions per trick and side for the information score (0: skip)")
    parser.add_argument("--info-budget", type=int, default=DEFAULT_INFO_BUDGET)
    parser.add_argument("--play-deals", type=int, default=4,
                        help="whole deals for enhanced against base PIMC time per card (0: skip)")
    args = parser.parse_args()
    if args.info_positions or args.play_deals:
        load_search()  # numba's cache (or a compile in a fresh checkout) is not part of any timing
    print(f"PIMC with {args.worlds} worlds, 3NT S, {args.deals} positions per trick, {os.cpu_count()} cores; "
          f"DDS threads: all cores")
    print(f"{'position':10s} {'PIMC s/card':>12s} {'PIMC ms/world':>14s} {'DDS ms/world':>13s} {'ratio':>6s}")
    for trick in (1, 7) if args.deals else ():
        states = positions(args.deals, trick)
        pimc, anchor, solved = measure(states, args.worlds, args.repeats)
        print(f"trick {trick:<4d} {pimc / len(states):12.3f} {1000 * pimc / solved:14.2f} "
              f"{1000 * anchor / solved:13.2f} {pimc / anchor:6.3f}")
    if args.info_positions:
        print(f"\nInformation score per candidate card and world (budget {args.info_budget} nodes per "
              f"combined-defender value) against one DDS call per world, {args.worlds} worlds")
        print(f"{'position':18s} {'info ms/cand':>13s} {'DDS ms/world':>13s} {'ratio':>6s} {'exact CD':>9s}")
        for trick in (1, 7):
            for side, found in (("declaring", positions), ("defence", defence_positions)):
                states = found(args.info_positions, trick)
                info, dds, cand, solved, inexact, calls = information_times(states, args.worlds, args.info_budget)
                ratio = (info / cand) / (dds / solved)
                print(f"trick {trick} {side:10s} {1000 * info / cand:13.3f} {1000 * dds / solved:13.3f} "
                      f"{ratio:6.3f} {1 - inexact / max(calls, 1):9.1%}")
    if args.play_deals:
        from bridgerl.core import load_dataset
        from bridgerl.evaluation.cardplay.play_study import double_dummy_contract, play_run

        dataset = load_dataset("test")
        per_card = {}
        for run in ("base", "enhanced"):
            seconds = cards = 0
            for row in range(args.play_deals):
                contract = double_dummy_contract(dataset.dd[row])
                result = play_run(dataset.owner[row], contract, int(dataset.dd[row, contract.declarer,
                                  contract.strain]), False, args.worlds, 0, row, run, args.info_budget)
                seconds += result["declaring"]["seconds"] + result["defence"]["seconds"]
                cards += result["declaring"]["cards"] + result["defence"]["cards"]
            per_card[run] = seconds / cards
        print(f"\nWhole deals ({args.play_deals}, each deal's double-dummy contract, {args.worlds} worlds, all four "
              f"seats the same player): base PIMC {per_card['base']:.4f} s/card, enhanced (info ties + σ goal) "
              f"{per_card['enhanced']:.4f} s/card, ratio {per_card['enhanced'] / per_card['base']:.2f}")
    if args.alphamu_positions:
        w = args.alphamu_worlds
        configs = [("PIMC make (anchor)", lambda i: PIMCAgent(w, "make", seed=i)),
                   ("αμ M=2, TT + cuts", lambda i: AlphaMuAgent(2, w, seed=i)),
                   ("αμ M=2, no TT, no cuts", lambda i: AlphaMuAgent(2, w, seed=i, transposition=False,
                                                                      early_cut=False, root_cut=False)),
                   ("αμ M=3, TT + cuts", lambda i: AlphaMuAgent(3, w, seed=i)),
                   ("αμ M=3, no TT, no cuts", lambda i: AlphaMuAgent(3, w, seed=i, transposition=False,
                                                                      early_cut=False, root_cut=False))]
        states = decisions(args.alphamu_positions)
        times = alphamu_times(states, w, configs)
        anchor = float(np.mean(times[configs[0][0]]))
        print(f"\n{len(states)} declaring-side decisions over whole deals, {w} worlds")
        print(f"{'agent':26s} {'mean s/move':>12s} {'median':>8s} {'max':>8s} {'ratio (mean)':>13s}")
        for name, _ in configs:
            t = np.array(times[name])
            print(f"{name:26s} {t.mean():12.3f} {np.median(t):8.3f} {t.max():8.3f} {t.mean() / anchor:13.2f}")


if __name__ == "__main__":
    main()
