"""The built wheel contains every module of the mapped folders (a package-dir mapping can drop one silently)."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

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
    return expected


def test_wheel_contains_every_module(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", "build", "*.egg-info", "__pycache__",
                                                                 ".pytest_cache", ".hypothesis", "dist"))
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
                             "-w", str(tmp_path / "dist")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    wheel = next((tmp_path / "dist").glob("bridgerl-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = _expected_members()
    assert any(name.startswith("bridgerl/envs/") for name in expected)
    assert not expected - names, f"missing from the wheel: {sorted(expected - names)}"
    assert any(name.endswith("entry_points.txt") for name in names)
