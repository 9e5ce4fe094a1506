"""OpenSpiel game ``bridgerl_card_play`` (thesis 2.1.5), registered on import.

Four players N, E, S, W; declarer acts for dummy, so dummy's player never acts. Zero-sum between the sides: the
declaring side gets the reward of `envs/card_play.py` (tricks, score or make), the defence its negation.
Chance nodes pick a dataset row uniformly (a block, then the row: `openspiel_common.RowDealer`;
``game.deal_actions(row, turns)`` starts at a given row) unless ``index`` >= 0 or ``deal`` (PBN) fixes the deal.
Parameters: ``dataset``, ``index``, ``deal``, ``contract`` ("3NT", "4SX"), ``declarer`` ("S"), ``played``
(space-separated cards already played), ``reward``, ``rotate``. Observation tensor: `play_encoding` for that player
(it does not record the order of the tricks played). Information-state tensor (perfect recall, 3,036 values): whether
declarer is vulnerable (1), the contract (level 7, strain 5, penalty 3, declarer's seat 4), dummy's 13 cards once the
opening lead is made (52), every card played in order with the seat it came from (52 slots of card 52 + seat 4), then
the player's own 13 cards as dealt (52).

``rotate`` (default True) makes the chance nodes also turn the table by 0-3 seats (deal, declarer and vulnerability
alike): every player is declarer, dummy or a defender over the deals, as in OpenSpiel's ``bridge`` where the auction
picks the declarer, and dummy still never acts. ``declarer`` names the declarer before the turn. With
``rotate=False`` the seats are fixed, and one player (dummy's) never acts in any game: OpenSpiel's DQN cannot train
an agent that never acts (its replay buffer only starts with the agent's first transition, and ``learn()`` fails on
it after ``learn_every`` steps), so keep the default for ``rl_environment`` with one agent a player.
"""

from __future__ import annotations

import functools

import numpy as np
import pyspiel

from bridgerl.core import load_dataset
from bridgerl.core.card_play import (LAYOUT, REWARDS, CardPlayDeal, CardPlayDealSource, encode_pieces, final_reward,
                                     parse_contract, parse_played, render_text, view_of)
from bridgerl.core.cards import SEATS, card_name, hand_text
from bridgerl.core.play import PlayState
from bridgerl.envs.openspiel_common import (RECORD_PLAY_PIECES, RowDealer, RowGame, TensorObserver, game_type,
                                           play_record, sampler_rng)
from bridgerl.envs.worlds import sample_worlds

_NUM_PLAYERS = 4
_DEFAULT_PARAMS = {"dataset": "train", "index": -1, "deal": "", "contract": "3NT", "declarer": "S", "played": "",
                   "reward": "tricks", "rotate": True}
_PUBLIC = [(name, size) for name, size in LAYOUT if name not in ("hand", "visible")]
_PRIVATE = [(name, size) for name, size in LAYOUT if name in ("hand", "visible")]
_GAME_TYPE = game_type("bridgerl_card_play",
                       "bridgerl bridge card play (declarer controls dummy)",
                       _DEFAULT_PARAMS,
                       _NUM_PLAYERS)

_UTILITY_BOUNDS = {"tricks": 13.0, "make": 1.0, "score": 7600.0}


@functools.lru_cache(maxsize=8)
def _deal_source(name: str) -> CardPlayDealSource:
    return CardPlayDealSource(load_dataset(name))


def _game_info(max_chance_outcomes: int, reward: str) -> pyspiel.GameInfo:
    bound = _UTILITY_BOUNDS[reward]
    return pyspiel.GameInfo(num_distinct_actions=52, max_chance_outcomes=max_chance_outcomes,
                            num_players=_NUM_PLAYERS,
                            min_utility=-bound, max_utility=bound, utility_sum=0.0, max_game_length=52)


