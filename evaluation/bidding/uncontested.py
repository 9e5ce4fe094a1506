"""Evaluation of a bidding agent against constructive par on uncontested deals (thesis 4.1.1, 4.4.7).

Deals follow the env's side rule; with the thesis rule, deals where neither side can make anything are skipped and
counted. Each deal is bid once by the agent (for both partners) in the Gymnasium env; many envs run in lockstep so
that ``act_batch`` sees a batch. Error categories (thesis 4.1.1, in this precedence): overbid (the contract fails),
underbid across a bonus boundary (the contract makes, or the deal is passed out, while par is at a higher bonus
level), wrong strain or level (any other result worth less than par in IMPs).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from bridgerl.core import SEATS, load_dataset
from bridgerl.core.calls import call_to_uncontested
from bridgerl.core.cards import hand_text
from bridgerl.core.contract import Contract
from bridgerl.core.par import constructive_par_contract
from bridgerl.core.scoring import bonus_level
from bridgerl.core.stats import mean_ci
from bridgerl.core.uncontested import UncontestedDealSource, action_name, contract_text, parse_side_option
from bridgerl.envs.uncontested import UncontestedBiddingEnv
from bridgerl.arena.lockstep import act_batch, run_episodes

CATEGORIES = ("at_par", "overbid", "underbid_bonus", "wrong_strain_or_level")


class EvaluationError(ValueError):
    """The agent misbehaved on a deal (an illegal call), named in the message."""


@dataclass
class DealOutcome:
    row: int
    board: int
    side: str
    vulnerable: bool
    imps: int
    points: int
    score: int
    par: int
    contract: str
    declarer: str | None
    tricks: int
    level: int                 # 0 pass-out, else the contract level
    par_contract: str
    par_level: int             # 0 when passing is par
    category: str
    auction: str
    actions: list[int]         # the partners' uncontested actions in order (0 Pass, 1 + bid)
    hands: dict

    def to_json(self) -> dict:
        return asdict(self)


def category(imps: int, made: bool, level_bonus: int, par_bonus: int) -> str:
    if imps == 0:
        return "at_par"
    if not made:
        return "overbid"
    if par_bonus > level_bonus:
        return "underbid_bonus"
    return "wrong_strain_or_level"


def _outcome(env: UncontestedBiddingEnv, info: dict) -> DealOutcome:
    deal = env.deal
    par_contract = constructive_par_contract(deal.dd, deal.side, deal.vulnerable)
    first = deal.first_bidder
    actions = [call_to_uncontested(c) for c in env.auction.calls[::2]]  # the partners' calls; opponents pass
    calls = [f"{SEATS[(first + 2 * i) % 4]} {action_name(a)}" for i, a in enumerate(actions)]
    # the final info names the contract and its declarer (-1: passed out)
    contract = None if info["declarer"] < 0 else Contract.parse(info["contract"], int(info["declarer"]))
    made = contract is None or info["tricks"] >= contract.level + 6
    reached = bonus_level(None if contract is None else contract.level, None if contract is None else contract.strain)
    par_bonus = bonus_level(None if par_contract is None else par_contract.level,
                            None if par_contract is None else par_contract.strain)
    return DealOutcome(
        row=int(deal.index), board=deal.board, side=("NS", "EW")[deal.side], vulnerable=bool(deal.vulnerable),
        imps=int(info["imps"]), points=int(info["points"]), score=int(info["score"]), par=int(info["par"]),
        contract=info["contract"], declarer=None if contract is None else SEATS[contract.declarer],
        tricks=int(info["tricks"]), level=0 if contract is None else contract.level,
        par_contract="Pass" if par_contract is None else f"{contract_text(par_contract)} {SEATS[par_contract.declarer]}",
        par_level=0 if par_contract is None else par_contract.level,
        category=category(int(info["imps"]), made, reached, par_bonus), auction="  ".join(calls), actions=actions,
        hands={SEATS[first]: hand_text(deal.owner, first), SEATS[(first + 2) % 4]: hand_text(deal.owner, (first + 2) % 4)})


def play_deals(agent, dataset, rows, side: str = "thesis", opening_rules: bool = True, parallel: int = 256,
               agent_name: str = "agent") -> list[DealOutcome]:
    """Bid every row with ``agent``; batches calls through ``act_batch`` when the agent has it."""
    rows = [int(r) for r in rows]
    envs = [UncontestedBiddingEnv(dataset=dataset, side=side, opening_rules=opening_rules, illegal="raise")
            for _ in range(min(parallel, max(len(rows), 1)))]
    outcomes: list[DealOutcome | None] = [None] * len(rows)

    def choose(active):
        return act_batch(agent, np.stack([obs for obs, _ in active]),
                         np.stack([info["action_mask"] for _, info in active]))

    def done(position, env, info):
        outcomes[position] = _outcome(env, info)

    def error(position, env, info, action, exc):
        raise EvaluationError(f"{agent_name} chose an illegal call on deal row {rows[position]} (board "
                              f"{env.deal.board}): {exc}") from None

    run_episodes(envs, rows, choose, done, error)
    return outcomes


def evaluation_rows(dataset, side: str = "thesis", deals: int | None = None) -> tuple[np.ndarray, int]:
    """(rows evaluated, rows skipped because nobody can make anything) under the side rule."""
    source = UncontestedDealSource(dataset, side)
    considered = np.arange(len(dataset)) if deals is None else np.arange(min(deals, len(dataset)))
    eligible = np.intersect1d(considered, source.eligible_rows(source.side))
    return eligible, len(considered) - len(eligible)


def summarize(outcomes: list[DealOutcome], skipped: int = 0, worst: int = 10) -> dict:
    imps = np.array([o.imps for o in outcomes], dtype=np.float64)
    n = len(imps)
    _, ci = mean_ci(imps)
    shares = {c: float(np.mean([o.category == c for o in outcomes])) if n else 0.0 for c in CATEGORIES}
    matrix = np.zeros((8, 8), dtype=int)
    for o in outcomes:
        matrix[o.level, o.par_level] += 1
    ranked = sorted(outcomes, key=lambda o: (o.imps, o.row))[:worst]
    return {
        "imps_per_deal": float(imps.mean()) if n else float("nan"), "ci95": ci, "deals": n,
        "skipped_nothing_makeable": int(skipped), "at_par_share": shares["at_par"],
        "categories": shares,
        "mean_points_vs_par": float(np.mean([o.points for o in outcomes])) if n else float("nan"),
        "level_matrix": {"rows": "level reached (0 = passed out)", "columns": "constructive-par level (0 = pass)",
                         "counts": matrix.tolist()},
        "imp_histogram": {str(k): int(v) for k, v in zip(*np.unique(imps.astype(int), return_counts=True))},
        "worst_deals": [o.to_json() for o in ranked],
    }


def evaluate_uncontested(agent, data="test", deals: int | None = None, side: str = "thesis",
                         opening_rules: bool = True, agent_name: str = "agent") -> tuple[dict, list[DealOutcome]]:
    """Evaluate ``agent`` on ``data`` with the thesis protocol by default; returns (summary, per-deal outcomes)."""
    dataset = load_dataset(data)
    side = parse_side_option(side)
    rows, skipped = evaluation_rows(dataset, side, deals)
    if len(rows) == 0:
        considered = len(dataset) if deals is None else min(deals, len(dataset))
        raise EvaluationError(f"{dataset.source}: no deal to evaluate ({considered} considered of {len(dataset)}, "
                              f"{skipped} skipped because nobody can make anything)")
    outcomes = play_deals(agent, dataset, rows, side, opening_rules, agent_name=agent_name)
    summary = summarize(outcomes, skipped)
    summary.update({"agent": agent_name, "data": dataset.source, "side": side, "opening_rules": opening_rules})
    return summary, outcomes


def compare(outcomes_a: list[DealOutcome], outcomes_b: list[DealOutcome]) -> dict:
    """Paired difference (a - b) in IMPs per deal on the same deals, with its 95% CI."""
    a = {o.row: o.imps for o in outcomes_a}
    b = {o.row: o.imps for o in outcomes_b}
    if a.keys() != b.keys():
        raise ValueError("the two evaluations are not on the same deals")
    diff = np.array([a[r] - b[r] for r in sorted(a)], dtype=np.float64)
    _, ci = mean_ci(diff)
    return {"difference_imps_per_deal": float(diff.mean()), "ci95": ci, "deals": len(diff),
            "a_better": int((diff > 0).sum()), "b_better": int((diff < 0).sum()), "equal": int((diff == 0).sum())}
