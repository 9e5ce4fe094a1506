"""Whole-deal matches (`bridgerl evaluate game`): each board is bid and played at two tables with the pairs
swapped (duplicate, thesis 2.1.6). Pair A sits North-South at table 1 and East-West at table 2; A scores
imps(NS score at table 1 - NS score at table 2) on the board.

A pair is a bidder (``act(observation, action_mask)`` / ``act_batch``, the competitive agents) and a card player
(``act(view)``). The auctions of all boards are bid first, in batches (network bidders through ``act_fixed``: one
batch shape, so a board's calls do not depend on the other boards); then each table is played card by card with
the players reseeded from (seed, row, table, side), so a board's result does not depend on which boards came before
and a match written to a JSON-lines file resumes where it stopped. Tables where both card players act on many
views at once (`batchable`: ``act_views``, a network) are played in lockstep, ``batch`` boards at a time, each
player's decisions at all those tables in one call; the boards are the same as one board at a time. Declarer's tricks are compared with the DD
tricks of the same contract: the differential of thesis tables 3.3-3.4 is DD tricks - declarer's tricks (negative
when declarer beats double dummy).
"""

from __future__ import annotations

import os
import time
import warnings
from typing import Callable

import numpy as np

from bridgerl.core import imps, load_dataset
from bridgerl.core.bridge import CARD_OFFSET, BridgeState, action_name
from bridgerl.core.calls import NUM_CALLS
from bridgerl.core.card_play import notify_deal
from bridgerl.core.cards import SEATS, card_name
from bridgerl.core.competitive import CompetitiveDealSource, contract_text, deal_and_auction_lines
from bridgerl.core.contract import Contract
from bridgerl.core.scoring import GAME, SMALL_SLAM, bonus_level
from bridgerl.core.stats import ci_text, mean_ci
from bridgerl.arena.jsonlines import append_line, read_done
from bridgerl.arena.lockstep import act_batch
from bridgerl.arena.specs import Pair  # noqa: F401  (the pair of a match; `bridgerl.arena.game.Pair` as ever)
from bridgerl.arena.play import agent_seed


class GameError(ValueError):
    """An agent broke the rules during a whole-deal match (the message names the agent, board and action)."""


def match_job(command: str, a: Pair, b: Pair, dataset, data, start: int, seed: int) -> dict:
    """The identity of a whole-deal match (`bridgerl.core.identity`), what its results file records first: the
    command, both pairs' specs as given and resolved with their checkpoints, the data and its content hash, the
    first row, the tricks table in use (and its card player's checkpoint), the seed."""
    from bridgerl.core.dataset import dataset_hash

    job = {"command": command}
    for key, pair in (("a", a), ("b", b)):
        job.update(pair_fields(key, pair))
    played_by = dataset.played_by if dataset.tricks == "played" else None
    job.update({"data": data_name(data, dataset), "data_sha256": dataset_hash(dataset), "start": int(start),
                "tricks": dataset.tricks, "tricks_player": None if played_by is None else played_by["hash"],
                "seed": int(seed)})
    return job


def pair_fields(key: str, pair: Pair) -> dict:
    """What a job records of one pair: its spec as given, its bidder and card player as resolved with the
    checkpoints each loaded, its seed."""
    identity = pair.described()
    return {key: pair.name, f"{key}_bidder": identity["bidder"],
            f"{key}_bidder_checkpoints": identity["bidder_checkpoints"], f"{key}_player": identity["player"],
            f"{key}_player_checkpoints": identity["player_checkpoints"], f"{key}_seed": identity["seed"]}


def data_name(data, dataset) -> str:
    """The data as named ("test", a path): a bundled split is the same match on any checkout."""
    return str(data) if isinstance(data, (str, os.PathLike)) else dataset.source


def bidder_seed(seed: int, row: int, table: int, call: int) -> int:
    """The seed a stochastic bidder gets for one call: independent of which boards are bid with it."""
    return int(np.random.SeedSequence([seed, row, table, call, 1]).generate_state(1, np.uint64)[0])


