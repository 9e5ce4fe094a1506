"""The thesis' card-play measurements (ch. 3: tables 3.1, 3.4, 3.5, figure 3.12) rerun with `PIMCAgent`.

Every deal is played five times from the opening lead. Three runs seat the same kind of player at all four seats,
as the thesis' robot-against-robot tables do: ``base`` (PIMC, ties drawn at random), ``info`` (ties broken by the
information score, thesis 3.4.3) and ``enhanced`` (information score and the σ goal, 3.4.4). Two more seat the
enhanced player on one side only, ``enhanced_declarer`` (against base defenders) and ``enhanced_defence`` (against
a base declarer), a duplicate pair: the enhanced player's IMPs on a deal are those of the first run's score less
the second's, which measures strength (the same player on both sides only moves declarer's edge). The contract of a deal is its *double-dummy contract*: the side and strain with the
most double-dummy tricks (declarer the partner with more), at the level those tricks just make (one if fewer than
seven), so every deal is tight for one side. Per deal and run it records declarer's tricks against double dummy,
each side's decisions, ties and random draws, the tricks those draws could change (the spread of the tied choices'
double-dummy tricks in the real deal), the σ cases each side met (`bridgerl.agents.play.sigma_case`) and the seconds
per card. Deals are independent (agents reseeded from (seed, row, run, side)), written one JSON line each, so a run
resumes where it stopped and may use several processes.

    bridgerl evaluate play-study --deals 300 --worlds 20 --out runs/play_study.jsonl
"""

from __future__ import annotations

import multiprocessing
import time

import numpy as np

from bridgerl.agents import PIMCAgent
from bridgerl.agents.play import SIGMA_CASES, solve_worlds
from bridgerl.core import Contract, load_dataset
from bridgerl.core.board import is_vulnerable, vul_for_board
from bridgerl.core.dd import set_dds_threads
from bridgerl.core.imps import imps
from bridgerl.core.play import PlayState
from bridgerl.core.scoring import score
from bridgerl.core.stats import mean_ci
from bridgerl.envs import view_of
from bridgerl.evaluation.jsonlines import append_line, read_done
from bridgerl.evaluation.play import agent_seed

BASE, INFO, ENHANCED = {}, {"tiebreak": "info"}, {"tiebreak": "info", "goal": "sigma"}
RUNS = {"base": (BASE, BASE), "info": (INFO, INFO), "enhanced": (ENHANCED, ENHANCED),
        "enhanced_declarer": (ENHANCED, BASE), "enhanced_defence": (BASE, ENHANCED)}
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
    row, owner, dd, board, worlds, seed, info_budget = job
    contract = double_dummy_contract(dd)
    vulnerable = is_vulnerable(vul_for_board(board), contract.declarer)
    dd_tricks = int(dd[contract.declarer, contract.strain])
    runs = {run: play_run(owner, contract, dd_tricks, vulnerable, worlds, seed, row, run, info_budget)
            for run in RUNS}
    return {"row": row, "board": board, "contract": str(contract), "dd_tricks": dd_tricks, "runs": runs}


