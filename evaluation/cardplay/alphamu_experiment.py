"""The αμ-vs-PIMC declarer experiment of the αμ paper (section 5, tables 1 and 2), resumable.

Auction 1NT (North, 15-17 balanced) - 3NT (South); North declares, East leads; both agents' worlds obey these
constraints. Steps (each writes JSON lines and continues where it stopped):

1. ``deals``: random deals meeting the constraints; the first ``--start-cards`` cards are played by PIMC on both
   sides (the paper's 36-card rows start after 4 tricks); deals whose double-dummy result from that start is not
   within one trick of the contract are skipped (they are almost never undecided), and a deal is kept when PIMC
   declarer against PIMC defence makes 3NT in 30-70% of ``--filter-runs`` seeded runs from that start.
2. ``play``: one declarer spec on every kept deal, ``--runs`` seeded runs each, against PIMC defence; the seeds
   depend only on (seed, deal, run), so different declarers are compared on the same deals and seeds.
3. ``report``: make rates with 95% CIs, the paired difference against the first file, discrepancies with PIMC
   and time per searched move.

    bridgerl evaluate alphamu deals --out runs/alphamu/deals.jsonl --keep 100
    bridgerl evaluate alphamu play --deals runs/alphamu/deals.jsonl \\
        --declarer alphamu:max_moves=1,worlds=20 --out runs/alphamu/m1w20.jsonl
    bridgerl evaluate alphamu report runs/alphamu/m1w20.jsonl runs/alphamu/m3w20.jsonl

(the command line is `bridgerl evaluate alphamu`, `bridgerl/cli/evaluate.py`; until issue #52 it was this module's
``python -m`` runner)
"""

from __future__ import annotations

import json
import multiprocessing
import time
from pathlib import Path

import numpy as np

from bridgerl.agents import PIMCAgent
from bridgerl.core import Contract
from bridgerl.core.cards import card_name
from bridgerl.core.constraints import HandConstraint
from bridgerl.core.dd import declarer_total, set_dds_threads
from bridgerl.core.hand import hcp, is_balanced, suit_lengths
from bridgerl.core.play import PlayState
from bridgerl.core.stats import mean_ci
from bridgerl.envs import view_of
from bridgerl.arena.play import agent_seed, play_deal
from bridgerl.arena.specs import load_play_agent

CONTRACT = Contract.parse("3NT N")
NORTH = HandConstraint.notrump_opener(15, 17)
SOUTH = HandConstraint.with_lengths(hcp=(10, 15), H=(0, 4), S=(0, 4))
"""South raises to 3NT: 10-15 HCP without a five-card major."""
CONSTRAINTS = {0: NORTH, 2: SOUTH}


def constrained_deals(seed: int, count: int) -> np.ndarray:
    """uint8[count, 52] uniformly random deals meeting the 1NT - 3NT constraints (rejection sampling)."""
    rng = np.random.default_rng(seed)
    base = np.repeat(np.arange(4, dtype=np.uint8), 13)
    found = []
    while sum(len(f) for f in found) < count:
        owners = base[np.argsort(rng.random((4096, 52)), axis=1)]
        points_n, points_s = hcp(owners, 0), hcp(owners, 2)
        lengths_s = suit_lengths(owners, 2)
        ok = ((points_n >= 15) & (points_n <= 17) & is_balanced(owners, 0) & (points_s >= 10) & (points_s <= 15)
              & (lengths_s[:, 2] <= 4) & (lengths_s[:, 3] <= 4))
        found.append(owners[ok])
    return np.concatenate(found)[:count]


def _lines(path: Path) -> list[dict]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # cut short by an interruption
    return out


def _append(path: Path, record: dict) -> None:
    with open(path, "a") as f:
        f.write(json.dumps(record) + "\n")


def _pimc(worlds: int, seed: int) -> PIMCAgent:
    return PIMCAgent(worlds=worlds, objective="make", seed=seed)


