"""Bidding labels: one route from any teacher to a student (``bridgerl data bid-labels``, issue #64).

A teacher (any competitive bidder spec: ``rules``, ``ben:DIR``, a released network ...) bids whole auctions at all
four seats of fresh or bundled deals, and every position is written: the 231-value observation (packed bits),
the legal mask, the teacher's call, the teacher's 38 call probabilities where it has them (a bidder with
``call_probabilities(views)``, whose legal argmax is its call: ``ben:DIR``; NaN rows otherwise), the call played
and the deal. With DAgger (``dagger=(STUDENT, SHARE)``) the student bids a share of the seats, drawn per deal
and seat: those seats' calls are the student's and the teacher labels the positions they lead to, the states the
student will meet (Ross et al. 2011).

Deals come in chunks of `CHUNK`; every chunk draws from ``SeedSequence([seed, chunk])`` (fresh deals, the DAgger
seats), so a file is the same whether it was written at once, resumed after an interruption or extended: each chunk
is written to `partial_dir` as it ends, the file atomically once all are, and a run with the same settings
continues from the chunks it has. The test split is never read. `load_labels` reads one or more files back as
`bridgerl.training.demonstrations.Demonstrations`
(plus the probabilities) for ``train competitive --demos``.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bridgerl.core.board import VULS, dealers_for_boards, vul_codes_for_boards
from bridgerl.core.calls import NUM_CALLS
from bridgerl.core.competitive import OBSERVATION_SIZE, CompetitiveDeal
from bridgerl.core.dataset import BUNDLED_SPLITS, atomic_savez, load_dataset

FORMAT = "bridgerl-bid-labels-1"
CHUNK = 1000
FIELDS = ("obs_bits", "mask", "call", "probs", "played", "by_student", "deal", "seat", "searched")


class LabelError(ValueError):
    """A labelling run that cannot go on as asked (one line)."""


@dataclass(frozen=True)
class LabelJob:
    """What a label file records of its making; a resumed run must ask for the same."""
    bidder: str
    data: str
    deals: int
    seed: int = 0
    start: int = 0
    dagger: str | None = None      # the student's spec
    share: float = 0.0             # the share of seats it bids

    def key(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "deals"}


def _test_digest() -> str:
    return hashlib.sha256(np.ascontiguousarray(load_dataset("test").owner, np.uint8).tobytes()).hexdigest()


def check_not_test(data) -> None:
    """The test split is for final figures only: refused by name and by content."""
    if isinstance(data, str) and data == "test":
        raise LabelError("--data test: labels are never made on the test split (train, valid, fresh or a file)")
    if isinstance(data, (str, os.PathLike)) and str(data) not in BUNDLED_SPLITS and str(data) != "fresh":
        owner = np.ascontiguousarray(load_dataset(data).owner, np.uint8)
        if hashlib.sha256(owner.tobytes()).hexdigest() == _test_digest():
            raise LabelError(f"--data {data}: its deals are the test split's; labels are never made on them")


def _chunk_deals(job: LabelJob, dataset, chunk: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """(owner uint8[count, 52], board int32[count]) of a chunk: drawn from the chunk's seed for fresh deals (boards
    1-16 in turn, so every dealer and vulnerability comes), else the dataset's rows from ``start``."""
    first = chunk * CHUNK
    if dataset is None:
        rng = np.random.default_rng(np.random.SeedSequence([job.seed, chunk, 0]))
        owner = np.argsort(rng.random((count, 52)), axis=1).astype(np.uint8) // 13
        board = (np.arange(first, first + count) % 16 + 1).astype(np.int32)
        return owner, board
    rows = np.arange(job.start + first, job.start + first + count)
    return np.asarray(dataset.owner[rows], np.uint8), np.asarray(dataset.boards[rows], np.int32)


