"""Sampling players measured against the exact best-defence reference (Frank & Basin) on small endings.

Positions: declaring-side decisions with two to four tricks left, from held-out deals in their double-dummy
contract (`bridgerl.evaluation.cardplay.play_study.double_dummy_contract`: tight, the contract on the line) played by PIMC
(10 worlds) on both sides, with at least two choices and at most ``max_worlds`` consistent worlds (default 150:
the exact search's time grows steeply with the worlds, and a single 400-world, four-trick ending took over 15
minutes on 2 cores). At each, `best_defence_values` gives every card's exact value (the largest share of the worlds
one strategy starting with it makes the contract in, the defence knowing the world); each agent (a play spec,
reseeded per position) chooses a card; a choice is *suboptimal* when its value is below the best, and the value
lost is the difference. Positions where every card has the same value (the contract is sure, or lost whatever
declarer does) are counted apart: no choice can lose there.

    bridgerl evaluate best-defence --positions 300
"""

from __future__ import annotations

import numpy as np

from bridgerl.agents import PIMCAgent
from bridgerl.agents.play.best_defence import best_defence_values
from bridgerl.core import load_dataset
from bridgerl.core.play import PlayState
from bridgerl.core.stats import mean_ci
from bridgerl.envs import view_of
from bridgerl.arena.play import agent_seed
from bridgerl.evaluation.cardplay.play_study import double_dummy_contract

DEFAULT_AGENTS = ("pimc:worlds=20", "pimc:worlds=20,objective=make", "pimc:worlds=20,tiebreak=info",
                  "pimc:worlds=20,goal=sigma", "alphamu:worlds=20,max_moves=3")


def pimc_endings(data="test", seed: int = 0, tricks_left=(2, 4), worlds: int = 10):
    """Declaring-side decisions with 2-4 tricks left (drawn per deal) of each row's double-dummy contract, the play
    before by PIMC with ``worlds`` worlds on both sides (seeded from (seed, row))."""
    dataset = load_dataset(data)
    for row in range(len(dataset)):
        rng = np.random.default_rng([seed, row])
        left = int(rng.integers(tricks_left[0], tricks_left[1] + 1))
        players = [PIMCAgent(worlds=worlds, seed=agent_seed(seed, row, side)) for side in range(2)]
        state = PlayState.start(dataset.owner[row], double_dummy_contract(dataset.dd[row]))
        while not state.is_over and (len(state.tricks) < 13 - left or state.controller % 2 != state.declarer % 2):
            view = view_of(state)
            state = state.play(players[0 if view.is_declaring_side else 1].act(view))
        if not state.is_over:
            yield view_of(state)


def best_defence_study(agents: dict[str, object], positions: int = 300, data="test", seed: int = 0,
                       progress: bool = False, play_worlds: int = 10, max_worlds: int = 150) -> dict:
    """Run every agent on the first ``positions`` positions that matter (cards of different values) and return
    {agent: {"decisions", "suboptimal", "suboptimal_ci95", "value_lost", "value_lost_ci95"}} plus counts."""
    records = {name: {"lost": []} for name in agents}
    seen = flat = 0
    iterator = pimc_endings(data, seed=seed, worlds=play_worlds)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=positions, desc="positions", unit="position")
    for view in iterator:
        if len(view.equivalent_groups()) < 2:
            continue
        try:
            values = best_defence_values(view, max_worlds=max_worlds)
        except ValueError:
            continue  # beyond the exact search's size guard
        seen += 1
        best = max(values.values())
        if best - min(values.values()) < 1e-12:
            flat += 1
            continue
        for index, (name, agent) in enumerate(agents.items()):
            if hasattr(agent, "reseed"):
                agent.reseed(agent_seed(seed, seen, index))
            card = int(agent.act(view))
            records[name]["lost"].append(best - values[card])
        if bar is not None:
            bar.update(1)
        if len(records[next(iter(agents))]["lost"]) >= positions:
            break
    if bar is not None:
        bar.close()
    out = {"positions_seen": seen, "positions_flat": flat, "agents": {}}
    for name, record in records.items():
        lost = np.asarray(record["lost"], dtype=np.float64)
        share, share_ci = mean_ci(lost > 1e-9)
        mean_lost, lost_ci = mean_ci(lost)
        out["agents"][name] = {"decisions": int(len(lost)), "suboptimal": share, "suboptimal_ci95": share_ci,
                               "value_lost": mean_lost, "value_lost_ci95": lost_ci}
    return out


def format_best_defence_study(summary: dict) -> str:
    lines = [f"{summary['positions_seen']} small-ending decisions solved exactly; {summary['positions_flat']} where "
             f"every card has the same best-defence value are left out"]
    lines.append(f"{'agent':36s} {'decisions':>9s} {'suboptimal':>17s} {'value lost / decision':>24s}")
    for name, row in summary["agents"].items():
        lines.append(f"{name:36s} {row['decisions']:9d} {row['suboptimal']:9.1%} +/- {row['suboptimal_ci95']:4.1%} "
                     f"{row['value_lost']:12.4f} +/- {row['value_lost_ci95']:.4f}")
    return "\n".join(lines)


__all__ = ["best_defence_study", "format_best_defence_study", "DEFAULT_AGENTS"]
