"""What a resumable results file promises (`docs/evaluation.md`, "What a results file promises").

Every resumable job (`evaluate game --out`, `evaluate cross --boards-dir`, `evaluate play --out`, `evaluate
play-study --out`, `data positions`, `data played`, `data generate`) writes the identity of the job that made it
before its first result: the command, every spec as given and as resolved, the data with a hash of its content,
the first row, the tricks table in use with its card player's checkpoint hash, the seed and the checkpoint hash of
every model a spec loads. Running again resumes only the same job: anything that differs is refused in one line
that names the first field that differs, both values (shortened) and the flag that picks another file. The number
of boards is not part of the identity: more boards extend a job, fewer read its first ones."""

from __future__ import annotations

import json

FORMAT = "bridgerl-results-2"
"""The identity format. Files of the first format (a bare ``{"match": ...}`` header) are refused with advice."""


def shorten(value, width: int = 36) -> str:
    """``value`` as compact JSON (a string as it is), cut in the middle to ``width`` characters."""
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    if len(text) <= width:
        return text
    keep = (width - 3) // 2
    return text[:keep] + "..." + text[-(width - 3 - keep):]


def normalised(identity: dict) -> dict:
    """The identity as it reads back from JSON (tuples become lists, keys strings)."""
    return json.loads(json.dumps(identity))


def first_difference(saved: dict, now: dict) -> tuple[str, object, object] | None:
    """(field, value in the file, value now) of the first field of ``now`` (in its order; then fields only the
    file has) whose values differ, None when the two are the same job."""
    saved, now = normalised(saved), normalised(now)
    for key in [*now, *(k for k in saved if k not in now)]:
        if saved.get(key) != now.get(key):
            return key, saved.get(key), now.get(key)
    return None


def check_same_job(path, saved, now: dict, flag: str, what: str = "match") -> None:
    """Refuse, in one line, to resume the job recorded at ``path`` (``saved``: its identity, None when the file
    was written before identities were recorded) as the job ``now``."""
    if not isinstance(saved, dict):
        raise ValueError(f"{path}: written by an older bridgerl that did not record the whole {what}; delete it "
                         f"(or pick another file with {flag}) to start anew")
    difference = first_difference(saved, now)
    if difference is not None:
        field, old, new = difference
        raise ValueError(f"{path} holds another {what}: {field} is {shorten(old)} there, {shorten(new)} now; "
                         f"pick another file with {flag} (or delete it to start anew)")


__all__ = ["FORMAT", "check_same_job", "first_difference", "normalised", "shorten"]