def label_chunk(teacher, owner: np.ndarray, board: np.ndarray, first_deal: int, rng: np.random.Generator,
                student=None, share: float = 0.0) -> dict:
    """Bid ``owner``'s deals to the end (all auctions in lockstep, one batch per bidder and turn) and return the
    label arrays (`FIELDS`) of every position."""
    from bridgerl.arena.lockstep import act_batch
    from bridgerl.core.bridge import BridgeState

    dealers = dealers_for_boards(board)
    vuls = vul_codes_for_boards(board)
    states = [BridgeState.start(CompetitiveDeal(owner[i], None, int(dealers[i]), VULS[int(vuls[i])], int(board[i]),
                                                first_deal + i)) for i in range(len(owner))]
    by_student = rng.random((len(owner), 4)) < share if student is not None else np.zeros((len(owner), 4), bool)
    rows = {name: [] for name in FIELDS}
    probabilities = getattr(teacher, "call_probabilities", None)
    while True:
        active = [i for i, s in enumerate(states) if s.phase == "auction"]
        if not active:
            break
        observations = np.stack([states[i].auction_observation() for i in active])
        masks = np.stack([states[i].auction.legal_mask() for i in active]).astype(bool)
        views = [states[i].view() for i in active]
        searched = np.zeros(len(active), bool)
        if probabilities is not None:
            probs = np.asarray(probabilities(views), np.float32)
            calls = np.where(masks, probs, -np.inf).argmax(1)
        elif callable(getattr(teacher, "decide", None)):  # a search: its decisions, and which of them it searched
            probs = np.full((len(active), NUM_CALLS), np.nan, np.float32)
            decisions = [teacher.decide(o, m) for o, m in zip(observations, masks)]
            calls = np.array([d.call for d in decisions], np.int64)
            searched = np.array([d.searched and not d.fallback for d in decisions], bool)
        else:
            probs = np.full((len(active), NUM_CALLS), np.nan, np.float32)
            calls = np.asarray(act_batch(teacher, observations, masks.astype(np.int8), views, fixed=True))
        seats = np.array([states[i].seat for i in active])
        student_rows = by_student[active, seats]
        played = calls.copy()
        if student_rows.any():
            k = np.flatnonzero(student_rows)
            played[k] = act_batch(student, observations[k], masks[k].astype(np.int8), [views[j] for j in k],
                                  fixed=True)
        if not masks[np.arange(len(active)), calls].all() or not masks[np.arange(len(active)), played].all():
            raise LabelError("a bidder chose an illegal call while labelling")
        for name, values in (("obs_bits", np.packbits(observations.astype(bool), axis=1)), ("mask", masks),
                             ("call", calls.astype(np.int16)), ("probs", probs),
                             ("played", played.astype(np.int16)), ("by_student", student_rows),
                             ("searched", searched & ~student_rows),
                             ("deal", np.asarray(active, np.int32) + first_deal), ("seat", seats.astype(np.int8))):
            rows[name].append(values)
        for i, call in zip(active, played):
            states[i] = states[i].apply(int(call))
    return {name: np.concatenate(parts) if parts else np.zeros((0,), np.int8) for name, parts in rows.items()}


def load_teacher(spec: str, seed: int = 0, what: str = "teacher"):
    """(bidder, identity) of a teacher spec; `sayc`, held out, is refused by what loads: ``sayc`` itself, a punisher
    or a search over it, any wrapper that holds it or makes one (`bridgerl.agents.bidding.held_out`)."""
    from bridgerl.agents.bidding.held_out import watching_sayc, wraps_sayc
    from bridgerl.arena.specs import load_identified

    with watching_sayc() as seen:
        bidder, identity = load_identified(spec, "bidder", seed=seed)
    if seen["made"] or wraps_sayc(bidder):
        raise LabelError(f"{what} {spec!r} is or wraps sayc, which is held out: never a teacher (docs/ben.md)")
    return bidder, identity


def _read(path: Path, arrays: bool = True) -> tuple[dict, dict]:
    """(metadata, arrays) of a label file (``arrays`` false: the metadata alone, the arrays left unread); one line
    for a file of another kind."""
    from bridgerl.core.files import describe_file

    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            names = set(data.files)
            read = {key: data[key] for key in data.files if key != "meta"} if arrays else {}
    except (OSError, ValueError, KeyError, EOFError):
        meta, names = None, set()
    if arrays and "searched" not in read and "call" in read:  # a file from before searches labelled
        read["searched"] = np.zeros(len(read["call"]), bool)
        names.add("searched")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT or set(FIELDS) - names - {"searched"}:
        raise LabelError(f"{path}: {describe_file(path) or 'an unreadable file'}, not a label file of `bridgerl data "
                         "bid-labels`")
    return meta, read


