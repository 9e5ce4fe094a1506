"""Decision-time search for uncontested bidding (agents.search): the partner's calls rebuilt from an observation,
kept worlds that reproduce the auction, no DD table read, loading by spec."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from bridgerl.agents.learned.dqn import DQNAgent
from bridgerl.agents.learned.networks import QNetwork
from bridgerl.agents.learned.search import CriticSearchBidder, partner_calls
from bridgerl.core import load_dataset, make_dataset
from bridgerl.core.uncontested import encode_observation
from bridgerl.envs import jaxenv
from bridgerl.envs.jaxenv.tables import opening_codes
from bridgerl.envs.jaxenv.uncontested import _refresh
from bridgerl.evaluation.bidding.uncontested import play_deals

METADATA = {"env_id": "uncontested_bidding", "observation_size": 89, "num_actions": 36, "hidden": [32],
            "dueling": False}


def _bidder(samples=256, min_kept=4, seed=0):
    actor = DQNAgent(QNetwork(89, (32,), 36, seed=11), METADATA)
    critic = QNetwork(89 + 52, (32,), 36, seed=12)
    return CriticSearchBidder(actor, critic, {**METADATA, "observation_size": 141}, samples=samples,
                              min_kept=min_kept, seed=seed)


def test_partner_calls_are_rebuilt_from_the_observation():
    hand = np.zeros(52, np.int8)
    assert partner_calls(encode_observation(False, False, [], hand)) == []
    (view, call), = partner_calls(encode_observation(True, False, [2], hand))  # partner opened 1H
    assert call == 3 and view[0] == 1 and not view[1:].any()
    # we passed, partner opened 1H, we raised to 2H, partner bid 3NT: partner's calls 1H (after our pass), 3NT
    calls = partner_calls(encode_observation(False, True, [2, 7, 14], hand))
    assert [c for _, c in calls] == [3, 15]
    first, second = (v for v, _ in calls)
    assert first[1] == 1 and not first[2:].any()
    assert second[1] == 1 and np.flatnonzero(second[2:37]).tolist() == [2, 7]
    # partner passed first, we opened 1S, partner bid 2S
    calls = partner_calls(encode_observation(False, True, [3, 8], hand))
    assert [c for _, c in calls] == [0, 9] and not calls[0][0].any() and calls[1][0][1] == 1


def test_kept_worlds_reproduce_the_auction():
    """Each kept partner hand, dealt into the deal (the opponents taking the rest), makes the acting network bid the
    same auction up to this turn in the JAX env: an independent replay of the rebuilt views and opening rules."""
    bidder = _bidder(samples=256)
    env = jaxenv.make("uncontested_bidding", dataset="test")
    greedy = jax.jit(lambda obs, mask: jnp.argmax(jnp.where(mask, bidder.actor._q(bidder.actor._params, obs),
                                                            -jnp.inf)))
    step = jax.jit(env.step)
    checked = 0
    for row in range(6):
        state = env.init(jax.random.PRNGKey(0), row)
        for depth in range(3):
            if bool(state.terminated):
                break
            obs, seat = np.asarray(state.observation), int(state.current_player)
            hands = bidder.sample_partner_hands(obs)
            keep = bidder.consistent(obs, hands)
            if depth == 0 and not obs[1]:
                assert keep.all()  # nothing to explain yet
            for hand in hands[keep][:3]:
                owner = np.asarray(state._owner).copy()
                others = np.flatnonzero((owner != seat))
                partner, rest = (seat + 2) % 4, [s for s in range(4) if s % 2 != seat % 2]
                owner[others[hand[others] == 1]] = partner
                owner[others[hand[others] == 0]] = np.repeat(rest, 13)  # the opponents share the rest
                first = 0 if int(state.side) == 0 else 3
                codes = np.concatenate([opening_codes(owner[None], np.array([seat_]))
                                        for seat_ in (first, (first + 2) % 4)])
                replay = _refresh(env.init(jax.random.PRNGKey(0), row).replace(
                    _owner=jnp.asarray(owner, jnp.uint8), _opening=jnp.asarray(codes)))
                while int(replay._calls) < int(state._calls):
                    replay = step(replay, greedy(replay.observation, replay.legal_action_mask))
                assert (np.asarray(replay.observation) == obs).all()  # same auction, same hand to act
                checked += 1
            state = step(state, greedy(state.observation, state.legal_action_mask))
    assert checked >= 5


def test_search_reads_no_dd_table_and_is_seeded():
    """Calls are identical when the dataset's DD tables are scrambled (side fixed, so the side rule, which reads
    the DD table, does not pick the bidders), and the same seed gives the same calls."""
    data = load_dataset("test")
    rows = np.arange(40)
    scrambled = make_dataset(data.owner[:40], np.random.default_rng(0).permutation(data.dd[:40].reshape(-1))
                             .reshape(40, 4, 5), data.boards[:40])

    def calls(dataset, seed):
        bidder, seen = _bidder(samples=128, seed=seed), []
        original = bidder.act

        def record(obs, mask):
            seen.append(original(obs, mask))
            return seen[-1]

        bidder.act = record
        play_deals(bidder, make_dataset(dataset.owner[:40], dataset.dd[:40], dataset.boards[:40]), rows, side="NS")
        return seen, bidder.kept

    first, kept = calls(data, 0)
    assert calls(scrambled, 0)[0] == first and calls(data, 0)[0] == first
    assert len(first) > 40 and max(kept) > 0


def test_search_falls_back_and_checks_its_input(tmp_path):
    bidder = _bidder(samples=16, min_kept=17)  # never enough kept hands: the network's own call
    obs = encode_observation(False, False, [2], np.repeat([1, 0, 0, 0], 13).astype(np.int8))
    mask = np.zeros(36, bool)
    mask[[0, 4, 5, 9]] = True
    assert bidder.act(obs, mask) == bidder.actor.act(obs, mask)
    with pytest.raises(ValueError, match="89-bit observation"):
        bidder.act(np.zeros(231, np.int8), mask)
    with pytest.raises(ValueError, match="at least 1"):
        CriticSearchBidder(bidder.actor, QNetwork(141, (8,), 36), {"observation_size": 141}, samples=0)
    from bridgerl.arena.specs import load_agent

    from flax import nnx

    from bridgerl.agents.learned.checkpoint import save_weights

    save_weights(tmp_path / "model.msgpack", nnx.to_pure_dict(bidder.actor._params), METADATA)
    with pytest.raises(FileNotFoundError, match="no critic beside this model"):
        load_agent(f"search:{tmp_path}")
    with pytest.raises(ValueError, match="is for uncontested bidding"):
        load_agent(f"search:{tmp_path}", env_id="competitive_bidding")
