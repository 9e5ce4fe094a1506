"""Trick loss per decision against double dummy (`bridgerl evaluate trick-loss`, seed 004's metric, issue #20).

Every position of a positions file where the player to act has a real choice (two or more groups of equal cards)
is put to each play agent: it chooses from the chooser's view (the real auction and the cards played so far), and
its *trick loss* is the DD value of the best legal card less that of the card chosen (the file's `pos_dd`, tricks
of the side to play). The agents are reseeded per position, so a position's result does not depend on the others.

Reported per agent: the mean with its 95% CI, by trick, declaring and defending apart (the chooser's side),
unbatched seconds per decision (one `act` at a time, as a table asks) and, for agents that take many views at once
(``act_views``: the networks), batched decisions per second (every position in one call, features included). Beside
them the measures people compare with (issue #50): the share of opening leads that give up no DD trick, suit and
notrump contracts apart (experts about 81%; BEN 81.8% / 76.4%), and the share of cards that lose a DD trick counted
as BEN counts them: every card of tricks 1-12 in that role (declarer's and dummy's together; forced cards count and
lose none), declaring and defending, suit and notrump apart (BEN 1.06% / 2.46% declaring, 0.87% / 2.03%
defending).
"""

from __future__ import annotations

import time

import numpy as np

from bridgerl.core.card_play import notify_deal
from bridgerl.core.dd import positions_solved
from bridgerl.core.positions import load_positions
from bridgerl.core.stats import mean_ci
from bridgerl.arena.play import agent_seed


