"""Play positions from whole-deal games (`bridgerl data positions`): the data of the inference models (issue #20).

Each dataset row is bid and played at one table, ``ns`` North-South and ``ew`` East-West (game specs as in
`bridgerl evaluate game`), the card players reseeded from (seed, row, side) as at table 1 of
`bridgerl evaluate game --seed SEED` (with deterministic bidders, such as ``rules`` and ``dqn``, both commands play
the same cards; a ``random`` bidder is reseeded per row here too, so its calls differ from the match's). Every
card played is a position; its legal cards are valued double dummy (`bridgerl.core.dd.solve_positions`, one batch
per deal). The format is `bridgerl.core.positions`.

Rows are played in chunks; each finished chunk is written atomically to ``OUT.partial/`` and a rerun of the same
command skips it, so an interrupted job loses at most the chunks in flight. The final file is written atomically
and does not depend on the number of workers.
"""

from __future__ import annotations

import multiprocessing as mp
import shutil
from pathlib import Path

import numpy as np

from bridgerl.core import load_dataset
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.competitive import CompetitiveDealSource, DealtSource
from bridgerl.core.dataset import atomic_savez
from bridgerl.core.files import claim_job_folder
from bridgerl.core.dd import set_dds_threads, solve_positions
from bridgerl.core.positions import FORMAT, OPTIONAL_POSITION_ARRAYS, POSITION_ARRAYS, concatenate, deal_table, file_arrays
from bridgerl.arena.game import bid_auctions, play_out, see_table
from bridgerl.arena.play import agent_seed

CHUNK = 4
"""Rows per chunk (the unit of work of a worker and of resuming)."""

_WORKER: dict = {}  # per process: the dataset and the pairs, loaded once


def _pairs(ns: str, ew: str, seed: int):
    from bridgerl.arena.specs import load_pair

    key = (ns, ew, seed)
    if _WORKER.get("pairs_key") != key:
        _WORKER["pairs"] = (load_pair(ns, seed=seed), load_pair(ew, seed=seed))
        _WORKER["pairs_key"] = key
    return _WORKER["pairs"]


DEALT = "dealt:"
"""``data`` of a job that deals its own deals: ``dealt:SEED`` (`bridgerl.core.competitive.DealtSource`)."""


def dealt_seed(data) -> int | None:
    """The seed of ``dealt:SEED``, None for a dataset (a one-line ValueError for a malformed seed)."""
    if not (isinstance(data, str) and data.startswith(DEALT)):
        return None
    text = data[len(DEALT):]
    if not text.isdigit():
        raise ValueError(f"{data!r}: dealt deals need a seed of 0 or more (dealt:SEED)")
    return int(text)


def _source(data: str):
    if _WORKER.get("data_key") != data:
        seed = dealt_seed(data)
        _WORKER["source"] = CompetitiveDealSource(load_dataset(data)) if seed is None else DealtSource(seed)
        _WORKER["data_key"] = data
    return _WORKER["source"]


def worlds_best(view, worlds: int, rng: np.random.Generator) -> np.ndarray:
    """uint8[52]: in how many of ``worlds`` layouts, drawn uniformly among those consistent with ``view`` (PIMC's
    sampler, the auction ignored; all of them, each once, when there are no more), each legal card is double-dummy
    best (seed 004's ISSN target)."""
    from bridgerl.agents.play.pimc import draw_worlds, solve_worlds

    scores = solve_worlds(view, draw_worlds(view, worlds, rng), best=True)  # the best cards of each world
    top = scores.max(1, keepdims=True)
    return ((scores == top) & (scores >= 0)).sum(0).astype(np.uint8)


