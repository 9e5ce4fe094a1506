"""The Python examples in the README and docs run as written."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCKS = [(path.name, i, block) for path in DOCS
          for i, block in enumerate(re.findall(r"```python\n(.*?)```", path.read_text(), re.S))]


@pytest.mark.parametrize("name, index, code", BLOCKS, ids=[f"{n}-{i}" for n, i, _ in BLOCKS])
def test_example_runs(name, index, code, capsys):
    exec(compile(code, f"{name}[{index}]", "exec"), {"__name__": "__docs__"})