def bid_auctions(states: list[BridgeState], pairs: list[tuple[Pair, Pair]], rows: list[int],
                 stop: Callable[[BridgeState], bool] | None = None, seed: int | None = None,
                 tables: list[int] | None = None) -> list[BridgeState]:
    """Run every auction to its end, one batch per bidder and turn: ``pairs[i]`` = (NS pair, EW pair) of state i;
    ``stop(state)`` true leaves that auction where it stands (e.g. a person's turn, `bridgerl.web`).

    Bidders are asked in batches over the boards still to bid. With ``seed`` (and ``tables[i]``, the table of state
    i), a stochastic bidder (one with ``reseed``, such as ``random``) is reseeded for every call from (seed, row,
    table, call) and asked alone, so its calls do not depend on the other boards (a resumed match, `--workers`);
    without it, it bids from its generator as it stands. The other built-in bidders are deterministic."""
    states = list(states)
    while True:
        active = [i for i, s in enumerate(states) if s.phase == "auction" and not (stop is not None and stop(s))]
        if not active:
            return states
        groups: dict[tuple[int, str], list[int]] = {}
        for i in active:
            pair = pairs[i][states[i].seat % 2]
            groups.setdefault((id(pair.bidder), pair.name), []).append(i)
        for members in groups.values():
            pair = pairs[members[0]][states[members[0]].seat % 2]
            if hasattr(pair.bidder, "see_opponents"):  # bidsearch with opponents=known: the other side's bidder
                pair.bidder.see_opponents(pairs[members[0]][1 - states[members[0]].seat % 2].bidder)
            observations = np.stack([states[i].auction_observation() for i in members])
            masks = np.stack([states[i].auction.legal_mask().astype(np.int8) for i in members])
            views = [states[i].view() for i in members]
            # the deals' tricks tables, for a punisher only (a deal without a table would be solved for it)
            tricks = [states[i].deal.dd for i in members] if hasattr(pair.bidder, "punish") else None
            if seed is not None and hasattr(pair.bidder, "reseed"):
                calls = []
                for k, i in enumerate(members):
                    pair.bidder.reseed(bidder_seed(seed, rows[i], 0 if tables is None else tables[i],
                                                   len(states[i].auction.calls)))
                    calls.append(act_batch(pair.bidder, observations[k:k + 1], masks[k:k + 1], views[k:k + 1],
                                           fixed=True, tables=None if tricks is None else tricks[k:k + 1])[0])
            else:
                calls = act_batch(pair.bidder, observations, masks, views, fixed=True, tables=tricks)
            for i, mask, call in zip(members, masks, calls):
                call = int(call)
                if not (0 <= call < NUM_CALLS and mask[call]):
                    raise GameError(f"{pair.name} ({SEATS[states[i].seat]}) chose an illegal call "
                                    f"{call_text(call)} after '{states[i].auction}' on row {rows[i]}")
                states[i] = states[i].apply(call)


def call_text(call: int) -> str:
    return action_name(call) if 0 <= call < NUM_CALLS else f"#{call}"


def see_table(player, state: BridgeState, ns: Pair, ew: Pair) -> None:
    """What a card player may be told at a table: the deal (only the double-dummy oracle reads it) and the
    bidders at each seat (systems are disclosed, as on a convention card; auction-aware sampling replays them)."""
    notify_deal(player, state.deal.owner)
    if hasattr(player, "see_bidders"):
        player.see_bidders({seat: (ns if seat % 2 == 0 else ew).bidder for seat in range(4)})


def batchable(player) -> bool:
    """Whether a card player's card is a function of the view alone that it can give for many views at once:
    it has ``act_views(views) -> cards`` and nothing a table tells it or reseeds (``see_deal``, ``see_bidders``,
    ``reseed``). Such players (networks) play in lockstep across tables."""
    return callable(getattr(player, "act_views", None)) and not any(
        hasattr(player, name) for name in ("see_deal", "see_bidders", "reseed"))


def _check_card(pair: Pair, state: BridgeState, view, card: int) -> None:
    if not (0 <= card < 52 and state.legal_mask()[CARD_OFFSET + card]):
        name = card_name(card) if 0 <= card < 52 else f"#{card}"
        raise GameError(f"{pair.name} ({SEATS[state.player]} for {SEATS[state.seat]}) played an illegal card "
                        f"{name}; legal: {' '.join(card_name(c) for c in view.legal)}")


