"""BEN's bidding network by file: the bidder spec ``ben:DIR``.

BEN (Lorincz, github.com/lorserker/ben, GPL-3.0) ships its bidding network as ONNX: ``models/onnx/bidder.onnx``, a
conversion of ``GIB-BBO-8730_2025-04-19-E30.keras`` (EPBot's auctions in the GIB/BBO 2/1 system), read here at
BEN's commit 7c2c558 (SHA-256 in `BEN_SHA256`). bridgerl ships no BEN file and no BEN code: the user fetches
``bidder.onnx`` into a folder DIR (docs/ben.md), and this module encodes BEN's input from the facts of its
interface, not from its source; `benchmarks/ben_parity.py` checks it against BEN's own bidder as a black box.

The network: float32 ``[batch, steps, 193]`` in, ``[batch, steps, 40]`` out (an LSTM over the player's turns).
**One step per own turn** of the player to call, each step (`encode_views`):

- 2 system ids, ours then theirs (BEN's ``onnx.conf``: 1 and 1; ``system=`` sets both);
- 2 vulnerability values, [we, they];
- the HCP as (hcp - 10) / 4, and the 4 suit lengths as (length - 3.25) / 1.75, spades first (BEN's order S H D
  C), both rounded to float16 as BEN builds its input array in float16;
- the hand as 24 values, per suit (spades first) A K Q J T and the count of the smaller cards ("x");
- 4 x 40 one-hot calls: the player's own call of the round before this turn, then its left-hand opponent's, its
  partner's and its right-hand opponent's: the four calls before the turn, PAD_START where the auction had not
  begun (BEN pads the auction at the front, one PAD_START per seat before the dealer).

The 40 outputs are PAD_START, PAD_END, Pass, X, XX, 1C ... 7NT: our competitive index is BEN's minus 2. With search
off BEN takes the last step's outputs, their argmax, and while it is illegal zeroes it and takes the next: the
highest legal call (`BenBidder`; equal values go to the lower index, as argmax does). Needs onnxruntime
(``pip install 'bridgerl[ben]'``), loaded when a ``ben:`` spec is; ``import bridgerl`` never imports it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

from bridgerl.agents.learned.view_bidder import ViewBidder
from bridgerl.core.calls import NUM_CALLS
from bridgerl.core.hand import HCP_PER_CARD

BEN_FILE = "bidder.onnx"
BEN_COMMIT = "7c2c558"
BEN_SHA256 = "5f01acbe69caf8136a32561aba9502f994a08610f5d14bb6f7e6c880c8edf325"
BEN_SOURCE = "lorserker/ben models/onnx/bidder.onnx (GPL-3.0)"
STEP_SIZE = 193
OUTPUTS = 40
PAD_START, PAD_END, OFFSET = 0, 1, 2  # BEN's output index = our competitive call + OFFSET
SYSTEM = 1  # BEN's onnx.conf: the GIB/BBO 2/1 system id of both sides
_SUITS = (3, 2, 1, 0)  # BEN's suit order S H D C, as our suit indices (C=0 ... S=3)
_HONOURS = (12, 11, 10, 9, 8)  # A K Q J T as our ranks (2=0 ... A=12)


class BenFileError(ValueError):
    """A folder or file that is not BEN's bidding network (one line naming BEN's model and the problem)."""


def hand_features(hand_bits: np.ndarray) -> np.ndarray:
    """float32[..., 29]: HCP, the 4 lengths (S H D C) and the 24-value hand of hands given as int8[..., 52], with
    BEN's float16 rounding."""
    bits = np.asarray(hand_bits, np.float64)
    out = np.zeros(bits.shape[:-1] + (29,), np.float16)
    out[..., 0] = (bits @ HCP_PER_CARD - 10) / 4
    by_suit = bits.reshape(bits.shape[:-1] + (4, 13))
    for k, suit in enumerate(_SUITS):
        cards = by_suit[..., suit, :]
        out[..., 1 + k] = (cards.sum(-1) - 3.25) / 1.75
        out[..., 5 + 6 * k: 10 + 6 * k] = cards[..., list(_HONOURS)]
        out[..., 10 + 6 * k] = cards[..., :8].sum(-1)  # the pooled small cards, 2 to 9
    return out.astype(np.float32)


def encode_view(view, system: tuple[int, int] = (SYSTEM, SYSTEM)) -> np.ndarray:
    """float32[steps, 193]: BEN's input for the player to call in an `AuctionView` (relative seats only: the view
    read back from an observation encodes as the env's own does)."""
    x, lengths = encode_views([view], system)
    return x[0, :lengths[0]]