def opening_play(owner: np.ndarray, cards: int, worlds: int, seed: int) -> list[int]:
    """The first ``cards`` cards, PIMC (make) on both sides."""
    state = PlayState.start(owner, CONTRACT)
    agents = [_pimc(worlds, agent_seed(seed, 0, 0)), _pimc(worlds, agent_seed(seed, 0, 1))]
    while len(state.history) < cards:
        view = view_of(state, CONSTRAINTS)
        state = state.play(agents[0 if view.is_declaring_side else 1].act(view))
    return list(state.history)


def double_dummy_total(owner: np.ndarray, played: list[int]) -> int:
    """Declarer's tricks with double-dummy play from the position after ``played``."""
    return declarer_total(PlayState.start(owner, CONTRACT, played))


def run_deal(owner, played, declarer, defence, seed: int, deal: int, run: int) -> dict:
    """One run of a deal from its start; both agents reseeded from (seed, deal, run)."""
    declarer.reseed(agent_seed(seed * 1000 + run, deal, 0))
    defence.reseed(agent_seed(seed * 1000 + run, deal, 1))
    stats = getattr(declarer, "stats", None)
    if stats is not None:
        declarer.reset_stats()
    start = time.perf_counter()
    record = play_deal(owner, CONTRACT, declarer, defence, played=played, constraints=CONSTRAINTS)
    out = {"deal": deal, "run": run, "made": record.made, "tricks": record.declarer_tricks,
           "declarer_seconds": record.declarer_seconds, "declarer_cards": record.declarer_cards,
           "seconds": time.perf_counter() - start}
    if stats is not None:
        out.update(searched=declarer.stats.searched, differs=declarer.stats.differs,
                   search_seconds=declarer.stats.seconds)
    return out


def _pool(workers: int):
    """A pool of single-threaded DDS processes (``None`` for one worker: everything runs here)."""
    if workers <= 1:
        return None
    return multiprocessing.get_context("fork").Pool(workers, initializer=set_dds_threads, initargs=(1,))


def _map(pool, function, jobs, ordered: bool = True):
    if pool is None:
        return map(function, jobs)
    return (pool.imap if ordered else pool.imap_unordered)(function, jobs, chunksize=1)


def _candidate(job: tuple) -> dict:
    """Filter one candidate deal: its start position, its double-dummy result, PIMC's make rate."""
    index, owner, start_cards, worlds, seed, filter_runs = job
    owner = np.asarray(owner, dtype=np.uint8)
    played = opening_play(owner, start_cards, worlds, agent_seed(seed, index, 2))
    dd = double_dummy_total(owner, played)
    if abs(dd - CONTRACT.tricks_needed) > 1:
        return {"candidate": index, "dd_tricks": dd, "kept": False}
    declarer, defence = _pimc(worlds, 0), _pimc(worlds, 0)
    made = [run_deal(owner, played, declarer, defence, seed, index, run)["made"] for run in range(filter_runs)]
    rate = float(np.mean(made))
    return {"candidate": index, "owner": owner.tolist(), "played": [card_name(c) for c in played],
            "dd_tricks": dd, "pimc_make_rate": rate, "kept": 0.3 <= rate <= 0.7}


def make_deals(args) -> None:
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    records = _lines(out)
    candidates = constrained_deals(args.seed, args.candidates)
    tried = {r["candidate"] for r in records}
    kept = sum(r["kept"] for r in records)
    from tqdm import tqdm

    bar = tqdm(total=args.keep, initial=kept, desc="kept deals", disable=args.quiet)
    jobs = [(index, owner.tolist(), args.start_cards, args.worlds, args.seed, args.filter_runs)
            for index, owner in enumerate(candidates) if index not in tried]
    pool = _pool(args.workers)
    try:
        # In candidate order whatever the number of workers: the kept deals do not depend on it.
        for record in _map(pool, _candidate, jobs) if kept < args.keep else ():
            _append(out, record)
            kept += record["kept"]
            bar.update(int(record["kept"]))
            if kept >= args.keep:
                break
    finally:
        if pool is not None:
            pool.terminate()
    bar.close()
    print(f"{kept} deals kept in {out}")


