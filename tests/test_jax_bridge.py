"""The whole deal in JAX (`jaxenv.make("bridge")`) against the rules module's `BridgeState` (what `Bridge-v0` steps):
random legal games on held-out deals, in both play modes, compared at every step (observation, legal mask, the
player choosing, the seat, and at the end rewards, contract, declarer and tricks); the play features' numpy and JAX
twins; the canonical start at the opening lead; pgx's conventions.

CI plays a few hundred games per case; a larger run:

    BRIDGERL_PARITY_EPISODES=5000 python3 -m pytest -q tests/test_jax_bridge.py

The JAX side runs all games of a case at once: the Python games' actions are replayed through ``jit(vmap(step))``
inside one ``lax.scan``, and the records compared afterwards.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from bridgerl.core import load_dataset
from bridgerl.core.bridge import NUM_ACTIONS, OBSERVATION_SIZE, BridgeState, opening_lead_calls
from bridgerl.core.competitive import CompetitiveDealSource
from bridgerl.core.contract import Contract
from bridgerl.core.play_features import SIZE, SIZE_WITH_AUCTION, play_features
from bridgerl.envs import jaxenv
from bridgerl.envs.jaxenv import bridge as jbridge
from bridgerl.envs.jaxenv.api import ILLEGAL_PENALTY

EPISODES = int(os.environ.get("BRIDGERL_PARITY_EPISODES", "150"))


@pytest.fixture(scope="module")
def data():
    return load_dataset("valid")


@pytest.fixture(scope="module")
def source(data):
    return CompetitiveDealSource(data)


def python_games(source, rows, play: str, reward: str, seed: int, starts=None) -> dict:
    """Random legal games of `BridgeState`: per step (before each action, and once at the end) the observation,
    mask, player, seat and the play features (zeros outside the play); the actions (-1 after the end), the
    returns and the final contract."""
    rng = np.random.default_rng(seed)
    games = []
    for k, row in enumerate(rows):
        state = BridgeState.start(source.deal_at(row), play) if starts is None else starts[k]
        steps = []
        while True:
            phase, seat, player = state.turn()
            features = (np.zeros(SIZE, np.int8), np.zeros(SIZE_WITH_AUCTION, np.int8))
            if phase == "play":
                view = state.view()
                features = (play_features(view), play_features(view, auction=True))
            record = {"obs": state.observation(), "mask": state.legal_mask(), "player": player, "seat": seat,
                      "play": phase == "play", "features": features[0], "features_auction": features[1]}
            if phase == "over":
                steps.append(record | {"action": -1})
                break
            action = int(rng.choice(state.legal_actions()))
            steps.append(record | {"action": action})
            state = state.apply(action)
        result = state.result()
        games.append((steps, result))
    length = max(len(steps) for steps, _ in games)

    def stack(key, fill):
        out = []
        for steps, _ in games:
            values = [s[key] for s in steps]
            pad = np.zeros_like(values[-1]) + fill if isinstance(values[-1], np.ndarray) else fill
            out.append(np.stack([np.asarray(v) for v in values + [pad] * (length - len(values))]))
        return np.stack(out)

    return {"rows": np.asarray(rows), "length": np.array([len(s) for s, _ in games]),
            "action": stack("action", -1), "obs": stack("obs", 0), "mask": stack("mask", 0),
            "player": stack("player", -1), "seat": stack("seat", -1), "play": stack("play", False),
            "features": stack("features", 0), "features_auction": stack("features_auction", 0),
            "returns": np.array([r.returns(reward) for _, r in games], np.float32),
            "contract": np.array([-1 if r.contract is None else r.contract.bid for _, r in games]),
            "declarer": np.array([-1 if r.contract is None else r.contract.declarer for _, r in games]),
            "tricks": np.array([r.tricks for _, r in games])}


def jax_games(env, states, actions: np.ndarray) -> dict:
    """Replay ``actions`` [N, T] (-1: the game is over) on the batch ``states``: the records before each action,
    the rewards summed over the steps and the final states."""

    def body(state, action):
        record = {"obs": state.observation, "mask": state.legal_action_mask, "player": state.current_player,
                  "seat": state.seat, "terminated": state.terminated,
                  "features": jax.vmap(jbridge.play_features)(state),
                  "features_auction": jax.vmap(lambda s: jbridge.play_features(s, auction=True))(state)}
        state = jax.vmap(env.step)(state, jnp.maximum(action, 0))
        return state, (record, state.rewards)

    final, (records, rewards) = jax.jit(lambda s, a: jax.lax.scan(body, s, a))(states, jnp.asarray(actions.T))
    records = jax.tree.map(lambda x: np.swapaxes(np.asarray(x), 0, 1), records)
    return {"records": records, "rewards": np.asarray(rewards).sum(0), "final": final}


def compare(py: dict, js: dict) -> None:
    records = js["records"]
    for game in range(len(py["rows"])):
        n = py["length"][game]
        where = f"row {py['rows'][game]}"
        ended = records["terminated"][game, :n]
        assert not ended[:n - 1].any() and ended[n - 1], where
        for t in range(n):
            at = f"{where}, step {t}"
            assert records["player"][game, t] == py["player"][game, t], at
            np.testing.assert_array_equal(records["obs"][game, t], py["obs"][game, t], err_msg=at)
            if t < n - 1:  # after the end the JAX mask is all True (pgx), the Python mask all False
                assert records["seat"][game, t] == py["seat"][game, t], at
                np.testing.assert_array_equal(records["mask"][game, t], py["mask"][game, t], err_msg=at)
            else:
                assert records["mask"][game, t].all() and not py["mask"][game, t].any(), at
            if py["play"][game, t]:
                np.testing.assert_array_equal(records["features"][game, t], py["features"][game, t], err_msg=at)
                np.testing.assert_array_equal(records["features_auction"][game, t], py["features_auction"][game, t],
                                              err_msg=at)
    np.testing.assert_array_equal(js["rewards"], py["returns"])
    final = js["final"]
    np.testing.assert_array_equal(np.asarray(final.contract), py["contract"])
    np.testing.assert_array_equal(np.asarray(final.declarer), py["declarer"])
    np.testing.assert_array_equal(np.asarray(final.tricks), py["tricks"])


# two of the four cases in the slow tier (CI runs it; docs/conventions.md): agents-score and double_dummy-par_imps
# stay in the default tier, both play modes and both rewards
@pytest.mark.parametrize("play,reward,seed", [("agents", "score", 0),
                                              pytest.param("agents", "par_imps", 1, marks=pytest.mark.slow),
                                              pytest.param("double_dummy", "score", 2, marks=pytest.mark.slow),
                                              ("double_dummy", "par_imps", 3)])
def test_random_games_match_the_rules_module(data, source, play, reward, seed):
    rows = np.random.default_rng(100 + seed).choice(len(data), EPISODES if play == "agents" else 2 * EPISODES)
    py = python_games(source, rows.tolist(), play, reward, seed)
    env = jaxenv.make("bridge", dataset=data, play=play, reward=reward)
    states = jax.vmap(env.init)(jax.random.split(jax.random.key(0), len(rows)), jnp.asarray(rows))
    compare(py, jax_games(env, states, py["action"]))
    if play == "agents":  # the games reached the play, with all four seats and both choosers
        assert py["play"].sum() > 40 * len(rows)


@pytest.mark.parametrize("penalty", [0, 1, 2])
def test_the_canonical_start_replays_into_the_same_state(data, source, penalty):
    rng = np.random.default_rng(penalty)
    rows = rng.choice(len(data), 40).tolist()
    contracts = [Contract(int(rng.integers(1, 8)), int(rng.integers(5)), penalty, int(rng.integers(4)))
                 for _ in rows]
    starts = [BridgeState.at_opening_lead(source.deal_at(row), c) for row, c in zip(rows, contracts)]
    for state, contract in zip(starts, contracts):
        assert state.phase == "play" and state.contract == contract
        assert state.player == (contract.declarer + 1) % 4 and not state.play.history
        calls = opening_lead_calls(state.deal.dealer, contract)
        assert list(state.auction.calls) == calls
    py = python_games(source, rows, "agents", "score", 10 + penalty, starts=starts)
    env = jaxenv.make("bridge", dataset=data)
    states = jax.jit(jax.vmap(env.opening_lead))(
        jnp.asarray(rows), jnp.asarray([c.bid for c in contracts]), jnp.asarray([c.penalty for c in contracts]),
        jnp.asarray([c.declarer for c in contracts]))
    assert (np.asarray(states.phase) == jbridge.PLAY).all()
    np.testing.assert_array_equal(np.asarray(states.contract), [c.bid for c in contracts])
    np.testing.assert_array_equal(np.asarray(states.penalty), [c.penalty for c in contracts])
    compare(py, jax_games(env, states, py["action"]))


def test_observation_of_any_player_is_the_rules_modules(data, source):
    """`env.observation_of(state, p)` is `BridgeState.observation(p)` for all four players at every step (on
    dummy's turn, declarer's is the chooser's, read with dummy's hand to play)."""
    env = jaxenv.make("bridge", dataset=data)
    observe = jax.jit(jax.vmap(env.observation_of, in_axes=(None, 0)))
    step = jax.jit(env.step)
    rng = np.random.default_rng(7)
    dummy_turns = 0
    for row in rng.choice(len(data), 6).tolist():
        state = BridgeState.start(source.deal_at(row))
        js = env.init(jax.random.key(0), row)
        while True:
            got = np.asarray(observe(js, jnp.arange(4)))
            for player in range(4):
                np.testing.assert_array_equal(got[player], state.observation(player), err_msg=f"row {row}")
            if state.is_over:
                break
            dummy_turns += state.phase == "play" and state.seat != state.player
            action = int(rng.choice(state.legal_actions()))
            state, js = state.apply(action), step(js, action)
    assert dummy_turns > 20


def test_opening_lead_checks_its_contract(data):
    env = jaxenv.make("bridge", dataset=data)
    with pytest.raises(ValueError, match="penalty must be in 0..2"):
        env.opening_lead(0, 14, 3, 0)
    with pytest.raises(ValueError, match="contract must be in 0..34"):
        env.opening_lead(0, np.array([14, 35]), 0, 0)
    with pytest.raises(ValueError, match="play='agents'"):
        jaxenv.make("bridge", dataset=data, play="double_dummy").opening_lead(0, 14, 0, 0)


def test_the_canonical_auction_is_documented_and_checked():
    assert opening_lead_calls(0, Contract(3, 4, 0, 0)) == [3 + 14, 0, 0, 0]  # N deals and bids 3NT
    assert opening_lead_calls(0, Contract(4, 3, 1, 1)) == [0, 3 + 18, 1, 0, 0, 0]  # 4S by E, S doubles
    assert opening_lead_calls(2, Contract(6, 2, 2, 1)) == [0, 0, 0, 3 + 27, 1, 2, 0, 0, 0]  # 6HXX by E, S deals
    assert max(len(opening_lead_calls(d, Contract(7, 4, 2, s))) for d in range(4) for s in range(4)) \
        == jbridge.MAX_LEAD_CALLS


def test_pgx_conventions(data):
    env = jaxenv.make("bridge", dataset=data)
    assert (env.id, env.version, env.num_players, env.num_actions, env.observation_shape) == (
        "bridgerl/bridge", "v0", 4, NUM_ACTIONS, (OBSERVATION_SIZE,))
    state = env.init(jax.random.key(3))
    assert state.legal_action_mask.dtype == jnp.bool_ and state.observation.dtype == jnp.int8
    assert state.rewards.dtype == jnp.float32 and not bool(state.truncated)
    # an illegal action (a card during the auction) ends the game with the chooser's side penalised
    bad = env.step(state, 38 + 5, jax.random.key(0))
    penalty = ILLEGAL_PENALTY["points"]
    side = int(state.current_player) % 2
    assert bool(bad.terminated) and bool(bad.legal_action_mask.all()) and int(bad.phase) == jbridge.OVER
    np.testing.assert_array_equal(np.asarray(bad.rewards), [-penalty if s % 2 == side else penalty for s in range(4)])
    # stepping a finished game changes nothing but zeroes the rewards
    again = env.step(bad, 0)
    assert bool(again.terminated) and float(jnp.abs(again.rewards).sum()) == 0
    np.testing.assert_array_equal(np.asarray(again.observation), np.asarray(bad.observation))
    imps_env = jaxenv.make("bridge", dataset=data, reward="par_imps")
    bad = imps_env.step(imps_env.init(jax.random.key(3)), 90)  # outside 0..89
    assert float(jnp.abs(bad.rewards).max()) == ILLEGAL_PENALTY["imps"]


def test_batched_random_games_end_zero_sum(data):
    env = jaxenv.make("bridge", dataset=data)
    keys = jax.random.split(jax.random.key(5), 64)
    state = jax.vmap(env.init)(keys)
    step = jax.jit(jax.vmap(env.step))
    total = jnp.zeros((64, 4))
    key = jax.random.key(6)
    for _ in range(400):
        if bool(state.terminated.all()):
            break
        key, sample = jax.random.split(key)
        action = jax.random.categorical(sample, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
        state = step(state, action)
        total = total + state.rewards
    assert bool(state.terminated.all())
    np.testing.assert_array_equal(np.asarray(total[:, 0]), -np.asarray(total[:, 1]))
    assert (np.asarray(state.phase) == jbridge.OVER).all()


def test_make_checks_its_options(data):
    with pytest.raises(ValueError, match="play must be one of"):
        jaxenv.make("bridge", dataset=data, play="dd")
    with pytest.raises(ValueError, match="reward must be one of"):
        jaxenv.make("bridge", dataset=data, reward="imps")
    with pytest.raises(ValueError, match="unknown option"):
        jaxenv.make("bridge", dataset=data, opponent="rules")
    assert jaxenv.make("bridge", dataset=data, reward="imps_vs_par").reward_points is False


def test_play_features_need_the_auction_to_include_it(data, source):
    from bridgerl.core.card_play import PlayState, view_of

    state = PlayState.start(source.deal_at(0).owner, Contract(3, 4, 0, 0))
    view = view_of(state)
    features = play_features(view)
    assert features.shape == (SIZE,) and features.dtype == np.int8
    with pytest.raises(ValueError, match="needs a view with its auction"):
        play_features(view, auction=True)
