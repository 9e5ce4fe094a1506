"""Checkpoints: one msgpack file (flax serialization) holding a network's weights and JSON metadata. DQNs (format
``bridgerl-dqn-1``: env id, observation size, actions, architecture, preset, training command), PPO actor-critics
(``bridgerl-ppo-1``, the same metadata) and card-location
models (``bridgerl-card-location-1``, `bridgerl.agents.learned.card_location`), ISSNs and SSNs (``bridgerl-issn-1``,
``bridgerl-ssn-1``, `bridgerl.agents.learned.simulation`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from bridgerl.core.files import MODEL_KINDS, article, atomic_write_bytes, model_payload

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
    from flax import serialization

    cast = jax.tree.map(lambda a: np.asarray(jnp.asarray(a, getattr(jnp, dtype))), params)
    payload = {"format": format, "metadata": json.dumps({**metadata, "dtype": dtype}), "params": cast}
    atomic_write_bytes(path, serialization.msgpack_serialize(payload))


_RECORDINGS: list[dict] = []  # open `recording_checkpoints` blocks: {file path: sha256}


def note_file_read(path: str | os.PathLike, data: bytes) -> None:
    """Record a model file read (a checkpoint, an ONNX or brl file) with the SHA-256 of its bytes in every open
    `recording_checkpoints` block: what a results file names as the spec's checkpoints."""
    _note(Path(path), data)


def _note(path: Path, data: bytes) -> None:
    """Record a checkpoint file read in every open `recording_checkpoints` block."""
    if not _RECORDINGS:
        return
    import hashlib

    digest = hashlib.sha256(data).hexdigest()
    for seen in _RECORDINGS:
        seen[str(path)] = digest


class recording_checkpoints:
    """``with recording_checkpoints() as seen:`` collects {checkpoint file: sha256} of every model loaded in the
    block, models served from the per-process cache included (what a results file records of a spec)."""

    def __enter__(self) -> dict:
        self.seen: dict = {}
        _RECORDINGS.append(self.seen)
        return self.seen

    def __exit__(self, *exc) -> None:
        for index, seen in enumerate(_RECORDINGS):  # by identity: another block's empty dict compares equal
            if seen is self.seen:
                del _RECORDINGS[index]
                break


def _shown(given, path: Path) -> str:
    """How a message names a checkpoint: the path as the user gave it (a released model's resolved place can be a
    long path inside the installed package), with the file when a directory was given."""
    given = str(given)
    return given if Path(given).name == path.name else f"{given.rstrip('/')}/{path.name}"


def _checked(path: Path, what: str, shown: str) -> tuple[bytes, dict]:
    """(the file's bytes, its top level) after the checks that need no JAX: one-line errors for a missing or
    unreadable file, naming what the file is when it can be told."""
    if not path.exists():
        raise FileNotFoundError(f"{shown}: no {what} checkpoint there")
    if path.is_dir():
        raise ValueError(f"{shown}: a directory without model.msgpack, not {article(what)} checkpoint")
    data = path.read_bytes()
    header = model_payload(data)
    if header is None or header.get("format") not in KINDS:
        from bridgerl.core.files import describe_file

        found = describe_file(path) or "an unreadable file"
        raise ValueError(f"{shown}: {found}, not a readable {what} checkpoint")
    return data, header


def check_checkpoint(path: str | os.PathLike, format: str | None = None, what: str = "DQN") -> Path:
    """The checkpoint file named by ``path``, checked without loading JAX or the weights (a spec's file is refused
    at once, before the imports of its agent): it exists, it is a bridgerl model, and of ``format`` when given."""
    given, file = path, checkpoint_file(path)
    shown = _shown(given, file)
    _, header = _checked(file, what, shown)
    if format is not None and header["format"] != format:
        raise ValueError(f"{shown}: {article(KINDS[header['format']])} model, not {article(what)} one")
    return file


