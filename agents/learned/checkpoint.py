"""Checkpoints: one msgpack file (flax serialization) holding a network's weights and JSON metadata. DQNs (format
``bridgerl-dqn-1``: env id, observation size, actions, architecture, preset, training command), PPO actor-critics
(``bridgerl-ppo-1``, the same metadata) and card-location
models (``bridgerl-card-location-1``, `bridgerl.agents.learned.card_location`), ISSNs and SSNs (``bridgerl-issn-1``,
``bridgerl-ssn-1``, `bridgerl.agents.play.simulation`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
from flax import serialization

from bridgerl.core.files import MODEL_KINDS, atomic_write_bytes

FORMAT = "bridgerl-dqn-1"
PPO_FORMAT = "bridgerl-ppo-1"  # a PPO actor-critic (`agents.networks.ActorCritic`, training.ppo)
CRITIC_FILE = "critic.msgpack"  # the centralised critic beside an uncontested DQN (training.run, agents.search)


def checkpoint_file(path: str | os.PathLike) -> Path:
    """The checkpoint file named by ``path``: the file itself, or a directory's ``model.msgpack``; ``models/NAME``
    with no such path here is the released model (`bridgerl.core.models.resolve_model_path`)."""
    from bridgerl.core.models import resolve_model_path

    path = resolve_model_path(path)
    return path / "model.msgpack" if path.is_dir() else path


def save_weights(path: str | os.PathLike, params: dict, metadata: dict, dtype: str = "float32",
                 format: str = FORMAT) -> None:
    """Write ``params`` (a pure dict of arrays) in ``dtype`` ('float32', 'float16' or 'bfloat16') with metadata."""
    import jax
    import jax.numpy as jnp

    cast = jax.tree.map(lambda a: np.asarray(jnp.asarray(a, getattr(jnp, dtype))), params)
    payload = {"format": format, "metadata": json.dumps({**metadata, "dtype": dtype}), "params": cast}
    atomic_write_bytes(path, serialization.msgpack_serialize(payload))


_RECORDINGS: list[dict] = []  # open `recording_checkpoints` blocks: {file path: sha256}
_HASHES: dict[str, str] = {}  # file path -> sha256 of the bytes read (once per process, as the models are cached)


def _note(path: Path, data: bytes | None = None) -> None:
    """Record a checkpoint file read (or served from the cache) in every open `recording_checkpoints` block."""
    if not _RECORDINGS:
        return
    key = str(path)
    if data is not None or key not in _HASHES:
        import hashlib

        _HASHES[key] = hashlib.sha256(path.read_bytes() if data is None else data).hexdigest()
    for seen in _RECORDINGS:
        seen[key] = _HASHES[key]


class recording_checkpoints:
    """``with recording_checkpoints() as seen:`` collects {checkpoint file: sha256} of every model loaded in the
    block, models served from the per-process cache included (what a results file records of a spec)."""

    def __enter__(self) -> dict:
        self.seen: dict = {}
        _RECORDINGS.append(self.seen)
        return self.seen

    def __exit__(self, *exc) -> None:
        _RECORDINGS.remove(self.seen)


def _payload(path: Path, what: str):
    """The deserialised checkpoint file (one-line errors for a missing or unreadable file)."""
    if not path.exists():
        raise FileNotFoundError(f"{path}: no {what} checkpoint there")
    if path.is_dir():
        raise ValueError(f"{path}: a directory without model.msgpack, not a {what} checkpoint")
    data = path.read_bytes()
    try:
        payload = serialization.msgpack_restore(data)
    except Exception:
        from bridgerl.core.files import describe_file

        raise ValueError(f"{path}: {describe_file(path) or 'an unreadable file'}, not a {what} checkpoint") from None
    _note(path, data)
    return payload


def load_weights(path: str | os.PathLike, format: str = FORMAT, what: str = "DQN") -> tuple[dict, dict]:
    """(metadata, params as float32 pure dict); raises ValueError for a file that is not a bridgerl checkpoint of
    ``format`` (``what`` names it in the message)."""
    path = checkpoint_file(path)
    payload = _payload(path, what)
    if not isinstance(payload, dict) or payload.get("format") != format:
        found = payload.get("format") if isinstance(payload, dict) else None
        if found in KINDS:
            raise ValueError(f"{path}: {article(KINDS[found])} model, not {article(what)} one")
        raise ValueError(f"{path}: not a bridgerl {what} checkpoint (format {format!r} expected, found {found!r})")
    import jax

    params = jax.tree.map(lambda a: np.asarray(a, dtype=np.float32), payload["params"])
    return json.loads(payload["metadata"]), params


def load_network(path: str | os.PathLike, format: str, what: str, features: int, build) -> tuple[object, dict]:
    """(network, metadata) of a checkpoint of ``format`` whose metadata names its input ``features`` and
    ``hidden`` sizes; ``build(hidden)`` makes the empty network. A checkpoint of another kind, for other features or
    whose weights do not fit the network is refused in one line."""
    import jax
    from flax import nnx

    metadata, params = load_weights(path, format=format, what=what)
    if int(metadata.get("features", -1)) != features:
        raise ValueError(f"{path}: this {what} model reads {metadata.get('features')} features, this bridgerl "
                         f"encodes {features}; retrain it")
    network = build(tuple(metadata["hidden"]))
    state = nnx.state(network)
    try:
        fits = jax.tree.all(jax.tree.map(lambda a, b: np.shape(a) == np.shape(b), nnx.to_pure_dict(state), params))
    except (ValueError, TypeError, KeyError):
        fits = False
    if not fits:
        raise ValueError(f"{path}: the weights do not fit a network of hidden sizes {metadata['hidden']} over "
                         f"{features} features (a damaged or edited checkpoint)")
    nnx.replace_by_pure_dict(state, params)
    nnx.update(network, state)
    return network, metadata


_LOADED: dict = {}  # (class, path) -> a loaded model, once per process


def cached_load(cls, path):
    """``cls.load(path)``, once per process (play agents that share a model share its counters)."""
    key = (cls, str(path))
    if key not in _LOADED:
        _LOADED[key] = cls.load(path)
    else:
        _note(checkpoint_file(path))  # a model served from the cache is loaded all the same
    return _LOADED[key]


def article(kind: str) -> str:
    """"a DQN", "an ISSN", "an SSN": the kind with its article."""
    return ("an " if kind[:1] in "AEIOU" or kind in ("SSN",) else "a ") + kind


KINDS = MODEL_KINDS  # format -> kind (`bridgerl.core.files.MODEL_KINDS`)


def checkpoint_kind(path: str | os.PathLike) -> str:
    """The kind of model a checkpoint holds ("DQN", "PPO", "card-location", "ISSN", "SSN", "card-player"), read from
    its format field;
    a file that is not a bridgerl checkpoint raises ValueError in one line."""
    path = checkpoint_file(path)
    payload = _payload(path, "bridgerl")
    found = payload.get("format") if isinstance(payload, dict) else None
    if found not in KINDS:
        raise ValueError(f"{path}: not a bridgerl checkpoint (format {found!r})")
    return KINDS[found]