def play_out(state: BridgeState, ns: Pair, ew: Pair, trace: Callable | None = None,
             stop: Callable[[BridgeState], bool] | None = None) -> tuple[BridgeState, list]:
    """Play the cards of a state whose auction is over (until ``stop(state)`` is true, when given); returns the
    final state and seconds, cards per side."""
    seconds, cards = [0.0, 0.0], [0, 0]
    while state.phase == "play" and not (stop is not None and stop(state)):
        side = state.player % 2
        pair = ns if side == 0 else ew
        view = state.view()
        start = time.perf_counter()
        card = int(pair.player.act(view))
        seconds[side] += time.perf_counter() - start
        cards[side] += 1
        _check_card(pair, state, view, card)
        if trace is not None:
            trace(state, CARD_OFFSET + card, pair)
        state = state.apply(CARD_OFFSET + card)
    return state, [seconds, cards]


def play_lockstep(states: list[BridgeState], seatings: list[tuple[Pair, Pair]]) -> list[tuple[BridgeState, list]]:
    """`play_out` of many tables at once, for `batchable` card players: at each round, every player's decisions
    at all the tables where it is to choose go to one ``act_views`` call. The seconds of a call are shared equally
    among its decisions. Returns (final state, timing) per table."""
    states = list(states)
    timing = [[[0.0, 0.0], [0, 0]] for _ in states]
    active = [i for i, state in enumerate(states) if state.phase == "play"]
    while active:
        groups: dict[tuple[int, str], list[int]] = {}
        for i in active:
            pair = seatings[i][states[i].player % 2]
            groups.setdefault((id(pair.player), pair.name), []).append(i)
        for members in groups.values():
            pair = seatings[members[0]][states[members[0]].player % 2]
            views = [states[i].view() for i in members]
            start = time.perf_counter()
            cards = np.asarray(pair.player.act_views(views))
            share = (time.perf_counter() - start) / len(members)
            for i, view, card in zip(members, views, cards):
                card = int(card)
                side = states[i].player % 2
                timing[i][0][side] += share
                timing[i][1][side] += 1
                _check_card(pair, states[i], view, card)
                states[i] = states[i].apply(CARD_OFFSET + card)
        active = [i for i in active if states[i].phase == "play"]
    return list(zip(states, timing))


def table_record(state: BridgeState, timing) -> dict:
    """What one table did: auction, contract, declarer's tricks against double dummy, score, play."""
    result = state.result()
    contract = result.contract
    dd_tricks = None if contract is None else int(state.deal.dd[contract.declarer, contract.strain])
    played = [] if state.play is None else [card_name(c) for c in state.play.history]
    return {"auction": [call_text(c) for c in state.auction.calls], "contract": contract_text(contract),
            "declarer": None if contract is None else SEATS[contract.declarer], "tricks": result.tricks,
            "dd_tricks": dd_tricks, "differential": None if contract is None else dd_tricks - result.tricks,
            "score_ns": result.score_ns, "play": played,
            "seconds": [round(x, 4) for x in timing[0]], "cards": timing[1]}


def declaring_pair(record: dict, table: int) -> str | None:
    """"a" or "b": the pair that declared at ``table`` (0 or 1; A sits North-South at table 1, East-West at table
    2), None for a pass-out."""
    if record["declarer"] is None:
        return None
    return "ab"[(SEATS.index(record["declarer"]) + table) % 2]


