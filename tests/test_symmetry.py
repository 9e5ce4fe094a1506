"""Suit relabelling and table turns give deals whose DD tables DDS confirms; `bridgerl data augment`."""

import subprocess
import sys

import numpy as np
import pytest

from bridgerl.core import load_dataset
from bridgerl.core.dd import solve_dd_table
from bridgerl.core.symmetry import ALL_SUIT_PERMUTATIONS, augment, permute_suits, rotate_seats


@pytest.fixture(scope="module")
def deals():
    return load_dataset("test").subset(np.arange(4))


def test_variants_match_dds(deals):
    rng = np.random.default_rng(0)
    for row in range(len(deals)):
        perm = ALL_SUIT_PERMUTATIONS[int(rng.integers(1, 24))]
        turns = int(rng.integers(1, 4))
        owner, dd = permute_suits(deals.owner[row:row + 1], deals.dd[row:row + 1], perm)
        owner, dd = rotate_seats(owner, dd, turns)
        assert not np.array_equal(owner[0], deals.owner[row])
        assert np.array_equal(solve_dd_table(owner[0]), dd[0])  # DDS on the new deal agrees


def test_permutation_moves_cards_and_columns():
    owner = np.repeat(np.arange(4, dtype=np.uint8), 13)[None]       # N clubs, E diamonds, S hearts, W spades
    dd = np.arange(20, dtype=np.uint8).reshape(1, 4, 5) % 14
    new_owner, new_dd = permute_suits(owner, dd, (3, 2, 1, 0))      # clubs <-> spades, diamonds <-> hearts
    assert (new_owner[0, 39:] == 0).all() and (new_owner[0, :13] == 3).all()
    assert np.array_equal(new_dd[0, :, 4], dd[0, :, 4]) and np.array_equal(new_dd[0, :, 3], dd[0, :, 0])
    turned_owner, turned_dd = rotate_seats(owner, dd, 1)
    assert (turned_owner[0, :13] == 1).all() and np.array_equal(turned_dd[0, 1], dd[0, 0])
    with pytest.raises(ValueError, match="each suit 0-3 once"):
        permute_suits(owner, dd, (0, 0, 1, 2))


def test_augment_sizes_and_identity(deals):
    out = augment(deals, suit_permutations=24, rotations=2)
    assert len(out) == 48 * len(deals)
    assert np.array_equal(out.owner[:len(deals)], deals.owner) and np.array_equal(out.dd[:len(deals)], deals.dd)
    assert len({o.tobytes() for o in out.owner}) == len(out)          # all variants differ
    assert np.array_equal(out.boards, np.tile(deals.boards, 48))
    with pytest.raises(ValueError, match="rotations"):
        augment(deals, rotations=3)


def test_cli_augment(tmp_path):
    out = tmp_path / "aug.npz"
    done = subprocess.run([sys.executable, "-m", "bridgerl.cli", "data", "augment", "test", "--out", str(out),
                           "--suit-permutations", "2"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert len(load_dataset(out)) == 10_000
