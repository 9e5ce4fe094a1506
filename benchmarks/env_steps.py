"""Environment steps per second with random legal actions, beside OpenSpiel's C++ bridge games in the same run.

    python benchmarks/env_steps.py [--seconds 5] [--rounds 3] [--dataset train]

Anchors: OpenSpiel's C++ ``bridge_uncontested_bidding`` with ``num_redeals=1`` (its default, 10, runs DDS ten times
per episode; with 1 it still runs DDS once per deal, which dominates its time) for the uncontested env, and the
bidding phase of OpenSpiel's C++ ``bridge`` (``use_double_dummy_result=False``, dealing by 52 chance moves, stopped
at the first card) for the competitive env. Steps are agent actions (chance nodes are not counted); resets and
dealing are inside the timed loop. One Python process, one core.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def gym_steps(env_id: str, dataset: str, seconds: float, draw: str = "nonzero", **kwargs) -> float:
    """Random legal steps/s of a Gymnasium env (unwrapped), each action drawn uniformly from the indices of
    ``info["action_mask"]``: ``draw="nonzero"`` reads them with ``mask.nonzero()[0]`` (one C call, the cheapest route
    from a mask to its actions), ``"flatnonzero"`` with ``np.flatnonzero(mask)`` (about 1.2 us more a step, in
    numpy's Python wrappers: the loop of this file before 2026-11-25)."""
    import gymnasium as gym

    import bridgerl  # noqa: F401

    if draw not in ("nonzero", "flatnonzero"):
        raise ValueError(f"draw must be 'nonzero' or 'flatnonzero', got {draw!r}")
    nonzero = draw == "nonzero"
    env = gym.make(env_id, dataset=dataset, **kwargs).unwrapped
    rng = np.random.default_rng(0)
    _warm_up(env, rng)  # lazy imports (endplay's par) stay out of the timed loop
    obs, info = env.reset(seed=0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(100):
            mask = info["action_mask"]
            legal = mask.nonzero()[0] if nonzero else np.flatnonzero(mask)
            obs, reward, done, _, info = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            if done:
                obs, info = env.reset()
    return steps / (time.perf_counter() - start)


def _warm_up(env, rng) -> None:
    for _ in range(3):
        _, info = env.reset()
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _, _, done, _, info = env.step(int(legal[rng.integers(len(legal))]))


def openspiel_steps(game_name: str, seconds: float, params: dict, stop_at_cards: bool = False) -> float:
    """Random legal steps/s of an OpenSpiel game; ``stop_at_cards`` ends each episode at the first card (bridge)."""
    import pyspiel

    import bridgerl.envs.openspiel  # noqa: F401  (registers the bridgerl games)

    game = pyspiel.load_game(game_name, params)
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():  # the C++ games deal uniformly: each card's seat
                outcomes = state.legal_actions()
                state.apply_action(outcomes[rng.integers(len(outcomes))])
                continue
            legal = state.legal_actions()
            if stop_at_cards and legal[0] < 52:  # card play has begun: the auction is over
                break
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
    return steps / (time.perf_counter() - start)


def _rounds(pairs, rounds: int) -> list[tuple[str, float, float]]:
    """Measure each (name, function) in turn, ``rounds`` times over (anchor and env alternate, so a slow moment of
    the machine hits both); (name, median steps/s, median ratio to the first of ``pairs`` in the same round)."""
    rates = {name: [] for name, _ in pairs}
    for _ in range(rounds):
        for name, measure in pairs:
            rates[name].append(measure())
    anchor = np.asarray(rates[pairs[0][0]])
    return [(name, float(np.median(values)), float(np.median(np.asarray(values) / anchor)))
            for name, values in rates.items()]


def benchmark_args(description: str) -> argparse.Namespace:
    """The flags the step benchmarks share: --seconds, --rounds, --dataset."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; medians are reported")
    parser.add_argument("--dataset", default="train", help="dataset the envs deal from (default train)")
    return parser.parse_args()


def main() -> None:
    args = benchmark_args(__doc__)
    t, d = args.seconds, args.dataset
    uncontested = [("OpenSpiel C++ bridge_uncontested_bidding, num_redeals=1 (anchor)",
                    lambda: openspiel_steps("bridge_uncontested_bidding", t, {"num_redeals": 1})),
                   ("bridgerl/UncontestedBidding-v0 (Gymnasium, unwrapped)",
                    lambda: gym_steps("bridgerl/UncontestedBidding-v0", d, t))]
    competitive = [("OpenSpiel C++ bridge, bidding phase (anchor)",
                    lambda: openspiel_steps("bridge", t, {"use_double_dummy_result": False}, stop_at_cards=True)),
                   ("bridgerl/CompetitiveBidding-v0 (Gymnasium, unwrapped, agent_seats='all')",
                    lambda: gym_steps("bridgerl/CompetitiveBidding-v0", d, t))]
    print(f"{'env':76s} {'steps/s':>10s} {'ratio':>8s}   (medians of {args.rounds} alternating rounds of {t:g} s)")
    for table in (uncontested, competitive):
        for name, rate, ratio in _rounds(table, args.rounds):
            print(f"{name:76s} {rate:10.0f} {ratio:8.2f}")


if __name__ == "__main__":
    main()