def check_resume(job: LabelJob, out) -> tuple[dict, dict]:
    """(metadata, arrays) of an existing label file that ``job`` continues; one line when it holds another run."""
    meta, arrays = _read(Path(out))
    if meta["job"] != job.key():
        changed = sorted(k for k in job.key() if meta["job"].get(k) != job.key()[k])
        raise LabelError(f"{out} holds labels of another run ({' and '.join(changed)} "
                         f"{'differs' if len(changed) == 1 else 'differ'}); --force replaces it")
    if job.deals < int(meta["deals_done"]):
        raise LabelError(f"{out} holds {meta['deals_done']} deals, more than --deals {job.deals}; --force replaces it")
    return meta, arrays


def check_partial(job: LabelJob, out) -> None:
    """An interrupted run's chunks (`partial_dir`) are continued only by the same job; one line otherwise."""
    partial = partial_dir(out)
    saved = json.loads((partial / "job.json").read_text()) if (partial / "job.json").exists() else None
    if partial.exists() and saved != job.key():
        raise LabelError(f"{partial} holds chunks of another labelling run; --force starts afresh")


def _chunk_count(partial: Path, chunk: int) -> int | None:
    """The deals of a chunk written to ``partial`` (None when it is not there)."""
    path = partial / f"chunk-{chunk:06d}.npz"
    if not path.exists():
        return None
    with np.load(path) as data:
        return int(data["count"])


def partial_dir(out) -> Path:
    """Where a labelling run keeps its finished chunks until the file is whole: ``OUT.partial/``."""
    out = Path(out)
    return out.with_name(out.name + ".partial")


