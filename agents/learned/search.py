"""Decision-time search for uncontested bidding (issue #21): belief sampling under the learned policy, valued by the
centralised critic.

At each decision `CriticSearchBidder` deals the partner ``samples`` hands from the 39 cards it cannot see, keeps
those with which the acting network, in the partner's seat, would have made every call the partner made (its
observation and legal calls at each of its turns rebuilt from the auction: the opening rules of thesis 4.4.5 for the
first bid, higher bids and pass after it), and picks the legal call with the best mean value of the critic (trained
beside the network with ``--targets all --critic``: it sees the player's observation and the partner's cards) over
the kept hands. With fewer than ``min_kept`` hands kept it falls back on the network's own values. No DD table is
read: the critic's values are the only judge of the sampled worlds.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from bridgerl.agents.learned.checkpoint import CRITIC_FILE, checkpoint_file, load_weights
from bridgerl.agents.learned.dqn import DQNAgent, build_network
from bridgerl.agents.learned.networks import masked_argmax
from bridgerl.core.calls import NUM_UNCONTESTED_ACTIONS as NUM_ACTIONS
from bridgerl.core.uncontested import (BIDS_OFFSET, HAND_OFFSET, INITIAL_PASS_BIT, OBSERVATION_SIZE, VULNERABLE_BIT,
                                       calls_after_bid, encode_observation, opening_action_mask)


class CriticSearchBidder:
    """``act(observation, action_mask)`` for uncontested bidding: the module docstring's search."""

    def __init__(self, actor: DQNAgent, critic, critic_metadata: dict, samples: int = 1024, min_kept: int = 8,
                 seed: int = 0, opening_rules: bool | None = None):
        if actor.env_id != "uncontested_bidding":
            raise ValueError(f"search bids uncontested auctions; this DQN is for {actor.env_id!r}")
        if int(critic_metadata.get("observation_size", 0)) != OBSERVATION_SIZE + 52:
            raise ValueError("the critic takes the observation and the partner's 52 cards "
                             f"({OBSERVATION_SIZE + 52} inputs), got {critic_metadata.get('observation_size')}")
        if samples < 1 or min_kept < 1:
            raise ValueError(f"samples and min_kept must be at least 1, got {samples} and {min_kept}")
        self.actor, self.samples, self.min_kept = actor, int(samples), int(min_kept)
        options = actor.metadata.get("env_options") or {}
        self.opening_rules = bool(options.get("opening_rules", True)) if opening_rules is None else opening_rules
        self.rng = np.random.default_rng(seed)
        self.kept: list[int] = []  # hands kept at each decision (a record for reports)
        actor_graph, actor_params = actor._graphdef, actor._params
        critic_graph, critic_params = nnx.split(critic)
        self._params = (actor_params, critic_params)

        def greedy(params, obs, mask):
            return masked_argmax(nnx.merge(actor_graph, params[0])(obs), mask)

        def critic_mean(params, obs, hands, keep):
            values = nnx.merge(critic_graph, params[1])(jnp.concatenate([obs, hands], -1))
            return (values * keep[:, None]).sum(0) / jnp.maximum(keep.sum(), 1)

        self._greedy, self._critic_mean = jax.jit(greedy), jax.jit(critic_mean)

    @classmethod
    def load(cls, path, samples: int = 1024, min_kept: int = 8, seed: int = 0) -> "CriticSearchBidder":
        """The network of ``path`` (a run or model directory, or its model.msgpack) and the ``critic.msgpack``
        beside it."""
        actor = DQNAgent.load(path, env_id="uncontested_bidding")
        critic_path = checkpoint_file(path).parent / CRITIC_FILE
        if not critic_path.exists():
            raise FileNotFoundError(f"{critic_path}: no critic beside this model (train it with --targets all "
                                    f"--critic)")
        metadata, params = load_weights(critic_path, what="critic")
        critic = build_network(metadata)
        state = nnx.state(critic)
        nnx.replace_by_pure_dict(state, params)
        nnx.update(critic, state)
        return cls(actor, critic, metadata, samples=samples, min_kept=min_kept, seed=seed)

    def act_batch(self, observations, action_masks) -> np.ndarray:
        return np.array([self.act(o, m) for o, m in zip(observations, action_masks)], dtype=np.int64)

    def act(self, observation, action_mask) -> int:
        obs = np.asarray(observation, np.int8)
        mask = np.asarray(action_mask).astype(bool)
        if obs.shape != (OBSERVATION_SIZE,) or mask.shape != (NUM_ACTIONS,):
            raise ValueError(f"search takes one {OBSERVATION_SIZE}-bit observation and a {NUM_ACTIONS}-call mask, got "
                             f"{obs.shape} and {mask.shape}")
        hands = self.sample_partner_hands(obs)
        keep = self.consistent(obs, hands)
        self.kept.append(int(keep.sum()))
        if keep.sum() < self.min_kept:
            return int(self.actor.act(obs, mask))
        values = np.asarray(self._critic_mean(self._params, jnp.asarray(np.broadcast_to(obs, (len(hands), obs.size))),
                                              jnp.asarray(hands), jnp.asarray(keep, jnp.float32)))
        return int(np.argmax(np.where(mask, values, -np.inf)))

    def sample_partner_hands(self, obs) -> np.ndarray:
        """int8[samples, 52]: uniform partner hands from the cards not in the player's hand."""
        unseen = np.flatnonzero(obs[HAND_OFFSET:] == 0)
        draws = self.rng.permuted(np.broadcast_to(unseen, (self.samples, unseen.size)), axis=1)[:, :13]
        hands = np.zeros((self.samples, 52), np.int8)
        np.put_along_axis(hands, draws, 1, axis=1)
        return hands

    def consistent(self, obs, hands) -> np.ndarray:
        """bool[samples]: with which hands the acting network, in the partner's seat, makes every call the partner
        made in this auction."""
        calls = partner_calls(obs)
        keep = np.ones(len(hands), bool)
        for view, call in calls:
            partner_obs = np.broadcast_to(view, (len(hands), view.size)).copy()
            partner_obs[:, HAND_OFFSET:] = hands
            if view[BIDS_OFFSET:HAND_OFFSET].any():  # after a bid: pass or any higher bid
                last = int(np.flatnonzero(view[BIDS_OFFSET:HAND_OFFSET])[-1])
                masks = np.broadcast_to(calls_after_bid(last), (len(hands), NUM_ACTIONS))
            elif self.opening_rules:  # the hand bits as an owner array in which "seat 1" holds the partner's cards
                masks = opening_action_mask(hands, 1)
            else:
                masks = np.ones((len(hands), NUM_ACTIONS), bool)
            chosen = np.asarray(self._greedy(self._params, jnp.asarray(partner_obs), jnp.asarray(masks)))
            keep &= chosen == call
        return keep


def partner_calls(obs) -> list[tuple[np.ndarray, int]]:
    """The partner's calls in the auction of observation ``obs`` (the player to act next), each with the partner's
    observation at that turn (hand bits zero): [(view, action), ...] in order. The partners alternate and the
    opponents always pass, so the calls are the initial pass (if any) then the bids in increasing order, and the
    last call before the player's turn was the partner's."""
    bids = [int(b) for b in np.flatnonzero(obs[BIDS_OFFSET:HAND_OFFSET])]
    initial_pass = bool(obs[INITIAL_PASS_BIT])
    calls = ([0] if initial_pass else []) + [b + 1 for b in bids]
    no_hand = np.zeros(52, np.int8)
    out = []
    for position in range(len(calls) - 1, -1, -2):  # the partner's turns, latest first
        earlier = [c - 1 for c in calls[:position] if c > 0]
        view = encode_observation(bool(obs[VULNERABLE_BIT]), initial_pass and position > 0, earlier, no_hand)
        out.append((view, calls[position]))
    return out[::-1]
