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
        raise ValueError(f"{flag} {path} is a file; give a directory")
    folder = path if kind == "directory" else path.parent
    while not folder.exists() and folder != folder.parent:  # the nearest folder that exists is written into
        folder = folder.parent
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{flag} {path}: {folder} is a file, not a folder")
    if not os.access(folder, os.W_OK | os.X_OK) or (path.is_file() and not os.access(path, os.W_OK)):
        raise ValueError(f"{flag} {path}: cannot be written (no permission)")


def refuse_overwrite(path: str | os.PathLike, force: bool = False, what: str = "output") -> None:
    """Raise FileExistsError naming ``path`` when it exists and ``force`` is not set (ValueError for a directory)."""
    if Path(path).is_dir():
        raise ValueError(f"{path} is a directory; the {what} is written to a file")
    if not force and Path(path).exists():
        raise FileExistsError(f"{path}: the {what} exists; pass --force to replace it")


def claim_job_folder(parts: Path, job: dict, flag: str = "--out") -> None:
    """The ``OUT.partial/`` folder of a resumable job: created with ``job`` (its identity, `bridgerl.core.identity`)
    stamped in ``job.json``, or, when it exists, checked to hold chunks of the same job: another job's folder is
    refused in one line naming the first field that differs and ``flag``."""
    import json

    from .identity import check_same_job

    parts = Path(parts)
    stamp = parts / "job.json"
    if parts.exists() and stamp.exists():
        try:
            saved = json.loads(stamp.read_text())
        except (OSError, ValueError):
            saved = None
        check_same_job(parts, saved if isinstance(saved, dict) and "command" in saved else None, job, flag, "job")
    else:
        parts.mkdir(parents=True, exist_ok=True)
        atomic_write_text(stamp, json.dumps(job))


MODEL_KINDS = {"bridgerl-dqn-1": "DQN", "bridgerl-ppo-1": "PPO", "bridgerl-card-location-1": "card-location",
               "bridgerl-issn-1": "ISSN", "bridgerl-ssn-1": "SSN", "bridgerl-card-player-1": "card-player"}
"""The kind of model each checkpoint format holds (the ``format`` field of a model.msgpack)."""


def article(kind: str) -> str:
    """"a DQN", "an ISSN", "an SSN": a kind of model (or anything named) with its article."""
    return ("an " if kind[:1] in "AEIOU" or kind == "SSN" else "a ") + kind


def model_payload(data: bytes) -> dict | None:
    """The top level of a model.msgpack (``format``, ``metadata``; the arrays left as msgpack ext types, not read),
    None for bytes that are not a msgpack map."""
    import msgpack

    try:
        payload = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception:
        return None
    return payload if isinstance(payload, dict) else None


def describe_file(path: str | os.PathLike) -> str | None:
    """What a file is, told from its content, in a few words ("a positions file (`bridgerl data positions`)", "a
    card-player model", "a results file of `evaluate game`", "a binary file", ...), for the one-line error of a file
    given where another kind goes; None when it cannot be read at all."""
    import json

    path = Path(path)
    if path.is_dir():
        return "a directory" + (" holding a model (model.msgpack)" if (path / "model.msgpack").exists() else "")
    try:
        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
    except OSError:
        return None
    if not head:
        return "an empty file"
    if head[:2] == b"PK":
        return _describe_npz(path)
    if head[0] in range(0x80, 0x90) or head[0] in (0xDE, 0xDF):
        payload = model_payload(path.read_bytes())
        if payload is not None:
            if payload.get("format") in MODEL_KINDS:
                return f"{article(MODEL_KINDS[payload['format']])} model"
            if "meta" in payload and "leaves" in payload:
                return "a training run's saved state"
        return "a binary file"
    if b"\0" in head:
        return "a binary file"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 4:  # not merely a character cut at the end of the window
            return "a binary file"
        text = head[:exc.start].decode("utf-8")
    first = text.lstrip("\ufeff").lstrip().split("\n", 1)[0]
    try:
        line = json.loads(first)
    except ValueError:
        line = None
    if isinstance(line, dict):
        if isinstance(line.get("job"), dict) and "command" in line["job"]:
            return f"a results file of `{line['job']['command']}`"
        if "match" in line or "study" in line:
            return "a results file of an older bridgerl"
        return "a JSON file"
    if first.startswith("{") or first.startswith("["):
        if first.startswith("[") and any(tag in text for tag in ("[Deal ", "[Board ", "[Event ")):
            return "a PBN file"
        return "a JSON file"
    if any(tag in text for tag in ("md|", "pn|", "qx|")):
        return "a LIN file"
    if any(tag in text for tag in ("[Deal ", "[Board ")):
        return "a PBN file"
    return "a text file"


def _describe_npz(path: Path) -> str:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            names = {name.removesuffix(".npy") for name in archive.namelist()}
    except (zipfile.BadZipFile, OSError):
        return "a zip file that is not a readable .npz"
    if any(name.startswith("pos_") for name in names) and any(name.startswith("deal_") for name in names):
        return "a positions file (`bridgerl data positions`)"
    if {"owner", "dd"} <= names:
        return "a dataset with a played-tricks table" if "played" in names else "a dataset"
    if {"dd", "solved", "seed", "deals"} <= names:
        return "the checkpoint of an unfinished `bridgerl data generate`"
    return f"a .npz file of arrays {', '.join(sorted(names)[:6])}" + (", ..." if len(names) > 6 else "")