def _payload(path: Path, what: str, shown: str | None = None, note: bool = True):
    """The deserialised checkpoint file (the checks of `_checked` first)."""
    from flax import serialization

    shown = shown or str(path)
    data, _ = _checked(path, what, shown)
    try:
        payload = serialization.msgpack_restore(data)
    except Exception:
        payload = None
    if not isinstance(payload, dict) or payload.get("format") not in KINDS:
        raise ValueError(f"{shown}: a damaged model file, not a readable {what} checkpoint")
    if note:
        _note(path, data)
    return payload


def load_weights(path: str | os.PathLike, format: str = FORMAT, what: str = "DQN") -> tuple[dict, dict]:
    """(metadata, params as float32 pure dict); raises ValueError for a file that is not a bridgerl checkpoint of
    ``format`` (``what`` names it in the message, and the kind of model the file holds when it is another)."""
    given, path = path, checkpoint_file(path)
    shown = _shown(given, path)
    payload = _payload(path, what, shown)
    if payload.get("format") != format:
        raise ValueError(f"{shown}: {article(KINDS[payload['format']])} model, not {article(what)} one")
    import jax

    params = jax.tree.map(lambda a: np.asarray(a, dtype=np.float32), payload["params"])
    return json.loads(payload["metadata"]), params


def weights_fit(state, params: dict) -> bool:
    """Whether the pure dict ``params`` has exactly the tree and array shapes of the nnx ``state``."""
    import jax
    from flax import nnx

    try:
        return bool(jax.tree.all(jax.tree.map(lambda a, b: np.shape(a) == np.shape(b), nnx.to_pure_dict(state),
                                              params)))
    except (ValueError, TypeError, KeyError):
        return False


def load_network(path: str | os.PathLike, format: str, what: str, features: int, build) -> tuple[object, dict]:
    """(network, metadata) of a checkpoint of ``format`` whose metadata names its input ``features`` and
    ``hidden`` sizes; ``build(hidden)`` makes the empty network. A checkpoint of another kind, for other features or
    whose weights do not fit the network is refused in one line."""
    check_checkpoint(path, format, what)  # before JAX's imports: a wrong file is refused at once
    import jax
    from flax import nnx

    metadata, params = load_weights(path, format=format, what=what)
    if int(metadata.get("features", -1)) != features:
        raise ValueError(f"{path}: this {what} model reads {metadata.get('features')} features, this bridgerl "
                         f"encodes {features}; retrain it")
    network = build(tuple(metadata["hidden"]))
    state = nnx.state(network)
    if not weights_fit(state, params):
        raise ValueError(f"{path}: the weights do not fit a network of hidden sizes {metadata['hidden']} over "
                         f"{features} features (a damaged or edited checkpoint)")
    nnx.replace_by_pure_dict(state, params)
    nnx.update(network, state)
    return network, metadata


_LOADED: dict = {}  # (class, path) -> (a loaded model, {file: sha256} of what it read), once per process


def cached_load(cls, path):
    """``cls.load(path)``, once per process (play agents that share a model share its counters). A model served
    from the cache is recorded (`recording_checkpoints`) with the hashes of the files it was loaded from, whatever
    lies at that path now."""
    key = (cls, str(path))
    if key not in _LOADED:
        with recording_checkpoints() as seen:
            model = cls.load(path)
        _LOADED[key] = (model, dict(seen))
    model, read = _LOADED[key]
    for seen in _RECORDINGS:
        seen.update(read)
    return model


KINDS = MODEL_KINDS  # format -> kind (`bridgerl.core.files.MODEL_KINDS`)
FORMATS = {kind: format for format, kind in KINDS.items()}  # kind -> format


def checkpoint_kind(path: str | os.PathLike) -> str:
    """The kind of model a checkpoint holds ("DQN", "PPO", "card-location", "ISSN", "SSN", "card-player"), read from
    its format field;
    a file that is not a bridgerl checkpoint raises ValueError in one line."""
    given, path = path, checkpoint_file(path)
    return KINDS[_checked(path, "bridgerl model", _shown(given, path))[1]["format"]]
