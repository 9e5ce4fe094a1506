"""Writing files safely: one atomic write for every output (datasets, checkpoints, JSON reports), and the
"never overwrite without --force" check every command uses."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterator


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary handle to a temporary file beside ``path`` that replaces ``path`` only when the block ends without
    an error, so readers see either the old file or the complete new one (never a half-written file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600 files; give the usual permissions
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically."""
    with atomic_open(path) as handle:
        handle.write(data)


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Replace ``path`` with ``text`` (UTF-8) atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_with(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> None:
    """Replace ``path`` atomically with what ``write(handle)`` writes."""
    with atomic_open(path) as handle:
        write(handle)


def check_output(path: str | os.PathLike | None, kind: str = "file", flag: str = "output") -> None:
    """Before a long job: refuse (ValueError naming ``flag``) an output ``path`` of the wrong kind, a directory where
    a file is written or a file where a directory of reports goes."""
    if path is None:
        return
    path = Path(path)
    if kind == "file" and path.is_dir():
        raise ValueError(f"{flag} {path} is a directory; give a file name")
    if kind == "directory" and path.exists() and not path.is_dir():
        raise ValueError(f"{flag} {path} is a file; give a directory for the report")


def refuse_overwrite(path: str | os.PathLike, force: bool = False, what: str = "output") -> None:
    """Raise FileExistsError naming ``path`` when it exists and ``force`` is not set (ValueError for a directory)."""
    if Path(path).is_dir():
        raise ValueError(f"{path} is a directory; the {what} is written to a file")
    if not force and Path(path).exists():
        raise FileExistsError(f"{path}: the {what} exists; pass --force to replace it")


def claim_job_folder(parts: Path, job: dict) -> None:
    """The ``OUT.partial/`` folder of a resumable job: created with ``job`` stamped in ``job.json``, or, when it
    exists, checked to hold chunks of the same job (another job's folder is refused in one line)."""
    import json

    parts = Path(parts)
    stamp = parts / "job.json"
    if parts.exists() and stamp.exists():
        try:
            saved = json.loads(stamp.read_text())
        except (OSError, ValueError):
            saved = None
        if saved != json.loads(json.dumps(job)):
            raise ValueError(f"{parts}: holds chunks of another job ({saved}); delete it or rerun that job")
    else:
        parts.mkdir(parents=True, exist_ok=True)
        atomic_write_text(stamp, json.dumps(job))
