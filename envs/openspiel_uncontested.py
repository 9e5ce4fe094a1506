"""OpenSpiel game ``bridgerl_uncontested_bidding`` (thesis 4.4), registered on import.

Two players, 0 = first bidder, 1 = partner, with identical utility. Two chance nodes pick the deal, uniform over the
dataset rows the side rule allows (a block, then the row: `openspiel_common.RowDealer`; ``game.deal_actions(row)``
starts at a given row). Information state and observation tensors are the 89 bits of thesis fig. 4.4, then one bit
set once the auction is over.
Parameters: ``dataset`` (path or "train"/"test"), ``opening_rules``, ``side``, ``reward``.
Rules come from `bridgerl.core.uncontested`; this file only adapts them to OpenSpiel.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pyspiel

from bridgerl.core import SEATS, load_dataset
from bridgerl.core.calls import NUM_UNCONTESTED_ACTIONS, call_to_uncontested
from bridgerl.core.scoring import SCORE_TABLE
from bridgerl.core.cards import hand_text
from bridgerl.core.dd import solve_dd_table
from bridgerl.core.uncontested import (REWARDS, SIDES, UncontestedDeal, UncontestedDealSource, action_name,
                                       apply_action, contract_text, initial_pass,
                                       legal_actions_mask, opening_action_mask, render_text, result, side_rule_deals)
from bridgerl.envs.openspiel_common import (DealAuctionState, RowDealer, RowGame, TensorObserver, deals_others,
                                           game_of, game_type, sampler_rng)

_NUM_PLAYERS = 2
_DEFAULT_PARAMS = {"dataset": "train", "opening_rules": True, "side": "thesis", "reward": "imps", "tricks": "dd"}
_MIN_POINTS = float(SCORE_TABLE[:, 1].min() - SCORE_TABLE[:, 0].max())
_MAX_GAME_LENGTH = 37  # an initial pass, 35 bids, the final pass
_RESAMPLE_BATCH, _RESAMPLE_ROUNDS = 1024, 64  # deals drawn at once, and how many times, to meet the opening rules
_SIDE_RULE_BATCH = 4  # of those, tried in turn against the thesis side rule before more are drawn
_GAME_TYPE = game_type("bridgerl_uncontested_bidding",
                       "bridgerl uncontested bridge bidding (Bethe thesis 4.4)",
                       _DEFAULT_PARAMS,
                       _NUM_PLAYERS,
                       utility=pyspiel.GameType.Utility.IDENTICAL)


@functools.lru_cache(maxsize=8)
def _deal_source(dataset: str, side: str, opening_rules: bool, tricks: str = "dd") -> UncontestedDealSource:
    return UncontestedDealSource(load_dataset(dataset, tricks=tricks), side, opening_rules)


def _game_info(max_chance_outcomes: int, reward: str) -> pyspiel.GameInfo:
    return pyspiel.GameInfo(
        num_distinct_actions=NUM_UNCONTESTED_ACTIONS,
        max_chance_outcomes=max_chance_outcomes,
        num_players=_NUM_PLAYERS,
        min_utility=-24.0 if reward == "imps" else _MIN_POINTS,
        max_utility=0.0,
        utility_sum=None,
        max_game_length=_MAX_GAME_LENGTH)


class UncontestedBiddingGame(RowGame, pyspiel.Game):
    """Uncontested bidding as an OpenSpiel game."""

    def __init__(self, params=None):
        params = {**_DEFAULT_PARAMS, **(params or {})}
        if params["reward"] not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {params['reward']!r}")
        self.source = _deal_source(str(params["dataset"]), str(params["side"]), bool(params["opening_rules"]),
                                   str(params["tricks"]))
        self.reward_mode = params["reward"]
        self.row_dealer = RowDealer(self.source.eligible_rows(self.source.side))
        super().__init__(_GAME_TYPE, _game_info(self.row_dealer.max_outcomes, self.reward_mode), params)

    def new_initial_state(self):
        return UncontestedBiddingState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return UncontestedObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class UncontestedBiddingState(DealAuctionState):
    """A deal (after the chance nodes) and the auction so far; player 0 is the first bidder."""

    def _player_to_act(self):
        return 0 if self.auction.to_act == self.deal.first_bidder else 1

    def seat_of(self, player: int) -> int:
        return self.deal.first_bidder if player == 0 else (self.deal.first_bidder + 2) % 4

    def _legal_actions(self, player):
        return np.flatnonzero(legal_actions_mask(self.deal, self.auction)).tolist()

    def _start(self, row: int):
        self.deal = self._source.deal_at(row)
        self.auction = self.deal.new_auction()

    def _call(self, action: int):
        self.auction = apply_action(self.deal, self.auction, action)
        if self.auction.is_over:
            if self.deal.dd is None:  # a resampled deal, scored: DDS solves it now
                self.deal = dataclasses.replace(self.deal, dd=solve_dd_table(self.deal.owner))
            self.result = result(self.deal, self.auction)

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one (what ISMCTS searches over): the same bidding side,
        vulnerability and calls, with the 39 cards it does not hold dealt afresh uniformly among the layouts where
        the partner's calls were legal (with the opening rules, a partner who opened or passed first holds a hand
        whose opening rules allow that call) and, with the thesis side rule (4.4.6, ``side="thesis"``), that the
        rule deals to this side (someone makes a contract; EW bid unless their constructive par is 0): rejection
        sampling, the side rule checked by `side_rule_deals` (one DDS search of EW's likeliest contract settles
        most layouts; the whole table, kept for the score, where it does not). The auction's meaning is not read
        further. ``probability_sampler`` (``sampler()`` -> [0, 1)) seeds the draw. The resampled deal is not a dataset row: without the side rule
        DDS solves its table if the state is scored. Before the deal, a plain clone."""
        if int(player_id) not in (0, 1):
            raise ValueError(f"player_id must be 0 (first bidder) or 1 (partner), got {player_id}")
        state = self.clone()
        if self.deal is None:
            return state
        old, player = self.deal, int(player_id)
        seat, other = self.seat_of(player), self.seat_of(1 - player)
        needed = self._partner_openings(1 - player) if old.opening_rules else []
        rng = sampler_rng(probability_sampler)
        thesis = game_of(self).source.side == "thesis"
        world = dd = None
        for _ in range(_RESAMPLE_ROUNDS):
            worlds = deals_others(old.owner, seat, rng, _RESAMPLE_BATCH)
            fits = np.ones(len(worlds), dtype=bool)
            if needed:
                fits &= opening_action_mask(worlds, other)[:, needed].all(axis=1)
            candidates = worlds[fits]
            if thesis and len(candidates):  # the side rule reads DD tricks: the first of a few that it deals
                for candidate in candidates[:_SIDE_RULE_BATCH]:
                    dealt, dd = side_rule_deals(candidate, old.side)
                    if dealt:
                        candidates = candidate[None]
                        break
                else:
                    candidates, dd = candidates[:0], None
            if len(candidates):
                world = candidates[0]
                break
        if world is None:
            raise RuntimeError(f"no deal in {_RESAMPLE_ROUNDS * _RESAMPLE_BATCH} draws lets the partner make the calls "
                               f"it made under the opening rules ({' '.join(action_name(a) for a in needed)})"
                               + (" with this side bidding (thesis side rule)" if thesis else ""))
        state.deal = UncontestedDeal(world, dd, old.side, old.vulnerable, old.board, None, old.opening_rules)
        state.auction, state.result = state.deal.new_auction(), None
        for action in self._side_actions():
            state._call(action)
        return state

    def _side_actions(self) -> list[int]:
        """The bidding side's actions so far (the silent opponent's passes left out)."""
        return [call_to_uncontested(call) for call in self.auction.calls[::2]]

    def _partner_openings(self, player: int) -> list[int]:
        """The actions ``player`` made while no bid had been made (those the opening rules restrict)."""
        made = []
        for i, action in enumerate(self._side_actions()):
            if i % 2 == player:
                made.append(action)
            if action != 0:
                break
        return made

    def _call_name(self, action: int) -> str:
        return action_name(action)

    def _returns(self):
        value = self.result.reward(self._reward_mode)
        return [value, value]

    def _render(self) -> str:
        text = render_text(self.deal, self.auction, self.result)
        return text if self.result is None else text + f"  Contract: {contract_text(self.result.contract)}\n"