def game_match(a: Pair, b: Pair, data="test", deals: int = 100, start: int = 0, seed: int = 0, out=None,
               progress: bool = False, batch: int = 64, workers: int = 1, command: str = "evaluate game",
               flag: str = "--out") -> list[dict]:
    """Boards ``start`` .. ``start + deals - 1`` of ``data`` at two tables (A North-South at table 1). With
    ``out`` (JSON lines) finished boards are kept and skipped when the same match (`match_job`) runs again; a file
    of another match is refused in one line naming the first field that differs and ``flag``. One dict per board:
    ``row``, ``board``, ``dealer``, ``vul``, ``par_ns``, ``tables`` (two `table_record` dicts) and ``imps`` for A.
    ``batch``: boards played at once where both card players are `batchable` (1: one board at a time; the boards
    are the same either way, only the seconds differ). ``workers`` > 1: processes over disjoint boards, each
    loading both pairs from their specs (pairs made by `load_pair`); the boards are those of one worker."""
    if int(batch) < 1:
        raise ValueError(f"batch must be at least 1 board, got {batch}")
    if int(workers) < 1:
        raise ValueError(f"workers must be at least 1, got {workers}")
    if workers > 1 and (a.identity is None or b.identity is None):
        raise ValueError("workers > 1 loads the pairs again in each process: make them with load_pair(spec, seed)")
    dataset = load_dataset(data)
    rows = list(range(start, min(len(dataset), start + deals)))
    if not rows:
        raise ValueError(f"{dataset.source}: no board to play (rows {start} to {start + deals - 1} of "
                         f"{len(dataset)} deals)")
    if len(rows) < deals:
        warnings.warn(f"{dataset.source} holds {len(dataset)} deals: playing rows {start}-{rows[-1]}, "
                      f"{len(rows)} boards instead of {deals}", stacklevel=2)
    job = match_job(command, a, b, dataset, data, start, seed)
    done = {item["row"]: item for item in read_done(out, job, flag)} if out is not None else {}
    todo = [row for row in rows if row not in done]
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(desc="boards", unit="board", initial=len(rows) - len(todo), total=len(rows))

    def keep(item: dict) -> None:
        done[item["row"]] = item
        if out is not None:
            append_line(out, item)
        if bar is not None:
            bar.update(1)

    try:
        if workers > 1 and len(todo) > 1:
            _play_in_workers(a, b, dataset, todo, seed, batch, workers, keep)
        elif todo:
            play_boards(a, b, dataset, todo, seed, batch, keep)
    finally:
        if bar is not None:
            bar.close()
    return [done[row] for row in rows]


def play_boards(a: Pair, b: Pair, dataset, todo: list[int], seed: int, batch: int, keep: Callable) -> None:
    """Bid and play the boards of rows ``todo`` at both tables; ``keep(item)`` receives each finished board."""
    source = CompetitiveDealSource(dataset)
    tables = [(a, b), (b, a)]
    for first in range(0, len(todo), int(batch)):  # bid and played a chunk at a time: each board kept as it ends
        rows = todo[first:first + int(batch)]
        starts = [BridgeState.start(source.deal_at(row)) for row in rows for _ in tables]
        seating = [tables[t] for _ in rows for t in range(2)]
        auctions = bid_auctions(starts, seating, [row for row in rows for _ in tables], seed=seed,
                                tables=[t for _ in rows for t in range(2)])
        _play_chunk(tables, auctions, rows, seed, batch, keep)


def _play_chunk(tables, auctions: list, todo: list[int], seed: int, batch: int, keep: Callable) -> None:
    """`play_boards`' play of one chunk of bid boards (``auctions``: two tables a row of ``todo``)."""
    chunk = range(len(todo))
    # the chunk's tables of batchable players first, in lockstep; then board by board, each kept as it
    # finishes (a match of players without act_views runs, and is kept, one board at a time as ever)
    lockstep = [(k, t) for k in chunk for t, (ns, ew) in enumerate(tables)
                if batch > 1 and batchable(ns.player) and batchable(ew.player)]
    results = play_lockstep([auctions[2 * k + t] for k, t in lockstep], [tables[t] for _, t in lockstep])
    played: dict[tuple[int, int], tuple[BridgeState, list]] = dict(zip(lockstep, results))
    for k in chunk:
        row = todo[k]
        records = []
        for t, (ns, ew) in enumerate(tables):
            if (k, t) not in played:
                state = auctions[2 * k + t]
                for side, pair in enumerate((ns, ew)):
                    if hasattr(pair.player, "reseed"):
                        pair.player.reseed(agent_seed(seed, row, 2 * t + side))
                    see_table(pair.player, state, ns, ew)
                played[k, t] = play_out(state, ns, ew)
            record = table_record(*played[k, t])
            record["declaring_pair"] = declaring_pair(record, t)
            records.append(record)
        deal = auctions[2 * k].deal
        keep({"row": row, "board": deal.board, "dealer": SEATS[deal.dealer], "vul": deal.vul,
              "par_ns": int(deal.par_ns), "tables": records,
              "imps": int(imps(records[0]["score_ns"] - records[1]["score_ns"]))})


_WORKER_PAIRS: dict = {}  # (game spec, seed) -> Pair, in a worker process


