"""The learned card player (issue #37): a policy network that chooses a card from the play features of the
player's own view (`bridgerl.core.play_features`), one forward pass per card, batched over many tables.

Checkpoint kind ``bridgerl-card-player-1`` (`bridgerl.agents.learned.checkpoint`), metadata: ``features`` (759, or
990 with the auction bits), ``auction`` (whether it reads them), ``hidden`` (the MLP's sizes) and how it was
trained. Play spec ``cardnet[:model=PATH]`` (default ``models/card-player``), or the bare path.

The card: the legal card with the highest output (the lowest such card on a tie), on the numpy path
(`CardPlayer.act`, `act_views`: over `PlayerView` objects, one view at a time through numpy's matrix-vector
products, so a view's card never depends on the views asked with it and a single decision costs no JAX dispatch)
and the JAX path (`jax_cards`: over the whole deal's JAX states, batched, for self-play in `jaxenv.make("bridge")`
and the batched throughput). The two paths compute the same float32 network; their outputs agree to rounding.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from bridgerl.agents.learned.checkpoint import checkpoint_file, load_network, save_weights
from bridgerl.agents.learned.networks import dense_layers, relu_torso
from bridgerl.core.play_features import feature_size, play_features

FORMAT = "bridgerl-card-player-1"
WHAT = "card-player"
DEFAULT_MODEL = "models/card-player"
_NEG = -1e9


@functools.cache
def _blas_controller():
    """threadpoolctl's view of the loaded libraries, found once (finding them costs about a millisecond)."""
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()


def one_blas_thread():
    """A context in which numpy's BLAS runs on one thread. One view's product (1 x 759 by 759 x 1024) is too small
    to share: its threads only wait, and beside DDS's own threads (PIMC, cardsearch, the DD oracle in the same
    process) they made a 1024-wide player's decision 14 ms instead of 0.6-0.9 ms. Entering costs about 3 us."""
    return _blas_controller().limit(limits=1, user_api="blas")


class CardPlayerNetwork(nnx.Module):
    """An MLP over the play features: ReLU hidden layers, a logit per card and a value head (the tricks the
    hand's side takes from here on, as a share of those left: a training signal; acting reads the logits only).

    With ``card_values`` (issue #50) also a value for every card: the double-dummy tricks the side to play takes
    from here on (the trick in progress included) after that card, regressed beside the policy (Pidgin's
    Q-network); `bridgerl.agents.CardSearch` reads it. ``both`` makes ``__call__`` return (logits, card values),
    the training loss's input; otherwise it returns the logits."""

    def __init__(self, inputs: int, hidden: tuple[int, ...], *, seed: int = 0, card_values: bool = False,
                 both: bool = False):
        rngs = nnx.Rngs(seed)
        self.layers = dense_layers(inputs, hidden, rngs)
        self.head = nnx.Linear(hidden[-1], 52, rngs=rngs)
        self.value = nnx.Linear(hidden[-1], 1, rngs=rngs)
        self.card_values = nnx.Linear(hidden[-1], 52, rngs=rngs) if card_values else None
        self.both = bool(both and card_values)

    def torso(self, x: jax.Array) -> jax.Array:
        return relu_torso(self.layers, x)

    def policy_value(self, x: jax.Array) -> tuple[jax.Array, jax.Array]:
        h = self.torso(x)
        return self.head(h), jax.nn.sigmoid(self.value(h)[..., 0])

    def __call__(self, x: jax.Array):
        h = self.torso(x)
        if self.both:
            return self.head(h), self.card_values(h)
        return self.head(h)


def masked_choice(logits: jax.Array, legal: jax.Array) -> jax.Array:
    """The legal card with the highest logit (the lowest card on a tie)."""
    return jnp.argmax(jnp.where(legal, logits, _NEG), axis=-1)


def build(inputs: int, hidden, seed: int = 0, card_values: bool = False, both: bool = False) -> CardPlayerNetwork:
    return CardPlayerNetwork(int(inputs), tuple(int(h) for h in hidden), seed=seed, card_values=card_values,
                             both=both)


def save(path, network: CardPlayerNetwork, metadata: dict) -> None:
    """Write the network's weights with ``metadata`` (which must name ``auction`` and ``hidden``)."""
    metadata = {**metadata, "features": feature_size(bool(metadata["auction"]))}
    save_weights(path, nnx.to_pure_dict(nnx.state(network)), metadata, format=FORMAT)


