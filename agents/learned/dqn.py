"""`DQNAgent`: a trained Q-network acting through any bridgerl bidding interface.

``act(observation, action_mask) -> action`` works with the Gymnasium envs, the OpenSpiel games (pass the tensor
and a mask of ``legal_actions()``) and the JAX envs (``state.observation``, ``state.legal_action_mask``);
``act_batch`` takes stacks of them. Illegal actions are never chosen.

A competitive checkpoint may name a constructive bidder (metadata ``"constructive"``: an uncontested DQN file beside
it): while the opponents have only passed, that bidder makes the calls on the uncontested view of the auction
(thesis 4.4, opening rules included), the "partner behaviour when the opponents pass" of issue #10.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from bridgerl.agents.learned.checkpoint import PPO_FORMAT, checkpoint_file, load_weights
from bridgerl.agents.learned.networks import DECISION_ROWS, ActorCritic, QNetwork, apply_fixed, masked_argmax
from bridgerl.agents.bidding.silent import SilentOpponents


def build_network(metadata: dict, seed: int = 0) -> QNetwork:
    return QNetwork(int(metadata["observation_size"]), tuple(metadata["hidden"]), int(metadata["num_actions"]),
                    bool(metadata.get("dueling", False)), seed=seed)


class DQNAgent:
    """Greedy policy of a Q-network (no exploration)."""

    kind = "DQN"  # what the error messages call the model

    def __init__(self, network: QNetwork, metadata: dict, constructive: "DQNAgent | None" = None):
        self.metadata = dict(metadata)
        if constructive is not None and (self.env_id, constructive.env_id) != ("competitive_bidding",
                                                                              "uncontested_bidding"):
            raise ValueError("a constructive bidder is an uncontested DQN serving a competitive one, got "
                             f"{constructive.env_id!r} for {self.env_id!r}")
        self.constructive = constructive
        self._composite = None if constructive is None else SilentOpponents(constructive, _NetworkOnly(self))
        self._graphdef, self._params = nnx.split(network)
        self._q = jax.jit(lambda params, obs: nnx.merge(self._graphdef, params)(obs))
        self._greedy = jax.jit(lambda params, obs, mask: masked_argmax(nnx.merge(self._graphdef, params)(obs), mask))
        self._fixed = False  # `act_fixed` in progress: the network runs in batches of one shape

    @classmethod
    def load(cls, path, env_id: str | None = None) -> "DQNAgent":
        """Load a checkpoint file (or a directory holding ``model.msgpack``); ``env_id`` checks it fits the env."""
        metadata, params = load_weights(path)
        if env_id is not None and metadata.get("env_id") != env_id:
            raise ValueError(f"{path}: this DQN was trained on {metadata.get('env_id')!r} "
                             f"({metadata.get('observation_size')} inputs, {metadata.get('num_actions')} actions), "
                             f"not {env_id!r}")
        network = build_network(metadata)
        state = nnx.state(network)
        nnx.replace_by_pure_dict(state, params)
        nnx.update(network, state)
        constructive = None
        if metadata.get("constructive"):
            helper = checkpoint_file(path).parent / metadata["constructive"]
            constructive = cls.load(helper, env_id="uncontested_bidding")
        return cls(network, metadata, constructive)

    @property
    def env_id(self) -> str:
        return self.metadata.get("env_id", "")

    def _check(self, observations: np.ndarray, masks: np.ndarray) -> None:
        size, actions = int(self.metadata["observation_size"]), int(self.metadata["num_actions"])
        if observations.shape[-1] != size or masks.shape[-1] != actions:
            raise ValueError(f"this {self.kind} ({self.env_id}) takes {size} observation values and {actions} "
                             f"actions, got {observations.shape[-1]} and {masks.shape[-1]}")
        if not np.asarray(masks).any(-1).all():
            raise ValueError("no legal action in the mask: the episode is over")

    def q_values(self, observations) -> np.ndarray:
        return np.asarray(self._q(self._params, jnp.asarray(observations)))

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations, action_masks) -> np.ndarray:
        observations, action_masks = np.asarray(observations), np.asarray(action_masks).astype(bool)
        self._check(observations, action_masks)
        if self._composite is None:
            return self._greedy_batch(observations, action_masks)
        return self._composite.act_batch(observations, action_masks)

    def act_fixed(self, observations, action_masks) -> np.ndarray:
        """`act_batch` with the network run in batches of one fixed shape
        (`bridgerl.agents.learned.networks.DECISION_ROWS`): each position's call is the same whatever positions are
        asked with it (`evaluate game` bids through this, so a board's auction does not depend on the other boards).
        `act_batch` keeps its shapes (a power of two), which the released figures were measured with."""
        helpers = [self] + ([self.constructive] if self.constructive is not None else [])
        for agent in helpers:
            agent._fixed = True
        try:
            return self.act_batch(observations, action_masks)
        finally:
            for agent in helpers:
                agent._fixed = False

    def act_view(self, view) -> int:
        """The call for an `AuctionView` (competitive DQNs)."""
        if self.env_id != "competitive_bidding":
            raise ValueError(f"act_view takes a competitive auction view; this {self.kind} is for {self.env_id!r}")
        return self.act(view.observation(), view.legal_mask)

    def _greedy_batch(self, observations, action_masks) -> np.ndarray:
        if self._fixed:
            return apply_fixed(self._greedy, self._params, (observations, action_masks))
        # pad to a power of two: lockstep evaluation sends every batch size once, and each new shape would compile
        n = len(observations)
        size = 1 << max(n - 1, 0).bit_length()
        pad = ((0, size - n), (0, 0))
        actions = self._greedy(self._params, jnp.asarray(np.pad(observations, pad)),
                               jnp.asarray(np.pad(action_masks, pad, constant_values=True)))
        return np.asarray(actions)[:n]


class _NetworkOnly:
    """The Q-network's greedy calls without the constructive bidder (what `SilentOpponents` hands the contested
    auctions to)."""

    def __init__(self, agent: DQNAgent):
        self._agent = agent

    def act_batch(self, observations, action_masks) -> np.ndarray:
        return self._agent._greedy_batch(np.asarray(observations), np.asarray(action_masks).astype(bool))


class PPOAgent(DQNAgent):
    """The greedy policy (the most likely legal call) of a PPO actor-critic (`agents.networks.ActorCritic`, trained
    by `bridgerl train competitive --algo ppo`); agent spec ``ppo:PATH``. It reads one seat's 231-bit observation."""

    kind = "PPO model"

    @classmethod
    def load(cls, path, env_id: str | None = None) -> "PPOAgent":
        metadata, params = load_weights(path, format=PPO_FORMAT, what="PPO")
        if env_id is not None and metadata.get("env_id") != env_id:
            raise ValueError(f"{path}: this PPO model was trained on {metadata.get('env_id')!r}, not {env_id!r}")
        network = ActorCritic(int(metadata["observation_size"]), tuple(metadata["hidden"]),
                              int(metadata["num_actions"]))
        state = nnx.state(network)
        nnx.replace_by_pure_dict(state, params)
        nnx.update(network, state)
        return cls(network, metadata)

    def numpy_probabilities(self, observations, action_masks) -> np.ndarray:
        """`policy_probabilities` on the numpy path (float64[n, actions]): the network's matrix products in numpy on
        one BLAS thread, no JAX dispatch. A search asking for many small batches (worlds, rollouts) beside other
        work is several times faster so than with XLA's threads; the numbers agree with the JAX path to rounding."""
        if self.constructive is not None:
            raise ValueError("this PPO model hands uncontested auctions to its constructive bidder: its calls have "
                             "no single policy's probabilities")
        if not hasattr(self, "_numpy_weights"):
            pure = nnx.to_pure_dict(self._params)
            layers = [pure["layers"][i] for i in sorted(pure["layers"])]
            self._numpy_weights = ([(np.asarray(l["kernel"], np.float32), np.asarray(l["bias"], np.float32))
                                    for l in layers],
                                   (np.asarray(pure["head"]["kernel"], np.float32),
                                    np.asarray(pure["head"]["bias"], np.float32)))
        from bridgerl.agents.learned.card_player import one_blas_thread

        hidden, head = self._numpy_weights
        x = np.asarray(observations, np.float32)
        masks = np.asarray(action_masks).astype(bool)
        with one_blas_thread():
            for kernel, bias in hidden:
                x = np.maximum(x @ kernel + bias, 0.0)
            logits = (x @ head[0] + head[1]).astype(np.float64)
        logits = np.where(masks, logits, -np.inf)
        logits -= logits.max(1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(1, keepdims=True)

    def policy_probabilities(self, observations, action_masks, rows: int = DECISION_ROWS) -> np.ndarray:
        """float32[n, actions]: the policy's probabilities over the legal calls (softmax of the masked logits), run
        in batches of one shape, ``rows`` each (`apply_fixed`: a row's numbers never depend on the rows beside it);
        with the default shape their argmax is `act_fixed`'s call. Not for a model with a constructive bidder (its calls are not all the network's)."""
        if self.constructive is not None:
            raise ValueError("this PPO model hands uncontested auctions to its constructive bidder: its calls have "
                             "no single policy's probabilities")
        observations, action_masks = np.asarray(observations), np.asarray(action_masks).astype(bool)
        self._check(observations, action_masks)
        if not hasattr(self, "_softmax"):
            graphdef = self._graphdef
            self._softmax = jax.jit(lambda params, obs, mask: jax.nn.softmax(
                jnp.where(mask, nnx.merge(graphdef, params)(obs), -1e9), axis=-1))
        return apply_fixed(self._softmax, self._params, (observations, action_masks), rows)
