"""OpenSpiel game ``bridgerl_bridge``: the whole deal (thesis 2.1), registered on import.

Four players (player = seat N, E, S, W), zero-sum between the sides, terminal rewards. Two chance nodes pick the deal
(a dataset row, uniformly: a block, then the row, `openspiel_common.RowDealer`; ``game.deal_actions(row)`` starts at
a given row; dealer and vulnerability from its board number unless the parameters fix them), then
the auction, then (with ``play="agents"``) the 13 tricks, with declarer choosing dummy's cards: dummy's player
never acts. Rules, observation and scoring are `bridgerl.core.bridge` (`BridgeState`); this module only translates.

Actions are bridgerl's 90 (not OpenSpiel ``bridge``'s ids): ``0..37`` the calls (0 Pass, 1 X, 2 XX, 3 + bid),
``38 + card`` the cards (card = suit * 13 + rank); `bridgerl.core.bridge.to_openspiel_action` maps them.
Observation tensor: the 802 values of `BridgeState.observation` for that player (bits 0-230 the competitive auction
encoding, 231-801 the play encoding, zero during the auction); they do not record the order of the tricks played.
Information-state tensor (perfect recall, 3,219 values, `RecordObserver` pieces): dealer (4), vulnerability of NS
and EW (2), the whole auction (the 177 auction values of the competitive encoding, which keep every call, and 1
value once it is over), the contract (level 7, strain 5, penalty 3, declarer's seat 4), dummy's 13 cards once the
opening lead is made (52), every card played in order with the seat it came from (52 slots of card 52 + seat 4),
then the player's own 13 cards as dealt (52). The information-state string says the same in words: the player's
hand, dealer, vulnerability, the whole auction, the contract, dummy's cards once shown and every trick in order with
who played each card.

Parameters: ``dataset`` (path or "train"/"test"), ``play`` ("agents" or "double_dummy": the auction ends the game
and the contract is scored with the deal's DD tricks), ``reward`` ("score": NS's duplicate score, or "par_imps":
IMPs of NS's score against par; alias "imps_vs_par"), ``dealer`` (-1: from the board number, else 0-3 = N, E, S, W)
and ``vul`` ("": from the board number, else none, NS, EW or both).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from bridgerl.core.board import VULS, parse_vul
from bridgerl.core.bridge import (CARD_OFFSET, NUM_ACTIONS, OBSERVATION_SIZE, BridgeState, action_name, check_modes,
                                  render_text)
from bridgerl.core.calls import call_name
from bridgerl.core.card_play import LAYOUT as PLAY_LAYOUT
from bridgerl.core.card_play import view_of
from bridgerl.core.cards import SEATS, card_name, hand_text
from bridgerl.core.competitive import HAND_OFFSET, CompetitiveDeal, contract_text, encode_auction, encoded_calls
from bridgerl.envs.openspiel_common import (RECORD_PLAY_PIECES, DealAuctionState, RowDealer, RowGame, TensorObserver,
                                           deal_others, game_of, game_type, play_record, sampler_rng)
from bridgerl.envs.worlds import sample_worlds
from bridgerl.envs.openspiel_competitive import _MAX_GAME_LENGTH as _MAX_AUCTION_LENGTH
from bridgerl.envs.openspiel_competitive import _MAX_POINTS, _deal_source

_NUM_PLAYERS = 4
_CHANCE, _TERMINAL = int(pyspiel.PlayerId.CHANCE), int(pyspiel.PlayerId.TERMINAL)
_DEFAULT_PARAMS = {"dataset": "train", "play": "agents", "reward": "score", "dealer": -1, "vul": ""}
_MAX_GAME_LENGTH = _MAX_AUCTION_LENGTH + 52  # the longest auction (319 calls), then 52 cards
_UTILITY_BOUNDS = {"score": _MAX_POINTS, "par_imps": 24.0}
_GAME_TYPE = game_type("bridgerl_bridge",
                       "bridgerl bridge: the whole deal (auction, then play or double-dummy result)",
                       _DEFAULT_PARAMS,
                       _NUM_PLAYERS)

# The 802 values in named pieces, in the order of `BridgeState.observation`: (name, size, private to one player).
_PIECES = ([("vulnerable", 2, False), ("auction", HAND_OFFSET - 2, False), ("hand", 52, True)]
           + [(f"play_{name}", size, name in ("hand", "visible")) for name, size in PLAY_LAYOUT])
_SLICES = {}
_offset = 0
for _name, _size, _ in _PIECES:
    _SLICES[_name] = slice(_offset, _offset + _size)
    _offset += _size
assert _offset == OBSERVATION_SIZE
del _offset, _name, _size


def _game_info(max_chance_outcomes: int, reward: str) -> pyspiel.GameInfo:
    bound = _UTILITY_BOUNDS[reward]
    return pyspiel.GameInfo(num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=max_chance_outcomes,
                            num_players=_NUM_PLAYERS,
                            min_utility=-bound, max_utility=bound, utility_sum=0.0, max_game_length=_MAX_GAME_LENGTH)


def _check_params(params: dict) -> tuple[str, str, int | None, str | None]:
    """(play, reward, dealer or None, vul or None) from the game parameters, or ValueError naming the bad one."""
    play, reward = check_modes(params["play"], params["reward"])
    dealer = int(params["dealer"])
    if not -1 <= dealer <= 3:
        raise ValueError(f"dealer must be -1 (from the board number) or 0-3 (N, E, S, W), got {dealer}")
    vul = params["vul"]
    if vul:
        try:
            vul = parse_vul(vul)
        except ValueError:
            raise ValueError(f"vul must be '' (from the board number) or one of {VULS}, got {vul!r}") from None
    return play, reward, None if dealer < 0 else dealer, vul or None


class BridgeGame(RowGame, pyspiel.Game):
    """The whole deal as an OpenSpiel game."""

    def __init__(self, params=None):
        params = {**_DEFAULT_PARAMS, **(params or {})}
        self.play_mode, self.reward_mode, self.dealer, self.vul = _check_params(params)
        self.source = _deal_source(str(params["dataset"]))  # shared with bridgerl_competitive_bidding
        self.row_dealer = RowDealer(np.arange(len(self.source.dataset)))
        super().__init__(_GAME_TYPE, _game_info(self.row_dealer.max_outcomes, self.reward_mode), params)

    def new_initial_state(self):
        return BridgeGameState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return BridgeObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


class BridgeGameState(DealAuctionState):
    """A deal (after the chance nodes) and its `BridgeState` (``self.bridge``); player = seat, the player choosing
    (declarer for dummy's cards). ``deal``, ``auction`` and ``result`` mirror ``bridge`` for the shared base."""

    def __init__(self, game):
        super().__init__(game)
        self.bridge: BridgeState | None = None
        self._to_move = _CHANCE  # OpenSpiel asks for the player several times a move: worked out once per move

    def current_player(self):
        return self._to_move

    def legal_actions(self, player=None):
        """OpenSpiel's ``legal_actions`` answered in Python (a call from Python would otherwise cross into C++ and
        back into Python several times): the same lists, ascending; [] at the end or for a player not to move."""
        to_move = self._to_move
        if to_move == _TERMINAL or (player is not None and player != to_move):
            return []
        if to_move == _CHANCE:
            return [action for action, _ in self.chance_outcomes()]
        return self.bridge.legal_actions()

    def is_terminal(self):
        return self._to_move == _TERMINAL

    def _set(self, bridge: BridgeState) -> None:
        """Move to ``bridge`` (scored when it is over)."""
        self.bridge, self.auction = bridge, bridge.auction
        play = bridge.play
        if play is not None and len(play.tricks) < 13:  # a card is due: the hot path
            self._to_move = play.controller
            return
        phase, _, player = bridge.turn()
        if phase == "over":
            self.result, self._to_move = bridge.result(), _TERMINAL
        else:
            self._to_move = player

    def _apply_action(self, action):
        if self.bridge is None:  # the chance nodes of the deal
            super()._apply_action(action)
        else:
            self._set(self.bridge.apply(action))  # IllegalCallError / IllegalPlayError (ValueError) name it

    def view(self):
        """The `AuctionView` of the seat to call or the `PlayerView` of the player choosing a card (None at the
        end): what bridgerl's bidding and play agents act on."""
        return None if self.bridge is None else self.bridge.view()

    def resample_from_infostate(self, player_id, probability_sampler):
        """A state ``player_id`` cannot tell from this one (what ISMCTS searches over): the same board (dealer,
        vulnerability), calls and cards played, with the cards it has not seen dealt afresh uniformly: before the
        opening lead, every layout of the other 39 cards (the auction's meaning is not read); during the play, the
        layouts consistent with its hand, dummy's once shown, the cards played and the voids shown
        (`bridgerl.envs.sample_worlds`). ``probability_sampler`` (``sampler()`` -> [0, 1)) seeds the draw.

        The resampled deal is not a dataset row, so it has no DD table; DDS works out what scoring it needs when a
        resampled state reaches the end: with ``play="double_dummy"`` declarer's tricks in the final contract (one
        search, about 40 ms), with ``reward="par_imps"`` the whole table and par (about 260 ms;
        ``benchmarks/resample_scoring.py``).
        ``play="agents"`` with ``reward="score"``, the defaults, needs no solve. Before the deal, a plain clone."""
        if not 0 <= int(player_id) < 4:
            raise ValueError(f"player_id must be a seat 0-3, got {player_id}")
        state = self.clone()
        if self.bridge is None:
            return state
        player, rng = int(player_id), sampler_rng(probability_sampler)
        old = self.bridge
        if old.play is None:
            world = deal_others(old.deal.owner, player, rng)
        else:
            world = sample_worlds(view_of(old.play, player=player), 1, seed=rng)[0]
        deal = CompetitiveDeal(world, None, old.deal.dealer, old.deal.vul, old.deal.board, None)
        bridge = BridgeState.start(deal, old.play_mode)
        for action in old.auction.calls + tuple(CARD_OFFSET + card for card in (old.play.history if old.play else ())):
            bridge = bridge.apply(action)
        state.deal = deal
        state._set(bridge)
        return state

    # -- the hooks of DealAuctionState ------------------------------------------------------------------------------
    def _player_to_act(self):
        return self.bridge.player

    def _legal_actions(self, player):
        return self.bridge.legal_actions()

    def _start(self, row: int):
        game = game_of(self)  # read on each use, never kept in the state
        self.deal = self._source.deal_at(row, game.dealer, game.vul)
        self._set(BridgeState.start(self.deal, game.play_mode))

    def _call(self, action: int):
        self._set(self.bridge.apply(action))

    def _call_name(self, action: int) -> str:
        return action_name(action)

    def _returns(self):
        return self.result.returns(self._reward_mode)

    def _render(self) -> str:
        return render_text(self.bridge, self.result)


# The information-state tensor (perfect recall): public pieces, then the private one.
_RECORD_PUBLIC = [("dealer", 4), ("vulnerable", 2), ("auction", HAND_OFFSET - 2), ("auction_over", 1),
                  *RECORD_PLAY_PIECES]
_RECORD_PRIVATE = [("hand", 52)]
_SEAT_ONE_HOT = np.eye(4, dtype=np.float32)


class BridgeObserver(TensorObserver):
    """Without perfect recall (the observation), named views of the 802 values, in `BridgeState.observation`'s
    order: ``vulnerable``, ``auction``, ``hand`` (the original hand), then ``play_<piece>`` for each piece of the
    play encoding (`card_play.LAYOUT`). ``hand``, ``play_hand`` and ``play_visible`` are the private pieces; a view
    without public or private information leaves those pieces out (the order of the others is kept).

    With perfect recall (the information state), the pieces of the module docstring: ``dealer``, ``vulnerable``,
    ``auction``, ``auction_over``, the contract, ``dummy_cards``, ``play``, then the private ``hand``."""

    def __init__(self, iig_obs_type, params):
        self.perfect_recall = iig_obs_type.perfect_recall
        if self.perfect_recall:
            super().__init__(iig_obs_type, params, _RECORD_PUBLIC, _RECORD_PRIVATE)
            return
        single = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        pieces = [(name, size) for name, size, private in _PIECES
                  if (single if private else iig_obs_type.public_info)]
        # TensorObserver takes public pieces first, then private ones; hand it the filtered pieces in their order
        if iig_obs_type.public_info:
            super().__init__(iig_obs_type, params, pieces, [])
        else:
            super().__init__(iig_obs_type, params, [], pieces)

    def fill(self, state: BridgeGameState, player: int) -> dict:
        if self.perfect_recall:
            bridge = state.bridge
            deal = bridge.deal
            return {"dealer": _SEAT_ONE_HOT[deal.dealer], "vulnerable": [deal.vulnerable(0), deal.vulnerable(1)],
                    "auction": encode_auction(encoded_calls(bridge.auction)), "auction_over": [bridge.auction.is_over],
                    "hand": deal.owner == player, **play_record(bridge.play, bridge.contract)}
        full = state.bridge.observation(player)
        return {name: full[part] for name, part in _SLICES.items() if name in self.dict}

    def string_from(self, state: BridgeGameState, player: int) -> str:
        """What ``player`` knows, as a bridge player writes it: the hand (its remaining cards during the play),
        dealer and vulnerability, the auction; during the play the contract, dummy's cards once the lead is made,
        the current trick (with perfect recall: every trick) and the tricks won; at the end the score."""
        bridge = state.bridge
        if bridge is None:
            return "(deal not chosen yet)"
        public, private = "vulnerable" in self.dict, "hand" in self.dict
        play = bridge.play
        cards = bridge.deal.owner if play is None else play.remaining_owner()
        parts = []
        if private:
            parts.append(f"{SEATS[player]} {hand_text(cards, player)}")
        if public:
            parts.append(f"dealer {SEATS[bridge.deal.dealer]} vul {bridge.deal.vul}")
            parts.append("auction: " + (" ".join(call_name(c) for c in bridge.auction.calls) or "-"))
            if bridge.contract is not None:
                parts.append(f"contract {contract_text(bridge.contract)} by {SEATS[bridge.contract.declarer]}")
        if play is not None and public:
            if play.dummy_visible and player != play.dummy:
                parts.append(f"dummy {SEATS[play.dummy]} {hand_text(cards, play.dummy)}")
            if self.perfect_recall:
                parts.append("play: " + (" / ".join(_trick_text(t) for t in play.all_tricks()) or "-"))
            else:
                parts.append(f"trick: {_trick_text(play.trick) or '-'}")
            parts.append(f"tricks declarer {play.declarer_tricks} defence {play.defence_tricks}")
        outcome = state.result
        if public and outcome is not None:
            made = "passed out" if outcome.contract is None else f"{outcome.tricks} tricks"
            parts.append(f"result: {made}, NS {outcome.score_ns}")
        return " | ".join(parts)


def _trick_text(trick) -> str:
    return " ".join(f"{SEATS[seat]}:{card_name(card)}" for seat, card in zip(trick.seats, trick.cards))


pyspiel.register_game(_GAME_TYPE, BridgeGame)
