"""Decisions per second of the learned card player (issue #37): batched on the JAX whole deal, one at a time on the
numpy path, beside PIMC with 20 worlds (the anchor, measured in the same run on the same positions).

    python benchmarks/card_player_speed.py [--model models/card-player] [--batches 1 64 1024 8192]
                                           [--deals 20] [--pimc-decisions 40]

- ``jax``: ``jaxenv.make("bridge")`` tables at the opening lead of a random contract (the canonical auction), the
  card player choosing every one of the 52 cards (`CardPlayer.jax_cards`, features built inside jit) and the env
  stepping, all in one jitted ``lax.scan``; decisions/s = tables x 52 / seconds (forced cards counted: the network
  is run on them too). Timed after one compiling call, median of 3.
- ``numpy``: `CardPlayer.act` on the views of ``--deals`` whole deals played by the card player (one view at a
  time: the unbatched cost a table pays), and PIMC-20 on the first ``--pimc-decisions`` of the same views.
"""

from __future__ import annotations

import argparse
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np

from bridgerl.agents import CardPlayer
from bridgerl.core import load_dataset
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.competitive import CompetitiveDealSource
from bridgerl.core.contract import Contract


def jax_rate(player: CardPlayer, tables: int, seed: int = 0) -> float:
    from bridgerl.envs import jaxenv

    env = jaxenv.make("bridge", dataset="valid")
    rng = np.random.default_rng(seed)
    index = jnp.asarray(rng.integers(0, 5000, tables))
    contract = jnp.asarray(rng.integers(0, 35, tables))
    penalty = jnp.zeros(tables, jnp.int32)
    declarer = jnp.asarray(rng.integers(0, 4, tables))

    @jax.jit
    def play(index, contract, penalty, declarer):
        states = jax.vmap(env.opening_lead)(index, contract, penalty, declarer)

        def body(states, _):
            cards = player.jax_cards(states)
            return jax.vmap(env.step)(states, CARD_OFFSET + cards), None

        states, _ = jax.lax.scan(body, states, None, length=52)
        return states.rewards

    args = (index, contract, penalty, declarer)
    play(*args).block_until_ready()
    times = []
    for _ in range(3):
        start = time.perf_counter()
        play(*args).block_until_ready()
        times.append(time.perf_counter() - start)
    return tables * 52 / statistics.median(times)


def views(player: CardPlayer, deals: int) -> list:
    source = CompetitiveDealSource(load_dataset("valid"))
    out = []
    for row in range(deals):
        state = BridgeState.at_opening_lead(source.deal_at(row), Contract(1 + row % 7, row % 5, 0, row % 4))
        while state.phase == "play":
            view = state.view()
            out.append(view)
            state = state.apply(CARD_OFFSET + player.act(view))
    return out


def decisions_per_second(agent, views: list) -> float:
    """Unbatched decisions per second of ``agent`` on ``views`` (one `act` at a time, after one untimed call)."""
    agent.act(views[0])
    start = time.perf_counter()
    for view in views:
        agent.act(view)
    return len(views) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="models/card-player")
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 64, 1024, 8192])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--pimc-decisions", type=int, default=40)
    args = parser.parse_args()
    player = CardPlayer.load(args.model)
    print(f"{jax.devices()[0].device_kind} ({jax.default_backend()}), model {args.model}")

    from bridgerl.arena.specs import load_play_agent

    table = views(player, args.deals)
    anchor = decisions_per_second(load_play_agent("pimc:worlds=20", seed=0), table[:args.pimc_decisions])
    unbatched = decisions_per_second(player, table)
    print(f"{'player':42s} {'decisions/s':>12s} {'x PIMC-20':>10s}")
    print(f"{'pimc:worlds=20, unbatched (anchor)':42s} {anchor:12,.1f} {1.0:10.1f}")
    print(f"{'card player, numpy, unbatched':42s} {unbatched:12,.0f} {unbatched / anchor:10.0f}")
    for tables in args.batches:
        rate = jax_rate(player, tables)
        print(f"{f'card player, JAX whole deal, {tables} tables':42s} {rate:12,.0f} {rate / anchor:10.0f}")


if __name__ == "__main__":
    main()
