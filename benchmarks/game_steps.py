"""Whole-deal steps per second with uniformly random legal actions, beside OpenSpiel's C++ ``bridge`` in the same run.

    python benchmarks/game_steps.py [--seconds 5] [--rounds 3] [--dataset train]

Measured, each against the anchor of the same round (rounds alternate, medians reported, as `env_steps.py`):

- (anchor) OpenSpiel's C++ ``bridge`` with ``use_double_dummy_result=False``: the auction and the 52 cards, dealt by
  52 chance moves sampled from ``legal_actions()`` (as `env_steps.py` does);
- (a) the rules module's loop: ``BridgeState.start`` on a random dataset row, then, as the anchor's loop does, a
  uniform draw from ``legal_actions()`` (a list) and ``apply`` until the end, ``result()``;
- (b) the Gymnasium env ``bridgerl/Bridge-v0`` (``agent_seats="all"``, unwrapped; its observation and ``info``
  come with every step), with ``info["view"]`` (the default) and with ``info_view=False``; each action drawn
  uniformly from ``info["action_mask"].nonzero()[0]``, and once more (the last Gymnasium row) from
  ``np.flatnonzero(mask)``, the loop before 2026-11-25, whose numpy wrappers cost about 1.2 us more a step;
- (c) our OpenSpiel game ``bridgerl_bridge`` (``play="agents"``): a row drawn uniformly and dealt by its two chance
  actions (``game.deal_actions(row)``: the block, then the row), then random legal actions from ``legal_actions()``.

Steps are the players' actions (calls and cards; chance moves not counted); dealing and resets are inside the timed
loop. One Python process, one core.
"""

from __future__ import annotations

import time

import numpy as np
from env_steps import _rounds, benchmark_args, gym_steps, openspiel_steps

BRIDGE_ID = "bridgerl/Bridge-v0"


def core_steps(dataset: str, seconds: float) -> float:
    """`BridgeState` alone: random rows, random legal actions, the result at the end of each deal."""
    from bridgerl.core import load_dataset
    from bridgerl.core.bridge import BridgeState
    from bridgerl.core.competitive import CompetitiveDealSource

    source = CompetitiveDealSource(load_dataset(dataset))
    rows = len(source.dataset)
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = BridgeState.start(source.deal_at(int(rng.integers(rows))))
        legal = state.legal_actions()
        while legal:  # as the anchor's loop: a list of the legal actions, one drawn uniformly
            state = state.apply(legal[rng.integers(len(legal))])
            legal = state.legal_actions()
            steps += 1
        state.result()
    return steps / (time.perf_counter() - start)


def bridgerl_openspiel_steps(dataset: str, seconds: float) -> float:
    """``bridgerl_bridge``: the row drawn uniformly, then random legal actions to the end."""
    import pyspiel

    import bridgerl.envs.openspiel  # noqa: F401  (registers the bridgerl games)

    game = pyspiel.load_game("bridgerl_bridge", {"dataset": dataset})
    rows = len(game.row_dealer.rows)
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        for action in game.deal_actions(int(rng.integers(rows))):  # the block, then the row
            state.apply_action(action)
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        state.returns()
    return steps / (time.perf_counter() - start)


def gym_available() -> str | None:
    """None when ``bridgerl/Bridge-v0`` can be made, else why not."""
    try:
        import gymnasium as gym

        import bridgerl  # noqa: F401  (registers the ids)

        gym.make(BRIDGE_ID, dataset="test", agent_seats="all").close()
    except Exception as exc:  # noqa: BLE001  (not there yet, or broken: report and skip it)
        return f"{type(exc).__name__}: {exc}"
    return None


def main() -> None:
    args = benchmark_args(__doc__)
    t, d = args.seconds, args.dataset
    table = [("OpenSpiel C++ bridge, use_double_dummy_result=False (anchor)",
              lambda: openspiel_steps("bridge", t, {"use_double_dummy_result": False})),
             ("bridgerl.core.bridge.BridgeState (rules module loop)", lambda: core_steps(d, t))]
    missing = gym_available()
    if missing is None:
        table.append((f"{BRIDGE_ID} (Gymnasium, unwrapped, agent_seats='all')",
                      lambda: gym_steps(BRIDGE_ID, d, t, agent_seats="all")))
        table.append((f"{BRIDGE_ID} (the same, info_view=False)",
                      lambda: gym_steps(BRIDGE_ID, d, t, agent_seats="all", info_view=False)))
        table.append((f"{BRIDGE_ID} (info_view=False, actions by np.flatnonzero)",
                      lambda: gym_steps(BRIDGE_ID, d, t, "flatnonzero", agent_seats="all", info_view=False)))
    table.append(("bridgerl_bridge (OpenSpiel, Python, play='agents')", lambda: bridgerl_openspiel_steps(d, t)))
    if missing is not None:
        print(f"note: skipping {BRIDGE_ID}, which cannot be made here ({missing})")
    print(f"{'game':62s} {'steps/s':>10s} {'ratio':>8s}   (medians of {args.rounds} alternating rounds of {t:g} s)")
    for name, rate, ratio in _rounds(table, args.rounds):
        print(f"{name:62s} {rate:10.0f} {ratio:8.2f}")


if __name__ == "__main__":
    main()
