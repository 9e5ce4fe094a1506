"""The whole deal, the rules module of the game (thesis 2.1): deal -> auction (38 calls) -> if not passed out, the
play of 13 tricks (declarer plays dummy's cards; dummy is never the player to act) -> duplicate score with the
board's vulnerability and dealer. Built on the other rules modules: the auction and its encoding from
`competitive`, the play and its encoding from `card_play`, the deal source of `competitive`.

Actions, one space of 90: ``0..37`` the competitive calls (0 Pass, 1 X, 2 XX, 3 + bid, `docs/conventions.md`),
``38 + card`` the cards (card = suit * 13 + rank). `to_openspiel_action` / `from_openspiel_action` map them to the
ids of OpenSpiel's ``bridge`` (card c -> (c % 13) * 4 + c // 13, Pass 52, X 53, XX 54, bid b -> 55 + b).

Observation, 802 values in {0, 1} for the seat choosing (declarer for dummy's cards): bits 0-230 the competitive
auction encoding from that seat (during the play: the finished auction as of its last non-final call, with the
seat's original hand), bits 231-801 the play encoding of its `PlayerView` (zero during the auction).

``play="double_dummy"`` ends the game with the auction and scores the contract with the deal's DD tricks, as
OpenSpiel's ``use_double_dummy_result``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from .auction import Auction
from .calls import BID_OFFSET, NUM_CALLS, call_name
from .card_play import OBSERVATION_SIZE as PLAY_OBSERVATION_SIZE
from .card_play import PlayEncoder, PlayerView, view_of
from .cards import NUM_CARDS, SEATS, card_name
from .competitive import OBSERVATION_SIZE as AUCTION_OBSERVATION_SIZE
from .competitive import (AuctionEncoder, AuctionView, CompetitiveDeal, CompetitiveResult, auction_encoder,
                          contract_text, deal_and_auction_lines, encode as encode_auction_observation, encoded_calls,
                          score_ns_for_tricks)
from .contract import Contract
from .play import CARDS_IN, RANK_BYTES, SUIT_BITS, PlayState, legal_mask

CARD_OFFSET = NUM_CALLS
NUM_ACTIONS = NUM_CALLS + NUM_CARDS  # 90
OBSERVATION_SIZE = AUCTION_OBSERVATION_SIZE + PLAY_OBSERVATION_SIZE  # 802
PLAY_MODES = ("agents", "double_dummy")
REWARDS = ("score", "par_imps")
REWARD_ALIASES = {"imps_vs_par": "par_imps"}
OPENSPIEL_PASS = 52
PASS, DOUBLE, REDOUBLE = 0, 1, 2


def check_modes(play: str, reward: str = "score") -> tuple[str, str]:
    """(play, reward) with the reward's canonical name (``"imps_vs_par"`` -> ``"par_imps"``); a bad value raises
    ValueError with one line naming it and the allowed ones. The one check of these options, for every framework."""
    if play not in PLAY_MODES:
        raise ValueError(f"play must be one of {PLAY_MODES}, got {play!r}")
    canonical = REWARD_ALIASES.get(reward, reward) if isinstance(reward, str) else reward
    if canonical not in REWARDS:
        aliases = ", ".join(repr(a) for a in REWARD_ALIASES)
        raise ValueError(f"reward must be one of {REWARDS} (or {aliases}), got {reward!r}")
    return play, canonical


def opening_lead_calls(dealer: int, contract: Contract) -> list[int]:
    """The canonical auction that reaches ``contract`` (with its declarer and penalty) from ``dealer``, the one
    start at the opening lead that card-play training, tables of played tricks and tests share: passes round from
    the dealer to declarer, declarer bids the contract, then (doubled) its left-hand opponent doubles and
    (redoubled) declarer's partner redoubles, then three passes. Calls as actions (0 Pass, 1 X, 2 XX, 3 + bid)."""
    calls = [PASS] * ((contract.declarer - int(dealer)) % 4) + [BID_OFFSET + contract.bid]
    calls += [DOUBLE, REDOUBLE][:contract.penalty]
    return calls + [PASS] * 3


def to_openspiel_action(action: int) -> int:
    """The id of ``action`` in OpenSpiel's ``bridge``."""
    action = int(action)
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is outside 0..{NUM_ACTIONS - 1}")
    if action >= CARD_OFFSET:
        card = action - CARD_OFFSET
        return (card % 13) * 4 + card // 13
    return OPENSPIEL_PASS + action  # Pass 52, X 53, XX 54, bid b -> 55 + b


