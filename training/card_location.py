"""Training the card-location network (seed 003, issue #20) on positions files: the `Task` of the supervised loop
(`bridgerl.training.supervised`): features, hard constraints, log uniform prior and the true seat of every unseen
card (`bridgerl.agents.learned.card_location`), the masked cross-entropy as loss.
"""

from __future__ import annotations

import numpy as np

from bridgerl.agents.learned.card_location import (FEATURES, FORMAT, build_network, encode, log_uniform_prior,
                                                   masked_log_probs, positions_inputs)
from bridgerl.core.positions import load_positions
from bridgerl.training.supervised import SupervisedConfig, Task, train_supervised

LocationConfig = SupervisedConfig


def load_examples(path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features int8[P, F], allowed bool[P, 52, 3], log uniform prior float32[P, 52, 3], target int8[P, 52]) of
    every position of a positions file."""
    positions = load_positions(path)
    inputs, target = positions_inputs(positions)
    x, allowed, counts = encode(**inputs)
    return x, allowed, log_uniform_prior(allowed, counts), target.astype(np.int8)


def location_loss_sum(logits, allowed, prior, target):
    """(summed cross-entropy over the unseen cards, unseen cards) of a batch."""
    import jax.numpy as jnp

    log_probs = masked_log_probs(logits, allowed, prior)
    picked = jnp.take_along_axis(log_probs, jnp.maximum(target, 0)[..., None], -1)[..., 0]
    known = target >= 0
    return -(picked * known).sum(), known.sum()


LOCATION = Task(kind="card-location", format=FORMAT, features=FEATURES, build=build_network, examples=load_examples,
                loss=location_loss_sum, metric="log_loss")


def train_location(out, train, valid, config: SupervisedConfig = SupervisedConfig(), seed: int = 0,
                   resume: bool = False, force: bool = False, progress: bool = True,
                   command: str | None = None) -> dict:
    """Train the card-location network on ``train``, select on ``valid`` (`train_supervised`)."""
    return train_supervised(LOCATION, out, train, valid, config, seed, resume, force, progress, command)


__all__ = ["LocationConfig", "LOCATION", "train_location", "load_examples", "location_loss_sum"]
