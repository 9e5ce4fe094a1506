"""Duplicate matches in competitive bidding: each deal is bid at two tables with the agents swapping sides, and
agent A scores IMPs of (A's NS score at table 1 + A's EW score at table 2), i.e. imps(NS1 - NS2)."""

from __future__ import annotations

import math

import numpy as np

from bridgerl.core import imps, load_dataset
from bridgerl.envs.competitive import CompetitiveBiddingEnv
from bridgerl.evaluation.uncontested import EvaluationError


def _act(agent, observations, masks):
    batch = getattr(agent, "act_batch", None)
    if batch is not None:
        return np.asarray(batch(observations, masks))
    return np.array([agent.act(o, m) for o, m in zip(observations, masks)])


def play_table(ns_agent, ew_agent, dataset, rows, parallel: int = 256, names=("NS", "EW")) -> np.ndarray:
    """NS score of each row when ``ns_agent`` calls for North-South and ``ew_agent`` for East-West."""
    rows = [int(r) for r in rows]
    envs = [CompetitiveBiddingEnv(dataset=dataset) for _ in range(min(parallel, max(len(rows), 1)))]
    scores = np.zeros(len(rows), dtype=np.int64)
    active, next_row = {}, 0

    def start(slot):
        nonlocal next_row
        if next_row < len(rows):
            obs, info = envs[slot].reset(options={"index": rows[next_row]})
            active[slot] = (next_row, obs, info)
            next_row += 1

    for slot in range(len(envs)):
        start(slot)
    while active:
        for side, agent in ((0, ns_agent), (1, ew_agent)):
            slots = [s for s in active if active[s][2]["seat"] % 2 == side]
            if not slots:
                continue
            actions = _act(agent, np.stack([active[s][1] for s in slots]),
                           np.stack([active[s][2]["action_mask"] for s in slots]))
            for slot, action in zip(slots, actions):
                position, _, info = active[slot]
                try:
                    obs, _, done, _, info = envs[slot].step(int(action))
                except ValueError as exc:
                    raise EvaluationError(f"{names[side]} chose an illegal call on deal row {rows[position]}: "
                                          f"{exc}") from None
                if done:
                    scores[position] = info["score_ns"]
                    del active[slot]
                    start(slot)
                else:
                    active[slot] = (position, obs, info)
    return scores


def duplicate_match(agent_a, agent_b, data="test", deals: int | None = None, names=("A", "B")) -> dict:
    """IMPs per board for A against B, with a 95% CI."""
    dataset = load_dataset(data)
    rows = np.arange(len(dataset) if deals is None else min(deals, len(dataset)))
    table1 = play_table(agent_a, agent_b, dataset, rows, names=names)
    table2 = play_table(agent_b, agent_a, dataset, rows, names=names[::-1])
    board_imps = np.asarray(imps(table1 - table2), dtype=np.float64)
    ci = float(1.96 * board_imps.std(ddof=1) / math.sqrt(len(board_imps))) if len(board_imps) > 1 else float("nan")
    return {"a": names[0], "b": names[1], "imps_per_board": float(board_imps.mean()), "ci95": ci,
            "boards": int(len(board_imps)), "a_won": int((board_imps > 0).sum()),
            "b_won": int((board_imps < 0).sum()), "data": dataset.source}
