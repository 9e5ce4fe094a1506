"""Pieces shared by the OpenSpiel games: how a dataset row is dealt (`RowDealer`), the chance-then-auction state and
the tensor observer."""

from __future__ import annotations

import math

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


class RowDealer:
    """How a game deals one of its dataset rows uniformly, in two chance nodes whose cost does not grow with the
    dataset: first a block of about sqrt(N) consecutive rows (each block with its share of the rows as probability),
    then a row of that block (uniformly). The second node's outcome is the row itself (with ``turns`` > 1, the card
    play game's ``row * turns + turn``), so ``chance_outcomes()`` lists about sqrt(N) outcomes instead of N (a
    100,000-row dataset: 317, not 100,000). To start at a given row, apply ``game.deal_actions(row)``.

    ``rows``: the rows the game deals (sorted; the uncontested game skips the deals its side rule rules out)."""

    def __init__(self, rows, turns: int = 1):
        self.rows = np.asarray(rows, dtype=np.int64)
        if len(self.rows) == 0:
            raise ValueError("the dataset has no row this game can deal")
        if (np.diff(self.rows) <= 0).any():
            raise ValueError("the rows a game deals must be distinct and ascending")
        self.turns = int(turns)
        count = len(self.rows)
        self.block_size = math.isqrt(count - 1) + 1  # ceil(sqrt(count))
        self.num_blocks = -(-count // self.block_size)
        sizes = [min(self.block_size, count - b * self.block_size) for b in range(self.num_blocks)]
        self._block_outcomes = tuple((b, size / count) for b, size in enumerate(sizes))

    @property
    def max_outcomes(self) -> int:
        """The game's ``max_chance_outcomes``: one more than the largest outcome id of either node."""
        return max(self.num_blocks, (int(self.rows[-1]) + 1) * self.turns)

    def outcomes(self, block: int | None) -> list[tuple[int, float]]:
        """The chance outcomes (a new list): of the first node (``block`` None), or of the rows of ``block``."""
        if block is None:
            return list(self._block_outcomes)
        rows = self.rows[block * self.block_size:(block + 1) * self.block_size]
        p = 1.0 / (len(rows) * self.turns)
        return [(row * self.turns + turn, p) for row in rows.tolist() for turn in range(self.turns)]

    def block(self, action: int) -> int:
        """The block of the first node's outcome ``action`` (a one-line ValueError when it is not one)."""
        action = int(action)
        if not 0 <= action < self.num_blocks:
            raise ValueError(f"chance outcome {action} is not a block of rows: the first chance node deals one of "
                             f"blocks 0..{self.num_blocks - 1}")
        return action

    def row(self, block: int, action: int) -> tuple[int, int]:
        """(row, turn) of the second node's outcome ``action`` after ``block``."""
        row, turn = divmod(int(action), self.turns)
        rows = self.rows[block * self.block_size:(block + 1) * self.block_size]
        position = int(np.searchsorted(rows, row))
        if position == len(rows) or rows[position] != row:
            raise ValueError(f"chance outcome {action} is not a row of block {block} (rows {rows[0]}..{rows[-1]})")
        return row, turn

    def actions(self, row: int, turn: int = 0) -> list[int]:
        """The chance actions that deal ``row`` (and, with turns, ``turn``)."""
        row, turn = int(row), int(turn)
        position = int(np.searchsorted(self.rows, row))
        if position == len(self.rows) or self.rows[position] != row:
            raise ValueError(f"row {row} is not one this game deals (it deals {len(self.rows)} rows of "
                             f"0..{int(self.rows[-1])})")
        if not 0 <= turn < self.turns:
            raise ValueError(f"turn must be 0..{self.turns - 1}, got {turn}")
        return [position // self.block_size, row * self.turns + turn]

    def describe(self, block: int | None, action: int) -> str:
        """The text of a chance action."""
        if block is None:
            rows = self.rows[action * self.block_size:(action + 1) * self.block_size]
            return f"Deal block {action} (rows {rows[0]}..{rows[-1]})" if len(rows) else f"Deal block {action}"
        row, turn = divmod(int(action), self.turns)
        return f"Deal row {row}" + (f", table turned {turn}" if self.turns > 1 else "")


class RowGame:
    """What a game that deals dataset rows adds to ``pyspiel.Game``: its ``row_dealer`` (a `RowDealer`, set by the
    game's ``__init__``) and `deal_actions`."""

    row_dealer: RowDealer

    def deal_actions(self, row: int, turn: int = 0) -> list[int]:
        """The chance actions that deal dataset row ``row`` (a block, then the row): apply them to a new initial
        state to start at that row, e.g. ``for a in game.deal_actions(7): state.apply_action(a)``."""
        return self.row_dealer.actions(row, turn)


class DealAuctionState(pyspiel.State):
    """Two chance nodes deal a dataset row (`RowDealer`, ``game.row_dealer``), then players call until the auction ends.

    Subclasses say who acts (`_player_to_act`), what is legal, how a deal starts (`_start`), how a call applies
    (`_call`, which sets ``self.result`` at the end), the returns and the text."""

    def __init__(self, game):
        super().__init__(game)
        self.block = None  # the first chance node's outcome
        self.deal = None
        self.auction = None
        self.result = None

    # Game-wide data is read from the game on each use, never kept in the state's __dict__: see `game_of`.
    @property
    def _dealer(self) -> RowDealer:
        return game_of(self).row_dealer

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
        return self._dealer.outcomes(self.block)

    def _apply_action(self, action):
        if self.deal is not None:
            self._call(int(action))
        elif self.block is None:
            self.block = self._dealer.block(action)
        else:
            self._start(self._dealer.row(self.block, action)[0])

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return self._dealer.describe(self.block, action)
        return self._call_name(action)

    def is_terminal(self):
        return self.auction is not None and self.auction.is_over

    def returns(self):
        if self.result is None:
            return [0.0] * self.get_game().num_players()
        return self._returns()

    def __str__(self):
        return "(deal not chosen yet)" if self.deal is None else self._render()


def sampler_rng(probability_sampler) -> np.random.Generator:
    """A numpy Generator seeded by two draws of an OpenSpiel probability sampler (``sampler()`` -> [0, 1)), so that
    `resample_from_infostate` is as deterministic as the sampler it is given (ISMCTS's default one is seeded from
    the system; a seeded ``pyspiel.UniformProbabilitySampler(seed, 0, 1)`` repeats)."""
    draws = [int(float(probability_sampler()) * 2**32) for _ in range(2)]
    return np.random.default_rng(draws)


def deal_others(owner: np.ndarray, seat: int, rng: np.random.Generator) -> np.ndarray:
    """uint8[52]: a deal where ``seat`` keeps its 13 cards and the other 39 are dealt to the other three seats
    uniformly at random (13 each): what a player knows of the deal before any card is played."""
    return deals_others(owner, seat, rng, 1)[0]


def deals_others(owner: np.ndarray, seat: int, rng: np.random.Generator, count: int) -> np.ndarray:
    """uint8[count, 52]: ``count`` deals drawn as `deal_others` does, at once (for rejection sampling)."""
    others = np.flatnonzero(np.asarray(owner) != seat)
    order = rng.permuted(np.broadcast_to(others, (count, 39)), axis=1)
    seats = np.repeat(np.array([s for s in range(4) if s != seat], dtype=np.uint8), 13)
    dealt = np.full((count, 52), seat, dtype=np.uint8)
    np.put_along_axis(dealt, order, seats[None, :], axis=1)
    return dealt


# -- the perfect-recall record of the play (the information-state tensors of card play and the whole deal) --------
PLAY_SLOT = 52 + 4  # a card played: its card (one-hot), then the seat it came from (N, E, S, W; dummy's own seat)
RECORD_PLAY_PIECES = [("contract_level", 7), ("contract_strain", 5), ("contract_penalty", 3), ("declarer", 4),
                      ("dummy_cards", 52), ("play", 52 * PLAY_SLOT)]
"""Public pieces of the information-state tensors of ``bridgerl_card_play`` and ``bridgerl_bridge``: the contract
(absolute declarer seat), dummy's 13 cards as dealt once the opening lead is made, and every card played in order
with the seat it came from (slot k: the k-th card of the play)."""


def play_record(play, contract=None) -> dict:
    """The values of `RECORD_PLAY_PIECES` for a `PlayState` (``play`` None: no card played yet, the contract, when
    there is one, from ``contract``)."""
    contract = play.contract if play is not None else contract
    values = {}
    if contract is not None:
        for name, size, index in (("contract_level", 7, contract.level - 1), ("contract_strain", 5, contract.strain),
                                  ("contract_penalty", 3, contract.penalty), ("declarer", 4, contract.declarer)):
            values[name] = np.eye(size, dtype=np.float32)[index]
    if play is not None and play.history:
        values["dummy_cards"] = play.owner == play.dummy
        slots = np.zeros((52, PLAY_SLOT), np.float32)
        k = 0
        for trick in play.all_tricks():
            for seat, card in zip(trick.seats, trick.cards):
                slots[k, card] = 1
                slots[k, 52 + seat] = 1
                k += 1
        values["play"] = slots.reshape(-1)
    return values


class TensorObserver:
    """One float tensor with named views; public pieces when the observation type has public info, private
    pieces for a single player's private info, then the public ``tail`` (so that a tensor's leading values stay those
    of the env's observation). ``fill(state, player)`` gives the values of each piece."""

    def __init__(self, iig_obs_type, params, public: list[tuple[str, int]], private: list[tuple[str, int]],
                 tail: list[tuple[str, int]] = ()):
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        pieces = list(public) if iig_obs_type.public_info else []
        if iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER:
            pieces += list(private)
        if iig_obs_type.public_info:
            pieces += list(tail)
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
