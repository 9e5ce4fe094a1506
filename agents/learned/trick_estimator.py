"""The trick estimator (issue #65): from a full deal, a declarer and a strain, the distribution of the tricks the
pinned card player takes there when it plays all four seats (the played table of `bridgerl data played`), without
playing a card. `bidsearch:`'s default scoring reads it in every sampled world (`score=estimator`).

The network: an MLP over the deal seen from declarer (`deal_features`: 4 x 52 bits, seat 0 = declarer, 1 = its
left-hand opponent, 2 = dummy, 3 = right-hand opponent), with one softmax over 0..13 tricks per strain (C D H S NT).
Trained by ``bridgerl train trick-estimator`` on datasets holding a played table (`bridgerl.training.trick_estimator`);
checkpoint kind ``bridgerl-trick-estimator-1``, released as ``models/trick-estimator``.

- `TrickEstimator.distribution(owner, declarer)`: float32[n, 5, 14], each deal's trick distribution in every strain.
- `TrickEstimator.expected` / `median`: the mean (what a search scores with) and the median (what the MAE is
  measured with: the median minimises the absolute error).
- `TrickEstimator.table(owner)`: int[n, 4, 5], the medians in the ``dd`` layout of every declarer.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from bridgerl.agents.learned.checkpoint import checkpoint_file, load_network, load_weights, save_weights
from bridgerl.agents.learned.networks import dense_layers, relu_torso

FORMAT = "bridgerl-trick-estimator-1"
WHAT = "trick-estimator"
DEFAULT_MODEL = "models/trick-estimator"
FEATURES = 208
STRAINS, TRICKS = 5, 14


def deal_features(owner, declarer) -> np.ndarray:
    """int8[n, 208]: each deal (``owner`` uint8[n, 52], the seat of each card) seen from ``declarer`` (int[n] or
    one int): bit 52 r + c is set when card c is held by the seat r places after declarer."""
    owner = np.asarray(owner, np.int64)
    if owner.ndim != 2 or owner.shape[1] != 52:
        raise ValueError(f"owner must be [n, 52] seats of the cards, got shape {owner.shape}")
    relative = (owner - np.asarray(declarer, np.int64).reshape(-1, 1)) % 4
    return (relative[:, None, :] == np.arange(4)[None, :, None]).reshape(len(owner), FEATURES).astype(np.int8)


class TrickNetwork(nnx.Module):
    """MLP: 208 bits -> ReLU hidden layers -> 5 x 14 logits (a trick distribution per strain)."""

    def __init__(self, inputs: int, hidden: tuple[int, ...], *, seed: int = 0):
        rngs = nnx.Rngs(seed)
        self.layers = dense_layers(inputs, hidden, rngs)
        self.head = nnx.Linear(hidden[-1] if hidden else inputs, STRAINS * TRICKS, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.head(relu_torso(self.layers, x)).reshape(*x.shape[:-1], STRAINS, TRICKS)


def build(hidden, seed: int = 0) -> TrickNetwork:
    return TrickNetwork(FEATURES, tuple(hidden), seed=seed)


class TrickEstimator:
    """A trained trick estimator (`load`). Deterministic; a row's numbers do not depend on the rows asked with it
    (numpy, row by row products in one BLAS call per layer are exact per row)."""

    def __init__(self, network: TrickNetwork, metadata: dict, model: str = "<network>"):
        self.metadata, self.model = dict(metadata), str(model)
        pure = nnx.to_pure_dict(nnx.state(network))
        self._weights = [(np.asarray(pure["layers"][i]["kernel"], np.float32),
                          np.asarray(pure["layers"][i]["bias"], np.float32)) for i in range(len(pure["layers"]))]
        self._head = (np.asarray(pure["head"]["kernel"], np.float32), np.asarray(pure["head"]["bias"], np.float32))
        self.rows = 0

    @classmethod
    def load(cls, path=DEFAULT_MODEL) -> "TrickEstimator":
        """A checkpoint of kind ``trick-estimator``; any other file is refused in one line."""
        file = checkpoint_file(path)
        load_weights(file, format=FORMAT, what=WHAT)
        network, metadata = load_network(file, FORMAT, WHAT, FEATURES, build)
        return cls(network, metadata, str(path))

    def logits(self, features: np.ndarray) -> np.ndarray:
        x = np.asarray(features, np.float32)
        for kernel, bias in self._weights:
            x = np.maximum(x @ kernel + bias, 0.0)
        self.rows += len(x)
        return (x @ self._head[0] + self._head[1]).reshape(len(x), STRAINS, TRICKS)

    def distribution(self, owner, declarer) -> np.ndarray:
        """float32[n, 5, 14]: P(tricks = t) for each deal, declarer and strain."""
        logits = self.logits(deal_features(owner, declarer))
        logits -= logits.max(-1, keepdims=True)
        p = np.exp(logits)
        return p / p.sum(-1, keepdims=True)

    def expected(self, owner, declarer) -> np.ndarray:
        """float32[n, 5]: the expected tricks."""
        return self.distribution(owner, declarer) @ np.arange(TRICKS, dtype=np.float32)

    def median(self, owner, declarer) -> np.ndarray:
        """int[n, 5]: the median tricks (the least t with P(tricks <= t) >= 1/2)."""
        return median_tricks(self.distribution(owner, declarer))

    def table(self, owner) -> np.ndarray:
        """int[n, 4, 5]: the median tricks of every declarer (N E S W) and strain, the ``dd`` layout."""
        owner = np.asarray(owner)
        return np.stack([self.median(owner, np.full(len(owner), d)) for d in range(4)], axis=1)

    def __repr__(self) -> str:
        return f"TrickEstimator(model={self.model!r})"


def median_tricks(distribution) -> np.ndarray:
    """The median of trick distributions [..., 14]."""
    return (np.cumsum(np.asarray(distribution), -1) < 0.5).sum(-1)


def save(path, network: TrickNetwork, metadata: dict) -> None:
    save_weights(path, nnx.to_pure_dict(nnx.state(network)), {**metadata, "features": FEATURES}, format=FORMAT)


def jax_log_probs(outputs: jax.Array) -> jax.Array:
    return jax.nn.log_softmax(outputs, axis=-1)


def jax_median(outputs: jax.Array) -> jax.Array:
    return (jnp.cumsum(jax.nn.softmax(outputs, -1), -1) < 0.5).sum(-1)


__all__ = ["FORMAT", "DEFAULT_MODEL", "FEATURES", "TrickEstimator", "TrickNetwork", "build", "deal_features",
           "median_tricks", "save"]
