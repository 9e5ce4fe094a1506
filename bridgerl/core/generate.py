"""Random deals with DD tables, in parallel, resumable (`bridgerl data generate`).

Deal i is the i-th ``permutation`` of 13 copies of each seat drawn from ``numpy.random.default_rng(seed)``, so a
file's first k deals do not depend on its size. Progress is checkpointed atomically to ``OUT.partial.npz``; running
the same command again continues from it and writes exactly the arrays an uninterrupted run writes.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from pathlib import Path

import numpy as np

from .dataset import DatasetError, atomic_savez
from .dd import DDS_MAX_TABLES, set_dds_threads, solve_dd_tables


def deal_owners(seed: int, deals: int) -> np.ndarray:
    """uint8[deals, 52]: uniformly random deals from ``seed`` (one permutation per deal)."""
    rng = np.random.default_rng(seed)
    base = np.repeat(np.arange(4, dtype=np.uint8), 13)
    owners = np.empty((deals, 52), dtype=np.uint8)
    for i in range(deals):
        owners[i] = rng.permutation(base)
    return owners


def partial_path(out: str | os.PathLike) -> Path:
    return Path(str(out) + ".partial.npz")


def _load_partial(path: Path, seed: int, deals: int) -> np.ndarray:
    """DD tables already computed by an interrupted run with the same seed and size."""
    if not path.exists():
        return np.empty((0, 4, 5), dtype=np.uint8)
    try:
        with np.load(path) as npz:
            saved_seed, saved_deals, dd = int(npz["seed"]), int(npz["deals"]), npz["dd"]
    except Exception as exc:  # a checkpoint we cannot read is recomputed, never trusted
        raise DatasetError(f"{path}: unreadable checkpoint ({exc}); delete it to start over") from None
    if saved_seed != seed or saved_deals != deals:
        raise DatasetError(f"{path}: checkpoint is for --seed {saved_seed} --deals {saved_deals}, not "
                           f"--seed {seed} --deals {deals}; delete it or use the same arguments")
    return dd


def _worker_init(threads: int) -> None:
    set_dds_threads(threads)


def _solve_chunk(owners: np.ndarray) -> np.ndarray:
    return solve_dd_tables(owners)


def generate(out: str | os.PathLike, deals: int, seed: int, workers: int = 1, chunk: int = DDS_MAX_TABLES,
             progress: bool = True, checkpoint_seconds: float = 2.0, dds_threads: int = 0) -> Path:
    """Write ``deals`` random deals with DD tables to ``out`` (.npz with owner, dd, seed); returns the path.

    ``workers`` > 1 runs that many processes, each giving DDS an equal share of the cores (or ``dds_threads``);
    with one worker DDS threads over ``dds_threads`` cores (0 = all)."""
    if deals < 1:
        raise ValueError(f"--deals must be at least 1, got {deals}")
    if workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    out = Path(out)
    checkpoint = partial_path(out)
    owners = deal_owners(seed, deals)
    done_dd = _load_partial(checkpoint, seed, deals)
    done = len(done_dd)
    dd = np.empty((deals, 4, 5), dtype=np.uint8)
    dd[:done] = done_dd
    chunks = [(start, min(start + chunk, deals)) for start in range(done, deals, chunk)]

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=deals, initial=done, unit="deal", desc=f"DD tables -> {out.name}", smoothing=0.05)

    def save_checkpoint(count: int) -> None:
        atomic_savez(checkpoint, compressed=False, dd=dd[:count], seed=np.int64(seed), deals=np.int64(deals))

    last_save = time.monotonic()
    completed = saved = done
    pool = None
    try:
        if workers == 1:
            set_dds_threads(dds_threads)
            results = (_solve_chunk(owners[a:b]) for a, b in chunks)
        else:
            threads = dds_threads or max(1, (os.cpu_count() or 1) // workers)
            pool = mp.get_context("spawn").Pool(workers, initializer=_worker_init, initargs=(threads,))
            results = pool.imap(_solve_chunk, [owners[a:b] for a, b in chunks])
        for (a, b), tables in zip(chunks, results):
            dd[a:b] = tables
            completed = b
            if bar is not None:
                bar.update(b - a)
            if time.monotonic() - last_save >= checkpoint_seconds and b < deals:
                save_checkpoint(b)
                saved, last_save = b, time.monotonic()
    except BaseException:
        # Interrupted (Ctrl-C, error): keep every finished chunk for the next run.
        if completed > saved:
            save_checkpoint(completed)
        raise
    finally:
        if pool is not None:
            pool.terminate()
        if bar is not None:
            bar.close()
    atomic_savez(out, owner=owners, dd=dd, seed=np.int64(seed))
    if checkpoint.exists():
        checkpoint.unlink()
    return out
