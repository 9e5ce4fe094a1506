"""Fresh deals dealt inside jit (issue #51, `bridgerl.envs.jaxenv.fresh`): valid and reproducible from the key, the
same deal from the same key in every JAX env, the board's dealer and vulnerability, the opening rules of the rules
core, and a contract's played result equal to the Python whole deal played by the numpy card player."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from bridgerl.agents.learned.card_player import CardPlayer, build, save
from bridgerl.core.board import VULS, dealer_for_board, vul_for_board
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.calls import BID_OFFSET
from bridgerl.core.competitive import CompetitiveDeal
from bridgerl.core.play_features import feature_size
from bridgerl.core.scoring import score
from bridgerl.core.uncontested import opening_action_mask
from bridgerl.envs import jaxenv
from bridgerl.envs.jaxenv.fresh import deal, opening_code
from bridgerl.envs.jaxenv.tables import opening_codes

KEYS = jax.random.split(jax.random.key(7), 64)


@pytest.fixture(scope="module")
def player(tmp_path_factory):
    """An untrained card player (a seeded random network): a played result is the player's whatever its weights."""
    path = tmp_path_factory.mktemp("fresh-player") / "model.msgpack"
    save(path, build(feature_size(False), (32, 32), seed=5), {"auction": False, "hidden": [32, 32]})
    return CardPlayer.load(path)


def test_fresh_deals_are_valid_reproducible_and_on_the_board_cycle():
    owner, board, dealer, vul = jax.vmap(deal)(KEYS)
    owner = np.asarray(owner)
    assert owner.shape == (64, 52) and owner.dtype == np.uint8
    for row in owner:
        assert np.bincount(row, minlength=4).tolist() == [13, 13, 13, 13]  # 13 cards each, every card once
    assert len({row.tobytes() for row in owner}) == 64
    again = jax.vmap(deal)(KEYS)
    assert (np.asarray(again[0]) == owner).all() and (np.asarray(again[1]) == np.asarray(board)).all()
    assert set(np.asarray(board).tolist()) <= set(range(1, 17))
    for b, d, v in zip(np.asarray(board), np.asarray(dealer), np.asarray(vul)):
        assert d == dealer_for_board(int(b)) and VULS[int(v)] == vul_for_board(int(b))


def test_the_same_key_deals_the_same_deal_in_every_env(player):
    envs = [jaxenv.make("competitive_bidding", dataset="fresh", player=player),
            jaxenv.make("uncontested_bidding", dataset="fresh", player=player, side="EW"),
            jaxenv.make("bridge", dataset="fresh")]
    owners = [np.asarray(jax.vmap(env.init)(KEYS[:8])._owner) for env in envs]
    for other in owners[1:]:
        assert (other.astype(np.int64) == owners[0].astype(np.int64)).all()
    states = [jax.vmap(env.init)(KEYS[:8]) for env in envs]
    assert (np.asarray(states[0].index) == -1).all()
    assert (np.asarray(states[0].dealer) == np.asarray(states[2].dealer)).all()
    assert (np.asarray(states[0].vulnerable) == np.asarray(states[2].vulnerable)).all()


def test_fresh_opening_rules_are_the_rules_cores():
    owner = np.asarray(jax.vmap(deal)(jax.random.split(jax.random.key(3), 300))[0])
    for seat in range(4):
        codes = np.asarray(jax.vmap(opening_code, in_axes=(0, None))(jnp.asarray(owner), seat))
        assert (codes == opening_codes(owner, np.full(len(owner), seat))).all()
    env = jaxenv.make("uncontested_bidding", dataset="fresh", player=_NoPlay(), side="NS")
    state = jax.vmap(env.init)(jax.random.split(jax.random.key(3), 300))
    expected = opening_action_mask(owner, np.zeros(len(owner), np.int64))
    assert (np.asarray(state.legal_action_mask) == expected).all()


class _NoPlay:
    """A card player that is never asked (the test only reads the first call's mask)."""

    def jax_cards(self, states):
        raise AssertionError("no contract is played here")


def _python_result(owner, board, calls, player):
    state = BridgeState.start(CompetitiveDeal(np.asarray(owner, np.uint8), None, dealer_for_board(board),
                                              vul_for_board(board), board, None))
    for call in calls:
        state = state.apply(int(call))
    while state.phase == "play":
        state = state.apply(CARD_OFFSET + player.act(state.view()))
    return state.result()