def _worker_boards(job: tuple) -> list[dict]:
    """One worker's share: the boards of ``rows``, the pairs loaded once per process from their specs."""
    from bridgerl.arena.specs import load_pair

    specs, dataset, rows, seed, batch = job
    pairs = []
    for spec, pair_seed in specs:
        if (spec, pair_seed) not in _WORKER_PAIRS:
            _WORKER_PAIRS[spec, pair_seed] = load_pair(spec, seed=pair_seed)
        pairs.append(_WORKER_PAIRS[spec, pair_seed])
    items: list[dict] = []
    play_boards(pairs[0], pairs[1], dataset, rows, seed, batch, items.append)
    return items


def _play_in_workers(a: Pair, b: Pair, dataset, todo: list[int], seed: int, batch: int, workers: int,
                     keep: Callable) -> None:
    """`play_boards` over ``workers`` processes, in pieces of at most ``batch`` boards (each board kept as its
    piece comes back); a pair's pieces are bid and played as they would be by one process."""
    import multiprocessing

    size = max(1, min(int(batch), -(-len(todo) // (4 * workers))))
    specs = ((a.name, a.identity["seed"]), (b.name, b.identity["seed"]))
    jobs = [(specs, dataset, todo[i:i + size], seed, batch) for i in range(0, len(todo), size)]
    with multiprocessing.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
        for items in pool.imap(_worker_boards, jobs):
            for item in items:
                keep(item)


def summarize_game(boards: list[dict], a: str, b: str) -> dict:
    """IMPs per board for A with the 95% CI, boards won, contracts reached and the declarers' differentials."""
    board_imps = np.array([item["imps"] for item in boards], dtype=np.float64)
    mean, ci = mean_ci(board_imps)
    summary = {"a": a, "b": b, "boards": len(boards), "imps_per_board": mean, "ci95": ci,
               "a_won": int((board_imps > 0).sum()), "b_won": int((board_imps < 0).sum()),
               "same_contract": float(np.mean([_same_contract(item) for item in boards]))}
    for key, name, pair in (("a_declaring", a, "a"), ("b_declaring", b, "b")):
        diffs = [r["differential"] for item in boards for r in item["tables"] if r["declaring_pair"] == pair]
        tricks = [r["tricks"] for item in boards for r in item["tables"] if r["declaring_pair"] == pair]
        d_mean, d_ci = mean_ci(diffs)
        summary[key] = {"pair": name, "contracts": len(diffs), "differential": d_mean, "differential_ci95": d_ci,
                        "tricks": float(np.mean(tricks)) if tricks else float("nan")}
    seconds, cards = np.zeros(2), np.zeros(2)
    for item in boards:
        for table, record in enumerate(item["tables"]):
            for side in (0, 1):  # side 0 (NS) is A at table 1 and B at table 2
                seconds[(side + table) % 2] += record["seconds"][side]
                cards[(side + table) % 2] += record["cards"][side]
    summary["seconds_per_card"] = {"a": float(seconds[0] / max(cards[0], 1)),
                                   "b": float(seconds[1] / max(cards[1], 1))}
    summary["contracts"] = contract_counts(boards)
    return summary


def play_of(a: Pair, b: Pair, dataset=None) -> dict:
    """What played the cards at each table and the tricks table of the differentials, as a match's JSON and
    summary name them: {"a", "b": each pair's card player (resolved spec), "tricks", "tricks_player"}."""
    played_by = None if dataset is None or dataset.tricks != "played" else dataset.played_by
    return {"a": a.described()["player"], "b": b.described()["player"],
            "tricks": "dd" if dataset is None else dataset.tricks,
            "tricks_player": None if played_by is None else played_by["hash"]}


def _same_contract(item: dict) -> bool:
    one, two = item["tables"]
    return one["contract"] == two["contract"] and one["declarer"] == two["declarer"]


def contract_counts(boards: list[dict]) -> dict:
    """How often each kind of contract was reached at each table: passed out, partscore, game, slam, doubled."""
    counts = {"passed_out": 0, "partscore": 0, "game": 0, "slam": 0, "doubled": 0}
    for item in boards:
        for record in item["tables"]:
            name = record["contract"]
            if name == "Pass":
                counts["passed_out"] += 1
                continue
            contract = Contract.parse(name, 0)
            counts["doubled"] += contract.penalty > 0
            kind = bonus_level(contract.level, contract.strain)
            counts["slam" if kind >= SMALL_SLAM else "game" if kind == GAME else "partscore"] += 1
    return counts


def summary_lines(summary: dict) -> list[str]:
    """The lines `bridgerl evaluate game` prints."""
    lines = [f"{summary['a']} vs {summary['b']}: {summary['imps_per_board']:+.2f} IMPs/board for {summary['a']} "
             f"({ci_text(summary['ci95'], summary['boards'])}) over {summary['boards']} boards, each played at "
             "two tables"]
    play = summary.get("play")
    if play is not None:
        table = "DD table" if play["tricks"] == "dd" else f"played table of checkpoint {play['tricks_player'][:12]}"
        lines.append(f"  cards played by {play['a']} for {summary['a']} and {play['b']} for {summary['b']}, at both "
                     f"tables; differentials against the {table}")
    for key in ("a_declaring", "b_declaring"):
        row = summary[key]
        if row["contracts"]:
            lines.append(f"  {row['pair']} declaring: {row['contracts']} contracts, {row['tricks']:.2f} tricks, "
                         f"differential (DD - declarer) {row['differential']:+.2f} "
                         f"({ci_text(row['differential_ci95'], row['contracts'])})")
    per_card = summary["seconds_per_card"]
    lines.append(f"  same contract at both tables on {summary['same_contract']:.0%} of boards; seconds per card: "
                 f"{summary['a']} {per_card['a']:.2g}, {summary['b']} {per_card['b']:.2g}")
    return lines


def show_table(ns: Pair, ew: Pair, data, index: int, seed: int = 0) -> str:
    """One deal at one table, as `bridgerl show` prints it: who sits where, the hands and the auction, each card
    with the seat that chose it (declarer for dummy's cards), the result against double dummy and par."""
    source = CompetitiveDealSource(load_dataset(data))
    state = bid_auctions([BridgeState.start(source.deal_at(index))], [(ns, ew)], [index])[0]
    for side, pair in enumerate((ns, ew)):
        if hasattr(pair.player, "reseed"):
            pair.player.reseed(agent_seed(seed, index, side))
        see_table(pair.player, state, ns, ew)
    chosen: list[str] = []

    def trace(before: BridgeState, action: int, pair: Pair) -> None:
        who = SEATS[before.seat] + (f"(by {SEATS[before.player]})" if before.player != before.seat else "")
        chosen.append(f"{who} {card_name(action - CARD_OFFSET)}")

    final, _ = play_out(state, ns, ew, trace)
    lines = [f"North-South: {ns.name}", f"East-West:   {ew.name}"]
    lines += deal_and_auction_lines(final.deal, final.auction)
    for trick in range(0, len(chosen), 4):
        lines.append(f"  trick {trick // 4 + 1:2d}: " + "  ".join(chosen[trick:trick + 4]))
    record = table_record(final, [[0.0, 0.0], [0, 0]])
    if record["declarer"] is None:
        lines.append(f"  Result: passed out, NS 0, par NS {final.deal.par_ns}")
    else:
        lines.append(f"  Result: {record['contract']} by {record['declarer']}, {record['tricks']} tricks (double dummy "
                     f"{record['dd_tricks']}, differential {record['differential']:+d}), NS {record['score_ns']}, "
                     f"par NS {final.deal.par_ns}")
    return "\n".join(lines) + "\n"


def write_game_pbn(path, boards: list[dict], data, names: tuple[str, str]) -> None:
    """Both tables of every board as PBN hand records (deal, auction, play; the players named per seat), written
    atomically; ``names`` = (A, B), A North-South at table 1."""
    from bridgerl.core.calls import parse_call
    from bridgerl.core.cards import parse_card
    from bridgerl.core.records import record_of, write_pbn_records

    source = CompetitiveDealSource(load_dataset(data))
    records = []
    for item in boards:
        for table, record in enumerate(item["tables"]):
            state = BridgeState.start(source.deal_at(item["row"]))
            for call in record["auction"]:
                state = state.apply(parse_call(call))
            for card in record["play"]:
                state = state.apply(CARD_OFFSET + parse_card(card))
            ns, ew = names if table == 0 else names[::-1]
            records.append(record_of(state, names=(ns, ew, ns, ew), event=f"bridgerl game, table {table + 1}"))
    write_pbn_records(path, records)
