"""Dataset validation: every malformed file gets a one-line error naming the problem."""

import subprocess
import sys

import numpy as np
import pytest

from bridgerl.core import Dataset, DatasetError, load_dataset, make_dataset, save_dataset
from bridgerl.core.generate import deal_owners


def _good(n=3):
    owner = deal_owners(5, n)
    dd = np.full((n, 4, 5), 7, dtype=np.uint8)
    return owner, dd


def _write(path, **arrays):
    np.savez(path, **arrays)
    return path


def test_round_trip_and_extra_arrays(tmp_path):
    owner, dd = _good()
    path = _write(tmp_path / "ok.npz", owner=owner, dd=dd, seed=np.int64(5), board=np.array([3, 4, 5]))
    ds = load_dataset(path)
    assert len(ds) == 3 and ds.boards.tolist() == [3, 4, 5]
    save_dataset(tmp_path / "copy.npz", ds)
    again = load_dataset(tmp_path / "copy.npz")
    assert (again.owner == owner).all() and (again.dd == dd).all() and again.boards.tolist() == [3, 4, 5]
    assert load_dataset({"owner": owner, "dd": dd}).boards.tolist() == [1, 2, 3]


@pytest.mark.parametrize("change, message", [
    (lambda o, d: (o[:, :51], d), r"'owner' has shape \(3, 51\), expected \(N, 52\)"),
    (lambda o, d: (o, d[:, :, :4]), r"'dd' has shape \(3, 4, 4\), expected \(N, 4, 5\)"),
    (lambda o, d: (o.astype(np.float32), d), r"'owner' has dtype float32"),
    (lambda o, d: (o, d[:2]), r"'owner' has 3 deals but 'dd' has 2"),
    (lambda o, d: (np.where(np.arange(52) == 0, (o[:, :1] + 1) % 4, o), d), r"deal 0 has \[.*\] cards"),
    (lambda o, d: (o, d + 7), r"'dd' values must be tricks 0..13, deal 0"),
    (lambda o, d: (o + 4, d), r"'owner' values must be seats 0-3"),
])
def test_bad_arrays_are_named(tmp_path, change, message):
    owner, dd = change(*_good())
    path = _write(tmp_path / "bad.npz", owner=owner, dd=dd)
    with pytest.raises(DatasetError, match=message):
        load_dataset(path)


def test_missing_array_corrupt_and_absent_files(tmp_path):
    owner, _ = _good()
    with pytest.raises(DatasetError, match="missing array 'dd'"):
        load_dataset(_write(tmp_path / "nodd.npz", owner=owner))
    corrupt = tmp_path / "corrupt.npz"
    corrupt.write_bytes(b"this is not a zip file" * 10)
    with pytest.raises(DatasetError, match="a text file, not a .npz dataset .a zip archive") as failure:
        load_dataset(corrupt)
    assert "allow_pickle" not in str(failure.value)
    pbn = tmp_path / "deals.pbn"
    pbn.write_text('[Deal "N:..."]\n')
    with pytest.raises(DatasetError, match="a PBN file, not a .npz dataset.*convert it with `bridgerl data from-pbn`"):
        load_dataset(pbn)
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, owner=np.array([{"a": 1}], dtype=object))
    with pytest.raises(DatasetError, match="holds object arrays, which are never read") as failure:
        load_dataset(pickled)
    assert "allow_pickle" not in str(failure.value)
    good = _write(tmp_path / "good.npz", owner=owner, dd=np.zeros((3, 4, 5), np.uint8))
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:200])
    with pytest.raises(DatasetError, match="not a readable .npz dataset"):
        load_dataset(truncated)
    with pytest.raises(DatasetError, match="no such dataset file"):
        load_dataset(tmp_path / "absent.npz")
    with pytest.raises(DatasetError, match="'board' numbers must be 1 or more"):
        make_dataset(owner, np.zeros((3, 4, 5), np.uint8), board=np.array([0, 1, 2]))


def test_cli_reports_one_line_error(tmp_path):
    owner, dd = _good()
    path = _write(tmp_path / "bad.npz", owner=owner, dd=dd[:, :3])
    result = subprocess.run([sys.executable, "-m", "bridgerl.cli", "data", "info", str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "'dd' has shape (3, 3, 5)" in lines[0]


def test_bundled_splits_are_valid_and_disjoint():
    train, valid, test = load_dataset("train"), load_dataset("valid"), load_dataset("test")
    assert len(train) >= 20000 and len(valid) == 5000 and len(test) >= 5000
    assert isinstance(train, Dataset)
    from bridgerl.core.generate import deal_owners

    assert (valid.owner[:3] == deal_owners(3, 3)).all()  # seed 3, as docs/datasets.md says
    keys = [{row.tobytes() for row in split.owner} for split in (train, valid, test)]
    assert not keys[0] & keys[1] and not keys[0] & keys[2] and not keys[1] & keys[2]