def from_openspiel_action(action: int) -> int:
    """Our action for the id ``action`` of OpenSpiel's ``bridge`` (0-51 cards, 52-89 calls)."""
    action = int(action)
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"OpenSpiel bridge action {action} is outside 0..{NUM_ACTIONS - 1}")
    if action < OPENSPIEL_PASS:
        return CARD_OFFSET + (action % 4) * 13 + action // 4
    return action - OPENSPIEL_PASS


def action_name(action: int) -> str:
    action = int(action)
    if CARD_OFFSET <= action < NUM_ACTIONS:
        return card_name(action - CARD_OFFSET)
    return call_name(action)


@dataclass(frozen=True)
class BridgeResult(CompetitiveResult):
    """The competitive result, with ``tricks`` declarer's tricks as played (or DD with ``play="double_dummy"``) and
    the whole deal's reward names: "score" (the default) and "par_imps" (alias "imps_vs_par"). Its par is the
    deal's, found when first read (``reward="score"`` never needs it)."""

    def ns_reward(self, mode: str = "score") -> float:
        return super().ns_reward(REWARD_ALIASES.get(mode, mode))

    def returns(self, mode: str = "score") -> list[float]:
        """One value per seat N, E, S, W (zero-sum between the sides)."""
        return super().returns(mode)


class _BridgeFields(NamedTuple):
    deal: CompetitiveDeal
    auction: Auction
    play: PlayState | None = None
    play_mode: str = "agents"
    # each player's auction bits once the auction is over (fixed for the rest of the deal): one dict shared by the
    # states of the play, filled on first use
    bits_cache: dict | None = None


