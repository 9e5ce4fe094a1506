"""Seconds a move of OpenSpiel's ISMCTS on the bridgerl bidding games (issue #67: at most 1 s at 3 simulations), beside
the whole DD table of one deal as the anchor in the same run (a resampled deal is not a dataset row: every simulation
that reaches the end of the auction has DDS solve its table, so three tables a move are the floor).

    python benchmarks/ismcts_speed.py [--deals 4] [--simulations 3] [--games uncontested competitive]

ISMCTS as `docs/envs.md` runs it (``ismcts.ISMCTSBot`` with a random-rollout evaluator, ``uct_c=2``), on the bundled
test deals dealt by a seeded chance player, every move of the auction timed, one process. The uncontested game uses
its defaults (opening rules, the thesis side rule: a resample must be dealt to this side, which
`bridgerl.core.uncontested.side_rule_deals` decides with one DDS search of EW's likeliest contract where it can).
ISMCTS seeds its resampling from the system, so the moves differ from run to run; the medians hold.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

GAMES = {"uncontested": "bridgerl_uncontested_bidding", "competitive": "bridgerl_competitive_bidding"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=4, help="deals bid by ISMCTS at every seat (default 4)")
    parser.add_argument("--simulations", type=int, default=3, help="ISMCTS simulations a move (default 3)")
    parser.add_argument("--games", nargs="+", choices=sorted(GAMES), default=["uncontested", "competitive"])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.deals < 1 or args.simulations < 1:
        parser.error("--deals and --simulations must be at least 1")
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts

    import bridgerl.envs.openspiel  # noqa: F401  (registers the games)
    from bridgerl.core import load_dataset
    from bridgerl.core.dd import solve_dd_table

    owners = load_dataset("test").owner[:20]
    solve_dd_table(owners[0])  # warm-up: DDS's threads and tables
    start = time.perf_counter()
    for owner in owners[1:]:
        solve_dd_table(owner)
    table = (time.perf_counter() - start) / (len(owners) - 1)
    print(f"{'game':30s} {'moves':>5s} {'median s':>9s} {'mean s':>7s} {'max s':>6s} {'median/table':>12s}")
    print(f"{'one DD table (anchor)':30s} {'':5s} {table:9.3f}")
    for name in args.games:
        game = pyspiel.load_game(GAMES[name], {"dataset": "test"})
        rng = np.random.RandomState(args.seed)
        bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), uct_c=2.0,
                               max_simulations=args.simulations, random_state=rng)
        seconds = []
        for _ in range(args.deals):
            state = game.new_initial_state()
            while state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            while not state.is_terminal():
                start = time.perf_counter()
                action = bot.step(state)
                seconds.append(time.perf_counter() - start)
                state.apply_action(action)
        median = float(np.median(seconds))
        print(f"{GAMES[name]:30s} {len(seconds):5d} {median:9.3f} {np.mean(seconds):7.3f} {max(seconds):6.2f} "
              f"{median / table:12.1f}")


if __name__ == "__main__":
    main()
