"""Pieces shared by the OpenSpiel bidding games: the chance-then-auction state and the tensor observer."""

from __future__ import annotations

import numpy as np
import pyspiel


def game_of(state: pyspiel.State):
    """The Python game object of ``state``, as our ``Game.__init__`` built it (attributes included).

    A python state must not keep its game (or anything taken from it) in its ``__dict__``: OpenSpiel's
    ``State.clone()`` deep-copies every ``__dict__`` value into a fresh ``game.new_initial_state()``, and
    ``serialize()`` pickles the ``__dict__``. A ``pyspiel.Game`` pickles as its parameter string only, so the copy
    comes back as a new instance of our Game class whose C++ part is re-loaded but whose Python ``__init__`` never
    ran: no ``reward_mode``, ``dataset``, ``contract`` ... (``AttributeError`` in ``returns()`` under ``MCTSBot``).
    Plain values copied from the game survive, but each clone then deep-copies them and each serialized state
    carries them (the whole dataset for the bidding games: ~2 MB a state). ``state.get_game()`` is the game the
    state was made by (for a clone, the original's; after ``deserialize_game_and_state``, the freshly loaded one)."""
    return state.get_game()


class DealAuctionState(pyspiel.State):
    """A chance node picks a dataset row (uniformly from ``game.rows``), then players call until the auction ends.

    Subclasses say who acts (`_player_to_act`), what is legal, how a deal starts (`_start`), how a call applies
    (`_call`, which sets ``self.result`` at the end), the returns and the text."""

    def __init__(self, game):
        super().__init__(game)
        self.deal = None
        self.auction = None
        self.result = None

    # Game-wide data is read from the game on each use, never kept in the state's __dict__: see `game_of`.
    @property
    def _rows(self):
        return game_of(self).rows

    @property
    def _reward_mode(self) -> str:
        return game_of(self).reward_mode

    @property
    def _source(self):
        return game_of(self).source

    def current_player(self):
        if self.deal is None:
            return pyspiel.PlayerId.CHANCE
        if self.auction.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self._player_to_act()

    def chance_outcomes(self):
        if self.deal is not None:
            raise ValueError("chance_outcomes called on a non-chance state")
        p = 1.0 / len(self._rows)
        return [(int(row), p) for row in self._rows]

    def _apply_action(self, action):
        if self.deal is None:
            self._start(int(action))
        else:
            self._call(int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal row {action}"
        return self._call_name(action)

    def is_terminal(self):
        return self.auction is not None and self.auction.is_over

    def returns(self):
        if self.result is None:
            return [0.0] * self.get_game().num_players()
        return self._returns()

    def __str__(self):
        return "(deal not chosen yet)" if self.deal is None else self._render()


class TensorObserver:
    """One float tensor with named views; public pieces when the observation type has public info, private
    pieces for a single player's private info. ``fill(state, player)`` gives the values of each piece."""

    def __init__(self, iig_obs_type, params, public: list[tuple[str, int]], private: list[tuple[str, int]]):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        pieces = list(public) if iig_obs_type.public_info else []
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            pieces += list(private)
        self.tensor = np.zeros(sum(size for _, size in pieces), np.float32)
        self.dict = {}
        index = 0
        for name, size in pieces:
            self.dict[name] = self.tensor[index:index + size]
            index += size

    def set_from(self, state, player: int):
        self.tensor.fill(0)
        if state.deal is None:
            return
        for name, values in self.fill(state, player).items():
            if name in self.dict:
                self.dict[name][:] = values

    def fill(self, state, player: int) -> dict:
        raise NotImplementedError


def game_type(short_name: str, long_name: str, params: dict, num_players: int, information_state_tensor: bool = True,
              utility=pyspiel.GameType.Utility.ZERO_SUM) -> pyspiel.GameType:
    """The `pyspiel.GameType` every bridgerl game shares (sequential, a chance node dealing, imperfect information,
    terminal rewards, observation strings and tensors), with what differs between them."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=num_players,
        min_num_players=num_players,
        provides_information_state_string=True,
        provides_information_state_tensor=information_state_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=params)
