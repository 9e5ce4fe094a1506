"""Record BEN's own bidder, run as a black box, on held-out deals: the fixture `tests/data/ben_parity.npz`.

BEN (lorserker/ben, GPL-3.0) is run from a checkout outside this repository: its `src/` goes on ``sys.path`` and
its own `botbidder.BotBid(...).bid(auction)` chooses every call it makes, with the ONNX models its own
`src/config/onnx.conf` names, loaded by its own `nn.models_tf2.Models.from_conf`. The neural network's choice is
taken as it stands: the models' ``search_threshold`` is set to -1 and ``consult_bba``, ``use_bba``,
``use_bba_rollout``, ``use_bba_to_count_aces`` and ``check_final_contract`` to False, so that no sampling search,
no BBA/EPBot and no double-dummy solver runs (``ddsolver=None``; the sampler is a stub whose ``get_bidding_info``
returns zeros, the only sampler call left on that path). TensorFlow is not installed: a stub module stands in
for it, since BEN's TensorFlow code is never called on this path (the stub raises if it is). colorama, numpy and
onnxruntime are needed.

For each call BEN makes, the float array BEN passes to its bidder's ``InferenceSession.run`` ([batch, steps, 193])
and the [batch, steps, 40] output are recorded (BEN's 40 outputs are PAD_START, PAD_END, PASS, X, XX, 1C..7N, so
our competitive call index is BEN's - 2), together with BEN's chosen call.

The auctions: the first half (``--auctions`` // 2) are bid by BEN at all four seats ("ben4"); the rest are
contested, BEN at one side (NS and EW in turn) against, in turn, ``rules``, ``sayc`` and
``models/competitive-played`` ("release"), which act through `bridgerl.arena.lockstep.act_batch` on
`bridgerl.core.competitive.AuctionView`. Deals are rows of the ``valid`` split, drawn with ``--seed`` so that each
group holds all 4 dealers x 4 vulnerabilities; dealer and vulnerability follow the rows' own board numbers. If
fewer than 20 auctions hold a double or redouble, more deals are drawn (contested, in the same rotation) and those
auctions that hold one are added until there are 20.

Licence: the fixture holds numbers only (our deals and auctions, BEN's inputs, outputs and calls) and the BEN
commit and model hash they came from; no BEN code, model or file is copied into this repository.

Made with (BEN's checkout: ``git clone /work/.mirror/lorserker+ben/repo /tmp/ben-src``, commit 7c2c558...):

    python3 benchmarks/ben_parity.py --ben-src /tmp/ben-src

and ``ben:DIR`` checked against it (DIR holding BEN's bidder.onnx):

    python3 benchmarks/ben_parity.py --check DIR

Options: ``--out FILE`` (default tests/data/ben_parity.npz; an existing file is kept unless ``--force``),
``--auctions N`` (default 500), ``--seed S`` (default 0).

Fixture, one row per call BEN made: auction_id, group, deal (row in valid), board, dealer, seat (the caller),
we_vul/they_vul (the caller's side first), auction (int16[96], the calls so far from the dealer's, our index,
-1 padded), hand (int8[13], the caller's cards, ascending), ben_call (our index), ben_probs (float32[40], the
session's output at the last step), ben_input (float32[steps_max, 193], NaN after ben_steps), ben_steps; and the
scalars ben_commit, bidder_sha256 (of the bidder.onnx BEN loaded), command, seed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shlex
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
GROUPS = ("ben4", "rules", "sayc", "release")
OPPONENTS = (("rules", "rules"), ("sayc", "sayc"), ("release", "models/competitive-played"))
AUCTION_WIDTH = 96
MIN_STEPS = 16
MIN_DOUBLED = 20
MAX_CALLS = 319  # the longest legal auction: 3 passes, then 35 x (bid, P, P, X, P, P, XX, P, P), then 3 passes - 1


def tensorflow_stub() -> dict:
    """Modules that let BEN's ``import tensorflow as tf`` and its `nn/*_tf2.py` class definitions load: ``tf.function``
    is the identity, ``tf.TensorSpec`` a placeholder; anything that would run TensorFlow raises."""

    class Unavailable(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            raise RuntimeError(f"BEN reached tensorflow.{name}, which this stub does not provide: the TensorFlow "
                               f"path was taken")

    tf = Unavailable("tensorflow")
    tf.__version__ = "0+stub"
    tf.function = lambda *args, **kwargs: (lambda f: f)
    tf.TensorSpec = lambda *args, **kwargs: None
    tf.float16, tf.float32 = np.float16, np.float32
    keras = Unavailable("tensorflow.keras")
    keras_models = Unavailable("tensorflow.keras.models")

    def load_model(*args, **kwargs):
        raise RuntimeError("BEN tried to load a Keras model: only its ONNX models can run here")

    keras_models.load_model = load_model
    keras.models = keras_models
    tf.keras = keras
    return {"tensorflow": tf, "tensorflow.keras": keras, "tensorflow.keras.models": keras_models}


class SamplerStub:
    """What BEN's BotBid reads of its sampler when it does not search: zeros for the bidding info."""

    sample_boards_for_auction = 0
    no_samples_when_no_search = True

    def get_bidding_info(self, n_steps, auction, nesw_i, hand, vuln, models):
        return np.zeros((1, 3), dtype=np.float32), np.zeros((1, 12), dtype=np.float32)

    def __getattr__(self, name):
        raise RuntimeError(f"BEN asked its sampler for {name!r}: the sampling path was taken")


