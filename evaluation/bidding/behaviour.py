"""The thesis' failure mode (4.4.7, tables 4.5 and 4.6): how often an agent passes where the rule openings and a
natural response would bid, with sample hands.

Openings: hands of the first bidder with 12-13 HCP, where the opening rules allow both Pass and a rule opening
(players open such hands; the thesis DQN often passed). Responses: the partner of a one-level suit opener with
6+ HCP (a natural response bids). The "rules" column is `RuleBidder`'s call in the same position.
"""

from __future__ import annotations

import numpy as np

from bridgerl.agents.bidding.rules import RuleBidder
from bridgerl.core import load_dataset
from bridgerl.core.cards import hand_text
from bridgerl.core.hand import hcp
from bridgerl.core.uncontested import action_name, apply_action, legal_actions_mask, observation
from bridgerl.core.uncontested import UncontestedDealSource


def _replay(deal, calls):
    """Auctions after each of the partners' calls (uncontested actions), from the start."""
    auction = deal.new_auction()
    states = [auction]
    for action in calls:
        auction = apply_action(deal, auction, action)
        states.append(auction)
    return states


def pass_rates(outcomes, data="test", side: str = "thesis", opening_rules: bool = True, examples: int = 5) -> dict:
    """Opening and response pass rates of the agent behind ``outcomes`` (from `evaluate_uncontested` with the
    same data, side and opening rules)."""
    dataset = load_dataset(data)
    source = UncontestedDealSource(dataset, side, opening_rules)
    rules = RuleBidder()
    openings = {"positions": 0, "agent_passed": 0, "rules_passed": 0, "examples": []}
    responses = {"positions": 0, "agent_passed": 0, "rules_passed": 0, "examples": []}
    for outcome in outcomes:
        deal = source.deal_at(outcome.row)
        calls = outcome.actions
        states = _replay(deal, calls)
        first = deal.first_bidder
        points = int(hcp(deal.owner, first))
        if 12 <= points <= 13:
            mask = legal_actions_mask(deal, states[0])
            if mask[0] and mask[1:].any():
                _record(openings, rules, deal, states[0], first, calls[0], outcome, mask)
        # responder to a one-level suit opening
        opener_turn = 0 if calls[0] != 0 else 1
        if opener_turn < len(calls) - 1 and 1 <= calls[opener_turn] <= 4:
            responder = (first + 2 * (opener_turn + 1)) % 4
            if hcp(deal.owner, responder) >= 6:
                state = states[opener_turn + 1]
                mask = legal_actions_mask(deal, state)
                _record(responses, rules, deal, state, responder, calls[opener_turn + 1], outcome, mask)
    for table in (openings, responses):
        n = max(table["positions"], 1)
        table["agent_pass_rate"] = table["agent_passed"] / n
        table["rules_pass_rate"] = table["rules_passed"] / n
        table["examples"] = sorted(table["examples"], key=lambda e: e["imps"])[:examples]
    return {"openings_12_13_hcp": openings, "responses_6_plus_hcp": responses}


def _record(table, rules, deal, auction, seat, action, outcome, mask) -> None:
    obs = observation(deal, auction, seat)
    rule_action = rules.act(obs, mask.astype(np.int8))
    table["positions"] += 1
    table["agent_passed"] += int(action == 0)
    table["rules_passed"] += int(rule_action == 0)
    if action == 0 and rule_action != 0:
        table["examples"].append({"hand": hand_text(deal.owner, seat), "auction_so_far": str(auction),
                                  "rules": action_name(rule_action), "agent": "Pass", "imps": outcome.imps,
                                  "row": outcome.row})
