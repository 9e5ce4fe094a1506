"""Duplicate matches in competitive bidding: each deal is bid at two tables with the agents swapping sides, and
agent A scores IMPs of (A's NS score at table 1 + A's EW score at table 2), i.e. imps(NS1 - NS2)."""

from __future__ import annotations

import numpy as np

from bridgerl.core import SEATS, call_name, imps, load_dataset
from bridgerl.core.stats import mean_ci
from bridgerl.envs.competitive import CompetitiveBiddingEnv
from bridgerl.arena.lockstep import act_batch, run_episodes
from bridgerl.evaluation.bidding.uncontested import EvaluationError


def play_table(ns_agent, ew_agent, dataset, rows, parallel: int = 256, names=("NS", "EW"),
               details: list | None = None) -> np.ndarray:
    """NS score of each row when ``ns_agent`` calls for North-South and ``ew_agent`` for East-West; ``details``,
    a list, receives one dict per row (auction, contract, declarer, DD tricks, NS score)."""
    rows = [int(r) for r in rows]
    envs = [CompetitiveBiddingEnv(dataset=dataset, illegal="raise") for _ in range(min(parallel, max(len(rows), 1)))]
    scores = np.zeros(len(rows), dtype=np.int64)
    agents = (ns_agent, ew_agent)

    def choose(active):
        actions = [None] * len(active)
        for side in (0, 1):
            chosen = [i for i, (_, info) in enumerate(active) if info["seat"] % 2 == side]
            if chosen:
                calls = act_batch(agents[side], np.stack([active[i][0] for i in chosen]),
                                  np.stack([active[i][1]["action_mask"] for i in chosen]),
                                  [active[i][1]["view"] for i in chosen],
                                  tables=[dataset.dd[active[i][1]["index"]] for i in chosen])
                for i, call in zip(chosen, calls):
                    actions[i] = call
        return actions

    records = [None] * len(rows)

    def done(position, env, info):
        scores[position] = info["score_ns"]
        if details is not None:
            records[position] = {"auction": [call_name(c) for c in env.auction.calls], "contract": info["contract"],
                                 "declarer": None if info["declarer"] < 0 else SEATS[info["declarer"]],
                                 "tricks": info["tricks"], "score_ns": int(info["score_ns"])}

    def error(position, env, info, action, exc):
        raise EvaluationError(f"{names[info['seat'] % 2]} chose an illegal call on deal row {rows[position]}: "
                              f"{exc}") from None

    run_episodes(envs, rows, choose, done, error)
    if details is not None:
        details.extend(records)
    return scores


def duplicate_match(agent_a, agent_b, data="test", deals: int | None = None, names=("A", "B"),
                    boards: list | None = None) -> dict:
    """IMPs per board for A against B, with a 95% CI; ``boards``, a list, receives one dict per board (row, board,
    both tables' auctions and contracts, IMPs for A), the shape `evaluation.reports.report.write_match_report` reads."""
    dataset = load_dataset(data)
    rows = np.arange(len(dataset) if deals is None else min(deals, len(dataset)))
    if len(rows) == 0:
        raise EvaluationError(f"{dataset.source}: no board to play ({len(dataset)} deals, deals={deals})")
    details = ([], []) if boards is not None else (None, None)
    table1 = play_table(agent_a, agent_b, dataset, rows, names=names, details=details[0])
    table2 = play_table(agent_b, agent_a, dataset, rows, names=names[::-1], details=details[1])
    board_imps = np.asarray(imps(table1 - table2), dtype=np.float64)
    if boards is not None:
        boards.extend({"row": int(row), "board": int(dataset.boards[row]), "tables": [one, two], "imps": int(x)}
                      for row, one, two, x in zip(rows, details[0], details[1], board_imps))
    mean, ci = mean_ci(board_imps)
    return {"a": names[0], "b": names[1], "imps_per_board": mean, "ci95": ci,
            "boards": int(len(board_imps)), "a_won": int((board_imps > 0).sum()),
            "b_won": int((board_imps < 0).sum()), "data": dataset.source}


def rule_baseline_evaluator(data="test", deals: int | None = 1000, tricks: str | None = None):
    """The score of competitive training's snapshots (``train_competitive(evaluate_agent=...)``): a function of an
    agent giving its duplicate match against the competitive rule baseline on the first ``deals`` rows of ``data``
    as {"vs_rules_imps_per_board", "ci95", "deals"} (the learning curve's key, `evaluation.reports.learning_curve`);
    ``tricks`` "played" scores with the played-tricks table."""
    from bridgerl.agents import RuleBidder

    dataset = load_dataset(data, tricks=tricks)
    if len(dataset) == 0 or (deals is not None and deals < 1):
        raise EvaluationError(f"{dataset.source}: no board to play ({len(dataset)} deals, deals={deals})")

    def evaluate(agent) -> dict:
        match = duplicate_match(agent, RuleBidder(competitive=True), dataset, deals=deals, names=("dqn", "rules"))
        return {"vs_rules_imps_per_board": match["imps_per_board"], "ci95": match["ci95"], "deals": match["boards"]}

    return evaluate