class UncontestedObserver(TensorObserver):
    """Named views: vulnerable (1), initial_pass (1), bids (35), hand (52) = the env's 89 values, then
    auction_over (1): set once the final Pass is made, so a finished auction has its own tensor (the thesis' 89 bits
    do not hold the final Pass)."""

    def __init__(self, iig_obs_type, params):
        super().__init__(iig_obs_type, params, [("vulnerable", 1), ("initial_pass", 1), ("bids", 35)], [("hand", 52)],
                         [("auction_over", 1)])

    def fill(self, state: UncontestedBiddingState, player: int) -> dict:
        bids = np.zeros(35, np.float32)
        for call in state.auction.calls:
            if call >= 3:
                bids[call - 3] = 1
        return {"vulnerable": [state.deal.vulnerable], "initial_pass": [initial_pass(state.auction)], "bids": bids,
                "hand": state.deal.owner == state.seat_of(player), "auction_over": [state.auction.is_over]}

    def string_from(self, state: UncontestedBiddingState, player: int) -> str:
        if state.deal is None:
            return "(deal not chosen yet)"
        parts = []
        if "hand" in self.dict:
            seat = state.seat_of(player)
            parts.append(f"{SEATS[seat]} {hand_text(state.deal.owner, seat)}")
        if "vulnerable" in self.dict:
            own_calls = [action_name(a) for a in state._side_actions()]
            parts.append(f"{SIDES[state.deal.side]} {'vul' if state.deal.vulnerable else 'not vul'}")
            parts.append("auction: " + (" ".join(own_calls) or "-"))
        return " | ".join(parts)


pyspiel.register_game(_GAME_TYPE, UncontestedBiddingGame)
