"""Training the ISSN and the SSN (seed 004, issue #20) on positions files: two `Task`s of the supervised loop
(`bridgerl.training.supervised`).

ISSN: the chooser's view -> a distribution over its legal cards, cross-entropy to the card chosen (``recorded``) or
to the double-dummy best cards (``dd``). SSN: the full position -> the DD tricks of every legal card, squared error
in tricks; each training batch has its side suits relabelled at random (any permutation of the suits that keeps
the trump suit: an exact symmetry of double-dummy play, seed 004's suit shuffling).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from bridgerl.agents.learned.card_location import FEATURES as VIEW_FEATURES
from bridgerl.agents.learned.simulation import (ISSN_FORMAT, SSN_FEATURES, SSN_FORMAT, TARGETS, build_issn,
                                                build_ssn, policy_log_probs, positions_issn_inputs,
                                                positions_ssn_inputs, ssn_values)
from bridgerl.core.positions import load_positions
from bridgerl.training.supervised import SupervisedConfig, Task, train_supervised

_PERMUTATIONS = np.array(list(itertools.permutations(range(4))), np.int32)  # [24, 4]: new suit of each suit


def policy_loss(logits, legal, target):
    """(summed cross-entropy to the target distributions, positions) of a batch (the ISSN's and the card
    player's)."""
    return -(policy_log_probs(logits, legal) * target).sum(), target.shape[0]


def ssn_loss(outputs, legal, left, target):
    """(summed squared error in tricks over the legal cards, legal cards) of a batch."""
    import jax.numpy as jnp

    error = jnp.where(legal, ssn_values(outputs, left) - target, 0.0)
    return (error ** 2).sum(), legal.sum()


def issn_examples(path, target: str = "recorded"):
    return positions_issn_inputs(load_positions(path), target)


def ssn_examples(path):
    x, legal, left, dd = positions_ssn_inputs(load_positions(path))
    return x, legal, left.astype(np.float32), dd


def suit_relabelling(key, strain):
    """A random order of the suits per position that keeps the trump suit (``strain`` int[n], 4 = notrump: any of
    the 24): (``inverse`` int[n, 4], the old suit of each new suit; ``source`` int[n, 52], the old card at each new
    card). The one draw of both relabellings (the SSN's inputs, the card player's features)."""
    import jax
    import jax.numpy as jnp

    perms = jnp.asarray(_PERMUTATIONS)
    keeps = perms[None, :, :] == jnp.arange(4)[None, None, :]  # [1, 24, 4]: perm keeps suit s
    trump = jax.nn.one_hot(strain, 5)[:, None, :4] > 0  # [n, 1, 4] (all False in notrump)
    ok = jnp.all(keeps | ~trump, axis=2)  # [n, 24]
    choice = jax.random.categorical(key, jnp.where(ok, 0.0, -jnp.inf), axis=1)
    inverse = jnp.argsort(perms[choice], axis=1)
    card = jnp.arange(52)
    return inverse, inverse[:, card // 13] * 13 + card % 13


def relabel_suits(key, batch):
    """The SSN batch (features, legal, tricks left, DD values) with each position's suits permuted at random,
    the trump suit kept (all 24 orders in notrump, the 6 of the side suits otherwise)."""
    import jax.numpy as jnp

    x, legal, left, target = batch
    n = x.shape[0]
    _, source = suit_relabelling(key, jnp.argmax(x[:, -5:], axis=1))
    blocks = x[:, :-5].reshape(n, -1, 52)
    blocks = jnp.take_along_axis(blocks, source[:, None, :], axis=2)
    x = jnp.concatenate([blocks.reshape(n, -1), x[:, -5:]], axis=1)
    return (x, jnp.take_along_axis(legal, source, 1), left, jnp.take_along_axis(target, source, 1))


def issn_task(target: str = "recorded") -> Task:
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    return Task(kind="ISSN", format=ISSN_FORMAT, features=VIEW_FEATURES, build=build_issn,
                examples=functools.partial(issn_examples, target=target), loss=policy_loss, metric="log_loss",
                settings={"target": target})


def ssn_task(augment: bool = True) -> Task:
    return Task(kind="SSN", format=SSN_FORMAT, features=SSN_FEATURES, build=build_ssn, examples=ssn_examples,
                loss=ssn_loss, metric="mse", augment=relabel_suits if augment else None,
                settings={"relabel_suits": bool(augment)})


def train_issn(out, train, valid, config: SupervisedConfig = SupervisedConfig(), target: str = "recorded",
               seed: int = 0, **kwargs) -> dict:
    """Train the ISSN on ``train`` positions file(s), select on ``valid`` (`train_supervised`)."""
    return train_supervised(issn_task(target), out, train, valid, config, seed, **kwargs)


def train_ssn(out, train, valid, config: SupervisedConfig = SupervisedConfig(), augment: bool = True,
              seed: int = 0, **kwargs) -> dict:
    """Train the SSN on ``train`` positions file(s), select on ``valid`` (`train_supervised`)."""
    return train_supervised(ssn_task(augment), out, train, valid, config, seed, **kwargs)


__all__ = ["suit_relabelling", "relabel_suits", "issn_task", "ssn_task", "train_issn", "train_ssn"]
