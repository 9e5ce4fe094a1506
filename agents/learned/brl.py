"""brl's bidding networks by file (issue #53): the bidder spec ``brl:PATH``.

brl (Kita et al., "A simple, solid, and reproducible baseline for bridge bidding AI", github.com/harukaki/brl,
Apache-2.0) publishes its bidders as pickles of Haiku parameters: its "DeepMind" MLP (480 inputs, four
``Linear(1024)`` + ReLU layers, 38 logits, and a value head), the layers named as Haiku names them in brl's
``src/models.py`` (``actor_critic/~/linear``, ``linear_1`` ... ``linear_3`` the torso, ``linear_4`` the 38 logits,
``linear_5`` the value), each ``{"w": [in, out], "b": [out]}``, saved with JAX arrays. Such a pickle names
``jax._src.array._reconstruct_array`` and numpy's array reconstructors (``numpy.core.multiarray._reconstruct`` in
files written under numpy 1.x, ``numpy._core.multiarray._reconstruct`` under 2.x). `load_brl_params` reads it
**without executing code from the file**: a restricted unpickler maps exactly those names to numpy builders and
admits only arrays, dtypes and plain containers; anything else is refused in one line.

The input is the 480 values of pgx 1.4's ``bridge_bidding`` observation (`brl_observation`): the vulnerability of
the player's side and of the other ([not, is] each), the passes before the first bid by relative seat, each bid by
relative seat with whether it was doubled or redoubled (relative seat 0 the player, 1 its left-hand opponent, 2 its
partner, 3 its right-hand opponent), and the player's hand in OpenSpiel's card order (suit + 4 x rank, clubs first,
the two lowest). The logits are in our call order (Pass, X, XX, then 1C .. 7NT); the bidder is greedy over the legal
calls. Numpy only: no JAX is needed to run it.
"""

from __future__ import annotations

import io
import pickle
import re
from pathlib import Path

import numpy as np

from bridgerl.agents.learned.view_bidder import ViewBidder
from bridgerl.core.calls import BID_OFFSET, NUM_CALLS

OBSERVATION_SIZE = 480
TORSO = ("linear", "linear_1", "linear_2", "linear_3")
LOGITS, VALUE = "linear_4", "linear_5"


class BrlFileError(ValueError):
    """A file that is not one of brl's parameter pickles (one line naming the file and the problem)."""


class _NdarrayName:
    """What the name ``numpy.ndarray`` reads as: a marker that `_np_reconstruct` accepts, not a class a pickle could
    call (``ndarray(shape, dtype, buffer, strides)`` would make a view of any size from a few bytes)."""


def _np_reconstruct(cls, shape, dtype):
    """numpy's ``_reconstruct`` for plain ndarrays only, always empty: the array's shape and bytes come from its
    state (``__setstate__`` checks that the bytes the file holds fill the shape), so nothing is allocated beyond
    what the file holds."""
    if cls is not _NdarrayName:
        raise pickle.UnpicklingError(f"an array of class {cls!r}")
    return np.ndarray.__new__(np.ndarray, (0,), np.uint8)


def _reconstruct_array(fun, args, arr_state, aval_state):
    """What ``jax._src.array._reconstruct_array`` builds, as a numpy array: the array of numpy's reduce."""
    if fun is not _np_reconstruct:
        raise pickle.UnpicklingError("a JAX array made by something other than numpy's array reconstructor")
    array = fun(*args)
    array.__setstate__(arr_state)
    if array.dtype.hasobject:
        raise pickle.UnpicklingError("an array of Python objects")
    if not isinstance(aval_state, dict):
        raise pickle.UnpicklingError("a JAX array whose abstract value is not a dict")
    return np.asarray(array)


def _latin1_bytes(text, encoding="latin1"):
    """``_codecs.encode`` as protocol-2 pickles of byte strings use it (str -> latin-1 bytes), nothing else."""
    if not isinstance(text, str) or encoding != "latin1":
        raise pickle.UnpicklingError("_codecs.encode beyond latin-1 text")
    return text.encode("latin1")


_ALLOWED = {
    ("jax._src.array", "_reconstruct_array"): _reconstruct_array,
    ("numpy.core.multiarray", "_reconstruct"): _np_reconstruct,
    ("numpy._core.multiarray", "_reconstruct"): _np_reconstruct,
    ("numpy", "ndarray"): _NdarrayName,
    ("numpy", "dtype"): np.dtype,
    ("_codecs", "encode"): _latin1_bytes,
    ("collections", "OrderedDict"): dict,
}


class _RestrictedUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        try:
            return _ALLOWED[module, name]
        except KeyError:
            raise pickle.UnpicklingError(f"it names {module}.{name}, which a brl checkpoint never holds "
                                         "(only arrays, dtypes and plain containers are read)") from None

    def persistent_load(self, pid):
        raise pickle.UnpicklingError("it refers to persistent objects")


