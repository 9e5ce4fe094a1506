"""Writing files safely: one atomic write for every output (datasets, checkpoints, JSON reports), and the
"never overwrite without --force" check every command uses.

Nothing ever replaces a link or a special file. An output path is one of:

- a regular file (or a new name): written to a temporary file beside it, then renamed over it (atomic);
- a symbolic link: written through, the link kept: its target is replaced atomically as above;
- an open descriptor named by path (``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``): written through that
  descriptor, so a redirected standard output keeps the output and the command's lines in order;
- a special file (``/dev/null``, a pipe, a terminal): written in place (nothing to rename over); these last two
  need no ``--force``, since nothing is replaced;
- ``-``: standard output, where a command's format allows it (`STDOUT`).

`check_output` tells, before any work, whether a path can be written at all (it tries: root passes every
permission check, and ``/proc`` takes no new files), in one line naming the flag."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import sys
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable, Iterator

STDOUT = "-"
"""The output path that means standard output."""
_STDOUT: list = []  # the stream `-` writes to while a command's own lines go elsewhere (`stdout_output`)


@contextlib.contextmanager
def stdout_output() -> Iterator[None]:
    """While a command writes an output to ``-``: that output goes to standard output as it was, and everything
    else the command prints goes to standard error, so the output stays whole for a pipe."""
    _STDOUT.append(sys.stdout)
    try:
        with contextlib.redirect_stdout(sys.stderr):
            yield
    finally:
        _STDOUT.pop()


def is_stdout(path) -> bool:
    return path is not None and str(path) == STDOUT


def descriptor(path) -> int | None:
    """The open file descriptor a path names (``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N``,
    ``/proc/self/fd/N``), or None: such a path is written through the descriptor, whatever file it is."""
    text = str(path)
    if text in ("/dev/stdout", "/dev/stderr"):
        return 1 if text.endswith("out") else 2
    found = re.fullmatch(r"/(?:dev/fd|proc/self/fd)/(\d+)", text)
    return int(found.group(1)) if found else None


def is_special(path: str | os.PathLike) -> bool:
    """Whether ``path`` names an open descriptor (`descriptor`) or, followed through links, exists and is neither
    a regular file nor a directory (a device such as ``/dev/null``, a pipe, a socket, a terminal): written in
    place, never replaced."""
    if descriptor(path) is not None:
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _write_target(path: Path) -> Path:
    """The file an atomic write replaces: ``path`` itself, or the end of its chain of links (the links stay)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


class _TextStdout:
    """Standard output as bytes where it has no binary buffer (a captured stream): decoded when the write ends."""

    def __init__(self):
        self.parts: list[bytes] = []

    def write(self, data) -> int:
        self.parts.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass


@contextlib.contextmanager
def atomic_open(path: str | os.PathLike) -> Iterator[BinaryIO]:
    """A binary handle to a temporary file beside ``path`` that replaces ``path`` only when the block ends without
    an error, so readers see either the old file or the complete new one (never a half-written file). A link is
    written through (its target replaced, the link kept), a special file in place, ``-`` to standard output."""
    fd = descriptor(path)
    if is_stdout(path) or fd in (1, 2):  # the stream itself, so that its lines and the output keep their order
        stream = (_STDOUT[-1] if _STDOUT else sys.stdout) if fd != 2 else sys.stderr
        stream.flush()
        buffer = getattr(stream, "buffer", None)
        handle = buffer if buffer is not None else _TextStdout()
        yield handle
        if buffer is None:
            stream.write(b"".join(handle.parts).decode("utf-8"))
        stream.flush()
        return
    path = Path(path)
    if fd is not None:  # another open descriptor: written through a copy of it, at its offset
        with os.fdopen(os.dup(fd), "wb") as handle:
            yield handle
        return
    if is_special(path):
        try:
            handle = open(path, "wb")
        except OSError as exc:
            raise OSError(f"{path}: cannot be written ({exc.strerror})") from None
        with handle:
            yield handle
        return
    path = _write_target(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    except OSError as exc:
        raise OSError(f"{path}: cannot be written ({exc.strerror})") from None
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


def _probe_folder(folder: Path) -> str | None:
    """Why a new file cannot be made in ``folder`` (the error's words), or None when one can (tried, then
    removed)."""
    try:
        fd, name = tempfile.mkstemp(prefix=".bridgerl-probe.", dir=folder)
    except OSError as exc:
        return exc.strerror or str(exc)
    os.close(fd)
    os.unlink(name)
    return None


def check_output(path: str | os.PathLike | None, kind: str = "file", flag: str = "output") -> None:
    """Before a long job: refuse (ValueError naming ``flag``) an output ``path`` of the wrong kind (a directory
    where a file is written or a file where a directory of reports goes) or one that cannot be written (tried: a
    new file in the folder that would hold it; a special file opened for writing)."""
    if path is None:
        return
    if is_stdout(path):
        if kind == "directory":
            raise ValueError(f"{flag} -: standard output takes a file's content, not a directory of files")
        return
    path = Path(path)
    if descriptor(path) is not None:
        try:
            os.fstat(descriptor(path))
        except OSError:
            raise ValueError(f"{flag} {path}: no such open file descriptor") from None
        if kind == "directory":
            raise ValueError(f"{flag} {path} is an open file, not a directory; give a directory")
        return
    if kind == "file" and is_special(path):
        if stat.S_ISFIFO(os.stat(path).st_mode):
            return  # opening a pipe for writing waits for its reader: it is written when the work is done
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as exc:
            raise ValueError(f"{flag} {path}: cannot be written ({exc.strerror})") from None
        return
    if is_special(path):
        raise ValueError(f"{flag} {path} is a special file, not a directory; give a directory")
    target = _write_target(path)
    if kind == "file" and target.is_dir():
        raise ValueError(f"{flag} {path} is a directory; give a file name")
    if kind == "directory" and target.exists() and not target.is_dir():
        raise ValueError(f"{flag} {path} is a file; give a directory")
    folder = target if kind == "directory" else target.parent
    while not folder.exists() and folder != folder.parent:  # the nearest folder that exists is written into
        folder = folder.parent
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{flag} {path}: {folder} is a file, not a folder")
    reason = _probe_folder(folder)
    if reason is None and target.is_file() and not os.access(target, os.W_OK):
        reason = "Permission denied"
    if reason is not None:
        raise ValueError(f"{flag} {path}: cannot be written ({reason})")


def refuse_overwrite(path: str | os.PathLike, force: bool = False, what: str = "output") -> None:
    """Raise FileExistsError naming ``path`` when it exists and ``force`` is not set (ValueError for a directory).
    Standard output and special files (``/dev/null``) are written through, never replaced: no --force needed."""
    if is_stdout(path) or is_special(path):
        return
    if Path(path).is_dir():
        raise ValueError(f"{path} is a directory; the {what} is written to a file")
    if not force and Path(path).exists():
        link = f" (a link to {os.path.realpath(path)}, which --force replaces; the link stays)" \
            if Path(path).is_symlink() else ""
        raise FileExistsError(f"{path}: the {what} exists{link}; pass --force to replace it")


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
               "bridgerl-issn-1": "ISSN", "bridgerl-ssn-1": "SSN", "bridgerl-card-player-1": "card-player",
               "bridgerl-trick-estimator-1": "trick-estimator"}
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