class RecordingSession:
    """Wraps BEN's bidder ONNX session: keeps a copy of every input and output it passes through."""

    def __init__(self, session):
        self.session, self.records = session, []

    def run(self, output_names, feeds, *args, **kwargs):
        result = self.session.run(output_names, feeds, *args, **kwargs)
        (x,) = feeds.values()
        # copies: BEN zeroes entries of the output it returns while it looks for a legal call
        self.records.append((np.array(x, dtype=np.float32, copy=True), np.array(result[0], dtype=np.float32, copy=True)))
        return result

    def __getattr__(self, name):
        return getattr(self.session, name)


class ForbiddenSession:
    """Stands in for the sessions of BEN's other models, which must not run when BEN does not search."""

    def __init__(self, name):
        self.name = name

    def run(self, *args, **kwargs):
        raise RuntimeError(f"BEN ran its {self.name} model: a search or rescue path was taken")


def sha256(path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def load_ben(ben_src: Path):
    """(botbidder module, BEN's bidding module, models, recorder, sha256 of the bidder BEN loaded)."""
    src = ben_src / "src"
    if not (src / "botbidder.py").is_file():
        raise SystemExit(f"--ben-src {ben_src}: no src/botbidder.py there (expected a checkout of lorserker/ben)")
    for name, module in tensorflow_stub().items():
        if name in sys.modules and not isinstance(sys.modules[name], types.ModuleType):
            raise SystemExit(f"{name} is already imported")
        sys.modules[name] = module
    sys.path.insert(0, str(src))
    import botbidder  # noqa: E402  (BEN's)
    import conf as ben_conf  # noqa: E402
    from bidding import bidding  # noqa: E402
    from nn.models_tf2 import Models  # noqa: E402

    for module in (botbidder, ben_conf, bidding, sys.modules["binary"], sys.modules["util"]):
        if not Path(module.__file__).resolve().is_relative_to(src.resolve()):
            raise SystemExit(f"module {module.__name__} came from {module.__file__}, not from BEN's {src}")
    configuration = ben_conf.load(os.path.join("config", "onnx.conf"))
    models = Models.from_conf(configuration, str(ben_src))
    models.search_threshold = -1
    models.consult_bba = False
    models.use_bba = False
    models.use_bba_rollout = False
    models.use_bba_to_count_aces = False
    models.check_final_contract = False
    models.bba_our_cc = models.bba_their_cc = None  # no BBA bot can be made
    if models.model_version != 3 or (models.ns, models.ew) != (1, 1) or models.n_cards_bidding != 24:
        raise SystemExit(f"unexpected BEN configuration: model_version {models.model_version}, NS/EW systems "
                         f"{models.ns}/{models.ew}, {models.n_cards_bidding} bidding cards")
    bidder_path = models.bidder_model.model_path
    if not bidder_path.endswith(".onnx"):
        raise SystemExit(f"BEN's bidder is {bidder_path}, not an ONNX model")
    bidder_sha = sha256(bidder_path)
    recorder = RecordingSession(models.bidder_model.session)
    models.bidder_model.session = recorder
    for name in ("opponent_model", "binfo_model", "contract_model", "trick_model", "lead_suit_model",
                 "lead_nt_model", "sd_model", "sd_model_no_lead"):
        model = getattr(models, name, None)
        if model is not None and hasattr(model, "session"):
            model.session = ForbiddenSession(name)
    for model in models.player_models or []:
        if hasattr(model, "session"):
            model.session = ForbiddenSession("card play")
    return botbidder, bidding, models, recorder, bidder_sha


def ben_hand(owner_row: np.ndarray, seat: int) -> str:
    """BEN's hand text: spades.hearts.diamonds.clubs, each from the ace down."""
    from bridgerl.core.cards import RANKS

    cards = np.flatnonzero(owner_row == seat)
    return ".".join("".join(RANKS[c % 13] for c in sorted(cards[cards // 13 == suit], reverse=True))
                    for suit in (3, 2, 1, 0))


def deal_stream(boards: np.ndarray, seed: int):
    """Rows of the split in an order drawn with ``seed`` that takes the 16 (dealer, vulnerability) classes in turn,
    so that any 16 consecutive rows hold them all."""
    from bridgerl.core.board import dealers_for_boards, vul_codes_for_boards

    order = np.random.default_rng(seed).permutation(len(boards))
    classes = dealers_for_boards(boards).astype(np.int64) * 4 + vul_codes_for_boards(boards)
    queues = [list(order[classes[order] == k]) for k in range(16)]
    position = 0
    while any(queues):
        queue = queues[position % 16]
        if queue:
            yield int(queue.pop(0))
        position += 1


def check(fixture: Path, ben_dir: str) -> None:
    """``ben:DIR`` on every call of the fixture: how many of BEN's calls it makes and how far its 40 outputs are
    from BEN's (the parity figure of docs/ben.md)."""
    from bridgerl.agents.learned.ben import choose
    from bridgerl.arena.specs import load_identified
    from bridgerl.core.auction import Auction
    from bridgerl.core.competitive import AuctionView

    with np.load(fixture) as data:
        rows = {key: data[key] for key in data.files}
    bidder, identity = load_identified(f"ben:{ben_dir}", "bidder")
    views = []
    for dealer, hand, we, they, auction in zip(rows["dealer"], rows["hand"], rows["we_vul"], rows["they_vul"],
                                               rows["auction"]):
        bits = np.zeros(52, np.int8)
        bits[hand] = 1
        views.append(AuctionView.of(Auction.from_calls(int(dealer), [int(c) for c in auction if c >= 0]), bits,
                                    bool(we), bool(they)))
    started = time.perf_counter()
    probabilities = bidder.probabilities(views)
    seconds = time.perf_counter() - started
    calls = choose(probabilities, np.stack([v.legal_mask for v in views]))
    same = int((calls == rows["ben_call"]).sum())
    gap = float(np.abs(probabilities - rows["ben_probs"]).max())
    auctions = len(np.unique(rows["auction_id"]))
    print(f"ben:{ben_dir} (sha256 {identity['checkpoints'][0][:12]}; the fixture's BEN file "
          f"{str(rows['bidder_sha256'])[:12]}): BEN's call on {same} of {len(calls)} calls in {auctions} auctions; "
          f"largest difference of the 40 outputs {gap:.2e}; {len(calls) / seconds:,.0f} calls/s in one batch")
    if same != len(calls) or gap >= 1e-3:
        raise SystemExit("parity NOT met: every call and outputs within 1e-3 are asked")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", metavar="DIR", help="instead of recording: run ben:DIR on the fixture (--out) "
                                                       "and print the parity figure")
    parser.add_argument("--ben-src", type=Path, help="root of a checkout of lorserker/ben")
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "data" / "ben_parity.npz")
    parser.add_argument("--auctions", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--force", action="store_true", help="replace an existing --out file")
    args = parser.parse_args()
    if args.check:
        check(args.out, args.check)
        return
    if args.ben_src is None:
        parser.error("--ben-src is needed to record the fixture (or --check DIR to check ben:DIR against it)")
    if args.auctions < 2:
        parser.error("--auctions must be 2 or more")
    if args.out.exists() and not args.force:
        raise SystemExit(f"{args.out} exists: pass --force to replace it")
    command = shlex.join([os.path.basename(sys.executable)] + sys.argv)
    started = time.perf_counter()

    ben_src = args.ben_src.resolve()
    try:
        ben_commit = subprocess.run(["git", "-C", str(ben_src), "rev-parse", "HEAD"], check=True, text=True,
                                    capture_output=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"--ben-src {ben_src}: cannot read its git commit ({exc})")
    botbidder, bidding, models, recorder, bidder_sha = load_ben(ben_src)
    print(f"BEN {ben_commit[:12]} from {ben_src}; bidder.onnx sha256 {bidder_sha}", flush=True)

    from bridgerl.arena.lockstep import act_batch
    from bridgerl.arena.specs import load_agent
    from bridgerl.core.auction import Auction
    from bridgerl.core.board import dealer_for_board, is_vulnerable, vul_for_board
    from bridgerl.core.calls import DOUBLE, REDOUBLE, call_name
    from bridgerl.core.competitive import AuctionView
    from bridgerl.core.dataset import atomic_savez, load_dataset

    ds = load_dataset("valid")
    boards = ds.boards
    agents = {group: load_agent(str(REPO / spec) if "/" in spec else spec, "competitive_bidding", seed=args.seed)
              for group, spec in OPPONENTS}
    sampler = SamplerStub()
    rows: dict[str, list] = {k: [] for k in ("auction_id", "group", "deal", "board", "dealer", "seat", "we_vul",
                                             "they_vul", "auction", "hand", "ben_call", "ben_probs", "ben_input",
                                             "ben_steps", "legal")}
    batch_over_one = 0

    def run_auction(auction_id: int, deal: int, group: str, ben_side: int | None) -> tuple[Auction, list]:
        """Bid one deal; BEN at ``ben_side`` (0 NS, 1 EW, None: all four seats). Returns the auction and its rows."""
        nonlocal batch_over_one
        board = int(boards[deal])
        dealer, vul = dealer_for_board(board), vul_for_board(board)
        owner = np.asarray(ds.owner[deal])
        vuln = [is_vulnerable(vul, 0), is_vulnerable(vul, 1)]  # BEN's [NS, EW]
        ben_seats = [s for s in range(4) if ben_side is None or s % 2 == ben_side]
        bots = {s: botbidder.BotBid(vuln, ben_hand(owner, s), models, sampler, s, dealer, None, False, False)
                for s in ben_seats}
        auction, ben_auction, made = Auction(dealer), ["PAD_START"] * dealer, []
        while not auction.is_over:
            if len(auction.calls) >= MAX_CALLS:
                raise RuntimeError(f"auction {auction_id} is longer than the legal maximum")
            seat = auction.to_act
            we, they = is_vulnerable(vul, seat), is_vulnerable(vul, seat + 1)
            if seat in bots:
                before = len(recorder.records)
                response = bots[seat].bid(list(ben_auction))
                taken = recorder.records[before:]
                if len(taken) != 1:
                    raise RuntimeError(f"BEN ran its bidder {len(taken)} times for one call (auction {auction_id})")
                x, y = taken[0]
                if x.shape[0] != 1:
                    batch_over_one += 1
                call = bidding.BID2ID[response.bid] - 2
                if not auction.is_legal(call):
                    raise RuntimeError(f"BEN's call {response.bid} is illegal after '{auction}' (auction {auction_id})")
                if len(auction.calls) > AUCTION_WIDTH:
                    raise RuntimeError(f"auction {auction_id} has more than {AUCTION_WIDTH} calls before BEN's")
                history = np.full(AUCTION_WIDTH, -1, dtype=np.int16)
                history[:len(auction.calls)] = auction.calls
                made.append({"auction_id": auction_id, "group": group, "deal": deal, "board": board,
                             "dealer": dealer, "seat": seat, "we_vul": we, "they_vul": they, "auction": history,
                             "hand": np.flatnonzero(owner == seat).astype(np.int8), "ben_call": call,
                             "ben_probs": y[0, -1], "ben_input": x[0], "ben_steps": x.shape[1],
                             "legal": auction.legal_mask().copy()})
            else:
                hand_bits = (owner == seat).astype(np.int8)
                view = AuctionView.of(auction, hand_bits, we, they)
                call = int(act_batch(agents[group], view.observation()[None], view.legal_mask[None], [view])[0])
            auction = auction.add(call)
            ben_auction.append(bidding.ID2BID[call + 2])
        return auction, made

    def keep(made):
        for row in made:
            for key, value in row.items():
                rows[key].append(value)

    stream = deal_stream(boards, args.seed)
    half = args.auctions // 2
    contested = 0
    plan = []  # (group, ben_side)
    for i in range(args.auctions):
        if i < half:
            plan.append(("ben4", None))
        else:
            group = OPPONENTS[contested % 3][0]
            plan.append((group, (contested // 3) % 2))
            contested += 1
    doubled = 0
    auction_calls = 0
    texts = {}
    for auction_id, (group, side) in enumerate(plan):
        deal = next(stream)
        auction, made = run_auction(auction_id, deal, group, side)
        keep(made)
        auction_calls += len(auction.calls)
        doubled += any(c in (DOUBLE, REDOUBLE) for c in auction.calls)
        texts[auction_id] = (group, deal, str(auction))
        if (auction_id + 1) % 50 == 0 or auction_id + 1 == len(plan):
            print(f"  {auction_id + 1}/{len(plan)} auctions, {len(rows['ben_call'])} BEN calls, {doubled} with X/XX, "
                  f"{time.perf_counter() - started:.0f} s", flush=True)
    natural_doubled, extra_tried = doubled, 0
    auction_id = len(plan)
    while doubled < MIN_DOUBLED:
        group = OPPONENTS[contested % 3][0]
        side = (contested // 3) % 2
        contested += 1
        extra_tried += 1
        try:
            deal = next(stream)
        except StopIteration:
            raise SystemExit(f"the valid split ran out of deals with {doubled} doubled auctions")
        auction, made = run_auction(auction_id, deal, group, side)
        if any(c in (DOUBLE, REDOUBLE) for c in auction.calls):
            keep(made)
            auction_calls += len(auction.calls)
            doubled += 1
            texts[auction_id] = (group, deal, str(auction))
            auction_id += 1
    n_auctions = auction_id

    count = len(rows["ben_call"])
    steps = np.asarray(rows["ben_steps"], dtype=np.int16)
    width = max(MIN_STEPS, int(steps.max()))
    ben_input = np.full((count, width, 193), np.nan, dtype=np.float32)
    for i, x in enumerate(rows["ben_input"]):
        ben_input[i, :x.shape[0]] = x
    probs = np.stack(rows["ben_probs"]).astype(np.float32)
    legal = np.stack(rows["legal"])
    ben_call = np.asarray(rows["ben_call"], dtype=np.int16)

    # sanity: with the search off, BEN's call is the highest output among the legal calls
    masked = np.where(legal, probs[:, 2:], -np.inf)
    disagree = np.flatnonzero(masked.argmax(axis=1) != ben_call)
    group = np.asarray(rows["group"], dtype="<U8")
    dealer = np.asarray(rows["dealer"], dtype=np.int8)
    board = np.asarray(rows["board"], dtype=np.int32)
    arrays = {
        "auction_id": np.asarray(rows["auction_id"], dtype=np.int32), "group": group,
        "deal": np.asarray(rows["deal"], dtype=np.int32), "board": board, "dealer": dealer,
        "seat": np.asarray(rows["seat"], dtype=np.int8), "we_vul": np.asarray(rows["we_vul"], dtype=bool),
        "they_vul": np.asarray(rows["they_vul"], dtype=bool), "auction": np.stack(rows["auction"]),
        "hand": np.stack(rows["hand"]), "ben_call": ben_call, "ben_probs": probs, "ben_input": ben_input,
        "ben_steps": steps, "ben_commit": np.array(ben_commit), "bidder_sha256": np.array(bidder_sha),
        "command": np.array(command), "seed": np.array(args.seed, dtype=np.int64)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    if args.out.exists() and not args.force:
        raise SystemExit(f"{args.out} appeared while this ran: pass --force to replace it")
    atomic_savez(args.out, **arrays)

    from bridgerl.core.board import VULS, vul_codes_for_boards

    print(f"\nwrote {args.out} ({args.out.stat().st_size / 1e6:.2f} MB) in {time.perf_counter() - started:.0f} s")
    print(f"auctions {n_auctions} ({auction_calls} calls), BEN calls (rows) {count}")
    for g in GROUPS:
        ids = np.unique(arrays["auction_id"][group == g])
        print(f"  {g:8s} {len(ids):4d} auctions, {int((group == g).sum()):5d} BEN calls")
    print(f"auctions with X or XX: {doubled} ({natural_doubled} among the first {len(plan)}"
          + (f"; {extra_tried} more deals drawn to reach {MIN_DOUBLED}, {doubled - natural_doubled} kept)"
             if extra_tried else ")"))
    first = np.unique(arrays["auction_id"], return_index=True)[1]
    for g in GROUPS:
        at = first[group[first] == g]
        cells = set(zip(dealer[at].tolist(), vul_codes_for_boards(board[at]).tolist()))
        print(f"  {g:8s} dealer x vulnerability: {len(cells)}/16 "
              f"({'all' if len(cells) == 16 else 'missing ' + str(sorted(set(np.ndindex(4, 4)) - cells))})")
    print(f"ben_steps {int(steps.min())}..{int(steps.max())} (ben_input holds {width} steps)")
    print(f"batch > 1 for one call: {batch_over_one} times (row 0 recorded)")
    print(f"BEN's call != argmax of its outputs over the legal calls: {len(disagree)} of {count}")
    for i in disagree[:10]:
        print(f"  row {i}: BEN {call_name(int(ben_call[i]))}, argmax {call_name(int(masked[i].argmax()))}")
    print("some auctions:")
    for auction_id in list(texts)[:: max(1, len(texts) // 8)]:
        g, deal, text = texts[auction_id]
        print(f"  #{auction_id} {g} board {int(boards[deal])} (dealer {'NESW'[dealer_for_board(int(boards[deal]))]}, "
              f"{VULS[int(vul_codes_for_boards([boards[deal]])[0])]}): {text}")


if __name__ == "__main__":
    main()
