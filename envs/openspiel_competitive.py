"""OpenSpiel game ``bridgerl_competitive_bidding`` (thesis 2.1.3, 4.5.2), registered on import.

Four players (player = seat N, E, S, W), zero-sum between the sides, chance nodes picking the deal (a dataset row;
dealer and vulnerability from its board number). Tensors are the 231 values of thesis 4.5.2, then one bit set once
the auction is over.
Parameters: ``dataset`` (path or "train"/"test") and ``reward`` ("par_imps" or "points").
"""

from __future__ import annotations

import functools

import numpy as np
import pyspiel

from bridgerl.core import Auction, call_name, load_dataset
from bridgerl.core.calls import NUM_CALLS
from bridgerl.core.cards import hand_text
from bridgerl.core.competitive import (HAND_OFFSET, REWARDS, CompetitiveDeal, CompetitiveDealSource, contract_text,
                                       encode, encoded_calls, render_text, result)
from bridgerl.core.scoring import SCORE_TABLE
from bridgerl.envs.openspiel_common import (DealAuctionState, RowDealer, RowGame, TensorObserver, deal_others,
                                           game_type, sampler_rng)

_NUM_PLAYERS = 4
_DEFAULT_PARAMS = {"dataset": "train", "reward": "par_imps", "tricks": "dd"}
_MAX_POINTS = float(np.abs(SCORE_TABLE).max())
_MAX_GAME_LENGTH = 319  # the longest legal auction: 3 passes, then 35 x (bid P P X P P XX P P), then 1 more pass
_GAME_TYPE = game_type("bridgerl_competitive_bidding",
                       "bridgerl competitive bridge bidding (Bethe thesis 4.5.2)",
                       _DEFAULT_PARAMS,
                       _NUM_PLAYERS)


@functools.lru_cache(maxsize=8)
def _deal_source(dataset: str, tricks: str = "dd") -> CompetitiveDealSource:
    return CompetitiveDealSource(load_dataset(dataset, tricks=tricks))


class CompetitiveBiddingGame(RowGame, pyspiel.Game):
    """Competitive bidding as an OpenSpiel game."""

    def __init__(self, params=None):
        params = {**_DEFAULT_PARAMS, **(params or {})}
        if params["reward"] not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {params['reward']!r}")
        self.source = _deal_source(str(params["dataset"]), str(params["tricks"]))
        self.reward_mode = params["reward"]
        self.row_dealer = RowDealer(np.arange(len(self.source.dataset)))
        bound = 24.0 if self.reward_mode == "par_imps" else _MAX_POINTS
        info = pyspiel.GameInfo(num_distinct_actions=NUM_CALLS, max_chance_outcomes=self.row_dealer.max_outcomes,
                                num_players=_NUM_PLAYERS, min_utility=-bound, max_utility=bound, utility_sum=0.0,
                                max_game_length=_MAX_GAME_LENGTH)
        super().__init__(_GAME_TYPE, info, params)

    def new_initial_state(self):
        return CompetitiveBiddingState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return CompetitiveObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class CompetitiveBiddingState(DealAuctionState):
    """A deal (after the chance nodes) and the auction so far; player = seat."""

    def _player_to_act(self):
        return self.auction.to_act

    def _legal_actions(self, player):
        return self.auction.legal_calls()

    def _start(self, row: int):
        self._begin(self._source.deal_at(row))

    def _begin(self, deal: CompetitiveDeal):
        self.deal, self.result = deal, None
        self.auction = Auction(deal.dealer)
        self.hands = deal.hands()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one (what ISMCTS searches over): the same board (dealer,
        vulnerability) and calls, with the other 39 cards dealt afresh uniformly (the auction's meaning is not
        read). ``probability_sampler`` (``sampler()`` -> [0, 1)) seeds the draw. The resampled deal is not a
        dataset row: DDS solves its table and par if the state is scored (about 260 ms). Before the deal, a plain
        clone."""
        if not 0 <= int(player_id) < _NUM_PLAYERS:
            raise ValueError(f"player_id must be a seat 0-3, got {player_id}")
        state = self.clone()
        if self.deal is None:
            return state
        old = self.deal
        world = deal_others(old.owner, int(player_id), sampler_rng(probability_sampler))
        state._begin(CompetitiveDeal(world, None, old.dealer, old.vul, old.board, None))
        for call in self.auction.calls:
            state._call(call)
        return state

    def _call(self, action: int):
        self.auction = self.auction.add(action)
        if self.auction.is_over:
            self.result = result(self.auction, self.deal.dd, self.deal.vul, self.deal.par_ns)

    def _call_name(self, action: int) -> str:
        return call_name(action)

    def _returns(self):
        return self.result.returns(self._reward_mode)

    def encoding_for(self, player: int) -> np.ndarray:
        """The 231 values as ``player`` sees them (before the final pass once the auction is over)."""
        calls = encoded_calls(self.auction)
        return encode(calls, self.deal.vulnerable(player), self.deal.vulnerable(player + 1), self.hands[player])

    def _render(self) -> str:
        text = render_text(self.deal, self.auction, self.result)
        return text if self.result is None else text + f"  Contract: {contract_text(self.result.contract)}\n"


class CompetitiveObserver(TensorObserver):
    """Named views: vulnerable (2), auction (177), hand (52) = the env's 231 values, then auction_over (1): set once
    the auction is over, so a finished auction has its own tensor (the 231 bits do not hold the closing passes)."""

    def __init__(self, iig_obs_type, params):
        super().__init__(iig_obs_type, params, [("vulnerable", 2), ("auction", HAND_OFFSET - 2)], [("hand", 52)],
                         [("auction_over", 1)])

    def fill(self, state: CompetitiveBiddingState, player: int) -> dict:
        full = state.encoding_for(player)
        return {"vulnerable": full[:2], "auction": full[2:HAND_OFFSET], "hand": full[HAND_OFFSET:],
                "auction_over": [state.auction is not None and state.auction.is_over]}

    def string_from(self, state: CompetitiveBiddingState, player: int) -> str:
        if state.deal is None:
            return "(deal not chosen yet)"
        parts = []
        if "hand" in self.dict:
            parts.append(f"{'NESW'[player]} {hand_text(state.deal.owner, player)}")
        if "vulnerable" in self.dict:
            parts.append(f"dealer {'NESW'[state.deal.dealer]} vul {state.deal.vul}")
            parts.append("auction: " + (" ".join(call_name(c) for c in state.auction.calls) or "-"))
        return " | ".join(parts)


pyspiel.register_game(_GAME_TYPE, CompetitiveBiddingGame)
