"""The thesis' card-play measurements (ch. 3: tables 3.1, 3.4, 3.5, figure 3.12) rerun with `PIMCAgent`.

Every deal is played from the opening lead in each of the chosen runs (`RUNS`). Three seat the same kind of
player at all four seats, as the thesis' robot-against-robot tables do: ``base`` (PIMC, ties drawn at random),
``info`` (ties broken by the information score, thesis 3.4.3) and ``enhanced`` (information score and the σ goal,
3.4.4). The others are duplicate pairs that seat a player on one side only: ``enhanced_declarer`` /
``enhanced_defence`` (the enhanced player against base PIMC) and ``sigma_declarer`` / ``sigma_defence`` (the
enhanced player against the information score alone: the σ goal's worth). The tested player's IMPs on a deal are
those of the first run's score less the second's; that measures strength, while the same player on both sides
only moves declarer's edge, so the all-seat runs are compared in tricks only. Each run's agents are seeded from
(seed, row, run, side). The contract of a deal is its *double-dummy contract*: the side and strain with the
most double-dummy tricks (declarer the partner with more), at the level those tricks just make (one if fewer than
seven), so every deal is tight for one side. Per deal and run it records declarer's tricks against double dummy,
each side's decisions, ties and random draws, the tricks those draws could change (the spread of the tied choices'
double-dummy tricks in the real deal), the σ cases each side met (`agents.play.pimc.sigma_case`) and the seconds
per card. Deals are independent (agents reseeded from (seed, row, run, side)), written one JSON line each, so a run
resumes where it stopped and may use several processes.

    bridgerl evaluate play-study --deals 300 --worlds 20 --out runs/play_study.jsonl
"""

from __future__ import annotations

import multiprocessing
import os
import time

import numpy as np

from bridgerl.agents import PIMCAgent
from bridgerl.agents.play.combined_defender import load_search
from bridgerl.agents.play.pimc import SIGMA_CASES, solve_worlds
from bridgerl.core import Contract, load_dataset
from bridgerl.core.board import is_vulnerable, vul_for_board
from bridgerl.core.dd import set_dds_threads
from bridgerl.core.imps import imps
from bridgerl.core.play import PlayState
from bridgerl.core.scoring import score
from bridgerl.core.stats import mean_ci
from bridgerl.envs import view_of
from bridgerl.arena.jsonlines import append_line, read_done
from bridgerl.arena.play import agent_seed

BASE, INFO, ENHANCED = {}, {"tiebreak": "info"}, {"tiebreak": "info", "goal": "sigma"}
RUNS = {"base": (BASE, BASE), "info": (INFO, INFO), "enhanced": (ENHANCED, ENHANCED),
        "enhanced_declarer": (ENHANCED, BASE), "enhanced_defence": (BASE, ENHANCED),
        "sigma_declarer": (ENHANCED, INFO), "sigma_defence": (INFO, ENHANCED)}
"""Each run's (declaring side, defence) PIMC settings."""
SAME = ("base", "info", "enhanced")
SIDES = ("declaring", "defence")


def double_dummy_contract(dd: np.ndarray) -> Contract:
    """The side and strain with the most double-dummy tricks (``dd`` int[4 seats, 5 strains]), declared by the
    partner taking more (the first in N, E, S, W order on a tie), at the level those tricks make (at least one)."""
    seat, strain = np.unravel_index(int(np.argmax(dd)), dd.shape)
    partner = (seat + 2) % 4
    if dd[partner, strain] > dd[seat, strain]:
        seat = partner
    return Contract(max(1, min(7, int(dd[seat, strain]) - 6)), int(strain), 0, int(seat))


