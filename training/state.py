"""A training run's saved state (issue #52: public save / load for every trainer): the state pytree's leaves and
the run's settings ("meta") in one msgpack file written atomically; a resume restores the leaves into a template of
the same structure after checking that the saved run is of the same `train` command and settings."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from flax import serialization

from bridgerl.core.files import atomic_write_bytes, atomic_write_text

UNCONTESTED_ENV_ID = "uncontested_bidding"
COMPETITIVE_ENV_ID = "competitive_bidding"
# the `train` command of each supervised or self-play trainer, by the "kind" its saved env_options name
TRAINER_COMMANDS = {"card-location": "card-location", "ISSN": "issn", "SSN": "ssn", "card-player": "card-player",
                    "card-player-selfplay": "card-player-selfplay"}
# what a resume compares between the saved run and the command resuming it
COMPARED = ("config", "seed", "data", "env_id", "env_options", "pretrain", "constructive", "algo", "devices")


def save_state(path: str | Path, state, meta: dict) -> None:
    """Write the pytree ``state`` (its leaves, as numpy arrays) and ``meta`` (JSON) to ``path`` atomically."""
    leaves = jax.tree.leaves(state)
    payload = {"meta": json.dumps(meta), "leaves": {str(i): np.asarray(leaf) for i, leaf in enumerate(leaves)}}
    atomic_write_bytes(Path(path), serialization.msgpack_serialize(payload))


def read_state(path: str | Path) -> dict:
    """The deserialised run state at ``path`` (its "meta" and "leaves"); one line for a file that is not one."""
    path = Path(path)
    try:
        payload = serialization.msgpack_restore(path.read_bytes())
        json.loads(payload["meta"])
        return payload
    except MemoryError:
        raise
    except Exception as exc:
        raise ValueError(f"{path}: not a readable saved run ({type(exc).__name__}: {exc}); choose another --out "
                         "or start afresh with --force") from None


def run_command(meta: dict) -> str | None:
    """The ``train ...`` command that makes (and resumes) a run of this saved meta: ``train uncontested``,
    ``train competitive [--algo ppo]``, ``train card-location | issn | ssn | card-player | card-player-selfplay``
    (the supervised and self-play trainers save their kind in env_options); None for a meta of none of them."""
    env_id = meta.get("env_id")
    options = meta.get("env_options") if isinstance(meta.get("env_options"), dict) else {}
    if env_id in (UNCONTESTED_ENV_ID, COMPETITIVE_ENV_ID):
        name = "uncontested" if env_id == UNCONTESTED_ENV_ID else "competitive"
        return f"train {name}" + (" --algo ppo" if meta.get("algo") == "ppo" else "")
    kind = options.get("kind")
    return f"train {TRAINER_COMMANDS.get(kind, kind.lower())}" if isinstance(kind, str) and kind else None


def check_run_kind(path: Path, saved: dict, meta: dict) -> None:
    """Refuse in one line to resume a run saved by another `train` command (naming the command that resumes it)."""
    found, wanted = run_command(saved), run_command(meta)
    if found == wanted:
        return
    if found is None:
        raise ValueError(f"{path}: --resume found a run of another trainer there, not a `{wanted}` one; choose "
                         "another --out")
    raise ValueError(f"{path}: --resume found a `{found}` run there, not a `{wanted}` one; resume it with "
                     f"`bridgerl {found} --resume` and its arguments, or choose another --out")


def _differences(saved: dict, meta: dict, config_class) -> list[tuple]:
    keys = list(COMPARED)
    if meta["config"].get("lr_end") is not None:
        keys.append("steps")  # the learning-rate schedule spans the whole run
    if config_class is not None and isinstance(saved.get("config"), dict) and isinstance(meta.get("config"), dict):
        # config fields added since the run was saved hold their defaults (other trainers' configs are left alone)
        defaults = json.loads(json.dumps(dataclasses.asdict(config_class())))
        added = {key: defaults[key] for key in meta["config"] if key in defaults and key not in saved["config"]}
        saved["config"] = {**added, **saved["config"]}
    differences = []
    for key in keys:
        old, new = saved.get(key), meta.get(key)
        if isinstance(old, dict) and isinstance(new, dict):  # name the fields (config.learning_rate, ...)
            fields = sorted(old.keys() | new.keys())
            differences += [(f"{key}.{field}", old.get(field), new.get(field)) for field in fields
                            if old.get(field) != new.get(field)]
        elif old != new:
            differences.append((key, old, new))
    return differences


def load_state(path: str | Path, template, meta: dict, config_class=None, payload: dict | None = None):
    """The run state saved at ``path`` (``payload``: already read by `read_state`) restored into the pytree
    ``template``; a run of another `train` command or of other settings (``meta``'s `COMPARED` keys; the fields of
    ``config_class`` added since the run was saved count as their defaults) is refused in one line."""
    path = Path(path)
    payload = read_state(path) if payload is None else payload
    saved = json.loads(payload["meta"])
    meta = json.loads(json.dumps(meta))
    check_run_kind(path, saved, meta)
    differences = _differences(saved, meta, config_class)
    if differences:
        listed = "; ".join(f"{key}: saved {old!r}, now {new!r}" for key, old, new in differences)
        raise ValueError(f"{path}: this command differs from the saved run in {len(differences)} setting(s) "
                         f"({listed}); resume with the same arguments")
    leaves, treedef = jax.tree.flatten(template)
    if len(payload["leaves"]) != len(leaves):
        raise ValueError(f"{path}: the saved state does not match this configuration")
    restored = [jnp.asarray(payload["leaves"][str(i)], dtype=leaf.dtype) for i, leaf in enumerate(leaves)]
    return jax.tree.unflatten(treedef, restored)


def resume_state(path: str | Path, template, meta: dict, config_class, payload: dict | None, log: str | Path,
                 key: str, done_of) -> object:
    """How every trainer resumes (one place): the saved state restored into ``template`` (`load_state`), then the
    lines of the log past it dropped (`trim_log`: the log lines' ``key`` against ``done_of(state)``)."""
    state = load_state(path, template, meta, config_class, payload)
    trim_log(log, key, done_of(state))
    return state


def trim_log(path: str | Path, key: str, done: int) -> None:
    """Drop the lines of the JSON-lines log at ``path`` whose ``key`` is past ``done`` (written after the saved state
    by a run cut short), so a resumed run's log has each unit once."""
    path = Path(path)
    kept = [line for line in (path.read_text().splitlines() if path.exists() else [])
            if line.strip() and json.loads(line)[key] <= done]
    atomic_write_text(path, "".join(line + "\n" for line in kept))
