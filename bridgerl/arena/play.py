"""Card-play matches: a declaring agent against a defending agent on dataset deals (`docs/play.md`).

Each deal is played from the opening lead (or from ``played``) with the agents reseeded from (seed, row), so a
deal's result does not depend on which deals came before; a match written to a JSON-lines file resumes where
it stopped.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping

import numpy as np

from bridgerl.core import load_dataset
from bridgerl.core.board import is_vulnerable, vul_for_board
from bridgerl.core.cards import card_name
from bridgerl.core.constraints import HandConstraint
from bridgerl.core.contract import Contract
from bridgerl.core.play import IllegalPlayError, PlayState
from bridgerl.core.stats import mean_ci
from bridgerl.core.card_play import final_reward, notify_deal
from bridgerl.envs import view_of
from bridgerl.arena.jsonlines import append_line, read_done


@dataclass
class PlayRecord:
    """One deal played out."""

    row: int
    board: int
    contract: str
    declarer_tricks: int
    made: bool
    score: int
    play: list[str]
    declarer_seconds: float
    declarer_cards: int
    defence_seconds: float
    defence_cards: int


def agent_seed(seed: int, row: int, side: int) -> int:
    """The seed an agent gets for one deal: independent of the order deals are played in."""
    return int(np.random.SeedSequence([seed, row, side]).generate_state(1, np.uint64)[0])


def play_deal(owner, contract: Contract, declarer_agent, defence_agent, played=(), vulnerable: bool = False,
              constraints: Mapping[int, HandConstraint] | None = None, row: int = -1, board: int = 1) -> PlayRecord:
    """Play one deal to the end: ``declarer_agent`` chooses declarer's and dummy's cards."""
    state = PlayState.start(owner, contract, played)
    for agent in (declarer_agent, defence_agent):
        notify_deal(agent, state.owner)
    seconds, cards = [0.0, 0.0], [0, 0]
    while not state.is_over:
        view = view_of(state, constraints)
        side = 0 if view.is_declaring_side else 1
        agent = declarer_agent if side == 0 else defence_agent
        start = time.perf_counter()
        card = int(agent.act(view))
        seconds[side] += time.perf_counter() - start
        cards[side] += 1
        try:
            state = state.play(card)
        except IllegalPlayError as exc:
            raise IllegalPlayError(f"{type(agent).__name__} played an illegal card: {exc}") from None
    return PlayRecord(row, board, str(contract), state.declarer_tricks,
                      state.declarer_tricks >= contract.tricks_needed, int(final_reward(state, "score", vulnerable)),
                      [card_name(c) for c in state.history], seconds[0], cards[0], seconds[1], cards[1])


def _read_done(path: Path, match: dict) -> dict[int, PlayRecord]:
    """Deals already in ``path``; its first line must describe the same match."""
    done = {}
    for item in read_done(path, match):
        try:
            record = PlayRecord(**item)
        except TypeError:
            continue  # not a deal of this match: played again
        done[record.row] = record
    return done


def play_job(names: tuple[str, str], identities, data, dataset, start: int, contract: Contract, constraints,
             seed: int) -> dict:
    """The identity of a card-play match (`bridgerl.core.identity`), the first line of its results file."""
    from bridgerl.core.dataset import dataset_hash

    job = {"command": "evaluate play"}
    for key, name, identity in zip(("declarer", "defenders"), names, identities or ({}, {})):
        job.update({key: name, f"{key}_resolved": identity.get("resolved", name),
                    f"{key}_checkpoints": identity.get("checkpoints", [])})
    job.update({"data": str(data) if isinstance(data, (str, os.PathLike)) else dataset.source,
                "data_sha256": dataset_hash(dataset), "start": int(start), "contract": str(contract),
                "constraints": {str(k): str(v) for k, v in (constraints or {}).items()}, "seed": int(seed)})
    return job


def play_match(declarer_agent, defence_agent, data="test", contract: str | Contract = "3NT S", deals: int = 100,
               start: int = 0, seed: int = 0, constraints: Mapping[int, HandConstraint] | None = None,
               out: str | os.PathLike | None = None, progress: bool = False,
               names: tuple[str, str] | None = None, identities: tuple[dict, dict] | None = None) -> list[PlayRecord]:
    """Play rows ``start`` .. ``start + deals - 1`` of ``data``; with ``out`` (JSON lines) finished deals are kept
    and skipped when the same match runs again: the agents (``names``, and ``identities`` from
    `bridgerl.arena.specs.load_identified`: resolved specs and checkpoint hashes), the data and its content
    hash, the first row, the contract, the constraints and the seed (`bridgerl.core.identity`)."""
    dataset = load_dataset(data)
    contract = contract if isinstance(contract, Contract) else Contract.parse(contract)
    rows = range(start, min(len(dataset), start + deals))
    if len(rows) == 0:
        raise ValueError(f"{dataset.source}: no deal to play (rows {start} to {start + deals - 1} of "
                         f"{len(dataset)} deals)")
    path = Path(out) if out is not None else None
    names = names or (repr(declarer_agent), repr(defence_agent))
    match = play_job(names, identities, data, dataset, start, contract, constraints, seed)
    done = _read_done(path, match) if path is not None else {}
    todo = [row for row in rows if row not in done]
    iterator = todo
    if progress:
        from tqdm import tqdm

        iterator = tqdm(todo, desc="deals", unit="deal", initial=len(rows) - len(todo), total=len(rows))
    for row in iterator:
        for side, agent in enumerate((declarer_agent, defence_agent)):
            if hasattr(agent, "reseed"):
                agent.reseed(agent_seed(seed, row, side))
        board = int(dataset.boards[row])
        record = play_deal(dataset.owner[row], contract, declarer_agent, defence_agent,
                           vulnerable=is_vulnerable(vul_for_board(board), contract.declarer),
                           constraints=constraints, row=row, board=board)
        done[row] = record
        if path is not None:
            append_line(path, asdict(record))  # one line per deal: an interruption loses at most one deal
    return [done[row] for row in rows]


def summarize(records: list[PlayRecord]) -> dict:
    """Tricks, make rate, score and time per card of each side."""
    tricks, tricks_ci = mean_ci([r.declarer_tricks for r in records])
    made, made_ci = mean_ci([r.made for r in records])
    score, score_ci = mean_ci([r.score for r in records])
    declarer_cards = sum(r.declarer_cards for r in records)
    defence_cards = sum(r.defence_cards for r in records)
    return {
        "deals": len(records), "tricks": tricks, "tricks_ci95": tricks_ci, "make_rate": made,
        "make_rate_ci95": made_ci, "score": score, "score_ci95": score_ci,
        "declarer_seconds_per_card": sum(r.declarer_seconds for r in records) / max(declarer_cards, 1),
        "defence_seconds_per_card": sum(r.defence_seconds for r in records) / max(defence_cards, 1),
    }
