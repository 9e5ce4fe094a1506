"""Checkpoints: one msgpack file (flax serialization) holding a network's weights and JSON metadata. DQNs (format
``bridgerl-dqn-1``: env id, observation size, actions, architecture, preset, training command) and card-location
models (``bridgerl-card-location-1``, `bridgerl.agents.card_location`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from flax import serialization

from bridgerl.core.files import atomic_write_bytes

FORMAT = "bridgerl-dqn-1"


def checkpoint_file(path: str | os.PathLike) -> Path:
    """The checkpoint file named by ``path``: the file itself, or a directory's ``model.msgpack``."""
    path = Path(path)
    return path / "model.msgpack" if path.is_dir() else path


def save_weights(path: str | os.PathLike, params: dict, metadata: dict, dtype: str = "float32",
                 format: str = FORMAT) -> None:
    """Write ``params`` (a pure dict of arrays) in ``dtype`` ('float32', 'float16' or 'bfloat16') with metadata."""
    import jax
    import jax.numpy as jnp

    cast = jax.tree.map(lambda a: np.asarray(jnp.asarray(a, getattr(jnp, dtype))), params)
    payload = {"format": format, "metadata": json.dumps({**metadata, "dtype": dtype}), "params": cast}
    atomic_write_bytes(path, serialization.msgpack_serialize(payload))


def load_weights(path: str | os.PathLike, format: str = FORMAT, what: str = "DQN") -> tuple[dict, dict]:
    """(metadata, params as float32 pure dict); raises ValueError for a file that is not a bridgerl checkpoint of
    ``format`` (``what`` names it in the message)."""
    path = checkpoint_file(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no {what} checkpoint there")
    try:
        payload = serialization.msgpack_restore(path.read_bytes())
    except Exception as exc:
        raise ValueError(f"{path}: not a readable {what} checkpoint ({exc})") from None
    if not isinstance(payload, dict) or payload.get("format") != format:
        found = payload.get("format") if isinstance(payload, dict) else None
        raise ValueError(f"{path}: not a bridgerl {what} checkpoint (format {format!r} expected, found {found!r})")
    import jax

    params = jax.tree.map(lambda a: np.asarray(a, dtype=np.float32), payload["params"])
    return json.loads(payload["metadata"]), params
