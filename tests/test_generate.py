"""`bridgerl data generate`: progress, DDS correctness, and resuming after a kill gives the same arrays."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from bridgerl.core.generate import _load_partial, deal_owners, partial_path
from bridgerl.core.dd import solve_dd_table

CLI = [sys.executable, "-m", "bridgerl.cli", "data", "generate", "--deals", "56", "--seed", "1"]  # 2 chunks (40 + 16)


def _arrays(path):
    with np.load(path) as npz:
        return {key: npz[key] for key in npz.files}


# the slow tier (CI runs it; docs/conventions.md): a checkpoint's resume is in test_ray_generate's default tier
@pytest.mark.slow
def test_interrupted_run_resumes_to_identical_arrays(tmp_path):
    whole = tmp_path / "whole.npz"
    done = subprocess.run(CLI + ["--out", str(whole)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "deal/s" in done.stderr and "56/56" in done.stderr  # the progress bar

    resumed = tmp_path / "resumed.npz"
    proc = subprocess.Popen(CLI + ["--out", str(resumed)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while not partial_path(resumed).exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be interrupted"
    os.kill(proc.pid, signal.SIGKILL)  # a hard kill: only the atomic checkpoint survives
    proc.wait()
    assert not resumed.exists()
    with np.load(partial_path(resumed)) as partial:
        assert 0 < partial["solved"].sum() < 56 and partial["dd"].shape == (56, 4, 5)
    again = subprocess.run(CLI + ["--out", str(resumed)], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert not partial_path(resumed).exists()

    a, b = _arrays(whole), _arrays(resumed)
    assert sorted(a) == sorted(b) == ["dd", "owner", "seed"]
    for key in a:
        assert a[key].dtype == b[key].dtype and a[key].tobytes() == b[key].tobytes()
    assert a["owner"].shape == (56, 52) and a["dd"].shape == (56, 4, 5)
    assert (a["owner"] == deal_owners(1, 56)).all()
    # spot-check DDS through the single-table call
    for row in (0, 41, 55):
        assert (solve_dd_table(a["owner"][row]) == a["dd"][row]).all()


def test_checkpoint_with_other_arguments_is_refused(tmp_path):
    out = tmp_path / "x.npz"
    np.savez(partial_path(out), dd=np.zeros((4, 4, 5), np.uint8), seed=np.int64(9), deals=np.int64(56))
    result = subprocess.run(CLI + ["--out", str(out)], capture_output=True, text=True)
    assert result.returncode == 2 and "holds another job: seed is 9 there" in result.stderr


def test_a_checkpoint_of_the_older_prefix_format_is_read(tmp_path):
    path = tmp_path / "x.npz.partial.npz"
    old = np.arange(3 * 20, dtype=np.uint8).reshape(3, 4, 5)
    np.savez(path, dd=old, seed=np.int64(4), deals=np.int64(5))  # the first 3 of 5 deals, in order
    dd, solved = _load_partial(path, 4, 5)
    assert solved.tolist() == [True, True, True, False, False]
    assert (dd[:3] == old).all() and (dd[3:] == 0).all()


def test_deals_are_uniform_permutations():
    owners = deal_owners(3, 2000)
    assert (np.stack([(owners == s).sum(1) for s in range(4)], 1) == 13).all()
    # each card lands with each seat about a quarter of the time
    share = np.stack([(owners == s).mean(0) for s in range(4)])
    assert np.abs(share - 0.25).max() < 0.05
    assert (deal_owners(3, 10) == owners[:10]).all()
