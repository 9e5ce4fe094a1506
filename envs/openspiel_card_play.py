"""OpenSpiel game ``bridgerl_card_play`` (thesis 2.1.5), registered on import.

Four players N, E, S, W; declarer acts for dummy, so dummy's player never acts. Zero-sum between the sides: the
declaring side gets the reward of `envs/card_play.py` (tricks, score or make), the defence its negation.
A chance node picks a dataset row (uniformly) unless ``index`` >= 0 or ``deal`` (PBN) fixes the deal.
Parameters: ``dataset``, ``index``, ``deal``, ``contract`` ("3NT", "4SX"), ``declarer`` ("S"), ``played``
(space-separated cards already played), ``reward``. Observation tensor: `play_encoding` for that player.
"""

from __future__ import annotations

import functools

import numpy as np
import pyspiel

from bridgerl.core import load_dataset
from bridgerl.core.board import is_vulnerable, parse_vul, vul_for_board
from bridgerl.core.cards import SEATS, card_name, hand_text
from bridgerl.core.pbn import parse_deal_option
from bridgerl.core.play import PlayState
from bridgerl.envs.card_play import REWARDS, final_reward, parse_contract, parse_played, render_text
from bridgerl.envs.openspiel_common import TensorObserver
from bridgerl.envs.play_encoding import LAYOUT, encode_pieces
from bridgerl.envs.play_view import view_of

_NUM_PLAYERS = 4
_DEFAULT_PARAMS = {"dataset": "train", "index": -1, "deal": "", "contract": "3NT", "declarer": "S", "played": "",
                   "reward": "tricks"}
_PUBLIC = [(name, size) for name, size in LAYOUT if name not in ("hand", "visible")]
_PRIVATE = [(name, size) for name, size in LAYOUT if name in ("hand", "visible")]
_GAME_TYPE = pyspiel.GameType(
    short_name="bridgerl_card_play",
    long_name="bridgerl bridge card play (declarer controls dummy)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=_NUM_PLAYERS,
    min_num_players=_NUM_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULT_PARAMS)

_UTILITY_BOUNDS = {"tricks": 13.0, "make": 1.0, "score": 7600.0}


@functools.lru_cache(maxsize=8)
def _dataset(name: str):
    return load_dataset(name)


def _game_info(num_rows: int, reward: str) -> pyspiel.GameInfo:
    bound = _UTILITY_BOUNDS[reward]
    return pyspiel.GameInfo(num_distinct_actions=52, max_chance_outcomes=num_rows, num_players=_NUM_PLAYERS,
                            min_utility=-bound, max_utility=bound, utility_sum=0.0, max_game_length=52)


class CardPlayGame(pyspiel.Game):
    """Card play of one contract as an OpenSpiel game."""

    def __init__(self, params=None):
        params = {**_DEFAULT_PARAMS, **(params or {})}
        if params["reward"] not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {params['reward']!r}")
        self.dataset = _dataset(str(params["dataset"]))
        self.contract = parse_contract(params["contract"], params["declarer"])
        self.played = parse_played(params["played"])
        self.reward_mode = params["reward"]
        self.fixed = None
        if params["deal"]:
            owner, board, vul, _ = parse_deal_option(params["deal"])
            self.fixed = (owner, vul or vul_for_board(board))
        elif int(params["index"]) >= 0:
            self.fixed = self.row(int(params["index"]))
        super().__init__(_GAME_TYPE, _game_info(len(self.dataset), self.reward_mode), params)

    def row(self, row: int) -> tuple[np.ndarray, str]:
        if not 0 <= row < len(self.dataset):
            raise ValueError(f"index {row} is outside the dataset's rows 0..{len(self.dataset) - 1}")
        return self.dataset.owner[row], vul_for_board(int(self.dataset.boards[row]))

    def new_initial_state(self):
        return CardPlayState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return CardPlayObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class CardPlayState(pyspiel.State):
    """The play of one deal; before the deal is chosen, a chance node."""

    def __init__(self, game: CardPlayGame):
        super().__init__(game)
        self._game = game
        self.play_state: PlayState | None = None
        self.vulnerable = False
        if game.fixed is not None:
            self._start(*game.fixed)

    @property
    def deal(self):
        return None if self.play_state is None else self.play_state.owner

    def _start(self, owner, vul: str) -> None:
        contract = self._game.contract
        self.vulnerable = is_vulnerable(parse_vul(vul), contract.declarer)
        self.play_state = PlayState.start(owner, contract, self._game.played)

    def view(self, player: int | None = None):
        """`PlayerView` of the player to act (or of ``player``): what a play agent's ``act`` takes."""
        return view_of(self.play_state, player=player)

    def current_player(self):
        if self.play_state is None:
            return pyspiel.PlayerId.CHANCE
        if self.play_state.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self.play_state.controller

    def chance_outcomes(self):
        if self.play_state is not None:
            raise ValueError("chance_outcomes called on a non-chance state")
        p = 1.0 / len(self._game.dataset)
        return [(row, p) for row in range(len(self._game.dataset))]

    def _legal_actions(self, player):
        return self.play_state.legal_cards()

    def _apply_action(self, action):
        if self.play_state is None:
            self._start(*self._game.row(int(action)))
        else:
            self.play_state = self.play_state.play(int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal row {action}"
        return card_name(int(action))

    def is_terminal(self):
        return self.play_state is not None and self.play_state.is_over

    def returns(self):
        if not self.is_terminal():
            return [0.0] * _NUM_PLAYERS
        value = final_reward(self.play_state, self._game.reward_mode, self.vulnerable)
        declarer = self.play_state.declarer
        return [value if seat % 2 == declarer % 2 else -value for seat in range(_NUM_PLAYERS)]

    def __str__(self):
        return "(deal not chosen yet)" if self.play_state is None else render_text(self.play_state)


class CardPlayObserver(TensorObserver):
    """Named views of `play_encoding.LAYOUT`; ``hand`` and ``visible`` are the private pieces."""

    def __init__(self, iig_obs_type, params):
        super().__init__(iig_obs_type, params, _PUBLIC, _PRIVATE)
        self.perfect_recall = iig_obs_type.perfect_recall

    def fill(self, state: CardPlayState, player: int) -> dict:
        return encode_pieces(view_of(state.play_state, player=player))

    def string_from(self, state: CardPlayState, player: int) -> str:
        if state.play_state is None:
            return "(deal not chosen yet)"
        ps = state.play_state
        view = view_of(ps, player=player)
        parts = [f"{SEATS[player]} {hand_text(ps.remaining_owner(), player)}", f"{ps.contract}"]
        if view.dummy_cards is not None and player != ps.dummy:
            parts.append(f"dummy {hand_text(ps.remaining_owner(), ps.dummy)}")
        if self.perfect_recall:
            parts.append("play: " + (" ".join(card_name(c) for c in ps.history) or "-"))
        else:
            parts.append(f"trick: {' '.join(card_name(c) for c in ps.trick.cards) or '-'}")
            parts.append(f"tricks {ps.declarer_tricks}-{ps.defence_tricks}")
        return " | ".join(parts)


pyspiel.register_game(_GAME_TYPE, CardPlayGame)
