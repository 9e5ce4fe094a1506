"""DQN checkpoints: one msgpack file (flax serialization) holding the Q-network weights and JSON metadata
(env id, observation size, actions, architecture, preset, training command)."""

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


def save_weights(path: str | os.PathLike, params: dict, metadata: dict, dtype: str = "float32") -> None:
    """Write ``params`` (a pure dict of arrays) in ``dtype`` ('float32', 'float16' or 'bfloat16') with metadata."""
    import jax
    import jax.numpy as jnp

    cast = jax.tree.map(lambda a: np.asarray(jnp.asarray(a, getattr(jnp, dtype))), params)
    payload = {"format": FORMAT, "metadata": json.dumps({**metadata, "dtype": dtype}), "params": cast}
    atomic_write_bytes(path, serialization.msgpack_serialize(payload))


def load_weights(path: str | os.PathLike) -> tuple[dict, dict]:
    """(metadata, params as float32 pure dict); raises ValueError for a file that is not a bridgerl DQN checkpoint."""
    path = checkpoint_file(path)
    if not path.exists():
        raise FileNotFoundError(f"{path}: no DQN checkpoint there")
    try:
        payload = serialization.msgpack_restore(path.read_bytes())
    except Exception as exc:
        raise ValueError(f"{path}: not a readable DQN checkpoint ({exc})") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise ValueError(f"{path}: not a bridgerl DQN checkpoint (format {FORMAT!r} expected)")
    import jax

    params = jax.tree.map(lambda a: np.asarray(a, dtype=np.float32), payload["params"])
    return json.loads(payload["metadata"]), params
