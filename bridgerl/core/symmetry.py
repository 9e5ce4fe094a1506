"""Exact symmetries of deals with DD tables: relabelling suits or turning the table.

Double-dummy play knows no suit names and no compass, so a deal whose suits are relabelled (hearts become
spades, ...) has the DD table with its suit columns relabelled the same way, and a deal turned by k seats (North's
cards to East, ...) has the DD table with its declarer rows turned; notrump stays put. Both give new deals with
exact DD tables at no DDS cost: training data for the bidding envs (`bridgerl data augment`). Uniformly random
deals stay uniformly random under these maps. Board numbers (dealer, vulnerability) are kept.
"""

from __future__ import annotations

from itertools import permutations

import numpy as np

from .dataset import Dataset, make_dataset

ALL_SUIT_PERMUTATIONS = tuple(permutations(range(4)))
"""The 24 relabellings of clubs, diamonds, hearts, spades (suit s becomes suit perm[s]); the first is the identity."""


def _check_permutation(perm) -> np.ndarray:
    perm = np.asarray(perm, dtype=np.int64)
    if perm.shape != (4,) or sorted(perm.tolist()) != [0, 1, 2, 3]:
        raise ValueError(f"a suit permutation lists each suit 0-3 once, got {perm.tolist()}")
    return perm


def permute_suits(owner: np.ndarray, dd: np.ndarray, perm) -> tuple[np.ndarray, np.ndarray]:
    """Relabel suit s as suit ``perm[s]`` (0 clubs .. 3 spades) in ``owner`` [N, 52] and ``dd`` [N, 4, 5]."""
    perm = _check_permutation(perm)
    owner, dd = np.asarray(owner), np.asarray(dd)
    new_owner = np.empty(owner.shape, owner.dtype)
    new_owner.reshape(-1, 4, 13)[:, perm] = owner.reshape(-1, 4, 13)
    new_dd = dd.copy()
    new_dd[:, :, perm] = dd[:, :, :4]
    return new_owner, new_dd


def rotate_owner(owner: np.ndarray, turns: int) -> np.ndarray:
    """Give seat p's cards to seat (p + turns) % 4 (any shape of owner array)."""
    owner = np.asarray(owner)
    return ((owner.astype(np.int64) + int(turns) % 4) % 4).astype(owner.dtype)


def rotate_seats(owner: np.ndarray, dd: np.ndarray, turns: int) -> tuple[np.ndarray, np.ndarray]:
    """Give seat p's cards (and DD row) to seat (p + turns) % 4."""
    return rotate_owner(owner, turns), np.roll(np.asarray(dd), int(turns) % 4, axis=1)


def augment(dataset: Dataset, suit_permutations: int = 24, rotations: int = 1) -> Dataset:
    """The dataset under the first ``suit_permutations`` suit relabellings times ``rotations`` turns of the
    table (1 = none, 2 = also the half turn N<->S, E<->W, 4 = all), variant-major: rows [0, N) are the original."""
    if not 1 <= suit_permutations <= 24:
        raise ValueError(f"suit_permutations must be 1-24, got {suit_permutations}")
    if rotations not in (1, 2, 4):
        raise ValueError(f"rotations must be 1, 2 or 4, got {rotations}")
    turns = {1: (0,), 2: (0, 2), 4: (0, 1, 2, 3)}[rotations]
    owners, dds = [], []
    for turn in turns:
        turned_owner, turned_dd = rotate_seats(dataset.owner, dataset.dd, turn)
        for perm in ALL_SUIT_PERMUTATIONS[:suit_permutations]:
            owner, dd = permute_suits(turned_owner, turned_dd, perm)
            owners.append(owner)
            dds.append(dd)
    copies = len(owners)
    return make_dataset(np.concatenate(owners), np.concatenate(dds), np.tile(dataset.boards, copies),
                        f"{dataset.source} x{copies}")
