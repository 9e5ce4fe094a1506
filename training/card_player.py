"""Training the learned card player (issue #37) by imitation of double dummy: a `Task` of the supervised loop
(`bridgerl.training.supervised`) on positions files (`bridgerl data positions`).

Each position where the player has a real choice (more than one group of equal cards) is one example: the play
features of the chooser's view (`bridgerl.core.play_features`, built on the fly by replaying each deal once; the
files keep only the deals, the actions and the DD values) and, as the target, the legal cards that are best double
dummy in the true deal, shared equally (seed 004, table 5: the indicator of the best moves trains sharper than
counts over sampled worlds). Cross-entropy of the network's softmax over the legal cards.

``target="worlds"`` (seed 004's ISSN target) shares the target among the legal cards in proportion to the number of
sampled worlds, consistent with the chooser's view, in which each is DD-best: positions files made with
``bridgerl data positions --label-worlds K`` (the array ``worlds``).

``target="mixed"`` (issue #50) takes the sampled worlds' target from the files that have it and the true deal's
best cards from the others: a large set of positions labelled on the true deal alone, with a labelled part.

``target="both"`` (issue #50) trains two heads together: the policy on the ``best`` target (cross-entropy) and a
value for every legal card, the DD tricks the side to play takes from here on after it (squared error, weighted
by ``value_weight``): Pidgin's regression beside the imitation; the epoch kept is the policy's lowest trick loss.

``target="tricks"`` instead regresses every legal card's DD tricks in the true deal, relative to the best card
(0 for the best, -1 for a card that loses a trick, ...): squared error of the logits on the legal cards. Over
positions drawn as the play draws them, the least-squares fit of a view is the card's *expected* DD loss given
what the view shows, so the card with the highest output is the one a perfect PIMC (worlds from the true
posterior of the training play) would choose; the cross-entropy target instead learns how often a card is among
the best. Either way the epoch kept is the one with the lowest *trick loss* of the chosen cards on the
validation positions (`trick_loss`, seed 004's metric).

Augmentation (``relabel_suits``, on by default): each training batch has its suits permuted at random, the trump
suit kept (any order of the four in notrump, of the three side suits otherwise): exact for the play and its DD
values, and for these features, which then leave the auction out. With ``auction=True`` the features carry the
auction bits, for which no relabelling is exact (the bidders treat suits differently), so none is done.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from bridgerl.agents.learned.card_player import FORMAT, build, masked_choice
from bridgerl.training.simulation import policy_loss
from bridgerl.core.bridge import CARD_OFFSET
from bridgerl.core.play_features import OFFSETS, feature_size, play_features
from bridgerl.core.positions import has_world_labels, load_positions
from bridgerl.training.simulation import suit_relabelling
from bridgerl.training.supervised import SupervisedConfig, Task, train_supervised

DEFAULTS = {"hidden": (512, 512, 512), "learning_rate": 3e-4}
_CARD_BLOCKS = OFFSETS["trick"].stop // 52  # remaining, unseen, played, led, trick: 13 blocks of 52 cards first


def positions_examples(positions, auction: bool = False, which=None,
                       target: str = "best") -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features int8[P, F], legal bool[P, 52], target float32[P, 52], index int64[P]) of the positions with a
    real choice (or those of ``which``), in the order of their deals and steps (``index``: the positions' rows):
    the chooser's play features and, as ``target``, its DD-best legal cards shared equally (``best``), shared by
    the sampled worlds in which each is best (``worlds``; ``mixed``: so where the file has those labels, else as
    ``best``) or each legal card's DD tricks less the best card's
    (``tricks``, 0 off the legal cards)."""
    _check_target(target)
    pos, deals = positions.positions, positions.deals
    if target == "mixed":
        target = "worlds" if "worlds" in pos else "best"
    if target == "worlds" and "worlds" not in pos:
        raise ValueError(f"{positions.source}: no sampled-world labels for target 'worlds' (make the file with "
                         "bridgerl data positions --label-worlds K)")
    index = np.flatnonzero(pos["choices"] > 1) if which is None else np.asarray(which, np.int64)
    order = index[np.lexsort((pos["step"][index], pos["deal"][index]))]
    features = np.zeros((len(index), feature_size(auction)), np.int8)
    k = 0
    while k < len(order):
        d = int(pos["deal"][order[k]])
        state = positions.auction_state(int(order[k]))
        played = 0
        while k < len(order) and int(pos["deal"][order[k]]) == d:
            step = int(pos["step"][order[k]])
            for card in deals["play"][d][played:step]:
                state = state.apply(CARD_OFFSET + int(card))
            played = step
            features[k] = play_features(state.view(), auction=auction)
            k += 1
    legal = pos["legal"][order].astype(bool)
    dd = pos["dd"][order].astype(np.float32)
    top = np.where(legal, dd, -1).max(1, keepdims=True)
    if target == "tricks":
        return features, legal, np.where(legal, dd - top, 0).astype(np.float32), order
    if target == "worlds":
        counts = np.where(legal, pos["worlds"][order], 0).astype(np.float32)
        return features, legal, counts / np.maximum(counts.sum(1, keepdims=True), 1), order
    best = legal & (dd == top)
    return features, legal, (best / best.sum(1, keepdims=True)).astype(np.float32), order