class BridgeState(_BridgeFields):
    """A whole deal in progress: the auction, then (with ``play="agents"``) the play. Immutable (`apply` returns
    the next state) and a tuple underneath, like `PlayState`: one is made for every call and card. Equality and
    hashing leave out ``bits_cache``."""

    __slots__ = ()

    def __new__(cls, deal: CompetitiveDeal, auction: Auction, play: PlayState | None = None, play_mode: str = "agents",
                bits_cache: dict | None = None):
        return _tuple_new(cls, (deal, auction, play, play_mode, {} if bits_cache is None else bits_cache))

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self[:4] == other[:4]

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self[:4])

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields[:4], self[:4]))
        return f"BridgeState({fields})"

    @classmethod
    def start(cls, deal: CompetitiveDeal, play: str = "agents") -> "BridgeState":
        check_modes(play)
        return cls(deal, Auction(deal.dealer), None, play)

    @classmethod
    def at_opening_lead(cls, deal: CompetitiveDeal, contract: Contract) -> "BridgeState":
        """The canonical start of the play of ``contract`` on ``deal``: the state after `opening_lead_calls` (the
        opening lead is due)."""
        state = cls.start(deal)
        for call in opening_lead_calls(deal.dealer, contract):
            state = state.apply(call)
        return state

    # -- where the game stands ------------------------------------------------------------------------------------
    def turn(self) -> tuple[str, int, int]:
        """(``phase``, ``seat``, ``player``) worked out at once (an env step reports all three)."""
        play = self.play
        if play is None:
            auction = self.auction
            return "over" if auction.is_over else "auction", auction.to_act, auction.to_act
        trick = play.trick
        seat = (trick.leader + len(trick.cards)) % 4  # `play.to_play`
        if len(play.tricks) == 13:
            return "over", seat, seat
        return "play", seat, play.controller

    @property
    def phase(self) -> str:
        """'auction', 'play' or 'over'."""
        return self.turn()[0]

    @property
    def is_over(self) -> bool:
        play = self.play
        return self.auction.is_over if play is None else len(play.tricks) == 13

    @property
    def seat(self) -> int:
        """The seat whose call or card is due (dummy's seat for dummy's cards); after the end, the seat that would
        act next in the auction, or declarer's left after the play."""
        return self.turn()[1]

    @property
    def player(self) -> int:
        """The seat choosing: declarer for dummy's cards, else ``seat``."""
        play = self.play
        if play is None:
            return self.auction.to_act
        return play.controller if len(play.tricks) < 13 else play.to_play

    @property
    def contract(self) -> Contract | None:
        return self.auction.contract() if self.auction.is_over else None

    def legal_mask(self, dtype=bool) -> np.ndarray:
        """bool[90] of the legal actions (all False once the game is over); ``dtype=np.int8`` for the 0/1 mask of
        the envs' ``info``."""
        play = self.play
        if play is None:  # the calls' bytes, then none for the cards (a writable array over a fresh bytearray)
            raw = self.auction.legal_bytes()
            raw += _NO_CARDS
        elif len(play.tricks) == 13:
            raw = bytearray(NUM_ACTIONS)
        else:  # no calls, then the cards' bytes from one 13-byte row per suit
            hand = play.legal_mask_bits()
            raw = _JOIN((_NO_CALLS, RANK_BYTES[hand & 0x1FFF], RANK_BYTES[(hand >> 13) & 0x1FFF],
                         RANK_BYTES[(hand >> 26) & 0x1FFF], RANK_BYTES[(hand >> 39) & 0x1FFF]))
        if dtype is np.int8:  # (dtype objects, passed positionally: the cheap call of frombuffer)
            return np.frombuffer(raw, _INT8)
        if dtype is bool or dtype is np.bool_:
            return np.frombuffer(raw, _BOOL)
        return np.frombuffer(raw, _INT8).astype(dtype)

    def legal_actions(self) -> list[int]:
        """The legal actions, lowest first (empty once the game is over)."""
        play = self.play
        if play is None:
            return [] if self.auction.is_over else self.auction.legal_calls()
        if len(play.tricks) == 13:
            return []
        trick = play.trick
        cards = trick.cards
        hand = play.hands[(trick.leader + len(cards)) % 4]  # `PlayState.legal_mask_bits`, inlined
        if cards:
            suit = cards[0] // 13
            hand = legal_mask(hand, suit)  # the follow-suit rule
            if not hand & ~SUIT_BITS[suit]:  # following suit, the legal cards are one suit's: one lookup
                return list(_CARD_ACTIONS[suit][hand >> (13 * suit)])
        return [*_CARD_ACTIONS[0][hand & 0x1FFF], *_CARD_ACTIONS[1][(hand >> 13) & 0x1FFF],
                *_CARD_ACTIONS[2][(hand >> 26) & 0x1FFF], *_CARD_ACTIONS[3][hand >> 39]]

    # -- moves ------------------------------------------------------------------------------------------------------
    def apply(self, action: int) -> "BridgeState":
        """The state after the seat to act takes ``action``; an illegal one raises `IllegalCallError` or
        `IllegalPlayError` (both ValueError) naming it."""
        if type(action) is not int:
            action = int(action)
        play = self.play
        if play is not None and len(play.tricks) < 13:  # the play: the hot path of whole-deal games
            if not CARD_OFFSET <= action < NUM_ACTIONS:
                raise ValueError(f"action {action} is not a card ({CARD_OFFSET}..{NUM_ACTIONS - 1}) during the "
                                 f"play")
            deal, auction, _, play_mode, bits_cache = self
            return _tuple_new(BridgeState, (deal, auction, play.play(action - CARD_OFFSET), play_mode, bits_cache))
        if play is not None or self.auction.is_over:
            raise ValueError(f"action {action_name(action) if 0 <= action < NUM_ACTIONS else action} after the end "
                             f"of the deal")
        if not 0 <= action < NUM_CALLS:
            raise ValueError(f"action {action} is not a call (0..{NUM_CALLS - 1}) during the auction; cards are "
                             f"{CARD_OFFSET}..{NUM_ACTIONS - 1}")
        auction = self.auction.add(action)
        if auction.is_over and auction.last_bid >= 0 and self.play_mode == "agents":
            play = PlayState.start(self.deal.owner, auction.contract())
        return _new_bridge_state(self.deal, auction, play, self.play_mode, {})

    def result(self) -> BridgeResult:
        """Score of the finished deal (the game must be over)."""
        if not self.is_over:
            raise ValueError(f"the deal is not over yet (phase {self.phase})")
        contract = self.contract
        if contract is None:
            return BridgeResult(None, 0, 0, self.deal)
        if self.play is not None:
            tricks = self.play.declarer_tricks
        else:
            tricks = self.deal.dd_tricks(contract.declarer, contract.strain)
        return BridgeResult(contract, tricks, score_ns_for_tricks(contract, tricks, self.deal.vul), self.deal)

    # -- what the chooser sees ------------------------------------------------------------------------------------
    def view(self) -> AuctionView | PlayerView | None:
        """The `AuctionView` of the seat to call, or the `PlayerView` of the player choosing a card; None at the
        end."""
        phase = self.phase
        if phase == "auction":
            seat = self.auction.to_act
            return AuctionView.of(self.auction, self.deal.hands()[seat], self.deal.vulnerable(seat),
                                  self.deal.vulnerable(seat + 1))
        if phase == "play":
            return view_of(self.play, auction=self.auction, vul=self.deal.vul)
        return None

    def observation(self, player: int | None = None, encoder: PlayEncoder | None = None) -> np.ndarray:
        """int8[802] for ``player`` (default: the seat choosing; after the end, the seat that would act).
        ``encoder``: the play's `PlayEncoder` kept up to date card by card (an env's), so that the play bits are not
        worked out again from the state."""
        phase, seat, chooser = self.turn()
        player = chooser if player is None else int(player)
        play = self.play
        if play is None:
            obs = np.zeros(OBSERVATION_SIZE, dtype=np.int8)
            obs[:AUCTION_OBSERVATION_SIZE] = self.auction_observation(player)
            return obs
        chooser = phase == "play" and player == chooser
        if encoder is None:
            encoder = PlayEncoder.of_state(play)
        elif encoder.prefix_size:  # the encoder holds the auction bits too (`play_encoder`): one gather
            return encoder.observation(player, seat if chooser else player)
        return np.concatenate((self.auction_observation(player), encoder.observation(player, seat if chooser
                                                                                      else player)))

    def play_encoder(self, calls: AuctionEncoder | None = None) -> PlayEncoder:
        """A `PlayEncoder` of the play (which must have begun) holding each player's auction bits as its prefix:
        `add` each card to it and pass it to `observation`, which then is one gather (what the Gymnasium env
        does). ``calls``: an `AuctionEncoder` already holding the auction's `encoded_calls` (the env's), else the
        calls are folded here."""
        deal = self.deal
        calls = auction_encoder(self.auction) if calls is None else calls
        prefixes = calls.observations(tuple(deal.vulnerable(seat) for seat in range(4)), deal.hands())
        return PlayEncoder.of_state(self.play, prefixes)

    def auction_observation(self, player: int | None = None) -> np.ndarray:
        """int8[231]: the competitive auction encoding of ``player`` (default: the seat choosing), what bidding
        agents read; bits 0-230 of `observation`."""
        player = self.player if player is None else int(player)
        bits = self.bits_cache.get(player) if self.auction.is_over else None
        if bits is None:
            bits = auction_bits(self.auction, self.deal.vulnerable(player), self.deal.vulnerable(player + 1),
                                self.deal.hands()[player])
            if self.auction.is_over:
                bits.setflags(write=False)  # shared by the states of the play
                self.bits_cache[player] = bits
        return bits

    def __str__(self) -> str:
        return render_text(self)