def _plain(tree, where: str = "", depth: int = 0) -> dict:
    """The nested dicts of ``tree`` with numeric numpy leaves; anything else refused."""
    if depth > 8:
        raise BrlFileError(f"{where}: dicts nested deeper than brl's parameters ever are")
    if isinstance(tree, dict):
        return {str(k): _plain(v, f"{where}/{k}", depth + 1) for k, v in tree.items()}
    if isinstance(tree, np.ndarray):
        if tree.dtype.kind not in "biuf":
            raise BrlFileError(f"{where} holds an array of {tree.dtype}, not numbers")
        return tree
    raise BrlFileError(f"{where or 'the top'} holds a {type(tree).__name__}, not a dict of arrays")


def load_brl_params(path: str | Path) -> dict[str, dict[str, np.ndarray]]:
    """{layer name (``linear``, ``linear_1`` ...): {"w", "b"}} of a brl parameter pickle, read without running
    any code from the file; `BrlFileError` (one line) for a file that is not one."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BrlFileError(f"brl:{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        tree = _RestrictedUnpickler(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError, KeyError,
            MemoryError, OverflowError, RecursionError) as exc:
        raise BrlFileError(f"brl:{path}: refused, not read: {str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__}") from None
    try:
        tree = _plain(tree)
    except BrlFileError as exc:
        raise BrlFileError(f"brl:{path}: {exc}") from None
    from bridgerl.agents.learned.checkpoint import note_file_read

    note_file_read(path, data)  # its SHA-256 in the results' checkpoints
    layers = {}
    for key, value in tree.items():
        match = re.search(r"(?:^|/)(linear(?:_\d+)?)$", key)
        if match and isinstance(value, dict) and set(value) >= {"w", "b"}:
            layers[match.group(1)] = {"w": value["w"], "b": value["b"]}  # converted once their shapes are checked
    shapes = {"linear": (OBSERVATION_SIZE, 1024), "linear_1": (1024, 1024), "linear_2": (1024, 1024),
              "linear_3": (1024, 1024), "linear_4": (1024, NUM_CALLS)}
    for name, shape in shapes.items():
        if name not in layers:
            raise BrlFileError(f"brl:{path}: no layer {name!r}: not brl's DeepMind MLP (480 -> 4 x 1024 -> 38; its "
                               f"layers: {sorted(tree)[:8]})")
        if layers[name]["w"].shape != shape or layers[name]["b"].shape != shape[1:]:
            raise BrlFileError(f"brl:{path}: layer {name!r} has weights {layers[name]['w'].shape}, expected {shape} "
                               "(brl's DeepMind MLP; the FAIR network is not read)")
    return {name: {k: np.asarray(v, np.float32) for k, v in layer.items() if k in ("w", "b")}
            for name, layer in layers.items()}


def brl_observation(view) -> np.ndarray:
    """float32[480]: pgx 1.4 ``bridge_bidding``'s observation of the player to call, from an `AuctionView`."""
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    we, they = bool(view.we_vulnerable), bool(view.they_vulnerable)
    obs[0:4] = (not we, we, not they, they)
    last_bid = None
    for seat, call in view.calls:  # (relative seat, call), oldest first
        if call >= BID_OFFSET:
            last_bid = call - BID_OFFSET
            obs[4 + 4 + last_bid * 12 + seat] = 1
        elif call == 0:
            if last_bid is None:
                obs[4 + seat] = 1
        else:  # 1 double, 2 redouble: of the last bid
            obs[4 + 4 + last_bid * 12 + 4 * call + seat] = 1
    for card in view.hand:
        obs[428 + card // 13 + 4 * (card % 13)] = 1
    return obs


class BrlBidder(ViewBidder):
    """brl's bidding network (`load_brl_params`), greedy over the legal calls: a competitive bidder."""

    def __init__(self, layers: dict, source: str = "<brl>"):
        self.layers, self.source = layers, source

    @classmethod
    def load(cls, path: str | Path) -> "BrlBidder":
        return cls(load_brl_params(path), str(path))

    def logits(self, observations: np.ndarray) -> np.ndarray:
        x = np.asarray(observations, np.float32)
        for name in TORSO:
            x = np.maximum(x @ self.layers[name]["w"] + self.layers[name]["b"], 0.0)
        return x @ self.layers[LOGITS]["w"] + self.layers[LOGITS]["b"]

    def _choose(self, views) -> np.ndarray:
        logits = self.logits(np.stack([brl_observation(v) for v in views]))
        masks = np.stack([np.asarray(v.legal_mask, bool) for v in views])
        return np.where(masks, logits, -np.inf).argmax(axis=1)