def _play_job(job: tuple) -> dict:
    spec, worlds, seed, deal, run = job
    declarer = load_play_agent(spec, seed=0)
    owner = np.array(deal["owner"], dtype=np.uint8)
    return run_deal(owner, deal["played"], declarer, _pimc(worlds, 0), seed, deal["candidate"], run)


def play_declarer(args) -> None:
    deals = [r for r in _lines(Path(args.deals)) if r["kept"]][:args.limit]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    lines = _lines(out)
    header = {"declarer": args.declarer, "defence_worlds": args.worlds, "seed": args.seed}
    if lines and any(lines[0].get(k) != v for k, v in header.items()):
        raise ValueError(f"{out} holds another match ({lines[0]}); give a new --out")
    done = {(r["deal"], r["run"]) for r in lines if "deal" in r}
    if not lines:
        _append(out, header)
    load_play_agent(args.declarer)  # a bad spec fails here, before any work
    from tqdm import tqdm

    jobs = [(args.declarer, args.worlds, args.seed, d, run) for d in deals for run in range(args.runs)
            if (d["candidate"], run) not in done]
    pool = _pool(args.workers)
    try:
        for record in tqdm(_map(pool, _play_job, jobs, ordered=False), total=len(jobs), desc=args.declarer,
                           disable=args.quiet):
            _append(out, record)
    finally:
        if pool is not None:
            pool.terminate()


def summarize_file(path: Path) -> tuple[dict, dict]:
    """Make rate (95% CI over deals: the runs of one deal are averaged first), discrepancies with PIMC and
    declarer time per card and per searched move."""
    lines = _lines(path)
    header = lines[0] if lines and "declarer" in lines[0] else {}
    runs = {(r["deal"], r["run"]): r for r in lines if "deal" in r}
    rate, ci = mean_ci(_per_deal({k: r["made"] for k, r in runs.items()}))
    searched = sum(r.get("searched", 0) for r in runs.values())
    cards = sum(r["declarer_cards"] for r in runs.values())
    return {"file": str(path), "declarer": header.get("declarer", "?"), "runs": len(runs),
            "deals": len({deal for deal, _ in runs}), "make_rate": rate, "ci95": ci, "searched_moves": searched,
            "differs": sum(r.get("differs", 0) for r in runs.values()),
            "seconds_per_card": sum(r["declarer_seconds"] for r in runs.values()) / max(cards, 1),
            "seconds_per_searched_move": (sum(r.get("search_seconds", 0.0) for r in runs.values())
                                          / max(searched, 1))}, runs


def _per_deal(values: dict) -> list[float]:
    """Mean over each deal's runs of {(deal, run): value}."""
    by_deal: dict[int, list[float]] = {}
    for (deal, _), value in values.items():
        by_deal.setdefault(deal, []).append(value)
    return [float(np.mean(v)) for v in by_deal.values()]


def report(args) -> None:
    """One row per file; the paired difference is against the first file on the (deal, run) pairs both have."""
    _, base_runs = summarize_file(Path(args.files[0]))
    print(f"{'declarer':40s} {'deals':>5s} {'runs':>5s} {'make rate':>14s} {'vs first (paired)':>18s} "
          f"{'differs':>11s} {'s/card':>7s} {'s/searched move':>15s}")
    for path in args.files:
        summary, runs = summarize_file(Path(path))
        common = sorted(set(runs) & set(base_runs))
        diff, diff_ci = mean_ci(_per_deal({k: runs[k]["made"] - base_runs[k]["made"] for k in common}))
        searched = (f"{summary['seconds_per_searched_move']:15.3f}" if summary["searched_moves"] else f"{'-':>15s}")
        differs = f"{summary['differs']}/{summary['searched_moves']}" if summary["searched_moves"] else "-"
        print(f"{summary['declarer']:40s} {summary['deals']:5d} {summary['runs']:5d} "
              f"{100 * summary['make_rate']:6.1f}% ± {100 * summary['ci95']:4.1f} {100 * diff:+9.1f} ± "
              f"{100 * diff_ci:4.1f} {differs:>11s} {summary['seconds_per_card']:7.3f} {searched}")
