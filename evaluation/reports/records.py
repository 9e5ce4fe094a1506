"""Hand records (PBN or BBO LIN) scored against par, as thesis 4.1.1 scores human auctions (table 4.1).

Every record whose auction is over is scored for one side: the side that declared, or on a passed-out board the
side with the better constructive par (NS on a tie). Three numbers per board, in IMPs from that side's view:

* ``imps``: the final contract as bid (doubled or not) scored with declarer's double-dummy tricks, minus the
  side's constructive par (`bridgerl.core.par.constructive_par`: the best score it could make without opponents,
  thesis 4.1.1): the main number, at most 0 except where the opponents doubled a making contract. Error categories
  as in `evaluation.bidding.uncontested` (thesis 4.1.1): overbid, underbid across a bonus boundary, wrong strain or level;
  ``at_par`` counts results at or above constructive par.
* ``imps_vs_par``: the same DD score minus the standard (competitive) par of the deal (`CompetitiveDeal.par_ns`).
* ``imps_vs_par_actual``: the score with the tricks the table took (all 52 cards played, or a claim / result)
  minus par; None when the record does not tell them.

Thesis table 4.1 measured uncontested auctions only (the opponents pass throughout): the summary gives that
subset too. A traveller record (contract and result without the auction) is scored like the others from its
contract; having no calls, it is never counted as uncontested. Records whose auction is unfinished are skipped and
listed with the reason; boards the reader refused are listed under ``refused`` (``[{source, reason}]``).
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

import numpy as np

from bridgerl.core import SEATS, imps
from bridgerl.core.board import is_vulnerable
from bridgerl.core.calls import PASS
from bridgerl.core.competitive import CompetitiveDeal, score_ns_for_tricks
from bridgerl.core.contract import Contract
from bridgerl.core.dd import solve_dd_tables
from bridgerl.core.par import constructive_par, constructive_par_contract
from bridgerl.core.records import HandRecord, read_records_report
from bridgerl.core.scoring import bonus_level
from bridgerl.core.stats import mean_ci
from bridgerl.evaluation.bidding.uncontested import CATEGORIES, category


@dataclass
class RecordOutcome:
    board: int
    source: str                # 'file:board'
    side: str                  # 'NS' or 'EW': the side scored (see the module docstring)
    vulnerable: bool           # that side's vulnerability
    uncontested: bool          # the other side passed throughout (thesis 4.1.1's selection); False for a traveller
    contract: str              # '4HX S', or 'Pass'
    declarer: str | None
    level: int                 # 0 for a pass-out
    dd_tricks: int             # declarer's DD tricks (0 for a pass-out)
    tricks: int | None         # the tricks the table took, when the record tells them
    score: int                 # the side's score with DD tricks
    constructive_par: int
    par_contract: str          # a contract reaching constructive par, 'Pass' when passing is par
    par_level: int
    imps: int                  # imps(score - constructive par)
    category: str
    par_ns: int                # the deal's standard par, NS's view
    imps_vs_par: int           # imps(score - par) for the side, DD tricks
    imps_vs_par_actual: int | None  # the same with the table's tricks
    auction: str               # '' for a traveller record
    traveller: bool = False    # the contract and result were told without the auction

    def to_json(self) -> dict:
        return asdict(self)


def _contract_text(contract: Contract | None) -> str:
    return "Pass" if contract is None else f"{contract.name} {SEATS[contract.declarer]}"


def score_record(record: HandRecord, dd=None) -> RecordOutcome:
    """The outcome of one record whose auction is over (``dd``: its DD table, solved when not given)."""
    auction = record.auction
    if not record.auction_over:
        raise ValueError(f"{record.source}: the auction is not over ({auction})")
    if dd is None:
        dd = solve_dd_tables(record.owner[None])[0]
    dd = np.asarray(dd)
    contract = record.contract
    vulnerable = [is_vulnerable(record.vul, 0), is_vulnerable(record.vul, 1)]
    pars = [constructive_par(dd, side, vulnerable[side]) for side in (0, 1)]
    side = contract.declarer % 2 if contract is not None else (0 if pars[0] >= pars[1] else 1)
    sign = 1 if side == 0 else -1
    if contract is None:
        dd_tricks, score_ns = 0, 0
    else:
        dd_tricks = int(dd[contract.declarer, contract.strain])
        score_ns = score_ns_for_tricks(contract, dd_tricks, record.vul)
    par_ns = CompetitiveDeal(record.owner, dd, record.dealer, record.vul, record.board, None).par_ns
    tricks = record.tricks
    actual = None
    if tricks is not None:
        actual_ns = 0 if contract is None else score_ns_for_tricks(contract, tricks, record.vul)
        actual = int(imps(sign * (actual_ns - par_ns)))
    score = sign * score_ns
    points = imps(score - pars[side])
    par_contract = constructive_par_contract(dd, side, vulnerable[side])
    made = contract is None or dd_tricks >= contract.level + 6
    reached = bonus_level(None if contract is None else contract.level, None if contract is None else contract.strain)
    par_bonus = bonus_level(None if par_contract is None else par_contract.level,
                            None if par_contract is None else par_contract.strain)
    others = [call for i, call in enumerate(auction.calls) if (auction.dealer + i) % 2 != side]
    return RecordOutcome(
        board=record.board, source=record.source, side=("NS", "EW")[side], vulnerable=bool(vulnerable[side]),
        uncontested=not record.traveller and all(call == PASS for call in others),
        contract=_contract_text(contract),
        declarer=None if contract is None else SEATS[contract.declarer],
        level=0 if contract is None else contract.level, dd_tricks=dd_tricks, tricks=tricks, score=int(score),
        constructive_par=int(pars[side]), par_contract=_contract_text(par_contract),
        par_level=0 if par_contract is None else par_contract.level, imps=int(points),
        category=category(min(int(points), 0), made, reached, par_bonus), par_ns=int(par_ns),
        imps_vs_par=int(imps(sign * (score_ns - par_ns))), imps_vs_par_actual=actual,
        auction="" if record.traveller else str(auction), traveller=record.traveller)


def _mean(values) -> dict:
    mean, ci = mean_ci(values)
    return {"imps_per_board": mean, "ci95": ci, "boards": len(values)}


def summarize(outcomes: list[RecordOutcome], skipped: list[dict], source: str = "", refused=()) -> dict:
    n = len(outcomes)
    main = _mean([o.imps for o in outcomes])
    uncontested = [o.imps for o in outcomes if o.uncontested]
    actual = [o.imps_vs_par_actual for o in outcomes if o.imps_vs_par_actual is not None]
    shares = {c: float(np.mean([o.category == c for o in outcomes])) if n else 0.0 for c in CATEGORIES}
    matrix = np.zeros((8, 8), dtype=int)
    for o in outcomes:
        matrix[o.level, o.par_level] += 1
    return {
        "file": source, "records": n + len(skipped), "boards": n,
        "imps_per_board": main["imps_per_board"], "ci95": main["ci95"],
        "categories": shares, "at_par_share": shares["at_par"],
        "uncontested": _mean(uncontested),
        "vs_par": _mean([o.imps_vs_par for o in outcomes]),
        "vs_par_actual_tricks": _mean(actual),
        "level_matrix": {"rows": "level reached (0 = passed out)", "columns": "constructive-par level (0 = pass)",
                         "counts": matrix.tolist()},
        "skipped": skipped, "refused": list(refused),
        "travellers": sum(o.traveller for o in outcomes),
    }


def evaluate_records(path: str | os.PathLike, strict: bool = False) -> tuple[dict, list[RecordOutcome]]:
    """Score the auctions of a PBN / LIN file against constructive par and par: (summary, one outcome per scored
    record). ``summary["records"]`` counts the boards read, ``["skipped"]`` lists those read but not scored
    (an unfinished auction) with why, ``["refused"]`` the boards that could not be read (``[{source, reason}]``;
    ``strict``: the first one refuses the whole file)."""
    report = read_records_report(path, strict)
    records = report.require()
    scored, skipped = [], []
    for record in records:
        auction = record.auction
        if record.auction_over:
            scored.append(record)
        else:
            skipped.append({"board": record.board, "source": record.source,
                            "reason": f"auction unfinished after {len(auction.calls)} calls ({auction})"})
    if not scored:
        refused = f", {len(report.refused)} refused (first: {report.refused[0]['reason']})" if report.refused else ""
        raise ValueError(f"{path}: no board with a finished auction to score ({len(skipped)} unfinished{refused})")
    tables = solve_dd_tables(np.stack([record.owner for record in scored]))
    outcomes = [score_record(record, dd) for record, dd in zip(scored, tables)]
    return summarize(outcomes, skipped, str(path), report.refused), outcomes


__all__ = ["RecordOutcome", "evaluate_records", "score_record", "summarize"]