def trick_loss_study(agents: dict, positions_file, limit: int | None = None, seed: int = 0,
                     progress: bool = False) -> dict:
    """``agents``: {name: play agent}. Returns {"positions": n, "agents": {name: summary}} over the first
    ``limit`` positions with a choice (all by default)."""
    positions = load_positions(positions_file)
    p = positions.positions
    chosen = np.flatnonzero(p["choices"] > 1)
    if limit is not None:
        chosen = chosen[:limit]
    if len(chosen) == 0:
        raise ValueError(f"{positions_file}: no position with a choice")
    losses = {name: np.zeros(len(chosen)) for name in agents}
    seconds = {name: 0.0 for name in agents}
    solved = {name: 0 for name in agents}  # positions sent to DDS
    rows = {name: 0 for name in agents}  # positions the agent's networks evaluated
    from bridgerl.arena.specs import load_pair

    bidders = {}  # the file's bidders, for agents that replay the auction (auction=policy)
    if any(hasattr(agent, "see_bidders") for agent in agents.values()):
        ns, ew = load_pair(positions.meta["ns"]), load_pair(positions.meta["ew"])
        bidders = {seat: (ns if seat % 2 == 0 else ew).bidder for seat in range(4)}
    for agent in agents.values():
        if bidders and hasattr(agent, "see_bidders"):
            agent.see_bidders(bidders)
    state = positions.state(int(chosen[0]))  # one untimed decision each: compiles and loads stay out of timings
    for agent in agents.values():
        notify_deal(agent, state.deal.owner)
        agent.act(state.view())
    iterator = enumerate(chosen)
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, total=len(chosen), unit="position", desc="trick loss")
    batchable = [name for name, agent in agents.items() if hasattr(agent, "act_views")]
    views = []  # kept for the batched throughput of the networks
    for k, i in iterator:
        state = positions.state(int(i))
        view = state.view()
        if batchable:
            views.append(view)
        best = int(p["dd"][i].max())
        for a, (name, agent) in enumerate(agents.items()):
            if hasattr(agent, "reseed"):
                agent.reseed(agent_seed(seed, int(i), a))
            notify_deal(agent, state.deal.owner)  # only the double-dummy oracle reads it
            counted = hasattr(agent, "network_rows")
            before, rows_before = positions_solved(), agent.network_rows() if counted else 0
            start = time.perf_counter()
            card = int(agent.act(view))
            seconds[name] += time.perf_counter() - start
            solved[name] += positions_solved() - before
            rows[name] += (agent.network_rows() - rows_before) if counted else 0
            if not p["legal"][i][card]:
                raise ValueError(f"{name} played an illegal card at position {i}")
            losses[name][k] = best - int(p["dd"][i][card])
    batched = {}
    for name in batchable:  # the networks' throughput over every view at once
        start = time.perf_counter()
        agents[name].act_views(views)
        batched[name] = len(views) / (time.perf_counter() - start)
    by_trick = (p["step"][chosen].astype(np.int64) // 4) + 1
    contract = positions.deals["contract"][p["deal"]].astype(np.int64)
    all_declaring = (p["player"].astype(np.int64) - contract[:, 3]) % 2 == 0
    all_notrump = contract[:, 1] == 4
    declaring, notrump = all_declaring[chosen], all_notrump[chosen]
    # BEN's count of cards losing a trick: every card of tricks 1-12 (forced ones too, which lose none) of the deals
    # read, declarer's and dummy's together
    counted = (np.arange(len(p["deal"])) <= int(chosen[-1])) & (p["step"].astype(np.int64) < 48)
    lead = p["step"][chosen] == 0
    out = {"positions": int(len(chosen)), "source": positions.meta["source"],
           "players": [positions.meta["ns"], positions.meta["ew"]], "agents": {}}
    for name in agents:
        mean, ci = mean_ci(losses[name])
        out["agents"][name] = {
            "trick_loss": mean, "ci95": ci, "share_losing": float((losses[name] > 0).mean()),
            "seconds_per_decision": seconds[name] / len(chosen),
            "dds_positions_per_decision": solved[name] / len(chosen),
            "network_positions_per_decision": rows[name] / len(chosen),
            "by_trick": {int(t): float(losses[name][by_trick == t].mean()) for t in np.unique(by_trick)},
            "declaring": _part(losses[name][declaring]), "defending": _part(losses[name][~declaring]),
            "opening_leads": {kind: _leads(losses[name][lead & (notrump == nt)])
                              for kind, nt in (("suit", False), ("notrump", True))},
            "cards_losing": {role: {kind: _losing(losses[name][(declaring == dec) & (p["step"][chosen] < 48)
                                                             & (notrump == nt)],
                                                  int((counted & (all_declaring == dec) & (all_notrump == nt)).sum()))
                                    for kind, nt in (("suit", False), ("notrump", True))}
                             for role, dec in (("declaring", True), ("defending", False))}}
        if name in batched:
            out["agents"][name]["batched_decisions_per_second"] = batched[name]
    names = list(agents)
    if len(names) > 1:  # paired against the first agent, on the same positions
        out["paired"] = {}
        for name in names[1:]:
            mean, ci = mean_ci(losses[name] - losses[names[0]])
            out["paired"][f"{name} - {names[0]}"] = {"mean": mean, "ci95": ci}
    return out


def _leads(losses: np.ndarray) -> dict:
    """Opening leads: how many, and the share that give up no DD trick (experts about 81%)."""
    return {"leads": int(len(losses)), "no_loss": float((losses == 0).mean()) if len(losses) else None}


def _losing(losses: np.ndarray, cards: int) -> dict:
    """The share of ``cards`` (every card of tricks 1-12 in that role and kind of contract) that lose a DD trick:
    ``losses`` are those of the cards with a choice (the others lose none)."""
    return {"cards": int(cards), "losing": float((losses > 0).sum() / cards) if cards else None}


def _part(losses: np.ndarray) -> dict:
    mean, ci = mean_ci(losses)
    return {"positions": int(len(losses)), "trick_loss": mean, "ci95": ci}


def trick_loss_lines(result: dict) -> list[str]:
    lines = [f"{result['positions']} positions with a choice ({result['source']}, played by "
             f"{result['players'][0]} / {result['players'][1]})",
             f"{'agent':60s} {'trick loss':>17s} {'losing':>7s} {'s/decision':>11s} {'DDS/dec':>8s} {'NN/dec':>7s}"]
    for name, row in result["agents"].items():
        lines.append(f"{name:60s} {row['trick_loss']:8.4f} +/- {row['ci95']:.4f} {row['share_losing']:7.1%} "
                     f"{row['seconds_per_decision']:11.4f} {row['dds_positions_per_decision']:8.1f} "
                     f"{row['network_positions_per_decision']:7.1f}")
    for name, row in result["agents"].items():
        d, f = row["declaring"], row["defending"]
        lines.append(f"  {name}: declaring {d['trick_loss']:.4f} +/- {d['ci95']:.4f} ({d['positions']}), defending "
                     f"{f['trick_loss']:.4f} +/- {f['ci95']:.4f} ({f['positions']})"
                     + (f"; batched {row['batched_decisions_per_second']:,.0f} decisions/s"
                        if "batched_decisions_per_second" in row else ""))
    for name, row in result["agents"].items():
        leads, losing = row["opening_leads"], row["cards_losing"]
        share = lambda x: "-" if x is None else f"{x:.1%}"  # noqa: E731
        lines.append(f"  {name}: opening leads giving up no DD trick: suit {share(leads['suit']['no_loss'])} "
                     f"({leads['suit']['leads']}), notrump {share(leads['notrump']['no_loss'])} "
                     f"({leads['notrump']['leads']}); cards of tricks 1-12 losing a DD trick: declaring suit "
                     f"{share(losing['declaring']['suit']['losing'])}, notrump "
                     f"{share(losing['declaring']['notrump']['losing'])}; defending suit "
                     f"{share(losing['defending']['suit']['losing'])}, notrump "
                     f"{share(losing['defending']['notrump']['losing'])}")
    for name, row in result.get("paired", {}).items():
        lines.append(f"paired {name}: {row['mean']:+.4f} +/- {row['ci95']:.4f} tricks per decision")
    return lines


__all__ = ["trick_loss_study", "trick_loss_lines"]