def play_study(data="test", deals: int = 100, start: int = 0, worlds: int = 20, seed: int = 0,
               info_budget: int | None = None, out=None, workers: int = 1, progress: bool = False) -> list[dict]:
    """Play rows ``start`` .. ``start + deals - 1`` in the three runs; with ``out`` (JSON lines) finished deals are
    kept and a rerun of the same study continues."""
    from bridgerl.agents.combined_defender import DEFAULT_INFO_BUDGET

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
    study = {"study": "play", "data": str(dataset.source), "worlds": worlds, "seed": seed, "info_budget": info_budget,
             "runs": {name: list(settings) for name, settings in RUNS.items()}}
    done = {item["row"]: item for item in read_done(out, study)} if out is not None else {}
    jobs = [(row, dataset.owner[row], dataset.dd[row], int(dataset.boards[row]), worlds, seed, info_budget)
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


def summarize_study(items: list[dict]) -> dict:
    """The tables: ties and what draws change (3.1), declarer's edge against double dummy per run and the paired
    differences (3.4), σ cases per deal and the IMPs the σ goal wins (3.5), seconds per card (3.12)."""
    out: dict = {"deals": len(items), "runs": {}}
    for run in SAME:
        rows = [item["runs"][run] for item in items]
        summary = {"edge": _ci([r["edge"] for r in rows])}
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

    def paired(a: str, b: str) -> dict:
        edge = [i["runs"][b]["edge"] - i["runs"][a]["edge"] for i in items]
        swing = [imps(i["runs"][b]["score"] - i["runs"][a]["score"]) for i in items]
        return {"tricks": _ci(edge), "imps": _ci(swing)}

    swing = [imps(i["runs"]["enhanced_declarer"]["score"] - i["runs"]["enhanced_defence"]["score"]) for i in items]
    out["enhanced_duplicate_imps"] = _ci(swing)
    out["enhanced_as_declarer"] = paired("base", "enhanced_declarer")
    out["enhanced_as_defence"] = paired("enhanced_defence", "base")
    out["info_vs_base"] = paired("base", "info")
    out["enhanced_vs_info"] = paired("info", "enhanced")
    out["enhanced_vs_base"] = paired("base", "enhanced")
    with_case = [i for i in items if any(sum(i["runs"]["enhanced"][side]["cases"].values()) for side in SIDES)]
    out["enhanced_vs_info_deals_with_a_case"] = {
        "deals": len(with_case),
        "imps": _ci([imps(i["runs"]["enhanced"]["score"] - i["runs"]["info"]["score"]) for i in with_case])
        if len(with_case) > 1 else None}
    return out


def format_study(summary: dict, worlds: int) -> str:
    """The tables as text."""
    runs = summary["runs"]
    lines = [f"{summary['deals']} deals, {worlds} worlds per decision, all four seats the same PIMC player"]
    lines.append("Table 3.1 (base PIMC): per deal           declaring side     defence")
    for key, label in (("tied_per_deal", "decisions with a tie"), ("random_draws_per_deal", "random tie draws"),
                       ("draw_spread_per_deal", "tricks the draws could change")):
        cells = [f"{runs['base'][s][key]['mean']:6.2f} +/- {runs['base'][s][key]['ci95']:.2f}" for s in SIDES]
        lines.append(f"  {label:34s} {cells[0]:18s} {cells[1]}")
    info = runs["info"]
    lines.append(f"  info run: ties the information score settles per deal: declaring "
                 f"{info['declaring']['info_decided_per_deal']['mean']:.2f}, defence "
                 f"{info['defence']['info_decided_per_deal']['mean']:.2f}; draws left "
                 f"{info['declaring']['random_draws_per_deal']['mean']:.2f} / "
                 f"{info['defence']['random_draws_per_deal']['mean']:.2f}")
    lines.append("Table 3.4: declarer's tricks - double-dummy tricks (declarer's edge)")
    for run in SAME:
        edge = runs[run]["edge"]
        lines.append(f"  {run:9s} {edge['mean']:+.3f} +/- {edge['ci95']:.3f}")
    for key in ("info_vs_base", "enhanced_vs_info", "enhanced_vs_base"):
        diff = summary[key]
        lines.append(f"  {key.replace('_', ' '):18s} tricks {diff['tricks']['mean']:+.3f} +/- "
                     f"{diff['tricks']['ci95']:.3f}, IMPs/deal {diff['imps']['mean']:+.3f} +/- "
                     f"{diff['imps']['ci95']:.3f}")
    dup = summary["enhanced_duplicate_imps"]
    lines.append(f"Strength, duplicate: enhanced vs base PIMC {dup['mean']:+.3f} +/- {dup['ci95']:.3f} IMPs/deal "
                 f"(enhanced declaring against base defenders at one table, base declaring against enhanced at the other)")
    for key, label in (("enhanced_as_declarer", "as declarer"), ("enhanced_as_defence", "as defence")):
        diff = summary[key]
        lines.append(f"  {label}: tricks for the enhanced side {diff['tricks']['mean']:+.3f} +/- "
                     f"{diff['tricks']['ci95']:.3f} against all-base play")
    lines.append("Table 3.5 (enhanced run): σ cases per deal   declaring side   defence")
    for case in SIGMA_CASES:
        lines.append(f"  {case:8s}                              {runs['enhanced']['declaring']['cases_per_deal'][case]:.3f}"
                     f"            {runs['enhanced']['defence']['cases_per_deal'][case]:.3f}")
    cased = summary["enhanced_vs_info_deals_with_a_case"]
    if cased["imps"] is not None:
        lines.append(f"  σ goal on the {cased['deals']} deals with a case: {cased['imps']['mean']:+.3f} +/- "
                     f"{cased['imps']['ci95']:.3f} IMPs/deal (enhanced vs info)")
    lines.append("Figure 3.12: seconds per card          declaring side   defence")
    for run in SAME:
        lines.append(f"  {run:9s}                            {runs[run]['declaring']['seconds_per_card']:.4f}"
                     f"           {runs[run]['defence']['seconds_per_card']:.4f}")
    return "\n".join(lines)


__all__ = ["play_study", "summarize_study", "format_study", "double_dummy_contract", "RUNS"]
