"""OpenSpiel game ``bridgerl_uncontested_bidding`` (thesis 4.4), registered on import.

Two players, 0 = first bidder, 1 = partner, with identical utility. Two chance nodes pick the deal, uniform over the
dataset rows the side rule allows (a block, then the row: `openspiel_common.RowDealer`; ``game.deal_actions(row)``
starts at a given row). Information state and observation tensors are the 89 bits of thesis fig. 4.4.
Parameters: ``dataset`` (path or "train"/"test"), ``opening_rules``, ``side``, ``reward``.
Rules come from `bridgerl.core.uncontested`; this file only adapts them to OpenSpiel.
"""

from __future__ import annotations

import functools

import numpy as np
import pyspiel

from bridgerl.core import SEATS, load_dataset
from bridgerl.core.calls import NUM_UNCONTESTED_ACTIONS
from bridgerl.core.scoring import SCORE_TABLE
from bridgerl.core.cards import hand_text
from bridgerl.core.uncontested import (REWARDS, SIDES, UncontestedDealSource, action_name, apply_action,
                                       contract_text, initial_pass, legal_actions_mask, render_text, result)
from bridgerl.envs.openspiel_common import DealAuctionState, RowDealer, RowGame, TensorObserver, game_type

_NUM_PLAYERS = 2
_DEFAULT_PARAMS = {"dataset": "train", "opening_rules": True, "side": "thesis", "reward": "imps", "tricks": "dd"}
_MIN_POINTS = float(SCORE_TABLE[:, 1].min() - SCORE_TABLE[:, 0].max())
_MAX_GAME_LENGTH = 37  # an initial pass, 35 bids, the final pass
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
            self.result = result(self.deal, self.auction)

    def _call_name(self, action: int) -> str:
        return action_name(action)

    def _returns(self):
        value = self.result.reward(self._reward_mode)
        return [value, value]

    def _render(self) -> str:
        text = render_text(self.deal, self.auction, self.result)
        return text if self.result is None else text + f"  Contract: {contract_text(self.result.contract)}\n"


class UncontestedObserver(TensorObserver):
    """Named views: vulnerable (1), initial_pass (1), bids (35), hand (52) = the 89 values."""

    def __init__(self, iig_obs_type, params):
        super().__init__(iig_obs_type, params, [("vulnerable", 1), ("initial_pass", 1), ("bids", 35)], [("hand", 52)])

    def fill(self, state: UncontestedBiddingState, player: int) -> dict:
        bids = np.zeros(35, np.float32)
        for call in state.auction.calls:
            if call >= 3:
                bids[call - 3] = 1
        return {"vulnerable": [state.deal.vulnerable], "initial_pass": [initial_pass(state.auction)], "bids": bids,
                "hand": state.deal.owner == state.seat_of(player)}

    def string_from(self, state: UncontestedBiddingState, player: int) -> str:
        if state.deal is None:
            return "(deal not chosen yet)"
        parts = []
        if "hand" in self.dict:
            seat = state.seat_of(player)
            parts.append(f"{SEATS[seat]} {hand_text(state.deal.owner, seat)}")
        if "vulnerable" in self.dict:
            own_calls = [action_name(0 if c == 0 else c - 2) for i, c in enumerate(state.auction.calls) if i % 2 == 0]
            parts.append(f"{SIDES[state.deal.side]} {'vul' if state.deal.vulnerable else 'not vul'}")
            parts.append("auction: " + (" ".join(own_calls) or "-"))
        return " | ".join(parts)


pyspiel.register_game(_GAME_TYPE, UncontestedBiddingGame)