def write_labels(job: LabelJob, out, teacher, identity: dict, student=None, command: str = "",
                 progress: bool = False, resume: bool = True) -> dict:
    """Label ``job.deals`` deals into ``out``; returns the file's metadata. Each chunk is written to `partial_dir`
    as it ends (atomically), the file itself once all are done; an interrupted run, or a finished file asked for
    more deals, continues from the whole chunks it has."""
    import shutil

    out = Path(out)
    check_not_test(job.data)
    dataset = None if job.data == "fresh" else load_dataset(job.data)
    if dataset is not None and job.start + job.deals > len(dataset):
        raise LabelError(f"--data {job.data} has {len(dataset)} deals: --start {job.start} with --deals {job.deals} "
                         f"runs past its end")
    partial = partial_dir(out)
    base = None
    if resume and out.exists():  # a finished file asked for more deals: its whole chunks are kept
        meta, arrays = check_resume(job, out)
        if int(meta["deals_done"]) == job.deals:
            return meta
        whole = int(meta["deals_done"]) // CHUNK * CHUNK
        keep = arrays["deal"] < whole
        base = {**{name: arrays[name][keep] for name in FIELDS}, "owner": arrays["owner"][:whole],
                "board": arrays["board"][:whole]}
    if partial.exists() and resume:
        check_partial(job, out)
    else:
        shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True, exist_ok=True)
    (partial / "job.json").write_text(json.dumps(job.key()))
    first = 0 if base is None else len(base["owner"]) // CHUNK
    todo = [c for c in range(first, -(-job.deals // CHUNK))
            if _chunk_count(partial, c) != min(CHUNK, job.deals - c * CHUNK)]
    chunks = tqdm_or(todo, progress, -(-job.deals // CHUNK))
    started = time.monotonic()
    from bridgerl.agents.bidding.held_out import watching_sayc

    for chunk in chunks:
        count = min(CHUNK, job.deals - chunk * CHUNK)
        owner, board = _chunk_deals(job, dataset, chunk, count)
        rng = np.random.default_rng(np.random.SeedSequence([job.seed, chunk, 1]))
        if student is not None and hasattr(student, "reseed"):
            student.reseed(int(np.random.SeedSequence([job.seed, chunk, 2]).generate_state(1)[0]))
        if hasattr(teacher, "reseed"):  # a search's worlds: drawn from the chunk's seed (a resumed file is the same)
            teacher.reseed(int(np.random.SeedSequence([job.seed, chunk, 3]).generate_state(1)[0]))
        tick = time.monotonic()
        with watching_sayc() as seen:
            arrays = label_chunk(teacher, owner, board, chunk * CHUNK, rng, student, job.share)
        if student is None and seen["decisions"]:  # a wrapper that asks sayc only when it bids
            raise LabelError(f"the teacher {job.bidder!r} asked sayc, which is held out: never a teacher")
        atomic_savez(partial / f"chunk-{chunk:06d}.npz", compressed=False, owner=owner, board=board, count=count,
                     seconds=time.monotonic() - tick, **arrays)
    parts = [] if base is None else [base]
    seconds = calls = 0.0
    for chunk in range(first, -(-job.deals // CHUNK)):
        with np.load(partial / f"chunk-{chunk:06d}.npz") as data:
            parts.append({name: data[name] for name in (*FIELDS, "owner", "board")})
            seconds, calls = seconds + float(data["seconds"]), calls + len(data["call"])
    meta = {"format": FORMAT, "job": job.key(), "deals_requested": job.deals, "deals_done": job.deals,
            "teacher": identity, "command": command, "calls_per_second": calls / max(seconds, 1e-9)}
    atomic_savez(out, meta=np.asarray(json.dumps(meta)),
                 **{name: np.concatenate([part[name] for part in parts]) for name in (*FIELDS, "owner", "board")})
    shutil.rmtree(partial, ignore_errors=True)
    meta["seconds"] = time.monotonic() - started
    return meta


def tqdm_or(items, progress: bool, total: int):
    """``items``, with a progress bar of ``total`` chunks when asked."""
    if not progress:
        return items
    from tqdm import tqdm

    return tqdm(items, desc="bid labels", unit="k deals", initial=total - len(items), total=total)


def check_label_files(paths, flag: str = "--demos") -> None:
    """Each of ``paths`` (given as ``flag``) is a label file of `bridgerl data bid-labels` holding calls (one line
    otherwise)."""
    for path in paths:
        if not Path(path).exists():
            raise LabelError(f"{flag} {path}: no such file")
        meta, _ = _read(Path(path), arrays=False)
        if not meta.get("deals_done"):
            raise LabelError(f"{flag} {path}: it holds no labelled deal")


def load_labels(paths):
    """One `Demonstrations` of one or more label files: the teacher's calls as the expert's, ``target`` the teacher's
    probabilities renormalised over the legal calls (one-hot of its call where it gave none), ``ret`` zero (labels
    carry no returns)."""
    from bridgerl.training.demonstrations import Demonstrations

    obs, masks, calls, probs = [], [], [], []
    for path in [paths] if isinstance(paths, (str, os.PathLike)) else paths:
        _, arrays = _read(Path(path))
        obs.append(np.unpackbits(arrays["obs_bits"], axis=1, count=OBSERVATION_SIZE).astype(np.int8))
        masks.append(arrays["mask"].astype(bool))
        calls.append(arrays["call"].astype(np.int32))
        probs.append(arrays["probs"].astype(np.float32))
    action, mask, target = np.concatenate(calls), np.concatenate(masks), np.concatenate(probs)
    if len(action) == 0:
        raise LabelError("the label files hold no calls")
    hard = np.isnan(target).any(1)
    target = np.where(mask, np.nan_to_num(target), 0.0)
    target[hard] = 0.0
    target[hard, action[hard]] = 1.0
    total = target.sum(1, keepdims=True)
    if (total <= 0).any():
        raise LabelError("a label row gives the legal calls no probability at all")
    return Demonstrations(np.concatenate(obs), mask, action, np.zeros(len(action), np.float32),
                          np.ones(len(action), bool), (target / total).astype(np.float32))