class CardPlayer:
    """A trained card player (`load`): ``act(view)``, ``act_views(views)`` (`evaluate game` plays its tables in
    lockstep through it) and `jax_cards` for JAX states. Deterministic: the card is a function of the view.

    The numpy path runs the network one view at a time (a vector times each weight matrix): a view's card is then
    the same alone and among others (a CPU's matrix products round a row differently between batch sizes), and a
    single decision, the unbatched cost the goals count, takes a fraction of a millisecond with no JAX dispatch.
    Batched play at scale goes through `jax_cards`."""

    def __init__(self, network: CardPlayerNetwork, metadata: dict, model: str = "<network>"):
        self.metadata = dict(metadata)
        self.model = str(model)
        self.auction = bool(self.metadata.get("auction", False))
        self.calls = self.rows = 0
        graphdef, self._params = nnx.split(network)
        self._graphdef = graphdef
        self._choose = jax.jit(lambda params, x, legal: masked_choice(nnx.merge(graphdef, params)(x), legal))
        pure = nnx.to_pure_dict(self._params)
        self._weights = [(np.asarray(pure["layers"][i]["kernel"], np.float32),
                          np.asarray(pure["layers"][i]["bias"], np.float32)) for i in range(len(pure["layers"]))]
        self._head = (np.asarray(pure["head"]["kernel"], np.float32), np.asarray(pure["head"]["bias"], np.float32))
        values = pure.get("card_values")
        self._values = None if not values else (np.asarray(values["kernel"], np.float32),
                                                 np.asarray(values["bias"], np.float32))

    @classmethod
    def load(cls, path=DEFAULT_MODEL) -> "CardPlayer":
        """A checkpoint of kind ``card-player``; any other file is refused in one line."""
        probe = checkpoint_file(path)
        from bridgerl.agents.learned.checkpoint import load_weights

        metadata, _ = load_weights(probe, format=FORMAT, what=WHAT)
        auction = bool(metadata.get("auction", False))
        values = bool(metadata.get("card_values", False))
        network, metadata = load_network(probe, FORMAT, WHAT, feature_size(auction),
                                         lambda hidden: build(feature_size(auction), hidden, card_values=values))
        return cls(network, metadata, str(path))

    @property
    def has_card_values(self) -> bool:
        """Whether the network values every card (trained with ``--target both``)."""
        return self._values is not None

    # -- numpy path ------------------------------------------------------------------------------------------
    def act(self, view) -> int:
        return int(self.act_views([view])[0])

    def hidden(self, features: np.ndarray) -> np.ndarray:
        """The last hidden layer for one view's features (float32[H]) or many (float32[N, H]), numpy."""
        x = np.asarray(features, np.float32)
        for kernel, bias in self._weights:
            x = np.maximum(x @ kernel + bias, 0.0)
        return x

    def outputs(self, features: np.ndarray) -> np.ndarray:
        """The network's 52 outputs for one view's features (numpy, float32), or [N, 52] for N views' at once."""
        return self.hidden(features) @ self._head[0] + self._head[1]

    def card_values_of(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(logits, card values) float32[..., 52] for features [..., F]: the policy's outputs and each card's
        predicted DD tricks for the side to play (a network trained with ``--target both``; else a ValueError)."""
        if self._values is None:
            raise ValueError(f"{self.model}: this card player has no card values (train it with --target both)")
        h = self.hidden(features)
        return h @ self._head[0] + self._head[1], h @ self._values[0] + self._values[1]

    def act_views(self, views) -> np.ndarray:
        """The cards for many views, one view at a time (one BLAS thread: `one_blas_thread`)."""
        views = list(views)
        cards = np.zeros(len(views), np.int64)
        with one_blas_thread():
            for i, view in enumerate(views):
                logits = self.outputs(play_features(view, auction=self.auction))
                cards[i] = int(np.argmax(np.where(view.legal_mask(), logits, _NEG)))
        self.calls += 1
        self.rows += len(views)
        return cards

    def network_rows(self) -> int:
        return self.rows

    # -- JAX path --------------------------------------------------------------------------------------------
    def jax_cards(self, states) -> jax.Array:
        """The card (0..51) for each of a batch of `bridgerl.envs.jaxenv.bridge.State` in the play (add
        ``CARD_OFFSET`` for the env's action)."""
        from bridgerl.envs import jax_play_features as jax_features

        features = jax.vmap(lambda s: jax_features(s, self.auction))(states)
        legal = states.legal_action_mask[..., -52:]
        return self._choose(self._params, features, legal)

    def __repr__(self) -> str:
        return f"CardPlayer(model={self.model!r})"


class CardPlayerAgent(CardPlayer):
    """The play spec ``cardnet[:model=PATH]``: `CardPlayer.load` of the model (default ``models/card-player``),
    loaded once per process."""

    def __new__(cls, model: str = DEFAULT_MODEL, seed=None):
        from bridgerl.agents.learned.checkpoint import cached_load

        return cached_load(CardPlayer, str(model))


__all__ = ["CardPlayerNetwork", "CardPlayer", "CardPlayerAgent", "masked_choice", "build", "save", "FORMAT",
           "DEFAULT_MODEL"]
