"""Training the trick estimator (issue #65) on played tables: a `Task` of the supervised loop
(`bridgerl.training.supervised`).

Examples: every deal of a dataset holding a played table (`bridgerl data played`; the bundled ``train`` and ``valid``
splits carry `models/card-player`'s), seen from each of the four declarers in turn (`deal_features`), with the played
tricks of the five strains as targets. Loss: the cross-entropy of each strain's 14-way trick distribution. The epoch
kept is the one with the lowest validation MAE of the median (the figure the issue's goal names). Training batches
may have their suits relabelled at random (any of the 24 orders of C D H S, the four suit strains' targets moved
with them): exact for double-dummy tables, close for a card player's.

Honest splits: training datasets are never the valid or test deals (told by content, whatever the file's name), and
the validation dataset is not the test split.
"""

from __future__ import annotations

import hashlib
import itertools
from pathlib import Path

import numpy as np

from bridgerl.agents.learned.trick_estimator import FEATURES, FORMAT, WHAT, build, deal_features
from bridgerl.core.dataset import load_dataset
from bridgerl.training.supervised import Task

_PERMUTATIONS = np.array(list(itertools.permutations(range(4))), np.int32)


def _deals_digest(data) -> str:
    return hashlib.sha256(np.ascontiguousarray(load_dataset(data).owner, np.uint8).tobytes()).hexdigest()


def check_datasets(train: list, valid) -> None:
    """Train on training deals only: no training dataset holds the valid or test split's deals (by content), and
    the validation dataset is not the test split."""
    test, held = _deals_digest("test"), {_deals_digest("valid"): "valid", _deals_digest("test"): "test"}
    for path in train:
        if str(path) in ("valid", "test"):
            raise ValueError(f"--train {path}: the {path} split is never trained on (train, or a file of other deals)")
        found = held.get(_deals_digest(path))
        if found:
            raise ValueError(f"--train {path}: its deals are the {found} split's; train on other deals")
        if str(path) == str(valid) or (Path(str(path)).exists() and Path(str(valid)).exists()
                                       and Path(str(path)).resolve() == Path(str(valid)).resolve()):
            raise ValueError(f"{path} is both --train and --valid; select on other deals")
    if str(valid) == "test" or _deals_digest(valid) == test:
        raise ValueError(f"--valid {valid}: the test split; select on the valid split (--valid valid)")


def examples(data) -> tuple[np.ndarray, np.ndarray]:
    """(features int8[4 n, 208], targets int32[4 n, 5]): each deal from each declarer N E S W."""
    dataset = load_dataset(data).with_tricks("played")  # one line where there is no played table
    owner, played = np.asarray(dataset.owner, np.uint8), np.asarray(dataset.dd, np.int8)
    n = len(owner)
    declarer = np.tile(np.arange(4), n)
    features = deal_features(np.repeat(owner, 4, axis=0), declarer)
    return features, played.reshape(n * 4, 5).astype(np.int32)


def loss(outputs, target):
    """(summed cross-entropy over the strains, strain examples) of a batch."""
    import jax
    import jax.numpy as jnp

    log_probs = jax.nn.log_softmax(outputs, -1)
    picked = jnp.take_along_axis(log_probs, target[..., None], axis=-1)[..., 0]
    return -picked.sum(), target.size


def absolute_error(outputs, target):
    """(summed |median - played|, strain examples): the MAE the epoch is kept by."""
    import jax
    import jax.numpy as jnp

    median = (jnp.cumsum(jax.nn.softmax(outputs, -1), -1) < 0.5).sum(-1)
    return jnp.abs(median - target).sum(), target.size


def relabel_suits(key, batch):
    """Each example's suits put in a random order (the features' suit blocks and the suit strains' targets)."""
    import jax
    import jax.numpy as jnp

    x, target = batch
    n = x.shape[0]
    perm = jnp.asarray(_PERMUTATIONS)[jax.random.randint(key, (n,), 0, len(_PERMUTATIONS))]  # new suit j <- old
    blocks = x.reshape(n, 4, 4, 13)
    moved = jnp.take_along_axis(blocks, perm[:, None, :, None], axis=2).reshape(n, FEATURES)
    strains = jnp.concatenate([jnp.take_along_axis(target[:, :4], perm, axis=1), target[:, 4:]], axis=1)
    return moved, strains


def trick_estimator_task(augment: bool = True) -> Task:
    return Task(kind=WHAT, format=FORMAT, features=FEATURES, build=build, examples=examples, loss=loss,
                metric="log_loss", augment=relabel_suits if augment else None,
                settings={"relabel_suits": bool(augment)}, select=absolute_error, select_metric="mae",
                check=check_datasets)


__all__ = ["absolute_error", "check_datasets", "examples", "loss", "relabel_suits",
           "trick_estimator_task"]