class CardPlayGame(RowGame, pyspiel.Game):
    """Card play of one contract as an OpenSpiel game."""

    def __init__(self, params=None):
        params = {**_DEFAULT_PARAMS, **(params or {})}
        if params["reward"] not in REWARDS:
            raise ValueError(f"reward must be one of {REWARDS}, got {params['reward']!r}")
        self.source = _deal_source(str(params["dataset"]))
        self.dataset = self.source.dataset
        self.contract = parse_contract(params["contract"], params["declarer"])
        self.played = parse_played(params["played"])
        self.reward_mode = params["reward"]
        self.rotate = bool(params["rotate"])
        self.fixed: CardPlayDeal | None = None
        if params["deal"]:
            self.fixed = self.source.deal_from_pbn(params["deal"])
        elif int(params["index"]) >= 0:
            self.fixed = self.source.deal_at(int(params["index"]))
        self.row_dealer = RowDealer(np.arange(len(self.dataset)), 4 if self.rotate else 1)
        outcomes = (4 if self.rotate else 1) if self.fixed is not None else self.row_dealer.max_outcomes
        super().__init__(_GAME_TYPE, _game_info(outcomes, self.reward_mode), params)

    def new_initial_state(self):
        return CardPlayState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return CardPlayObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class CardPlayState(pyspiel.State):
    """The play of one deal; before the deal (and, with ``rotate``, the turn of the table) is chosen, chance nodes:
    a block of rows, then the row (with ``rotate``, ``row * 4 + turns``), as `openspiel_common.RowDealer` deals; one
    node of ``turns`` when the deal is fixed (none without ``rotate``)."""

    def __init__(self, game: CardPlayGame):
        super().__init__(game)
        self.block: int | None = None  # the first chance node's outcome
        self.play_state: PlayState | None = None
        self.vulnerable = False
        self.turns = 0
        if game.fixed is not None and not game.rotate:
            self._start(game.fixed)

    @property
    def _game(self) -> CardPlayGame:
        # Read from OpenSpiel on each use, never stored: clone() deep-copies and serialize() pickles the state's
        # __dict__, and a pickled pyspiel.Game comes back without the attributes our __init__ set
        # (see `openspiel_common.game_of`).
        return self.get_game()

    @property
    def deal(self):
        return None if self.play_state is None else self.play_state.owner

    def _start(self, deal: CardPlayDeal, turns: int = 0) -> None:
        """Start the play; ``turns`` > 0 turns the table: seat p's cards go to seat (p + turns) % 4, and so do the
        declarer and the vulnerability, so each player sits in every role over the deals (``played`` stays legal)."""
        contract = self._game.contract
        if turns:
            deal = deal.turned(turns)
            contract = parse_contract(contract, (contract.declarer + turns) % 4)
        self.turns = int(turns)
        self.vulnerable = deal.vulnerable(contract.declarer)
        self.play_state = PlayState.start(deal.owner, contract, self._game.played)

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
        game = self._game
        if game.fixed is not None:
            return [(turns, 0.25) for turns in range(4)]
        return game.row_dealer.outcomes(self.block)

    def _legal_actions(self, player):
        return self.play_state.legal_cards()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one (what ISMCTS searches over): the same contract, turn of
        the table and cards played, with the cards it has not seen dealt afresh, uniformly among the layouts
        consistent with its hand, dummy's once shown, the cards played and the voids shown
        (`bridgerl.envs.sample_worlds`). ``probability_sampler`` (``sampler()`` -> [0, 1)) seeds the draw. Before
        the deal, a plain clone."""
        if not 0 <= int(player_id) < 4:
            raise ValueError(f"player_id must be a seat 0-3, got {player_id}")
        state = self.clone()
        if self.play_state is None:
            return state
        played = self.play_state
        world = sample_worlds(view_of(played, player=int(player_id)), 1, seed=sampler_rng(probability_sampler))[0]
        state.play_state = PlayState.start(world, played.contract, played.history)
        return state

    def _apply_action(self, action):
        if self.play_state is None:
            game = self._game
            if game.fixed is not None:
                if not 0 <= int(action) < 4:
                    raise ValueError(f"chance outcome {action} is not a turn of the table (0..3)")
                self._start(game.fixed, int(action))
            elif self.block is None:
                self.block = game.row_dealer.block(action)
            else:
                row, turns = game.row_dealer.row(self.block, action)
                self._start(game.source.deal_at(row), turns)
        else:
            self.play_state = self.play_state.play(int(action))

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            game = self._game
            if game.fixed is not None:
                return f"table turned {action}"
            return game.row_dealer.describe(self.block, action)
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
    """Without perfect recall (the observation), named views of `play_encoding.LAYOUT`; ``hand`` and ``visible`` are
    the private pieces. With perfect recall (the information state), ``declarer_vulnerable``, the contract,
    ``dummy_cards``, ``play`` (`openspiel_common.RECORD_PLAY_PIECES`), then the private ``hand`` as dealt."""

    def __init__(self, iig_obs_type, params):
        self.perfect_recall = iig_obs_type.perfect_recall
        if self.perfect_recall:
            super().__init__(iig_obs_type, params, [("declarer_vulnerable", 1), *RECORD_PLAY_PIECES], [("hand", 52)])
        else:
            super().__init__(iig_obs_type, params, _PUBLIC, _PRIVATE)

    def fill(self, state: CardPlayState, player: int) -> dict:
        play = state.play_state
        if self.perfect_recall:
            return {"declarer_vulnerable": [state.vulnerable], "hand": play.owner == player, **play_record(play)}
        return encode_pieces(view_of(play, player=player))

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