def _random_auction(rng, mask_of, apply, state, bid_bias=0.35):
    calls = []
    while not bool(state.terminated):
        legal = np.flatnonzero(np.asarray(mask_of(state)))
        call = int(rng.choice(legal[legal >= BID_OFFSET][:6])) if (legal >= BID_OFFSET).any() and \
            rng.random() < bid_bias else int(rng.choice(legal[legal < BID_OFFSET]))
        calls.append(call)
        state = apply(state, call)
    return state, calls


def test_a_fresh_competitive_contract_is_played_as_the_python_whole_deal(player):
    env = jaxenv.make("competitive_bidding", dataset="fresh", player=player)
    step = jax.jit(env.step)
    rng = np.random.default_rng(0)
    played = 0
    for key in jax.random.split(jax.random.key(11), 6):
        state = env.init(key)
        _, board, _, _ = deal(key)
        end, calls = _random_auction(rng, lambda s: s.legal_action_mask, step, state)
        result = _python_result(state._owner, int(board), calls, player)
        assert float(end.rewards[0]) == result.score_ns == -float(end.rewards[1])
        played += result.contract is not None
    assert played >= 3


def test_a_fresh_uncontested_contract_is_played_by_its_canonical_auction(player):
    env = jaxenv.make("uncontested_bidding", dataset="fresh", player=player, side="NS", opening_rules=False)
    step = jax.jit(env.step)
    rng = np.random.default_rng(1)
    for key in jax.random.split(jax.random.key(12), 4):
        state = env.init(key)
        _, board, _, _ = deal(key)
        end, calls = _random_auction(rng, lambda s: s.legal_action_mask, step, state, bid_bias=0.7)
        bids = [c - 1 for c in calls if c > 0]
        if not bids:
            assert float(end.rewards[0]) == 0.0
            continue
        from bridgerl.core.bridge import opening_lead_calls
        from bridgerl.core.contract import Contract

        # the declarer: the partner (N first, then S) who first named the contract's strain
        seats = [0 if i % 2 == 0 else 2 for i in range(len(calls))]
        named = {}
        for seat, call in zip(seats, calls):
            if call > 0:
                named.setdefault((call - 1) % 5, seat)
        contract = Contract(bids[-1] // 5 + 1, bids[-1] % 5, 0, named[bids[-1] % 5])
        result = _python_result(state._owner, int(board), opening_lead_calls(dealer_for_board(int(board)), contract),
                                player)
        level = contract.level
        doubled = int(result.tricks <= level + 4)
        vulnerable = "NS" in vul_for_board(int(board)) or vul_for_board(int(board)) == "both"
        points = score(level, contract.strain, doubled, vulnerable, result.tricks)
        assert float(end.rewards[0]) == points == float(end.rewards[2])
        assert float(end.rewards[1]) == 0.0


def test_fresh_options_are_checked_in_one_line(player):
    cases = [({"tricks": "dd"}, "no DD table"), ({"reward": "par_imps"}, "par needs every contract"),
             ({"side": "thesis"}, "'NS' or 'EW'"), ({"opponent": 1}, "unknown option")]
    for options, message in cases:
        name = "uncontested_bidding" if "side" in options else "competitive_bidding"
        with pytest.raises(ValueError, match=message):
            jaxenv.make(name, dataset="fresh", player=player, **options)
    with pytest.raises(ValueError, match="played by its agents"):
        jaxenv.make("bridge", dataset="fresh", play="double_dummy")
    with pytest.raises(ValueError, match="no rows"):
        jaxenv.make("bridge", dataset="fresh").init(jax.random.key(0), 3)
    with pytest.raises(ValueError, match="options of fresh deals"):
        jaxenv.make("competitive_bidding", dataset="valid", player=player)
    with pytest.raises(ValueError, match="card.player"):
        jaxenv.make("competitive_bidding", dataset="fresh", player="models/competitive-ppo")


def test_play_in_step_false_leaves_the_rewards_to_the_trainer(player):
    env = jaxenv.make("competitive_bidding", dataset="fresh", player=player, play_in_step=False)
    state = env.init(jax.random.key(2))
    state = env.step(state, BID_OFFSET + 9)  # 2NT by the dealer, then three passes
    for _ in range(3):
        state = env.step(state, 0)
    assert bool(state.terminated) and float(jnp.abs(state.rewards).sum()) == 0.0


# the slow tier (CI runs it; docs/conventions.md): the batched play-out of ended auctions against one-by-one steps
# (below, with an illegal call in the batch) stays in the default tier
@pytest.mark.slow
def test_batched_steps_pay_each_ended_auction_its_own_played_result(player):
    """Under vmap (the played result computed for every auction, kept where one ended) the rewards are those of
    the same auctions stepped one at a time; auctions still running and illegal calls get none of it."""
    env = jaxenv.make("competitive_bidding", dataset="fresh", player=player)
    keys = jax.random.split(jax.random.key(21), 6)
    calls = [BID_OFFSET + 4 + 5 * (k % 3) for k in range(6)]  # 1NT, 2NT, 3NT by the dealer
    batch = jax.vmap(env.init)(keys)
    step = jax.jit(jax.vmap(env.step))
    batch = step(batch, jnp.asarray(calls))
    for _ in range(2):
        batch = step(batch, jnp.zeros(6, jnp.int32))
    assert not np.asarray(batch.terminated).any() and not np.asarray(batch.rewards).any()
    batch = step(batch, jnp.zeros(6, jnp.int32))
    single = jax.jit(env.step)
    for k, key in enumerate(keys):
        state = single(env.init(key), calls[k])
        for _ in range(3):
            state = single(state, 0)
        assert bool(batch.terminated[k]) and (np.asarray(batch.rewards[k]) == np.asarray(state.rewards)).all()
    assert np.asarray(batch.rewards).any()
    illegal = step(jax.vmap(env.init)(keys), jnp.full(6, 1))  # a double with nothing to double
    assert np.asarray(illegal.terminated).all() and (np.abs(np.asarray(illegal.rewards)) == 7700).all()  # points


@pytest.mark.parametrize("env_id", ["competitive_bidding",  # the uncontested one in the slow tier (suite time)
                                    pytest.param("uncontested_bidding", marks=pytest.mark.slow)])
def test_the_batched_play_out_of_ended_auctions_only_pays_what_one_by_one_does(player, env_id, monkeypatch):
    """The custom batching rule (the ended auctions gathered and played out a chunk at a time, here 3 rows a chunk
    so that several chunks and padding are used): random auctions of a batch of 10, ending at different calls,
    get the rewards of the same auctions stepped one at a time."""
    import bridgerl.envs.jaxenv.fresh as fresh

    monkeypatch.setattr(fresh, "PLAY_CHUNK", 3)
    env = jaxenv.make(env_id, dataset="fresh", player=player)
    keys = jax.random.split(jax.random.key(5), 10)
    batch = jax.vmap(env.init)(keys)
    singles = [env.init(key) for key in keys]
    step, single = jax.jit(jax.vmap(env.step)), jax.jit(env.step)
    rng = np.random.default_rng(1)
    paid = 0
    for _ in range(40):
        mask = np.asarray(batch.legal_action_mask)
        action = np.where(mask, rng.random(mask.shape) + 0.7 * (np.arange(mask.shape[1]) == 0), -1).argmax(1)
        batch = step(batch, jnp.asarray(action))
        singles = [single(state, int(a)) if not bool(state.terminated) else state
                   for state, a in zip(singles, action)]
        got = np.asarray(batch.rewards)
        want = np.stack([np.asarray(state.rewards) for state in singles])
        running = ~np.asarray(batch.terminated) | (got != 0).any(1)
        assert (got[running] == want[running]).all()
        paid += int((got != 0).any(1).sum())
        if np.asarray(batch.terminated).all():
            break
    assert np.asarray(batch.terminated).all() and paid >= 2  # (a passed-out or a 0-point contract pays 0)
    if env_id == "competitive_bidding":  # an illegal call in the batch ends its auction with the penalty alone
        illegal = step(jax.vmap(env.init)(keys), jnp.full(10, 1))  # a double with nothing to double
        assert np.asarray(illegal.terminated).all() and (np.abs(np.asarray(illegal.rewards)) == 7700).all()  # points


def test_fresh_uncontested_ew_side_and_no_table_readers(player):
    """East-West bids from West (its opening rules, its vulnerability bit); the state keeps the board's dealer and
    vulnerability; what reads a DD table is refused."""
    env = jaxenv.make("uncontested_bidding", dataset="fresh", player=player, side="EW")
    keys = jax.random.split(jax.random.key(4), 200)
    states = jax.vmap(env.init)(keys)
    owner, _, dealer, vul = jax.vmap(deal)(keys)
    assert (np.asarray(states.current_player) == 3).all() and (np.asarray(states.side) == 1).all()
    assert (np.asarray(states.vulnerable) == ((np.asarray(vul) >> 1) & 1).astype(bool)).all()
    assert (np.asarray(states._dealer) == np.asarray(dealer)).all() and (np.asarray(states._vul) == np.asarray(vul)).all()
    expected = opening_action_mask(np.asarray(owner), np.full(200, 3))
    assert (np.asarray(states.legal_action_mask) == expected).all()
    with pytest.raises(ValueError, match="DD table"):
        env.call_outcomes(env.init(keys[0]))
