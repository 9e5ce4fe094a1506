"""The built wheel contains every module of the mapped folders (a package-dir mapping can drop one silently) and the
released models, and an installed wheel runs them from any directory (issue #48)."""

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAPPED = {"bridgerl": "bridgerl", "envs": "bridgerl/envs", "agents": "bridgerl/agents",
          "training": "bridgerl/training", "evaluation": "bridgerl/evaluation"}


def _expected_members():
    expected = set()
    for folder, target in MAPPED.items():
        for path in (ROOT / folder).rglob("*"):
            if "__pycache__" in path.parts or not path.is_file():
                continue
            if path.suffix == ".py" or (path.suffix in (".npz", ".json") and folder == "bridgerl"):
                expected.add(f"{target}/{path.relative_to(ROOT / folder).as_posix()}")
    for path in (ROOT / "models").rglob("*"):  # the released models, start/ of competitive-dqn included
        if path.is_file() and (path.suffix == ".msgpack" or path.name == "README.md"):
            expected.add(f"bridgerl/models/{path.relative_to(ROOT / 'models').as_posix()}")
    return expected


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """The wheel, built once from a copy of the source tree (no build/ left in the repository)."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__",
                                                                 ".pytest_cache", ".hypothesis", "dist", "runs"))
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                             "-w", str(tmp_path / "dist")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    return next((tmp_path / "dist").glob("bridgerl-*.whl"))


def test_wheel_contains_every_module(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = _expected_members()
    assert any(name.startswith("bridgerl/envs/") for name in expected)
    assert "bridgerl/models/competitive-dqn/start/model.msgpack" in expected
    assert not expected - names, f"missing from the wheel: {sorted(expected - names)}"
    assert any(name.endswith("entry_points.txt") for name in names)


def test_installed_wheel_plays_the_released_models_from_any_directory(wheel, tmp_path):
    target, work = tmp_path / "site", tmp_path / "work"
    work.mkdir()
    result = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "--target",
                             str(target), str(wheel)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    # the installed copy only: PYTHONPATH first, -P keeps the working directory off sys.path (the dependencies come
    # from this environment's site-packages), and the working directory has no models/
    env = {**os.environ, "PYTHONPATH": str(target)}

    def bridgerl(*args: str) -> str:
        done = subprocess.run([sys.executable, "-P", "-m", "bridgerl.cli", *args], cwd=work, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"bridgerl {' '.join(args)}: {done.stdout}{done.stderr}"
        return done.stdout

    listing = bridgerl("models", "--json", "models.json").splitlines()
    assert len([line for line in listing if not line.startswith(" ")]) == 15  # the released models, -1 and -3 too
    listed = json.loads((work / "models.json").read_text())
    assert {m["name"] for m in listed} >= {"card-player", "competitive-played", "issn", "ssn"}
    assert all(Path(m["path"]).is_relative_to(target / "bridgerl" / "models") for m in listed), listed
    assert "IMPs/board" in bridgerl("evaluate", "competitive", "--ns", "models/competitive-played", "--ew", "rules",
                                    "--deals", "4")
    assert "IMPs/board" in bridgerl("evaluate", "game", "--ns", "bid=rules,play=models/card-player",
                                    "--ew", "bid=rules,play=dd", "--deals", "2", "--quiet")
    assert not (work / "models").exists()
