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
from bridgerl.envs.jaxenv.fresh import FRESH
from bridgerl.envs.jaxenv.tables import competitive_tables, uncontested_tables
from bridgerl.envs.jaxenv.uncontested import State as UncontestedState
from bridgerl.envs.jaxenv.uncontested import UncontestedBidding

ENV_IDS = ("uncontested_bidding", "competitive_bidding", "bridge")

__all__ = ["make", "ENV_IDS", "UncontestedBidding", "UncontestedState", "CompetitiveBidding", "CompetitiveState", "Bridge",
           "BridgeState"]


def make(env_id: str, dataset="train", **options):
    """A JAX env over ``dataset``; options as in the Python env (uncontested: side, opening_rules, reward;
    competitive: reward; bridge: play "agents" | "double_dummy", reward "score" | "par_imps"; all: tricks "dd" |
    "played", the table rewards and par read, `bridgerl.core.dataset`). Python-object options (opponent,
    agent_seats) do not exist here.

    ``dataset="fresh"``: every ``init(key)`` deals a new deal (`bridgerl.envs.jaxenv.fresh`); the bidding envs play
    the contract reached out with ``player`` (default ``models/card-player``) and pay points. ``illegal_penalty``
    (every env): the size of an illegal action's penalty (default `bridgerl.core.illegal.ILLEGAL_PENALTY`'s)."""
    from bridgerl.core.illegal import check_penalty

    penalty = check_penalty(options.pop("illegal_penalty", None))  # every env: None, the reward unit's default
    env = _make(env_id, dataset, options)
    return env if penalty is None else env.replace(illegal_penalty=penalty)


def _make(env_id: str, dataset, options: dict):
    if isinstance(dataset, str) and dataset == FRESH:
        return _make_fresh(env_id, dict(options))
    if "player" in options or "play_in_step" in options:
        raise ValueError("player and play_in_step are options of fresh deals (dataset='fresh'); a dataset's rewards "
                         "read its table (tricks='dd' or 'played')")
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


def _make_fresh(env_id: str, options: dict):
    """`make` on fresh deals: the options a deal without a DD table allows, each other one refused in one line."""
    from bridgerl.envs.jaxenv import fresh

    tricks = options.pop("tricks", "played")
    if tricks != "played":
        raise ValueError(f"tricks={tricks!r}: a fresh deal has no DD table (nothing is solved); its contract is "
                         "played out by the card player (tricks='played')")
    if env_id not in ENV_IDS:
        raise ValueError(f"unknown JAX env {env_id!r}; choose one of {ENV_IDS}")
    allowed = {"uncontested_bidding": {"side", "opening_rules", "reward", "player", "play_in_step"},
               "competitive_bidding": {"reward", "player", "play_in_step"}, "bridge": {"play", "reward"}}[env_id]
    unknown = set(options) - allowed
    if unknown:
        raise ValueError(f"unknown option(s) {sorted(unknown)} for {env_id} on fresh deals")
    if env_id == "bridge":
        play, reward = check_modes(options.get("play", "agents"), options.get("reward", "score"))
        if play != "agents" or reward != "score":
            raise ValueError("a fresh deal has no DD table: the whole deal on fresh deals is played by its agents "
                             "(play='agents') and scored in points (reward='score'; par needs the DD table)")
        return fresh.FreshBridge(**fresh.empty_tables(owner=jnp.zeros((0, 52), jnp.int8),
                                                      dd=jnp.zeros((0, 4, 5), jnp.int8), dealer=jnp.zeros(0, jnp.int32),
                                                      vul=jnp.zeros(0, jnp.int32)), reward_points=True)
    reward = options.get("reward", "points")
    if reward != "points":
        raise ValueError(f"reward={reward!r}: par needs every contract's result and a fresh deal has no table; on "
                         "fresh deals the reward is the contract's played score (reward='points')")
    player = fresh.load_player(options.get("player", "models/card-player"))
    play_in_step = bool(options.get("play_in_step", True))
    if env_id == "competitive_bidding":
        return fresh.FreshCompetitiveBidding(**fresh.empty_tables(dealer=jnp.zeros(0, jnp.int32),
                                                                  vul=jnp.zeros(0, jnp.int32)),
                                             reward_points=True, player=player, play_in_step=play_in_step)
    side = options.get("side", "NS")
    if side not in ("NS", "EW"):
        raise ValueError(f"side={side!r}: on fresh deals the bidding side is 'NS' or 'EW' (the thesis's rule "
                         "reads the DD table)")
    return fresh.FreshUncontestedBidding(
        **fresh.empty_tables(side=jnp.zeros(0, jnp.int32), vulnerable=jnp.zeros(0, bool),
                             opening=jnp.zeros((0, 2), jnp.uint8), eligible=jnp.zeros(0, jnp.int32)),
        reward_points=True, fixed_side=("NS", "EW").index(side), opening_rules=bool(options.get("opening_rules", True)),
        player=player, play_in_step=play_in_step)
