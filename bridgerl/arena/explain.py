"""Explanations of agents' calls and cards, measured from the agents themselves (the web view, `bridgerl serve`).

**A call.** What call ``c`` by seat ``s`` after the calls ``h`` shows is measured by replaying the agent: over
``deals`` held-out deals, seat ``s`` receives each deal's hand (the other seats' calls stay those of ``h``, dealer
and vulnerability those of the board); a hand is kept when the agent, holding it, would have made every earlier
call of seat ``s`` in ``h`` and then ``c``. The kept hands' HCP and suit lengths (least, most, mean) are what the call
shows, and their count against the hands that reached this turn is how often the agent makes it there; beside it,
the calls the agent makes at this turn over all those hands (``calls_here``: its measured alternatives). The agent's
own view of the decision comes beside it: a DQN's Q-values (IMPs) of its best calls, a PPO policy's probabilities,
the `sayc` table rule's words, and for ``bidsearch:`` its candidates with BASE's probability and their mean IMPs
against BASE's call over the worlds it kept (how many, of how many drawn, and their effective sample size).

**A card.** For PIMC, the worlds it sampled for the decision, each candidate card's value as the player chose by
(mean tricks, the probability of its target, or the σ goal's mean - σ), its mean double-dummy tricks from this point
on for the side to play, and the share of worlds in which it takes the most tricks, all from the player's own
decision (``PIMCAgent.last``: no second solve). For the double-dummy player, the one world: the actual deal. For
αμ, its worlds and each card's probability of making the contract after its search and after one move (what PIMC
with the make objective would say).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from bridgerl.core import load_dataset
from bridgerl.core.bridge import BridgeState
from bridgerl.core.calls import NUM_CALLS, call_name
from bridgerl.core.cards import SEATS, card_name
from bridgerl.core.competitive import CompetitiveDeal
from bridgerl.core.hand import hcp, suit_lengths
from bridgerl.arena.lockstep import act_batch

SUITS = "SHDC"  # the order bridge players read a hand in


def hand_features(owner: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """(hcp int[N], lengths int[N, 4] in S, H, D, C order) of ``seat``'s hand in each deal of owner[N, 52]."""
    seats = np.full(len(owner), seat)
    return np.atleast_1d(hcp(owner, seats)), suit_lengths(owner, seats)[:, ::-1]  # ours are C, D, H, S


def _span(values: np.ndarray) -> dict:
    return {"min": int(values.min()), "max": int(values.max()), "mean": round(float(values.mean()), 2)}


def call_shows(bidder, calls: Sequence[int], position: int, dealer: int, vul: str, owner: np.ndarray,
               dd: np.ndarray, board: int = 1) -> dict:
    """What the call at ``position`` of ``calls`` shows, measured by replaying ``bidder`` on the deals
    ``owner``/``dd`` (see the module docstring)."""
    seat = (dealer + position) % 4
    turns = [p for p in range(position + 1) if (dealer + p) % 4 == seat]
    states = [BridgeState.start(CompetitiveDeal(owner[i], dd[i], dealer, vul, board, None)) for i in range(len(owner))]
    alive = np.arange(len(owner))
    reached, others = len(alive), []
    for p in range(position + 1):
        if p in turns:
            reached = len(alive)
            if reached == 0:
                break
            group = [states[i] for i in alive]
            observations = np.stack([s.auction_observation() for s in group])
            masks = np.stack([s.auction.legal_mask().astype(np.int8) for s in group])
            chosen = np.asarray(act_batch(bidder, observations, masks, [s.view() for s in group]))
            if p == position:  # what the agent calls at this turn, over every hand that reaches it
                made, counts = np.unique(chosen, return_counts=True)
                order = np.argsort(-counts, kind="stable")[:6]
                others = [{"call": call_name(int(made[i])), "share": round(int(counts[i]) / len(chosen), 4)}
                          for i in order]
            alive = alive[chosen == calls[p]]
        for i in alive:
            states[i] = states[i].apply(calls[p])
    result = {"seat": SEATS[seat], "deals": int(len(owner)), "reached": int(reached), "hands": int(len(alive)),
              "share": round(len(alive) / reached, 4) if reached else None, "calls_here": others}
    if len(alive):
        points, lengths = hand_features(owner[alive], seat)
        result["hcp"] = _span(points)
        result["lengths"] = {suit: _span(lengths[:, k]) for k, suit in enumerate(SUITS)}
    return result


