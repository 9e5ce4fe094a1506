"""Play one episode per dataset row on a pool of Gymnasium envs in lockstep, so agents can act in batches."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np


def act_batch(agent, observations: np.ndarray, masks: np.ndarray, views: Sequence | None = None,
              fixed: bool = False, tables: Sequence | None = None) -> np.ndarray:
    """The agent's ``act_batch`` when it has one (``fixed``: its ``act_fixed`` when it has that, a network run in
    batches of one shape, so each position's call does not depend on the others); else ``act_view`` on each of
    ``views`` (the envs' ``info["view"]``) when the agent has it and views are given; else ``act`` call by call.
    A punisher (`bridgerl.agents.bidding.punisher`: an agent with ``punish``) gets its base's calls and the deals'
    tricks ``tables`` (one [4, 5] table a view, the table in use)."""
    if getattr(agent, "punish", None) is not None:
        if tables is None or views is None:
            raise ValueError(f"{agent!r} reads the deal's tricks table, which this evaluation does not give it")
        return agent.punish(act_batch(agent.base, observations, masks, views, fixed), views, tables)
    if fixed and getattr(agent, "act_fixed", None) is not None:
        return np.asarray(agent.act_fixed(observations, masks))
    batch = getattr(agent, "act_batch", None)
    if batch is not None:
        return np.asarray(batch(observations, masks))
    act_view = getattr(agent, "act_view", None)
    if act_view is not None and views is not None:
        return np.array([act_view(view) for view in views])
    return np.array([agent.act(o, m) for o, m in zip(observations, masks)])


def run_episodes(envs: Sequence, rows: Sequence[int], choose: Callable, on_done: Callable,
                 on_error: Callable | None = None) -> None:
    """``choose(infos) -> actions`` gets the active episodes' (observation, info) pairs and returns one action each;
    ``on_done(position, env, info)`` is called when the episode of ``rows[position]`` ends; an env's ValueError
    goes to ``on_error(position, env, info, action, error)`` (which should raise), else it propagates."""
    active: dict[int, tuple[int, np.ndarray, dict]] = {}
    next_row = 0

    def start(slot: int) -> None:
        nonlocal next_row
        if next_row < len(rows):
            obs, info = envs[slot].reset(options={"index": int(rows[next_row])})
            active[slot] = (next_row, obs, info)
            next_row += 1

    for slot in range(len(envs)):
        start(slot)
    while active:
        slots = list(active)
        actions = choose([(active[s][1], active[s][2]) for s in slots])
        for slot, action in zip(slots, actions):
            if action is None:
                continue
            position, _, info = active[slot]
            try:
                obs, _, done, _, info = envs[slot].step(int(action))
            except ValueError as exc:
                if on_error is None:
                    raise
                on_error(position, envs[slot], info, action, exc)
                raise
            if done:
                on_done(position, envs[slot], info)
                del active[slot]
                start(slot)
            else:
                active[slot] = (position, obs, info)
