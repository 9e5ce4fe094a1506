"""`bridgerl data generate --ray`: a local two-node Ray cluster writes the same file as the single-machine route, a
failed chunk or a killed worker still ends in that file, and Ray stays an optional import."""

import hashlib
import subprocess
import sys

import numpy as np
import pytest

from bridgerl.core.dataset import DatasetError
from bridgerl.core.generate import RayChunkError, generate, partial_path

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install -e '.[ray]' (it is in the dev extra)")

DEALS, SEED, CHUNK = 24, 3, 6  # four chunks: the fault tests hit the third and the last


def _sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The single-machine generator's file."""
    path = tmp_path_factory.mktemp("local") / "local.npz"
    generate(path, DEALS, SEED, workers=1, progress=False)
    return path


@pytest.fixture(scope="module")
def cluster():
    """A local Ray cluster of two nodes with one CPU each (two workers); the generator connects to its address."""
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    yield cluster
    cluster.shutdown()


def test_two_ray_workers_write_the_single_machine_file(tmp_path, reference, cluster):
    out = tmp_path / "ray.npz"
    generate(out, DEALS, SEED, ray=cluster.address, chunk=CHUNK, progress=False)  # workers: the cluster's 2 CPUs
    assert _sha256(out) == _sha256(reference)
    assert not partial_path(out).exists()
    assert not ray.is_initialized()  # the generator leaves the cluster it joined


# the slow tier (CI runs it; docs/conventions.md): a killed worker's retry is in the default tier
@pytest.mark.slow
def test_a_failed_chunk_keeps_the_others_and_the_rerun_writes_the_same_file(tmp_path, reference, cluster):
    out = tmp_path / "ray.npz"
    with pytest.raises(RayChunkError, match=r"deals 18-23 failed on the Ray cluster .*run the same command again"):
        generate(out, DEALS, SEED, ray=cluster.address, workers=2, chunk=CHUNK, progress=False,
                 _fault=("raise", 18))
    assert not out.exists()
    with np.load(partial_path(out)) as partial:
        solved = partial["solved"]
    assert 0 < solved.sum() < DEALS and not solved[18:].any()
    local_copy = tmp_path / "local-resume.npz"
    partial_path(local_copy).write_bytes(partial_path(out).read_bytes())

    generate(out, DEALS, SEED, ray=cluster.address, workers=2, chunk=CHUNK, progress=False)
    assert _sha256(out) == _sha256(reference) and not partial_path(out).exists()
    # a Ray job's checkpoint resumes on the single-machine route too
    generate(local_copy, DEALS, SEED, workers=1, progress=False)
    assert _sha256(local_copy) == _sha256(reference)


def test_a_killed_worker_costs_one_retried_chunk(tmp_path, reference, cluster):
    out, marker = tmp_path / "ray.npz", tmp_path / "killed"
    generate(out, DEALS, SEED, ray=cluster.address, workers=2, chunk=CHUNK, progress=False,
             _fault=("exit", 12, str(marker)))
    assert marker.exists()  # the worker process solving deals 12-17 died (os._exit) and Ray ran the chunk again
    assert _sha256(out) == _sha256(reference)


# the slow tier (CI runs it; docs/conventions.md): the cluster route is in the default tier
@pytest.mark.slow
def test_the_command_on_a_local_ray_instance(tmp_path, reference):
    out = tmp_path / "cli.npz"
    done = subprocess.run([sys.executable, "-m", "bridgerl.cli", "data", "generate", "--deals", str(DEALS), "--seed",
                           str(SEED), "--out", str(out), "--ray", "--workers", "2"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"{DEALS}/{DEALS}" in done.stderr and "Ray, 2 workers" in done.stderr  # the progress bar
    assert _sha256(out) == _sha256(reference)


def test_an_unreachable_cluster_is_one_line(tmp_path):
    with pytest.raises(DatasetError, match="cannot reach a Ray cluster at 'ray://127.0.0.1:1'"):
        generate(tmp_path / "x.npz", 4, 0, ray="ray://127.0.0.1:1", progress=False)
    with pytest.raises(DatasetError, match="cannot reach a Ray cluster at '127.0.0.1:1'"):  # fails fast, no retries
        generate(tmp_path / "x.npz", 4, 0, ray="127.0.0.1:1", progress=False)


def test_ray_auto_without_a_cluster_speaks_our_flags(tmp_path, monkeypatch):
    """Ray's own message for `address="auto"` without a cluster names its --address flag and RAY_ADDRESS; ours
    names our flags (Ray is stood in for: this module's cluster is running)."""
    import bridgerl.core.generate as generate_module

    class NoCluster:
        @staticmethod
        def is_initialized():
            return False

        @staticmethod
        def init(**options):
            raise ConnectionError("Could not find any running Ray instance. Please specify the one to connect to by "
                                  "setting `--address` flag or `RAY_ADDRESS` environment variable.")

    monkeypatch.setattr(generate_module, "import_ray", lambda: NoCluster)
    with pytest.raises(DatasetError, match=r"--ray auto found no running Ray cluster .*--ray HOST:PORT") as failure:
        generate(tmp_path / "x.npz", 4, 0, ray="auto", progress=False)
    assert "RAY_ADDRESS" not in str(failure.value) and "--address" not in str(failure.value)


def test_without_ray_the_command_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    with pytest.raises(DatasetError, match=r'--ray needs Ray, which is not installed: pip install "bridgerl\[ray\]"'):
        generate(tmp_path / "x.npz", 4, 0, ray="local", progress=False)


def test_no_bridgerl_module_imports_ray():
    code = ("import importlib, pkgutil, sys, bridgerl\n"
            "for sub in ('', '.core', '.envs', '.agents', '.training', '.evaluation'):\n"
            "    package = importlib.import_module('bridgerl' + sub)\n"
            "    for info in pkgutil.walk_packages(package.__path__, package.__name__ + '.'):\n"
            "        importlib.import_module(info.name)\n"
            "print('ray' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