def considered(bidder, state: BridgeState, top: int = 5) -> dict:
    """The agent's own view of the decision: its best calls with their values, or the rule it follows."""
    view = state.view()
    mask = state.auction.legal_mask().astype(bool)
    if hasattr(bidder, "explain"):  # sayc: the table rule's words
        call, why = bidder.explain(view)
        return {"kind": "rule", "rule": why}
    if callable(getattr(bidder, "decide", None)):  # bidsearch: its candidates, their IMPs and the worlds behind them
        calls = tuple(int(c) for c in state.auction.calls)
        bidder.reseed(int(np.random.SeedSequence([state.deal.dealer, len(calls), *calls, 65])
                          .generate_state(1)[0]))  # the same explanation every time the page asks
        decision = bidder.decide(state.auction_observation(), mask)
        found = decision.as_dict()
        return {"kind": "search", "text": decision.explain(), "searched": decision.searched,
                "fallback": decision.fallback, "worlds": decision.worlds, "drawn": decision.drawn,
                "ess": round(decision.ess, 2), "chosen": found["call_name"], "base_call": found["base_call_name"],
                "candidates": [{"call": c["name"], "probability": round(c["probability"], 3),
                                "imps": None if c["imps"] is None else round(c["imps"], 2)}
                               for c in found["candidates"]]}
    if hasattr(bidder, "q_values") and getattr(bidder, "_composite", None) is None:
        outputs = np.asarray(bidder.q_values(state.auction_observation()[None]))[0][:NUM_CALLS]
        legal = np.flatnonzero(mask)
        if getattr(bidder, "kind", "") == "PPO model":  # logits: the policy's probabilities over the legal calls
            logits = outputs[legal] - outputs[legal].max()
            values, kind = np.exp(logits) / np.exp(logits).sum(), "probability"
        else:
            values, kind = outputs[legal], "Q-value (IMPs)"
        order = np.argsort(-values, kind="stable")[:top]
        return {"kind": kind, "calls": [{"call": call_name(int(legal[i])), "value": round(float(values[i]), 3)}
                                        for i in order]}
    return {"kind": "none", "note": f"{type(bidder).__name__} reports no values for its calls"}


class AuctionExplainer:
    """Explanations of each call of an auction, measured on the first ``deals`` rows of ``data`` (held-out deals),
    cached per (bidder name, auction prefix, call)."""

    def __init__(self, data="valid", deals: int = 400):
        if deals < 1:
            raise ValueError(f"explanation deals must be at least 1, got {deals}")
        dataset = load_dataset(data)
        deals = min(deals, len(dataset))
        self.owner, self.dd, self.deals = dataset.owner[:deals], dataset.dd[:deals], deals
        self._cache: dict = {}

    def explain(self, name: str, bidder, state: BridgeState, call: int) -> dict:
        """The explanation of ``bidder`` (called ``name``) making ``call`` in ``state`` (its auction so far)."""
        calls = tuple(int(c) for c in state.auction.calls)
        key = (name, state.deal.dealer, state.deal.vul, calls, int(call))
        if key not in self._cache:
            shows = call_shows(bidder, calls + (int(call),), len(calls), state.deal.dealer, state.deal.vul,
                               self.owner, self.dd)
            self._cache[key] = {"shows": shows, "considered": considered(bidder, state)}
        return self._cache[key]


def card_explanation(player, view) -> dict:
    """The summary of the card decision ``player`` has just made on ``view`` (call it after ``act``): PIMC's worlds
    and values (its ``last``), αμ's search (its ``last_search``), the double-dummy player's one world, or a note."""
    search = getattr(player, "last_search", None)
    if search is not None:  # αμ: the probability of making after its search, and after one move (PIMC)
        values, pimc = np.asarray(search["values"]), np.asarray(search["pimc_values"])
        legal = np.flatnonzero(values >= 0)
        candidates = [{"card": card_name(int(c)), "make": round(float(values[c]), 3),
                       "pimc_make": round(float(pimc[c]), 3)} for c in legal]
        candidates.sort(key=lambda item: (-item["make"], -item["pimc_make"]))
        worlds = search["worlds"]
        return {"kind": "alphamu", "worlds": int(len(worlds)), "distinct": int(len(np.unique(worlds, axis=0))),
                "candidates": candidates}
    last = getattr(player, "last", None)
    if isinstance(last, dict) and "scores" in last and "values" in last:  # PIMC
        scores, worlds = np.asarray(last["scores"], dtype=np.float64), last["worlds"]
        weights = last.get("weights")
        weights = np.full(len(worlds), 1.0 / len(worlds)) if weights is None else np.asarray(weights)
        values = np.asarray(last["values"])
        legal = np.flatnonzero(scores[0] >= 0)
        best = scores[:, legal].max(1)
        candidates = [{"card": card_name(int(c)), "value": round(float(values[c]), 3),
                       "tricks": round(float(weights @ scores[:, c]), 3),
                       "best_share": round(float(weights @ (scores[:, c] == best)), 3)} for c in legal]
        candidates.sort(key=lambda item: (-item["value"], -item["tricks"]))
        value = ("mean - sigma among the cards reaching the goal" if getattr(player, "goal", "") == "sigma" else
                 "probability of reaching the target" if getattr(player, "objective", "") == "make" else "mean tricks")
        return {"kind": "worlds", "value": value, "worlds": int(len(worlds)),
                "distinct": int(len(np.unique(worlds, axis=0))), "candidates": candidates}
    if hasattr(player, "card_values") and hasattr(player, "see_deal"):  # double dummy: one world, the deal
        values = np.asarray(player.card_values(view))
        legal = np.flatnonzero(values >= 0)
        top = values[legal].max()
        candidates = [{"card": card_name(int(c)), "value": float(values[c]), "tricks": float(values[c]),
                       "best_share": float(values[c] == top)} for c in legal]
        candidates.sort(key=lambda item: -item["tricks"])
        return {"kind": "double dummy", "value": "tricks", "worlds": 1, "distinct": 1, "candidates": candidates}
    return {"kind": "none", "note": f"{type(player).__name__} reports no values for its cards"}
