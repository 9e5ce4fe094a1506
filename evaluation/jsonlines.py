"""Resumable results files: JSON lines whose first line describes the match, then one line per finished item.

A run that stops (interrupted, killed) loses at most the line being written; running the same match again reads
the finished items back and continues. A file holding a different match is refused, never overwritten."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bridgerl.core.files import atomic_write_text


def read_done(path: str | os.PathLike, match: dict) -> list[dict]:
    """The items already in ``path`` (creating it with ``match`` as its header when missing or empty)."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"--out {path} is a directory; give a file name such as {path / 'match.jsonl'}")
    path.parent.mkdir(parents=True, exist_ok=True)
    text = path.read_text() if path.exists() else ""
    if not text.strip():
        atomic_write_text(path, json.dumps({"match": match}) + "\n")
        return []
    if not text.endswith("\n"):  # the last line was cut short by an interruption: drop it before appending
        text = text[:text.rfind("\n") + 1]
        if text:
            atomic_write_text(path, text)
    lines = text.splitlines()
    if not lines:
        atomic_write_text(path, json.dumps({"match": match}) + "\n")
        return []
    try:
        header = json.loads(lines[0]).get("match")
    except (json.JSONDecodeError, AttributeError):
        header = None
    if header != json.loads(json.dumps(match)):
        raise ValueError(f"{path} holds a different match ({header}); use another --out file to play {match}")
    items = []
    for line in lines[1:]:
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by an interruption: that item is played again
    return items


def append_line(path: str | os.PathLike, item: dict) -> None:
    """Append one finished item (one flushed line)."""
    with open(path, "a") as handle:
        handle.write(json.dumps(item) + "\n")