def examples(path, auction: bool = False, target: str = "best"):
    """(features, legal, target, tricks lost by each legal card) of a positions file's positions with a choice;
    ``both`` adds each legal card's DD tricks (0 off the legal cards), the card values' target."""
    positions = load_positions(path)
    x, legal, aim, order = positions_examples(positions, auction, target="best" if target == "both" else target)
    dd = positions.positions["dd"][order].astype(np.float32)
    lost = np.where(legal, np.where(legal, dd, -1).max(1, keepdims=True) - dd, 0).astype(np.float32)
    if target == "both":
        return x, legal, aim, lost, np.where(legal, dd, 0).astype(np.float32)
    return x, legal, aim, lost


def _logits(outputs):
    return outputs[0] if isinstance(outputs, tuple) else outputs


def best_loss(logits, legal, target, lost, *_):
    return policy_loss(_logits(logits), legal, target)


def both_loss(outputs, legal, target, lost, tricks, value_weight: float = 0.25):
    """(summed cross-entropy of the policy + ``value_weight`` x squared error of the card values over the legal
    cards, positions) of a batch."""
    logits, values = outputs
    policy, count = policy_loss(logits, legal, target)
    return policy + value_weight * tricks_loss(values, legal, tricks, lost)[0], count


def tricks_loss(logits, legal, target, lost):
    """(summed squared error in tricks over the legal cards, positions) of a batch."""
    import jax.numpy as jnp

    error = jnp.where(legal, logits - target, 0.0)
    return (error ** 2).sum(), target.shape[0]


def trick_loss(logits, legal, target, lost, *_):
    """(summed DD tricks lost by the chosen cards, positions): the player's own choice (`masked_choice`)."""
    import jax.numpy as jnp

    card = masked_choice(_logits(logits), legal)
    return jnp.take_along_axis(lost, card[:, None], axis=1).sum(), target.shape[0]


TARGETS = {"best": (best_loss, "log_loss"), "worlds": (best_loss, "log_loss"), "mixed": (best_loss, "log_loss"),
           "tricks": (tricks_loss, "mse"), "both": (both_loss, "log_loss+value")}


def _check_target(target: str) -> None:
    if target not in TARGETS:
        raise ValueError(f"card-player target {target!r}: choose one of {', '.join(TARGETS)}")


def relabel_suits(key, batch):
    """The batch (play features without the auction, then arrays over the 52 cards: legal, target, ...) with each
    position's suits permuted at random, the trump suit kept: the 13 card blocks and the voids' suit axis follow the
    permutation; the strain, level and counts do not change."""
    import jax.numpy as jnp

    x, cards = batch[0], batch[1:]
    n = x.shape[0]
    inverse, source = suit_relabelling(key, jnp.argmax(x[:, OFFSETS["strain"]], axis=1))
    blocks = x[:, :52 * _CARD_BLOCKS].reshape(n, _CARD_BLOCKS, 52)
    blocks = jnp.take_along_axis(blocks, source[:, None, :], axis=2).reshape(n, -1)
    voids = x[:, OFFSETS["voids"]].reshape(n, 4, 4)
    voids = jnp.take_along_axis(voids, inverse[:, None, :], axis=2).reshape(n, 16)
    x = jnp.concatenate([blocks, x[:, 52 * _CARD_BLOCKS:OFFSETS["voids"].start], voids,
                         x[:, OFFSETS["voids"].stop:]], axis=1)
    return (x, *(jnp.take_along_axis(a, source, 1) for a in cards))


def card_player_task(auction: bool = False, augment: bool = True, target: str = "best",
                     value_weight: float = 0.25) -> Task:
    if auction and augment:
        raise ValueError("suit relabelling is exact only without the auction: pass augment=False (--no-relabel) "
                         "with auction=True (--auction)")
    _check_target(target)
    if not value_weight > 0:
        raise ValueError(f"value weight must be > 0, got {value_weight}")
    size = feature_size(auction)
    loss, metric = TARGETS[target]
    values = target == "both"
    if values:
        loss = functools.partial(both_loss, value_weight=float(value_weight))
    settings = {"auction": bool(auction), "relabel_suits": bool(augment), "target": target}
    if values:
        settings.update(card_values=True, value_weight=float(value_weight))
    return Task(kind="card-player", format=FORMAT, features=size,
                build=lambda hidden, seed=0: build(size, hidden, seed=seed, card_values=values, both=values),
                examples=functools.partial(examples, auction=auction, target=target), loss=loss, metric=metric,
                augment=relabel_suits if augment else None, select=trick_loss, select_metric="trick_loss",
                # the sampled-world labels are a training target: validation positions are scored on the true deal
                valid_examples=(functools.partial(examples, auction=auction, target="best")
                                if target in ("worlds", "mixed") else None),
                settings=settings)


def check_mixed(train) -> None:
    """``--target mixed`` needs sampled-world labels in at least one training file (else it is ``best``)."""
    paths = [train] if isinstance(train, (str, Path)) else list(train)
    if not any(has_world_labels(path) for path in paths):
        raise ValueError("--target mixed: none of the training files has sampled-world labels (make one with "
                         "bridgerl data positions --label-worlds K); without them it is --target best")


def train_card_player(out, train, valid, config: SupervisedConfig = SupervisedConfig(**DEFAULTS), auction=False,
                      augment=True, target: str = "best", seed: int = 0, value_weight: float = 0.25,
                      **kwargs) -> dict:
    """Train the card player on ``train`` positions file(s), select the epoch on ``valid`` (`train_supervised`)."""
    if target == "mixed":
        check_mixed(train)
    return train_supervised(card_player_task(auction, augment, target, value_weight), out, train, valid, config,
                            seed, **kwargs)


__all__ = ["DEFAULTS", "TARGETS", "check_mixed", "positions_examples", "relabel_suits", "card_player_task",
           "train_card_player", "trick_loss"]
