"""Cheap copies (issue #49, part): an env copied or pickled refers to its dataset (its file and content hash)
instead of carrying it; a copy plays on as the original; a dataset file changed since is refused in one line."""

import copy
import pickle
import shutil

import gymnasium as gym
import numpy as np
import pytest

import bridgerl  # noqa: F401  (registers the ids)
from bridgerl.core.dataset import DatasetError, bundled_path, load_dataset, save_dataset

IDS = ["bridgerl/UncontestedBidding-v0", "bridgerl/CompetitiveBidding-v0", "bridgerl/CardPlay-v0",
       "bridgerl/Bridge-v0"]


def _make(env_id, dataset="train"):
    extra = {"defender_worlds": 1} if env_id.endswith("CardPlay-v0") else {}
    return gym.make(env_id, dataset=dataset, **extra).unwrapped


@pytest.mark.parametrize("env_id", IDS)
def test_a_pickled_or_copied_env_names_its_dataset_and_plays_on(env_id):
    env = _make(env_id)
    _, info = env.reset(seed=3)
    import time

    start = time.perf_counter()
    blob = pickle.dumps(env)
    copied = copy.deepcopy(env)
    seconds = time.perf_counter() - start
    assert len(blob) < 200_000  # the bundled training split is 1.8 MB of arrays
    assert seconds < 2.0, seconds  # loose: a copy of the arrays took 19-32 ms, a reference well under one
    del copied
    twin, clone = pickle.loads(blob), copy.deepcopy(env)
    assert clone.source is env.source  # read-only: shared
    for _ in range(3):
        action = int(np.flatnonzero(info["action_mask"])[0])
        first, second, third = env.step(action), twin.step(action), clone.step(action)
        assert all(np.array_equal(first[0], other[0]) and first[1:3] == other[1:3] for other in (second, third))
        info = first[4]
        if first[2]:
            break


def test_arrays_and_subsets_pickle_whole_and_a_changed_file_is_refused(tmp_path):
    subset = load_dataset("test").subset(np.arange(5))
    assert len(pickle.loads(pickle.dumps(subset))) == 5 and subset.reference() is None
    arrays = load_dataset({"owner": subset.owner, "dd": subset.dd})
    assert (pickle.loads(pickle.dumps(arrays)).owner == subset.owner).all()
    path = tmp_path / "d.npz"
    shutil.copy(bundled_path("valid"), path)
    env = _make("bridgerl/CompetitiveBidding-v0", dataset=str(path))
    env.reset(seed=0)
    blob = pickle.dumps(env)
    full = load_dataset(path)
    save_dataset(path, full.subset(np.arange(1, len(full))))  # other deals under the same name
    with pytest.raises(DatasetError, match="its deals changed since this env was copied or pickled"):
        pickle.loads(blob)


@pytest.mark.parametrize("split", ["train", "test"])
def test_bundled_arrays_are_read_only_so_envs_on_one_split_cannot_change_each_others_deals(split):
    """An env's copies share its arrays (a copy is a reference, `SharedSource`): a write into `owner`, `dd` or
    `board` raises, through the dataset, an env's source, a copy or a pickled subset; a copy of one's own can be
    written, and the shared deals stay as they were."""
    first = _make("bridgerl/UncontestedBidding-v0", split)
    second = copy.deepcopy(first)
    dataset = first.source.dataset
    assert second.source.dataset is dataset
    twin = pickle.loads(pickle.dumps(dataset.subset(np.arange(3))))
    played = load_dataset(split, tricks="played")
    for array in (dataset.owner, dataset.dd, dataset.boards, played.dd, played.tables["dd"], played.tables["played"],
                  twin.owner, second.source.thesis_sides, second.source.makeable_rows, second.source.vuls):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 1
    before = dataset.owner[0].copy()
    mine = np.array(dataset.owner)  # a copy of one's own is writeable
    mine[0] = 3 - mine[0]
    second.reset(seed=0)
    assert np.array_equal(first.source.dataset.owner[0], before)
    assert np.array_equal(load_dataset(split).owner[0], before)


def test_a_users_own_arrays_keep_their_flags():
    subset = load_dataset("test").subset(np.arange(2))
    owner, dd = np.array(subset.owner), np.array(subset.dd)
    made = load_dataset({"owner": owner, "dd": dd})
    assert owner.flags.writeable and dd.flags.writeable and not made.owner.flags.writeable
