"""The released models (the repository's ``models/`` folder, shipped in the wheel as ``bridgerl/models``): the one
resolver of ``models/NAME`` paths, and the list of what is released (`bridgerl models`).

A path ``models/NAME[/...]`` names the working directory's copy when one exists there; otherwise the released copy:
first the installed package's (``bridgerl/models/NAME``, a wheel), then the repository's beside the package
(``models/NAME``, an editable install or a source checkout). Every model loader resolves its path here
(`bridgerl.agents.learned.checkpoint.checkpoint_file`), so ``models/card-player`` works from any directory."""

from __future__ import annotations

import os
from pathlib import Path, PurePosixPath

from .files import MODEL_KINDS, model_payload

MODELS = "models"
PACKAGE = Path(__file__).parent.parent  # the bridgerl package (this file is bridgerl/core/models.py)


def released_roots() -> list[Path]:
    """Where released models may lie, in the order they are looked up: the installed package's ``models/`` (a
    wheel), then the repository's beside the package (an editable install)."""
    return [PACKAGE / MODELS, PACKAGE.parent / MODELS]


def _released_parts(path: str | os.PathLike) -> tuple[str, ...] | None:
    """The parts after ``models/`` of a path of the form ``models/NAME[/...]`` (``./`` prefixes allowed), else None."""
    parts = PurePosixPath(os.fspath(path)).parts  # "./models/x" -> ("models", "x")
    if len(parts) < 2 or parts[0] != MODELS or any(part in ("..", "") for part in parts[1:]):
        return None
    return parts[1:]


def resolve_model_path(path: str | os.PathLike) -> Path:
    """``path`` itself when it exists (relative to the current directory); otherwise, for ``models/NAME[/...]``, the
    released copy (`released_roots`, the first that holds it); otherwise ``path`` unchanged (its reader then reports
    it missing)."""
    given = Path(path)
    if given.exists():
        return given
    parts = _released_parts(path)
    if parts is not None:
        for root in released_roots():
            candidate = root.joinpath(*parts)
            if candidate.exists():
                return candidate
    return given


def released_folder() -> Path | None:
    """The folder of the released models in use (`released_roots`, the first holding a model), or None."""
    for root in released_roots():
        if root.is_dir() and any((child / "model.msgpack").is_file() for child in root.iterdir()):
            return root
    return None


def _readme_command(readme: Path) -> str | None:
    """The command that made a model, from its README: the first fenced shell command ``bridgerl train ...`` (not
    ``train export``, which only copies a run's weights), else the first ``bridgerl train`` or ``bridgerl data``
    one; continuation lines joined, a trailing ``# comment`` dropped."""
    if not readme.is_file():
        return None
    commands, fenced, pending = [], False, ""
    for line in readme.read_text(encoding="utf-8").splitlines():
        if line.strip().startswith("```"):
            fenced, pending = not fenced, ""
            continue
        if not fenced:
            continue
        text = line.strip()
        if pending:
            text = f"{pending} {text}"
        elif not text.startswith(("bridgerl train", "bridgerl data")):
            continue
        if text.endswith("\\"):
            pending = text[:-1].rstrip()
            continue
        pending = ""
        commands.append(text.split(" # ")[0].strip())
    trained = [c for c in commands if c.startswith("bridgerl train") and not c.startswith("bridgerl train export")]
    return (trained or commands or [None])[0]


def _describe(folder: Path) -> dict:
    """One released model: name, path, kind, bytes, sha256 of model.msgpack, the command that made it."""
    import hashlib
    import json

    model = folder / "model.msgpack"
    data = model.read_bytes()
    payload = model_payload(data) or {}
    found = payload.get("format")
    command = None
    try:
        metadata = json.loads(payload["metadata"]) if "metadata" in payload else {}
        command = metadata.get("command") if isinstance(metadata, dict) else None
    except (TypeError, ValueError):
        pass
    size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and "__pycache__" not in f.parts)
    return {"name": folder.name, "path": str(folder), "kind": MODEL_KINDS.get(found, f"unknown ({found})"),
            "bytes": size, "sha256": hashlib.sha256(data).hexdigest(),
            "command": command or _readme_command(folder / "README.md")}


def released_models() -> list[dict]:
    """Every released model (`released_folder`), by name: {name, path, kind, bytes (all its folder's files),
    sha256 (of model.msgpack), command (that made it: the checkpoint's metadata, else its README)}."""
    root = released_folder()
    if root is None:
        return []
    return [_describe(folder) for folder in sorted(root.iterdir(), key=lambda p: p.name)
            if (folder / "model.msgpack").is_file()]
