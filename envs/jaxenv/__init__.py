"""Pure-JAX bidding envs for GPU/TPU training, twins of the Python envs (identical observations, masks, rewards).

    from bridgerl.envs import jaxenv
    env = jaxenv.make("uncontested_bidding", dataset="train", side="thesis", opening_rules=True, reward="imps")
    state = jax.vmap(env.init)(jax.random.split(key, 1024))
    state = jax.jit(jax.vmap(env.step))(state, actions)

All rules come from lookup tables that `bridgerl.core` builds (`tables.py`).
"""

from __future__ import annotations

import jax.numpy as jnp

from bridgerl.core import load_dataset
from bridgerl.core.bridge import check_modes
from bridgerl.core.uncontested import parse_side_option
from bridgerl.envs.jaxenv.bridge import Bridge
from bridgerl.envs.jaxenv.bridge import State as BridgeState
from bridgerl.envs.jaxenv.competitive import CompetitiveBidding
from bridgerl.envs.jaxenv.competitive import State as CompetitiveState
from bridgerl.envs.jaxenv.tables import competitive_tables, uncontested_tables
from bridgerl.envs.jaxenv.uncontested import State as UncontestedState
from bridgerl.envs.jaxenv.uncontested import UncontestedBidding

ENV_IDS = ("uncontested_bidding", "competitive_bidding", "bridge")

__all__ = ["make", "ENV_IDS", "UncontestedBidding", "UncontestedState", "CompetitiveBidding", "CompetitiveState", "Bridge",
           "BridgeState"]


def make(env_id: str, dataset="train", **options):
    """A JAX env over ``dataset``; options as in the Python env (uncontested: side, opening_rules, reward;
    competitive: reward; bridge: play "agents" | "double_dummy", reward "score" | "par_imps"; all: tricks "dd" |
    "played", the table rewards and par read, `bridgerl.core.dataset`). Python-object options (opponent, agent_seats) do not exist here."""
    tricks = options.pop("tricks", None)  # "dd" or "played": the table rewards and par read (None: as given)
    data = load_dataset(dataset, tricks=tricks)
    if env_id == "uncontested_bidding":
        unknown = set(options) - {"side", "opening_rules", "reward"}
        if unknown:
            raise ValueError(f"unknown option(s) {sorted(unknown)} for {env_id}")
        reward = options.get("reward", "imps")
        if reward not in ("imps", "points"):
            raise ValueError(f"reward must be 'imps' or 'points', got {reward!r}")
        tables = uncontested_tables(data, parse_side_option(options.get("side", "thesis")),
                                    bool(options.get("opening_rules", True)))
        return UncontestedBidding(**{k: jnp.asarray(v) for k, v in tables.items()}, reward_points=reward == "points")
    if env_id == "competitive_bidding":
        unknown = set(options) - {"reward"}
        if unknown:
            raise ValueError(f"unknown option(s) {sorted(unknown)} for {env_id} (the JAX env is self-play over "
                             "all four seats)")
        reward = options.get("reward", "par_imps")
        if reward not in ("par_imps", "points"):
            raise ValueError(f"reward must be 'par_imps' or 'points', got {reward!r}")
        tables = competitive_tables(data)
        return CompetitiveBidding(**{k: jnp.asarray(v) for k, v in tables.items()}, reward_points=reward == "points")
    if env_id == "bridge":
        unknown = set(options) - {"play", "reward"}
        if unknown:
            raise ValueError(f"unknown option(s) {sorted(unknown)} for {env_id} (the JAX whole deal is self-play over "
                             "all four seats)")
        play, reward = check_modes(options.get("play", "agents"), options.get("reward", "score"))
        tables = competitive_tables(data)
        return Bridge(**{k: jnp.asarray(v) for k, v in tables.items()}, double_dummy=play == "double_dummy",
                      reward_points=reward == "score")
    raise ValueError(f"unknown JAX env {env_id!r}; choose one of {ENV_IDS}")