def play_run(owner: np.ndarray, contract: Contract, dd_tricks: int, vulnerable: bool, worlds: int, seed: int,
             row: int, run: str, info_budget: int) -> dict:
    """Play one deal with the run's players on both sides and measure it."""
    if any(settings.get("tiebreak") == "info" for settings in RUNS[run]):
        load_search()  # once per process: numba's load is not part of the first timed card
    agents = [PIMCAgent(worlds=worlds, seed=agent_seed(seed, row, 2 * list(RUNS).index(run) + side),
                        info_budget=info_budget, **RUNS[run][side]) for side in range(2)]
    state = PlayState.start(owner, contract)
    seconds, cards = [0.0, 0.0], [0, 0]
    spread = [0, 0]
    cases = [{case: 0 for case in SIGMA_CASES} for _ in range(2)]
    while not state.is_over:
        view = view_of(state)
        side = 0 if view.is_declaring_side else 1
        agent = agents[side]
        draws = agent.ties.random_draws
        start = time.perf_counter()
        card = agent.act(view)
        seconds[side] += time.perf_counter() - start
        cards[side] += 1
        if agent.last.get("case"):
            cases[side][agent.last["case"]] += 1
        if agent.ties.random_draws > draws:  # what the draw could change, in the real deal double dummy
            real = solve_worlds(view, state.owner[None])[0]
            tied = [real[c] for c in agent.last["tied"]]
            spread[side] += int(max(tied) - min(tied))
        state = state.play(card)
    out = {"run": run, "tricks": state.declarer_tricks, "edge": state.declarer_tricks - dd_tricks,
           "score": score(contract.level, contract.strain, contract.penalty, vulnerable, state.declarer_tricks)}
    for side, name in enumerate(SIDES):
        ties = agents[side].ties
        out[name] = {"cards": cards[side], "seconds": seconds[side], "decisions": ties.decisions, "tied": ties.tied,
                     "info_decided": ties.info_decided, "random_draws": ties.random_draws, "draw_spread": spread[side],
                     "cases": cases[side]}
    return out


def _deal_job(job: tuple) -> dict:
    row, owner, dd, board, worlds, seed, info_budget, names = job
    contract = double_dummy_contract(dd)
    vulnerable = is_vulnerable(vul_for_board(board), contract.declarer)
    dd_tricks = int(dd[contract.declarer, contract.strain])
    runs = {run: play_run(owner, contract, dd_tricks, vulnerable, worlds, seed, row, run, info_budget)
            for run in names}
    return {"row": row, "board": board, "contract": str(contract), "dd_tricks": dd_tricks, "runs": runs}


def study_job(data, dataset, start: int, worlds: int, seed: int, info_budget: int, names: list[str]) -> dict:
    """The identity of a play study (`bridgerl.core.identity`): the data and its hash, the first row, the worlds,
    seed and information budget, each run's settings, and PIMC's settings as this bridgerl defaults them (a changed
    default is another study)."""
    from bridgerl.core.dataset import dataset_hash
    from bridgerl.arena.specs import spec_keywords

    return {"command": "evaluate play-study", "data": str(data) if isinstance(data, (str, os.PathLike))
            else dataset.source, "data_sha256": dataset_hash(dataset), "start": int(start), "worlds": int(worlds),
            "seed": int(seed), "info_budget": int(info_budget), "runs": {name: list(RUNS[name]) for name in names},
            "pimc_defaults": spec_keywords(PIMCAgent)}


def play_study(data="test", deals: int = 100, start: int = 0, worlds: int = 20, seed: int = 0,
               info_budget: int | None = None, out=None, workers: int = 1, progress: bool = False,
               runs=None) -> list[dict]:
    """Play rows ``start`` .. ``start + deals - 1`` in the ``runs`` (names of `RUNS`, default all); with ``out``
    (JSON lines) finished deals are kept and a rerun of the same study continues."""
    names = list(RUNS) if runs is None else list(runs)
    unknown = [name for name in names if name not in RUNS]
    if unknown or not names:
        raise ValueError(f"unknown run(s) {', '.join(unknown) or '(none given)'}; runs: {', '.join(RUNS)}")
    from bridgerl.agents.play.combined_defender import DEFAULT_INFO_BUDGET

    if worlds < 2:
        raise ValueError(f"worlds must be at least 2 (σ needs two), got {worlds}")
    info_budget = DEFAULT_INFO_BUDGET if info_budget is None else int(info_budget)
    if info_budget < 0:
        raise ValueError(f"info budget must be 0 (lines only) or more, got {info_budget}")
    dataset = load_dataset(data)
    rows = range(start, min(len(dataset), start + deals))
    if len(rows) == 0:
        raise ValueError(f"{dataset.source}: no deal to play (rows {start} to {start + deals - 1} of "
                         f"{len(dataset)} deals)")
    study = study_job(data, dataset, start, worlds, seed, info_budget, names)
    done = {item["row"]: item for item in read_done(out, study)} if out is not None else {}
    jobs = [(row, dataset.owner[row], dataset.dd[row], int(dataset.boards[row]), worlds, seed, info_budget, names)
            for row in rows if row not in done]
    pool = None if workers <= 1 or len(jobs) <= 1 else multiprocessing.get_context("fork").Pool(
        workers, initializer=set_dds_threads, initargs=(1,))
    try:
        results = map(_deal_job, jobs) if pool is None else pool.imap_unordered(_deal_job, jobs, chunksize=1)
        if progress:
            from tqdm import tqdm

            results = tqdm(results, desc="deals", unit="deal", initial=len(rows) - len(jobs), total=len(rows))
        for item in results:
            done[item["row"]] = item
            if out is not None:
                append_line(out, item)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    return [done[row] for row in rows]