def encode_views(views, system: tuple[int, int] = (SYSTEM, SYSTEM)) -> tuple[np.ndarray, np.ndarray]:
    """(float32[batch, steps, 193], int[batch] steps of each): the views' inputs, padded with zeros after each one's
    steps (the network is causal over steps: padding after a row's last step leaves that step's outputs as they are).
    Step k of a view whose auction holds n calls: the calls at n % 4 + 4k - 4 ... n % 4 + 4k - 1 (own, left, partner,
    right), PAD_START before the first."""
    calls = [[call for _, call in view.calls] for view in views]
    lengths = np.array([len(c) // 4 + 1 for c in calls], dtype=np.int64)
    batch = np.zeros((len(views), int(lengths.max(initial=1)), STEP_SIZE), np.float32)
    for row, n in enumerate(lengths):
        batch[row, :n, 0:2] = system
        batch[row, :n, 2:4] = (views[row].we_vulnerable, views[row].they_vulnerable)
    hands = hand_features(np.stack([view.hand_bits for view in views])) if views else np.zeros((0, 29), np.float32)
    for row, (made, n) in enumerate(zip(calls, lengths)):
        batch[row, :n, 4:33] = hands[row]
        first = len(made) % 4  # the player's first turn, counted from the dealer's first call
        for k in range(n):
            for j, q in enumerate(range(first + 4 * k - 4, first + 4 * k)):  # own, left, partner, right
                batch[row, k, 33 + 40 * j + (PAD_START if q < 0 else made[q] + OFFSET)] = 1
    return batch, lengths


def choose(probabilities: np.ndarray, legal_masks: np.ndarray) -> np.ndarray:
    """Our competitive calls: the highest of BEN's 40 outputs among the legal calls (BEN's argmax, zeroed and taken
    again while illegal)."""
    legal = np.zeros(np.shape(probabilities), bool)
    legal[:, OFFSET:] = np.asarray(legal_masks, bool)
    return np.where(legal, probabilities, -np.inf).argmax(axis=1) - OFFSET


def _session(path: Path):
    """An onnxruntime session of ``path`` on one thread (one line when onnxruntime is missing)."""
    try:
        import onnxruntime
    except ImportError:
        raise BenFileError(f"ben:{path.parent}: reading BEN's bidding network needs onnxruntime: "
                           "pip install 'bridgerl[ben]'") from None
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own classes for a damaged or foreign file
        first = str(exc).strip().splitlines()[0][:160] if str(exc).strip() else type(exc).__name__
        raise BenFileError(f"ben:{path.parent}: {path.name} is not a readable ONNX model ({first})") from None
    inputs, outputs = session.get_inputs(), session.get_outputs()
    shapes = ([i.shape for i in inputs], [o.shape for o in outputs])
    if len(inputs) != 1 or len(outputs) != 1 or inputs[0].shape[-1:] != [STEP_SIZE] or \
            outputs[0].shape[-1:] != [OUTPUTS] or len(inputs[0].shape) != 3:
        raise BenFileError(f"ben:{path.parent}: {path.name} takes {shapes[0]} and gives {shapes[1]}, not BEN's "
                           f"bidding network ([batch, steps, {STEP_SIZE}] in, [batch, steps, {OUTPUTS}] out)")
    return session


class BenBidder(ViewBidder):
    """BEN's bidding network alone (no sampling search, no EPBot), greedy over the legal calls: a competitive
    bidder. ``system`` sets both system ids (BEN's onnx.conf: 1)."""

    def __init__(self, session, source: str = "<ben>", sha256: str = "", system: int = SYSTEM):
        self.session, self.source, self.sha256, self.system = session, source, sha256, int(system)
        self._input = session.get_inputs()[0].name

    @classmethod
    def load(cls, directory: str | Path, system: int = SYSTEM) -> "BenBidder":
        """BEN's network from ``directory``/bidder.onnx (or the .onnx file itself); one line naming BEN's model when
        it is not there. The file's SHA-256 is recorded in the results' checkpoints."""
        from bridgerl.agents.learned.checkpoint import note_file_read
        from bridgerl.core.models import resolve_model_path

        given = Path(directory)
        path = resolve_model_path(directory)
        path = path if path.suffix == ".onnx" else path / BEN_FILE
        if isinstance(system, bool) or int(system) != system or not 0 <= system <= 4:
            raise BenFileError(f"ben:{given}: system must be one of BEN's system ids 0-4, got {system!r}")
        if not path.is_file():
            raise BenFileError(f"ben:{given}: no {BEN_FILE} there: BEN's bidding network ({BEN_SOURCE}, SHA-256 "
                               f"{BEN_SHA256[:12]}...) goes in that folder; docs/ben.md says how to get it")
        data = path.read_bytes()
        session = _session(path)
        note_file_read(path, data)
        return cls(session, str(given), hashlib.sha256(data).hexdigest(), system)

    def probabilities(self, views) -> np.ndarray:
        """float32[batch, 40]: the network's last-step outputs for each view (one forward pass for the batch)."""
        x, lengths = encode_views(views, (self.system, self.system))
        out = self.session.run(None, {self._input: x})[0]
        return np.asarray(out[np.arange(len(lengths)), lengths - 1], np.float32)

    def call_probabilities(self, views) -> np.ndarray:
        """float32[batch, 38]: the network's last-step outputs of our 38 calls (BEN's PAD_START and PAD_END left
        out, so a row sums to a little under 1); their legal argmax is the call (`data bid-labels`' soft labels)."""
        return self.probabilities(views)[:, OFFSET:]

    def _choose(self, views) -> np.ndarray:
        masks = np.stack([np.asarray(v.legal_mask, bool) for v in views])
        return choose(self.probabilities(views), masks)

    def __repr__(self) -> str:
        return f"BenBidder({self.source!r}, sha256={self.sha256[:12]}, system={self.system})"


assert NUM_CALLS + OFFSET == OUTPUTS
