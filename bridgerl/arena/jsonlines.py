"""Resumable results files: JSON lines whose first line records the job (`bridgerl.core.identity`: the command,
every spec as given and resolved, the data and its content hash, the first row, the tricks table, the seed, the
checkpoint hashes), then one line per finished item.

A run that stops (interrupted, killed) loses at most the line being written; running the same job again reads
the finished items back and continues. A file holding another job, a file of another kind or one written before
identities were recorded is refused in one line, never overwritten."""

from __future__ import annotations

import json
import os
from pathlib import Path

from bridgerl.core.files import atomic_write_text, check_output, describe_file
from bridgerl.core.identity import FORMAT, check_same_job


def header_line(job: dict) -> str:
    """The first line of a results file of ``job``."""
    return json.dumps({"format": FORMAT, "job": job}) + "\n"


def check_results_file(path: str | os.PathLike, job: dict, flag: str = "--out") -> None:
    """Before any work: refuse an output ``path`` that is a directory, a file of another kind, a results file of
    another job, or one in a place that cannot be written (`read_done` without writing anything)."""
    _read(Path(path), job, flag)
    check_output(path, "file", flag)


def _read(path: Path, job: dict, flag: str) -> list[dict] | None:
    """The items of the results file at ``path`` (None when it has none yet: missing or empty)."""
    if path.is_dir():
        raise ValueError(f"{flag} {path} is a directory; give a file name such as {path / 'match.jsonl'}")
    if not path.exists():
        return None
    command = job.get("command", "this command")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path}: {describe_file(path) or 'a binary file'}, not a results file of `{command}`; "
                         f"pick another file with {flag}") from None
    if not text.strip():
        return None
    lines = text.splitlines()
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        header = None
    if not isinstance(header, dict) or not ("match" in header or header.get("format") == FORMAT):
        raise ValueError(f"{path}: {describe_file(path) or 'a text file'}, not a results file of `{command}`; pick "
                         f"another file with {flag}")
    saved = header.get("job") if header.get("format") == FORMAT else None
    if isinstance(saved, dict) and saved.get("command") != job.get("command"):
        raise ValueError(f"{path} holds the results of `{saved.get('command')}`, not of `{command}`; pick another "
                         f"file with {flag}")
    check_same_job(path, saved, job, flag)
    items = []
    for line in lines[1:]:
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by an interruption: that item is played again
    return items


def read_done(path: str | os.PathLike, job: dict, flag: str = "--out") -> list[dict]:
    """The items already in ``path`` (creating it with ``job`` as its header when missing or empty); a file of
    another kind or job is refused (`bridgerl.core.identity.check_same_job`)."""
    path = Path(path)
    items = _read(path, job, flag)
    if items is None:
        check_output(path, "file", flag)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, header_line(job))
        return []
    text = path.read_text()
    if not text.endswith("\n"):  # the last line was cut short by an interruption: drop it before appending
        atomic_write_text(path, text[:text.rfind("\n") + 1])
    return items


def append_line(path: str | os.PathLike, item: dict) -> None:
    """Append one finished item (one flushed line)."""
    with open(path, "a") as handle:
        handle.write(json.dumps(item) + "\n")