def _ci(values) -> dict:
    mean, ci = mean_ci(np.asarray(values, dtype=np.float64))
    return {"mean": mean, "ci95": ci}


def _duplicate(items: list[dict], declaring: str, defending: str) -> dict | None:
    """The tested player's IMPs per deal over a duplicate pair of runs: it declares in ``declaring`` and defends in
    ``defending`` against the same opponents; its score is the first table's less the second's."""
    if not items or not all(declaring in i["runs"] and defending in i["runs"] for i in items):
        return None
    return _ci([imps(i["runs"][declaring]["score"] - i["runs"][defending]["score"]) for i in items])


def summarize_study(items: list[dict]) -> dict:
    """The tables from the runs present: ties and what draws change (3.1), declarer's edge against double dummy per
    run and the paired differences in tricks (3.4), σ cases per deal (3.5), the duplicate pairs' IMPs (the
    enhanced player against base PIMC, the σ goal against the information score alone), seconds per card (3.12)."""
    present = [run for run in RUNS if items and all(run in i["runs"] for i in items)]
    out: dict = {"deals": len(items), "runs": {}}
    for run in present:
        rows = [item["runs"][run] for item in items]
        summary = {"edge": _ci([r["edge"] for r in rows]),
                   "differential": _ci([-r["edge"] for r in rows])}  # the thesis' sign: DD - declarer
        for side in SIDES:
            per = [r[side] for r in rows]
            summary[side] = {
                "tied_per_deal": _ci([p["tied"] for p in per]),
                "random_draws_per_deal": _ci([p["random_draws"] for p in per]),
                "info_decided_per_deal": _ci([p["info_decided"] for p in per]),
                "draw_spread_per_deal": _ci([p["draw_spread"] for p in per]),
                "decisions_per_deal": _ci([p["decisions"] for p in per]),
                "cases_per_deal": {case: float(np.mean([p["cases"][case] for p in per])) for case in SIGMA_CASES},
                "seconds_per_card": sum(p["seconds"] for p in per) / max(1, sum(p["cards"] for p in per)),
            }
        out["runs"][run] = summary
    pairs = {}
    for a, b in (("base", "info"), ("info", "enhanced"), ("base", "enhanced"), ("base", "enhanced_declarer"),
                 ("enhanced_defence", "base")):
        if a in present and b in present:  # tricks only: where both sides change, IMPs measure nothing useful
            pairs[f"{b}-{a}"] = _ci([i["runs"][b]["edge"] - i["runs"][a]["edge"] for i in items])
    out["edge_differences"] = pairs
    out["duplicate"] = {
        "enhanced_vs_base": _duplicate(items, "enhanced_declarer", "enhanced_defence"),
        "sigma_vs_info": _duplicate(items, "sigma_declarer", "sigma_defence"),
    }
    if "sigma_declarer" in present and "sigma_defence" in present:
        cased = [i for i in items if sum(i["runs"]["sigma_declarer"]["declaring"]["cases"].values())
                 + sum(i["runs"]["sigma_defence"]["defence"]["cases"].values())]
        out["duplicate"]["sigma_vs_info_deals_with_a_case"] = {
            "deals": len(cased), "imps": _duplicate(cased, "sigma_declarer", "sigma_defence") if len(cased) > 1
            else None}
    return out