def play_rows(data, rows: list[int], ns: str, ew: str, seed: int, label_worlds: int = 0) -> tuple[dict, dict]:
    """Bid and play ``rows`` of ``data``; returns (deal arrays, position arrays) as `bridgerl.core.positions`, with
    the optional ``worlds`` array when ``label_worlds`` > 0 (`worlds_best` at each position with a choice, the
    worlds drawn from a generator seeded by (seed, row))."""
    source = _source(str(data))
    ns_pair, ew_pair = _pairs(ns, ew, seed)
    spec = dict(POSITION_ARRAYS, **(OPTIONAL_POSITION_ARRAYS if label_worlds else {}))
    finals, positions = [], {k: [] for k in spec}
    for d, row in enumerate(rows):
        for side, pair in enumerate((ns_pair, ew_pair)):
            for agent in (pair.bidder, pair.player):
                if hasattr(agent, "reseed"):
                    agent.reseed(agent_seed(seed, row, side))
        [state] = bid_auctions([BridgeState.start(source.deal_at(row))], [(ns_pair, ew_pair)], [row])
        before: list[tuple[BridgeState, int]] = []
        if state.phase == "play":
            for pair in (ns_pair, ew_pair):
                see_table(pair.player, state, ns_pair, ew_pair)
            state, _ = play_out(state, ns_pair, ew_pair,
                                trace=lambda s, action, pair: before.append((s, action - CARD_OFFSET)))
        finals.append(state)
        if not before:
            continue
        plays = [s.play for s, _ in before]
        holdings = np.array([p.hands for p in plays], np.uint64)
        tricks = np.full((len(plays), 3), -1, np.int32)
        for i, p in enumerate(plays):
            tricks[i, :len(p.trick.cards)] = p.trick.cards
        dd = solve_positions(holdings, plays[0].strain, [p.trick.leader for p in plays], tricks)
        rng = np.random.default_rng([seed, row, 4])
        for i, ((s, card), p) in enumerate(zip(before, plays)):
            choices = len(s.view().equivalent_groups())
            positions["deal"].append(d)
            positions["step"].append(len(p.history))
            positions["player"].append(s.player)
            positions["seat"].append(s.seat)
            positions["legal"].append(dd[i] >= 0)
            positions["choices"].append(choices)
            positions["card"].append(card)
            positions["dd"].append(dd[i])
            if label_worlds:
                positions["worlds"].append(worlds_best(s.view(), label_worlds, rng) if choices > 1 else
                                           np.zeros(52, np.uint8))
    table = {k: np.array(v, dtype=spec[k][0]).reshape(-1, *spec[k][1]) for k, v in positions.items()}
    return deal_table(finals, rows), table


def _chunk_job(job) -> tuple[int, dict, dict]:
    data, rows, ns, ew, seed, label_worlds = job
    deals, positions = play_rows(data, rows, ns, ew, seed, label_worlds)
    return rows[0], deals, positions


def _worker_init() -> None:
    set_dds_threads(1)


def _chunk_path(parts: Path, first: int) -> Path:
    return parts / f"rows_{first:07d}.npz"


def _chunk_done(path: Path, rows: list[int]) -> bool:
    """Whether the chunk file holds exactly ``rows`` (the last chunk of a run with other --deals is played again)."""
    if not path.exists():
        return False
    try:
        with np.load(path, allow_pickle=False) as npz:
            return npz["deal_row"].tolist() == list(rows)
    except (OSError, ValueError, KeyError):
        return False


def _read_chunk(path: Path, rows: list[int]) -> tuple[dict, dict]:
    """A finished chunk, checked to hold exactly ``rows``."""
    with np.load(path, allow_pickle=False) as npz:
        deals = {k[5:]: npz[k] for k in npz.files if k.startswith("deal_")}
        positions = {k[4:]: npz[k] for k in npz.files if k.startswith("pos_")}
    if deals.get("row") is None or deals["row"].tolist() != list(rows):
        raise ValueError(f"{path}: holds rows {deals.get('row')}, not {rows}; delete {path.parent} to start over")
    return deals, positions


def positions_job(data, dataset, pairs: dict, start: int, seed: int, label_worlds: int, chunk: int) -> dict:
    """The identity of a positions job (`bridgerl.core.identity`): what ``OUT.partial/job.json`` and the finished
    file's ``identity`` record. ``pairs``: {"ns", "ew": `Pair` made by `load_pair`}."""
    from bridgerl.core.dataset import dataset_hash
    from bridgerl.arena.game import pair_fields

    job = {"command": "data positions", "format": FORMAT, "data": str(data),
           "data_sha256": None if dataset is None else dataset_hash(dataset)}
    if dataset is None:  # dealt deals: the stream they come from
        from bridgerl.core.generate import DEALT_STREAM

        job["dealt_stream"] = DEALT_STREAM
    for side in ("ns", "ew"):
        job.update(pair_fields(side, pairs[side]))
    job.update({"start": int(start), "seed": int(seed), "label_worlds": int(label_worlds), "chunk": int(chunk)})
    return job


