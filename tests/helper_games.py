"""Pieces several test files share: a state pytree for hand-made JAX envs, OpenSpiel's DQN example loop, small
positions files, and hands written 'S.H.D.C'."""

from __future__ import annotations

import jax.numpy as jnp
from flax import struct


@struct.dataclass
class TinyState:
    """The fields of a bridgerl JAX env state that the DQN trainer reads."""

    current_player: jnp.ndarray
    observation: jnp.ndarray
    legal_action_mask: jnp.ndarray
    rewards: jnp.ndarray
    terminated: jnp.ndarray


def openspiel_dqn_loop(game, players: int, steps: int = 300, hidden: int = 32, batch_size: int = 16,
                       learn_every: int = 4, on_turn=None, on_end=None) -> list:
    """The loop of OpenSpiel's examples with one JAX DQN a player: only the player to act steps during the game,
    every agent steps on the final time step. ``on_turn(env, player)`` and ``on_end(time_step)`` see each turn and
    each end. Runs until ``steps`` actions were taken; returns the agents."""
    from open_spiel.python import rl_environment
    from open_spiel.python.jax import dqn

    env = rl_environment.Environment(game, enable_legality_check=True)
    env.seed(0)
    size = env.observation_spec()["info_state"][0]
    agents = [dqn.DQN(player, size, env.action_spec()["num_actions"], hidden_layers_sizes=[hidden],
                      replay_buffer_capacity=200, batch_size=batch_size, min_buffer_size_to_learn=2 * batch_size,
                      learn_every=learn_every, allow_checkpointing=False, seed=player) for player in range(players)]
    return examples_loop(env, agents, steps, on_turn, on_end)


def examples_loop(env, agents, steps: int, on_turn=None, on_end=None) -> list:
    """OpenSpiel's examples' loop over an `rl_environment` with ``agents`` (one a player) until ``steps`` actions were
    taken: only the player to act steps during the game (its action checked legal), every agent on the final time
    step; ``on_turn(env, player)`` and ``on_end(time_step)`` see each turn and each end. Returns the agents."""
    taken = 0
    while taken < steps:
        time_step = env.reset()
        while not time_step.last():
            player = time_step.observations["current_player"]
            if on_turn is not None:
                on_turn(env, player)
            output = agents[player].step(time_step)
            assert time_step.observations["legal_actions"][player].count(output.action) == 1
            time_step = env.step([output.action])
            taken += 1
        for agent in agents:
            agent.step(time_step)
        if on_end is not None:
            on_end(time_step)
    return agents


def small_positions(tmp_path_factory, data: str, deals: int, start: int, spec: str, seed: int):
    """A positions file of ``deals`` deals of split ``data`` from row ``start``, both pairs playing game ``spec``."""
    from bridgerl.evaluation.datasets.positions import generate_positions

    out = tmp_path_factory.mktemp("positions") / f"{data}.npz"
    generate_positions(out, data=data, deals=deals, start=start, ns=spec, ew=spec, seed=seed, progress=False)
    return out


def hand_bits(hand: str):
    """int8[52] of one hand written 'S.H.D.C' (card = suit * 13 + rank, clubs first)."""
    import numpy as np

    from bridgerl.core.cards import RANKS

    bits = np.zeros(52, dtype=np.int8)
    for holding, suit in zip(hand.split("."), (3, 2, 1, 0)):
        for rank in holding:
            bits[suit * 13 + RANKS.index(rank)] = 1
    assert bits.sum() == 13, hand
    return bits


def untimed(boards):
    """Whole-deal boards without the seconds each side took (the only part a rerun may change)."""
    import json

    boards = json.loads(json.dumps(boards))
    for item in boards:
        for record in item["tables"]:
            del record["seconds"]
    return boards


def collect_rollout(trainer, env, ts, key, steps: int):
    """A PPO trainer's rollout of ``steps`` calls from ``ts``, one `_call` at a time (numpy arrays [T, B, ...]),
    and the state after it: what its reward functions are checked on."""
    import jax
    import numpy as np

    rows = []
    for k in jax.random.split(key, steps):
        ts, row, _ = trainer._call(ts, env, k)
        rows.append(row)
    return jax.tree.map(lambda *a: np.stack(a), *rows), ts


def ended_auctions(rollout, rewards):
    """(t, b, calls) for every auction a rollout finished (its calls from the start of the auction, in order),
    checking that no other call of the rollout was paid."""
    steps, slots = rollout.done.shape
    calls = [[] for _ in range(slots)]
    for t in range(steps):
        for b in range(slots):
            calls[b].append(int(rollout.action[t, b]))
            if not rollout.done[t, b]:
                assert (rewards[t, b] == 0).all()
                continue
            yield t, b, calls[b]
            calls[b] = []
