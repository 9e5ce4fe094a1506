"""Random deals with DD tables, in parallel or on a Ray cluster, resumable (`bridgerl data generate`).

Deal i is the i-th ``permutation`` of 13 copies of each seat drawn from ``numpy.random.default_rng(seed)``, so a
file's first k deals do not depend on its size. The deals are cut into chunks (``chunk`` deals, one DDS batch by
default) solved by worker processes on this machine or by Ray tasks on a cluster (``ray=``); a chunk is the unit of
work a lost worker costs. Progress is checkpointed atomically to ``OUT.partial.npz`` (every deal's table so far and
which deals are solved, whatever order the chunks finish in); running the same command again, by either route,
solves only the missing chunks and writes exactly the arrays an uninterrupted run writes: the same file, byte for
byte, whatever the number of workers or the route.

Ray (``pip install "bridgerl[ray]"``) is imported only by the Ray route.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import time
from pathlib import Path
from typing import Iterator

import numpy as np

from .dataset import DatasetError, atomic_savez
from .dd import DDS_MAX_TABLES, set_dds_threads, solve_dd_tables
from .identity import check_same_job

RAY_INSTALL = 'pip install "bridgerl[ray]" (or: pip install ray)'
LOCAL_RAY = "local"
"""``ray=`` value that starts a Ray instance on this machine (the CLI's bare ``--ray``)."""


def deal_owners(seed: int, deals: int) -> np.ndarray:
    """uint8[deals, 52]: uniformly random deals from ``seed`` (one permutation per deal)."""
    rng = np.random.default_rng(seed)
    base = np.repeat(np.arange(4, dtype=np.uint8), 13)
    owners = np.empty((deals, 52), dtype=np.uint8)
    for i in range(deals):
        owners[i] = rng.permutation(base)
    return owners


DEALT_STREAM = 0x706F73
"""The numpy stream of the deals `bridgerl data positions --dealt SEED` deals itself: deal k comes from
``default_rng([SEED, DEALT_STREAM, k])``, a seed sequence of three words that no dataset generator uses (`deal_owners`
seeds with one integer), so those deals are not a dataset's deals."""

_BUNDLED_OWNERS: set = set()


def bundled_owners() -> set:
    """The deals of the bundled splits (train, valid, test) as owner bytes (read once per process)."""
    if not _BUNDLED_OWNERS:
        from .dataset import BUNDLED_SPLITS, load_dataset

        for split in BUNDLED_SPLITS:
            _BUNDLED_OWNERS.update(owner.tobytes() for owner in np.asarray(load_dataset(split).owner, np.uint8))
    return _BUNDLED_OWNERS


def dealt_owner(seed: int, k: int) -> np.ndarray:
    """uint8[52]: deal ``k`` of ``seed`` (`DEALT_STREAM`); a deal of the bundled splits (a chance of about 3e4 in
    5e28) is drawn again from the same generator, so no self-dealt deal is one of theirs."""
    if seed < 0 or k < 0:
        raise ValueError(f"a dealt deal needs a seed and an index of at least 0, got seed {seed}, deal {k}")
    rng = np.random.default_rng([int(seed), DEALT_STREAM, int(k)])
    base = np.repeat(np.arange(4, dtype=np.uint8), 13)
    avoid = bundled_owners()
    while True:
        owner = rng.permutation(base)
        if owner.tobytes() not in avoid:
            return owner


def partial_path(out: str | os.PathLike) -> Path:
    return Path(str(out) + ".partial.npz")


def _load_partial(path: Path, seed: int, deals: int) -> tuple[np.ndarray, np.ndarray]:
    """(dd uint8[deals, 4, 5], solved bool[deals]) of an interrupted run with the same seed and size."""
    dd, solved = np.zeros((deals, 4, 5), dtype=np.uint8), np.zeros(deals, dtype=bool)
    if not path.exists():
        return dd, solved
    try:
        with np.load(path) as npz:
            saved_seed, saved_deals, saved_dd = int(npz["seed"]), int(npz["deals"]), npz["dd"]
            saved_solved = npz["solved"] if "solved" in npz.files else None
    except Exception as exc:  # a checkpoint we cannot read is recomputed, never trusted
        raise DatasetError(f"{path}: unreadable checkpoint ({exc}); delete it to start over") from None
    try:  # the job's identity (`bridgerl.core.identity`): the deals are those of the seed, as many as asked
        check_same_job(path, {"command": "data generate", "seed": saved_seed, "deals": saved_deals},
                       {"command": "data generate", "seed": seed, "deals": deals}, "--out", "job")
    except ValueError as exc:
        raise DatasetError(str(exc)) from None
    if saved_solved is None:  # the older format: the first len(dd) deals, in order
        saved_solved = np.arange(deals) < len(saved_dd)
        saved_dd = np.concatenate([saved_dd, dd[len(saved_dd):]])
    if saved_dd.shape != (deals, 4, 5) or saved_solved.shape != (deals,):
        raise DatasetError(f"{path}: checkpoint arrays have the wrong shape; delete it to start over")
    return saved_dd.astype(np.uint8), saved_solved.astype(bool)


def _worker_init(threads: int) -> None:
    set_dds_threads(threads)


def _solve_chunk(owners: np.ndarray) -> np.ndarray:
    return solve_dd_tables(owners)


def _local_results(owners: np.ndarray, chunks: list[tuple[int, int]], workers: int,
                   dds_threads: int) -> Iterator[tuple[tuple[int, int], np.ndarray]]:
    """Chunks solved in this process (one worker, DDS threading) or by a pool of processes, in order."""
    if workers == 1:
        set_dds_threads(dds_threads)
        for a, b in chunks:
            yield (a, b), _solve_chunk(owners[a:b])
        return
    threads = dds_threads or max(1, (os.cpu_count() or 1) // workers)
    pool = mp.get_context("spawn").Pool(workers, initializer=_worker_init, initargs=(threads,))
    try:
        yield from zip(chunks, pool.imap(_solve_chunk, [owners[a:b] for a, b in chunks]))
    finally:
        pool.terminate()


def import_ray():
    """The ``ray`` module, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise DatasetError(f"--ray needs Ray, which is not installed: {RAY_INSTALL}") from None
    return ray


def _solve_on_ray(owners: np.ndarray, threads: int, start: int, fault) -> np.ndarray:
    """The Ray task: one chunk's DD tables with ``threads`` DDS threads. ``fault`` is the tests' failure injection:
    ("raise", start) fails that chunk, ("exit", start, marker) kills the worker on that chunk's first attempt."""
    if fault is not None and fault[1] == start:
        if fault[0] == "raise":
            raise RuntimeError(f"injected failure of the chunk at deal {start}")
        if fault[0] == "exit" and not os.path.exists(fault[2]):
            Path(fault[2]).touch()
            os._exit(1)  # the worker process dies: Ray retries the task on another one
    set_dds_threads(threads)
    return solve_dd_tables(owners)


class RayChunkError(DatasetError):
    """A chunk failed on the Ray cluster (after Ray's retries)."""


def _ray_results(ray, owners: np.ndarray, chunks: list[tuple[int, int]], workers: int, threads: int,
                 fault=None) -> Iterator[tuple[tuple[int, int], np.ndarray]]:
    """Chunks solved as Ray tasks, ``workers`` at a time (plus as many queued), in the order they finish."""
    solve = ray.remote(max_retries=3)(_solve_on_ray).options(num_cpus=threads)
    queue = iter(chunks)
    pending: dict = {}

    def submit(count: int) -> None:
        for a, b in (chunk for _, chunk in zip(range(count), queue)):
            pending[solve.remote(owners[a:b], threads, a, fault)] = (a, b)

    submit(2 * workers)
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                a, b = pending.pop(ref)
                try:
                    tables = ray.get(ref)
                except Exception as exc:  # RayTaskError (the chunk raised), WorkerCrashedError after the retries...
                    cause = getattr(exc, "cause", None) or exc
                    reason = (str(cause).strip().splitlines() or [type(cause).__name__])[-1]
                    raise RayChunkError(f"the chunk of deals {a}-{b - 1} failed on the Ray cluster "
                                        f"({type(cause).__name__}: {reason})") from None
                yield (a, b), tables
                submit(1)
    finally:
        for ref in pending:
            ray.cancel(ref, force=True)


def _check_reachable(address: str, seconds: float = 10.0) -> None:
    """A ``host:port`` that nothing answers on fails here in one line (Ray itself would retry for ever)."""
    import socket

    host, sep, port = address.rpartition(":")
    if address in (LOCAL_RAY, "auto") or "://" in address or not sep or not port.isdigit():
        return
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=seconds).close()
    except OSError as exc:
        raise DatasetError(f"cannot reach a Ray cluster at {address!r}: {exc.strerror or exc}") from None


def _connect_ray(address: str, workers: int | None, threads: int):
    """(ray, whether we started it): joins ``address`` (``"local"``: a new instance on this machine with CPUs for
    ``workers`` tasks of ``threads`` DDS threads; ``"auto"``: the one `ray start --head` made) unless this process is
    connected already."""
    ray = import_ray()
    if ray.is_initialized():
        return ray, False
    import logging

    options = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    _check_reachable(address)
    try:
        if address == LOCAL_RAY:
            ray.init(address="local", num_cpus=(workers or os.cpu_count() or 1) * threads, **options)
        else:
            ray.init(address=address, **options)
    except Exception as exc:
        if address == "auto":  # Ray's own message names its --address flag and RAY_ADDRESS, not ours
            raise DatasetError("--ray auto found no running Ray cluster on this machine: start one with `ray start "
                               "--head`, give its address (--ray HOST:PORT), or use --ray (local) to start one "
                               "for this run") from None
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise DatasetError(f"cannot reach a Ray cluster at {address!r}: {reason}") from None
    return ray, True


def generate(out: str | os.PathLike, deals: int, seed: int, workers: int | None = None, chunk: int = DDS_MAX_TABLES,
             progress: bool = True, checkpoint_seconds: float = 2.0, dds_threads: int = 0, ray: str | None = None,
             _fault=None) -> Path:
    """Write ``deals`` random deals with DD tables to ``out`` (.npz with owner, dd, seed); returns the path.

    Without ``ray``: ``workers`` (default 1) processes on this machine, each giving DDS an equal share of the cores
    (or ``dds_threads``); with one worker DDS threads over ``dds_threads`` cores (0 = all).
    With ``ray`` (``"local"``: start a Ray instance here; ``"auto"`` or an address: join that cluster): Ray tasks of
    ``chunk`` deals, each on ``dds_threads`` (default 1) CPUs, ``workers`` at a time (default: all the cluster's
    CPUs). ``_fault`` is for the tests (`_solve_on_ray`)."""
    if deals < 1:
        raise ValueError(f"--deals must be at least 1, got {deals}")
    if workers is not None and workers < 1:
        raise ValueError(f"--workers must be at least 1, got {workers}")
    if chunk < 1:
        raise ValueError(f"chunk must be at least 1, got {chunk}")
    out = Path(out)
    checkpoint = partial_path(out)
    owners = deal_owners(seed, deals)
    dd, solved = _load_partial(checkpoint, seed, deals)
    chunks = [(a, min(a + chunk, deals)) for a in range(0, deals, chunk) if not solved[a:a + chunk].all()]

    started_ray = False
    if ray is not None:
        threads = dds_threads or 1
        ray_module, started_ray = _connect_ray(ray, workers, threads)
        if workers is None:
            workers = max(1, int(ray_module.cluster_resources().get("CPU", 1)) // threads)
        results = _ray_results(ray_module, owners, chunks, workers, threads, _fault)
        route = f"Ray, {workers} workers"
    else:
        results = _local_results(owners, chunks, workers or 1, dds_threads)
        route = f"{workers or 1} worker" + ("s" if (workers or 1) > 1 else "")

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=deals, initial=int(solved.sum()), unit="deal", desc=f"DD tables -> {out.name} ({route})",
                   smoothing=0.05)

    def save_checkpoint() -> float:
        """Write the checkpoint; returns the seconds it took (big jobs save less often)."""
        begin = time.monotonic()
        atomic_savez(checkpoint, compressed=False, dd=dd, solved=solved, seed=np.int64(seed), deals=np.int64(deals))
        return time.monotonic() - begin

    last_save, save_cost, unsaved = time.monotonic(), 0.0, False
    try:
        for (a, b), tables in results:
            dd[a:b] = tables
            solved[a:b] = True
            unsaved = True
            if bar is not None:
                bar.update(b - a)
            if time.monotonic() - last_save >= max(checkpoint_seconds, 20 * save_cost) and not solved.all():
                save_cost, last_save, unsaved = save_checkpoint(), time.monotonic(), False
    except BaseException as exc:
        # Interrupted (Ctrl-C, a failed chunk): keep every finished chunk for the next run.
        if unsaved:
            save_checkpoint()
        if isinstance(exc, RayChunkError):
            raise RayChunkError(f"{exc}; the {int(solved.sum())} deals solved are kept in {checkpoint}: run the "
                                f"same command again to resume") from None
        raise
    finally:
        results.close()
        if bar is not None:
            bar.close()
        if started_ray:
            ray_module.shutdown()
    atomic_savez(out, owner=owners, dd=dd, seed=np.int64(seed))
    if checkpoint.exists():
        checkpoint.unlink()
    return out