def generate_positions(out, data="train", deals: int = 100, start: int = 0, ns: str = "rules", ew: str = "rules",
                       seed: int = 0, workers: int = 1, chunk: int = CHUNK, progress: bool = True,
                       label_worlds: int = 0) -> Path:
    """Write the positions of rows ``start`` .. ``start + deals - 1`` of ``data`` to ``out``; returns the path.
    ``data`` ``dealt:SEED`` deals the deals itself (deal k of the seed's stream, no DD table: `DealtSource`); the
    file's ``source`` then records ``dealt:SEED`` and each deal's ``row`` its k, and ``dd`` is 255 throughout.
    ``label_worlds`` > 0 adds the ``worlds`` array (`worlds_best`). The caller refuses to replace an existing
    ``out`` (`bridgerl data positions --force`)."""
    if deals < 1:
        raise ValueError(f"--deals must be at least 1, got {deals}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1, got {chunk}")
    if not 0 <= label_worlds <= 255:
        raise ValueError(f"--label-worlds must be in 0..255 (0: none), got {label_worlds}")
    from bridgerl.arena.specs import load_pair

    # a spec that does not load fails here, in one line, before any work
    pairs = {"ns": load_pair(ns, seed=seed), "ew": load_pair(ew, seed=seed)}
    if dealt_seed(data) is None:
        dataset = load_dataset(data)
        rows = list(range(start, min(len(dataset), start + deals)))
        if not rows:
            raise ValueError(f"{dataset.source}: no deal to play (rows {start} to {start + deals - 1} of "
                             f"{len(dataset)} deals)")
    else:  # deals of its own, k = start .. start + deals - 1: as many as asked
        dataset, rows = None, list(range(start, start + deals))
    out = Path(out)
    parts = Path(str(out) + ".partial")
    job = positions_job(data, dataset, pairs, rows[0], seed, label_worlds, chunk)
    meta = {"format": FORMAT, "source": str(data), "ns": ns, "ew": ew, "seed": int(seed),
            "label_worlds": int(label_worlds), "identity": job}
    claim_job_folder(parts, job)  # more --deals extend the job, fewer read its first chunks
    chunks = [rows[i:i + chunk] for i in range(0, len(rows), chunk)]
    todo = [c for c in chunks if not _chunk_done(_chunk_path(parts, c[0]), c)]
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=len(rows), initial=len(rows) - sum(len(c) for c in todo), unit="deal",
                   desc=f"positions -> {out.name}")
    pool = None
    try:
        jobs = [(str(data), c, ns, ew, int(seed), int(label_worlds)) for c in todo]
        if workers == 1 or len(jobs) <= 1:
            results = map(_chunk_job, jobs)
        else:
            pool = mp.get_context("spawn").Pool(workers, initializer=_worker_init)
            results = pool.imap_unordered(_chunk_job, jobs)
        for first, deal_arrays, position_arrays in results:
            atomic_savez(_chunk_path(parts, first), compressed=False,
                         **{f"deal_{k}": v for k, v in deal_arrays.items()},
                         **{f"pos_{k}": v for k, v in position_arrays.items()})
            if bar is not None:
                bar.update(len(deal_arrays["row"]))
    finally:
        if pool is not None:
            pool.terminate()
        if bar is not None:
            bar.close()
    deal_arrays, position_arrays = concatenate([_read_chunk(_chunk_path(parts, c[0]), c) for c in chunks])
    atomic_savez(out, **file_arrays(deal_arrays, position_arrays, meta))
    shutil.rmtree(parts)
    return out


__all__ = ["generate_positions", "play_rows", "worlds_best", "CHUNK"]