_NO_CALLS, _NO_CARDS = bytes(NUM_CALLS), bytes(NUM_CARDS)
_INT8, _BOOL = np.dtype(np.int8), np.dtype(bool)
_JOIN = bytearray().join  # joins into a new bytearray (the mask's writable memory) in one step
# for each suit and 13-bit holding, its cards as actions (38 + card), lowest first: `legal_actions` in one lookup
_CARD_ACTIONS = tuple(tuple(tuple(CARD_OFFSET + card for card in cards) for cards in table) for table in CARDS_IN)


def _new_bridge_state(deal, auction, play, play_mode, bits_cache) -> BridgeState:
    """``BridgeState(...)`` for fields already checked (the same instance, without the argument handling: the hot
    path of whole-deal games)."""
    return _tuple_new(BridgeState, (deal, auction, play, play_mode, bits_cache))


_tuple_new = tuple.__new__


def auction_bits(auction: Auction, we_vulnerable: bool, they_vulnerable: bool, hand_bits: np.ndarray) -> np.ndarray:
    """int8[231]: a player's competitive auction observation (bits 0-230 of the whole deal's observation): the
    calls so far, or after the end the last encoding before the final pass; ``hand_bits`` int8[52] its original
    13 cards."""
    calls = encoded_calls(auction)
    return encode_auction_observation(calls, we_vulnerable, they_vulnerable, hand_bits)


def render_text(state: BridgeState, outcome: BridgeResult | None = None) -> str:
    """The four hands, the auction in W N E S columns, the play trick by trick and the result, as a bridge player
    writes them."""
    lines = deal_and_auction_lines(state.deal, state.auction)
    if state.play is not None:
        for i, trick in enumerate(state.play.all_tricks()):
            lines.append(f"  trick {i + 1:2d}: " + " ".join(f"{SEATS[s]}:{card_name(c)}"
                                                         for s, c in zip(trick.seats, trick.cards)))
    if state.is_over:
        outcome = outcome or state.result()
        what = "passed out" if outcome.contract is None else (
            f"{contract_text(outcome.contract)} by {SEATS[outcome.contract.declarer]}, {outcome.tricks} tricks"
            f"{' (double dummy)' if state.play is None else ''}")
        lines.append(f"  Result: {what}, NS {outcome.score_ns}, par NS {outcome.par_ns}")
    return "\n".join(lines) + "\n"


__all__ = ["NUM_ACTIONS", "CARD_OFFSET", "OBSERVATION_SIZE", "PLAY_MODES", "REWARDS", "REWARD_ALIASES", "check_modes",
           "BridgeState", "BridgeResult", "opening_lead_calls", "to_openspiel_action", "from_openspiel_action", "action_name", "render_text"]