def format_study(summary: dict, worlds: int) -> str:
    """The tables as text (those the runs present allow)."""
    runs = summary["runs"]
    lines = [f"{summary['deals']} deals, {worlds} worlds per decision"]
    if "base" in runs:
        lines.append("Table 3.1 (base PIMC at all four seats): per deal   declaring side     defence")
        for key, label in (("tied_per_deal", "decisions with a tie (random draws)"),
                           ("draw_spread_per_deal", "DD tricks between the tied cards"),
                           ("decisions_per_deal", "decisions with a choice")):
            cells = [f"{runs['base'][s][key]['mean']:6.2f} +/- {runs['base'][s][key]['ci95']:.2f}" for s in SIDES]
            lines.append(f"  {label:40s} {cells[0]:18s} {cells[1]}")
    if "info" in runs:
        info = runs["info"]
        lines.append(f"  info run: ties the information score settles per deal: declaring "
                     f"{info['declaring']['info_decided_per_deal']['mean']:.2f}, defence "
                     f"{info['defence']['info_decided_per_deal']['mean']:.2f}; draws left "
                     f"{info['declaring']['random_draws_per_deal']['mean']:.2f} / "
                     f"{info['defence']['random_draws_per_deal']['mean']:.2f}")
    same = [run for run in SAME if run in runs]
    if same:
        lines.append("Table 3.4: differential = double-dummy tricks - declarer's tricks (the thesis' sign: below 0, "
                     "declarer beat double dummy), the same player at all four seats")
        for run in same:
            diff = runs[run]["differential"]
            lines.append(f"  {run:9s} {diff['mean']:+.3f} +/- {diff['ci95']:.3f}")
    labels = {"info-base": "all seats info instead of base: declarer's tricks",
              "enhanced-info": "all seats enhanced instead of info: declarer's tricks",
              "enhanced-base": "all seats enhanced instead of base: declarer's tricks",
              "enhanced_declarer-base": "enhanced declarer instead of base (base defence): tricks gained",
              "base-enhanced_defence": "enhanced defence instead of base (base declarer): tricks saved"}
    for key, diff in summary["edge_differences"].items():
        lines.append(f"  {labels[key]:66s} {diff['mean']:+.3f} +/- {diff['ci95']:.3f}")
    for key, label in (("enhanced_vs_base", "enhanced (info + σ) vs base PIMC"),
                       ("sigma_vs_info", "σ goal vs information score alone")):
        dup = summary["duplicate"].get(key)
        if dup is not None:
            lines.append(f"Duplicate, {label}: {dup['mean']:+.3f} +/- {dup['ci95']:.3f} IMPs/deal (it declares at "
                         f"one table and defends at the other, against the same opponents)")
    cased = summary["duplicate"].get("sigma_vs_info_deals_with_a_case")
    if cased and cased["imps"] is not None:
        lines.append(f"  on the {cased['deals']} deals where the σ player met a case: {cased['imps']['mean']:+.3f} "
                     f"+/- {cased['imps']['ci95']:.3f} IMPs/deal")
    source = "enhanced" if "enhanced" in runs else None
    if source is None and "sigma_declarer" in runs and "sigma_defence" in runs:
        source = "sigma"
    if source:
        declaring = runs["enhanced" if source == "enhanced" else "sigma_declarer"]["declaring"]["cases_per_deal"]
        defence = runs["enhanced" if source == "enhanced" else "sigma_defence"]["defence"]["cases_per_deal"]
        lines.append("Table 3.5: σ cases per deal (σ player)     declaring side   defence")
        for case in SIGMA_CASES:
            lines.append(f"  {case:8s}                               {declaring[case]:.3f}            {defence[case]:.3f}")
    if same:
        lines.append("Figure 3.12: seconds per card          declaring side   defence")
        for run in same:
            lines.append(f"  {run:9s}                            {runs[run]['declaring']['seconds_per_card']:.4f}"
                         f"           {runs[run]['defence']['seconds_per_card']:.4f}")
    return "\n".join(lines)


__all__ = ["play_study", "summarize_study", "format_study", "double_dummy_contract", "RUNS"]
