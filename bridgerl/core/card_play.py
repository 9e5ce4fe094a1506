"""Card play, the rules module of the game (thesis 2.1.5): deal source, what one player may see (the `PlayerView`
every play agent acts on), the observation vector, the reward at the end and the text rendering, over the play
rules of `bridgerl.core.play` (`PlayState`). The Gymnasium and OpenSpiel versions import only this module (and the
core it builds on).

The decision belongs to the seat to play, except dummy's cards, which declarer chooses: then ``seat`` is dummy's
seat, ``player`` is declarer, ``hand`` is dummy's remaining cards and ``own_cards`` declarer's.

The observation (`encode`, `LAYOUT`): seats are relative to ``view.player`` (0 = the player, 1 = left-hand
opponent, 2 = partner, 3 = right-hand opponent). When declarer plays dummy's card, ``hand`` is dummy's and
``visible`` declarer's own.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np

from .auction import Auction
from .board import is_vulnerable, parse_vul, turn_vul, vul_for_board
from .cards import SEATS, card_name, hand_text, parse_card, parse_seat
from .constraints import FrozenMapping, HandConstraint
from .contract import Contract
from .dataset import Dataset, SharedSource
from .deals import check_nonempty, check_reset_options, check_row
from .pbn import parse_deal_option
from .play import ContractSeats, PlayState, Trick, cards_of, equivalent_groups, mask_bytes, mask_of
from .scoring import score
from .symmetry import rotate_owner

REWARDS = ("tricks", "score", "make")
DEFAULT_CONTRACT = "3NT"
DEFAULT_DECLARER = "S"


# -- what one player may see -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class PlayerView(ContractSeats):
    """The information available to the player choosing the next card."""

    seat: int
    player: int
    hand: tuple[int, ...]
    own_cards: tuple[int, ...]
    dummy_cards: tuple[int, ...] | None
    contract: Contract
    tricks: tuple[Trick, ...]
    current_trick: Trick
    voids: np.ndarray = field(compare=False, repr=False)
    legal: tuple[int, ...] = ()
    declarer_tricks: int = 0
    constraints: Mapping[int, HandConstraint] = field(default_factory=FrozenMapping)
    # the auction that led to the contract, when the play follows one (the whole deal; None in CardPlay-v0, where
    # the caller names the contract): its `Auction` (dealer and calls) and the board's vulnerability
    auction: Auction | None = field(default=None, compare=False)
    vul: str = "none"

    @property
    def defence_tricks(self) -> int:
        return len(self.tricks) - self.declarer_tricks

    @property
    def is_declaring_side(self) -> bool:
        return self.player % 2 == self.declarer % 2

    @property
    def tricks_needed(self) -> int:
        """Tricks the player's side needs in all: the contract for declarer, enough to beat it for the defence."""
        return self.contract.tricks_needed if self.is_declaring_side else 14 - self.contract.tricks_needed

    @property
    def tricks_won(self) -> int:
        """Tricks the player's side has won so far."""
        return self.declarer_tricks if self.is_declaring_side else self.defence_tricks

    def all_tricks(self) -> tuple[Trick, ...]:
        return self.tricks + ((self.current_trick,) if self.current_trick.cards else ())

    def played_by(self, seat: int) -> list[int]:
        """Cards ``seat`` has played so far."""
        return [c for t in self.all_tricks() for s, c in zip(t.seats, t.cards) if s == seat]

    def known_hands(self) -> dict[int, tuple[int, ...]]:
        """Remaining cards of the seats this player can see: its own, and dummy's once visible."""
        known = {self.player: self.own_cards}
        if self.dummy_cards is not None:
            known[self.dummy] = self.dummy_cards
        return known

    def unseen_cards(self) -> list[int]:
        """Cards neither played nor in a visible hand, lowest first."""
        seen = mask_of(c for t in self.all_tricks() for c in t.cards)
        for cards in self.known_hands().values():
            seen |= mask_of(cards)
        return cards_of(((1 << 52) - 1) & ~seen)

    def legal_mask(self) -> np.ndarray:
        """bool[52]: True for the cards the player may play now (``legal``)."""
        mask = np.zeros(52, bool)
        mask[list(self.legal)] = True
        return mask

    def equivalent_groups(self) -> list[list[int]]:
        """Legal cards in groups of equals: the same suit, with only cards of completed tricks between them (a card
        in the trick in progress still separates: it may beat one and not the other). Lowest first."""
        return equivalent_groups(self.legal, mask_of(c for t in self.tricks for c in t.cards))

    def __str__(self) -> str:
        hand = " ".join(card_name(c) for c in sorted(self.hand, reverse=True))
        trick = str(self.current_trick) if self.current_trick.cards else "(new trick)"
        return (f"{SEATS[self.seat]} to play ({SEATS[self.player]} chooses) in {self.contract}: {hand} | {trick} | "
                f"tricks {self.declarer_tricks}-{self.defence_tricks}")


def view_of(state: PlayState, constraints: Mapping[int, HandConstraint] | None = None,
            player: int | None = None, auction: Auction | None = None, vul: str = "none") -> PlayerView:
    """The view of the player choosing the next card in ``state``.

    With ``player`` given and not the one to choose (an observer, as OpenSpiel's observation tensors need), the
    view is that player's with its own hand as ``hand`` and no legal cards. ``auction`` and ``vul``: the finished
    auction and the board's vulnerability, carried for agents that read them (auction-aware world sampling)."""
    if state.is_over and player is None:
        raise ValueError("the hand is over: no card to choose")
    acting = player is None or (not state.is_over and player == state.controller)
    seat = state.to_play if acting else player
    player = state.controller if acting else player
    dummy_cards = tuple(cards_of(state.hands[state.dummy])) if state.dummy_visible else None
    return PlayerView(
        seat=seat, player=player, hand=tuple(cards_of(state.hands[seat])),
        own_cards=tuple(cards_of(state.hands[player])), dummy_cards=dummy_cards, contract=state.contract,
        tricks=state.tricks, current_trick=state.trick, voids=state.shown_voids(),
        legal=tuple(state.legal_cards()) if acting else (), declarer_tricks=state.declarer_tricks,
        constraints=FrozenMapping(constraints or {}), auction=auction, vul=parse_vul(vul))


# -- the observation vector (`docs/play.md`) -------------------------------------------------------------------
LAYOUT = (
    ("played", 4 * 52),  # cards each relative seat has played, including the current trick
    ("trick", 4 * 52),   # the current trick: the card each relative seat has played to it
    ("level", 7),        # contract level 1-7
    ("strain", 5),       # C, D, H, S, NT
    ("penalty", 3),      # undoubled, doubled, redoubled
    ("declarer", 4),     # declarer's relative seat
    ("hand_seat", 4),    # relative seat of the hand to play from (2 when declarer plays from dummy)
    ("declarer_tricks", 14),  # tricks won by the declaring side, one-hot 0-13
    ("defence_tricks", 14),   # tricks won by the defence, one-hot 0-13
    ("hand", 52),        # remaining cards of the hand to play from
    ("visible", 52),     # the other hand this player sees: dummy's (once exposed), or declarer's own when on dummy
)
"""Public pieces first, then the private ``hand`` and ``visible`` (the order of OpenSpiel's observer too)."""
OFFSETS = {}
_start = 0
for _name, _size in LAYOUT:
    OFFSETS[_name] = slice(_start, _start + _size)
    _start += _size
OBSERVATION_SIZE = _start


# The encoder's absolute buffer: every bit of the observation of every player, kept by absolute seat; one gather with
# the index of (player, hand played from, other hand seen) lays out a player's observation (`_gather_index`).
_A_PLAYED, _A_TRICK, _A_CONTRACT = 0, 208, 416          # seat x card; seat x card; level 7, strain 5, penalty 3
_A_DECLARER, _A_DECLARER_TRICKS, _A_DEFENCE_TRICKS = 431, 435, 449  # seat one-hot; 14; 14
_A_HANDS, _A_ZEROS, _A_ONE_HOT = 463, 671, 723           # seat x card; 52 zeros; the 4 x 4 identity
_A_SIZE = 739
_NO_HAND = 4  # "no other hand is seen"


@functools.lru_cache(maxsize=None)
def _gather_index_with_prefix(me: int, seat: int, other: int, prefix_size: int) -> np.ndarray:
    """`_gather_index` after ``me``'s row of the encoder's per-player prefix (kept at the end of the buffer)."""
    index = np.concatenate([_A_SIZE + prefix_size * me + np.arange(prefix_size), _gather_index(me, seat, other)])
    index.setflags(write=False)
    return index


@functools.lru_cache(maxsize=None)
def _gather_index(me: int, seat: int, other: int) -> np.ndarray:
    """Where each bit of ``me``'s observation (`LAYOUT`) sits in the absolute buffer, when it plays from ``seat``'s
    hand and sees ``other``'s (`_NO_HAND`: none). Relative seat r of ``me`` is absolute seat (me + r) % 4."""
    cards = np.arange(52)
    pieces = {
        "played": [_A_PLAYED + 52 * ((me + r) % 4) + cards for r in range(4)],
        "trick": [_A_TRICK + 52 * ((me + r) % 4) + cards for r in range(4)],
        "level": [_A_CONTRACT + np.arange(7)], "strain": [_A_CONTRACT + 7 + np.arange(5)],
        "penalty": [_A_CONTRACT + 12 + np.arange(3)],
        "declarer": [_A_DECLARER + (me + np.arange(4)) % 4],
        "hand_seat": [_A_ONE_HOT + 4 * ((seat - me) % 4) + np.arange(4)],
        "declarer_tricks": [_A_DECLARER_TRICKS + np.arange(14)], "defence_tricks": [_A_DEFENCE_TRICKS + np.arange(14)],
        "hand": [_A_HANDS + 52 * seat + cards],
        "visible": [_A_ZEROS + cards if other == _NO_HAND else _A_HANDS + 52 * other + cards],
    }
    index = np.concatenate([part for name, _ in LAYOUT for part in pieces[name]]).astype(np.intp)
    index.setflags(write=False)
    return index


class PlayEncoder:
    """The play encoding (`LAYOUT`) kept up to date one card at a time: the one place its bits are worked out.
    `encode` builds one from a `PlayerView`; an env builds one from its `PlayState` and `add`s each card, so a step
    costs the same at every trick (the competitive env's `AuctionEncoder` does the same for the auction bits).

    The bits are kept by absolute seat in one buffer; a player's observation is one gather from it
    (`_gather_index`: the rotation to the player's relative seats is in the index, not in the data)."""

    __slots__ = ("bits", "_raw", "contract", "declarer_tricks", "defence_tricks", "dummy_visible", "prefix_size")

    def __init__(self, contract: Contract, tricks, current_trick: Trick, hands: Mapping[int, int],
                 declarer_tricks: int, dummy_visible: bool, prefixes: np.ndarray | None = None):
        """``hands``: the 52-bit masks of the remaining cards of the seats known (all four for an env, the
        player's and dummy's for a view). ``prefixes``: int8[4, P], bits each player's observation starts with (the
        whole deal's auction encoding, fixed during the play), so that its whole observation is one gather."""
        self.prefix_size = 0 if prefixes is None else int(prefixes.shape[1])
        raw = bytearray(_A_SIZE + 4 * self.prefix_size)  # `add` writes single bytes here, cheaper than into numpy
        bits = np.frombuffer(raw, np.int8)  # the same memory, for the gathers
        if prefixes is not None:
            bits[_A_SIZE:] = np.asarray(prefixes, np.int8).reshape(-1)
        tricks = tuple(tricks)
        defence_tricks = len(tricks) - declarer_tricks
        ones = [_A_CONTRACT + contract.level - 1, _A_CONTRACT + 7 + contract.strain,
                _A_CONTRACT + 12 + contract.penalty, _A_DECLARER + contract.declarer,
                _A_DECLARER_TRICKS + declarer_tricks,
                _A_DEFENCE_TRICKS + defence_tricks]  # the positions of the 1 bits, set in one assignment
        for trick in tricks + (current_trick,):
            ones += [_A_PLAYED + 52 * seat + card for seat, card in zip(trick.seats, trick.cards)]
        ones += [_A_TRICK + 52 * seat + card for seat, card in zip(current_trick.seats, current_trick.cards)]
        bits[ones] = 1
        bits[_A_ONE_HOT:_A_ONE_HOT + 16] = _IDENTITY_4
        for seat, hand in hands.items():
            raw[_A_HANDS + 52 * seat:_A_HANDS + 52 * seat + 52] = mask_bytes(hand)
        self.bits, self._raw, self.contract = bits, raw, contract
        self.declarer_tricks, self.defence_tricks, self.dummy_visible = declarer_tricks, defence_tricks, dummy_visible

    def __getstate__(self) -> dict:
        """Copies and pickles keep the bytes once; `__setstate__` makes ``bits`` a view of them again."""
        return {name: getattr(self, name) for name in self.__slots__ if name != "bits"}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.bits = np.frombuffer(self._raw, np.int8)

    @classmethod
    def of_state(cls, state: PlayState, prefixes: np.ndarray | None = None) -> "PlayEncoder":
        """The encoder of a play state, knowing every hand (what an env keeps)."""
        return cls(state.contract, state.tricks, state.trick, dict(enumerate(state.hands)),
                   state.declarer_tricks, state.dummy_visible, prefixes)

    def add(self, state: PlayState) -> None:
        """Take in the card that led to ``state`` (the state right after it)."""
        raw = self._raw
        card = state.history[-1]
        trick = state.trick
        if trick.cards:
            seat = (trick.leader + len(trick.cards) - 1) % 4
            raw[_A_TRICK + 52 * seat + card] = 1
        else:  # the trick is complete: it leaves the current trick, and the count of tricks moves on
            seat = (state.tricks[-1].leader + 3) % 4
            raw[_A_TRICK:_A_TRICK + 208] = _NO_TRICK
            raw[_A_DECLARER_TRICKS + self.declarer_tricks] = raw[_A_DEFENCE_TRICKS + self.defence_tricks] = 0
            self.declarer_tricks = state.declarer_tricks
            self.defence_tricks = len(state.tricks) - state.declarer_tricks
            raw[_A_DECLARER_TRICKS + self.declarer_tricks] = raw[_A_DEFENCE_TRICKS + self.defence_tricks] = 1
        raw[_A_PLAYED + 52 * seat + card] = 1
        raw[_A_HANDS + 52 * seat + card] = 0
        self.dummy_visible = True

    def observation(self, me: int, seat: int, out: np.ndarray | None = None) -> np.ndarray:
        """int8[OBSERVATION_SIZE] for player ``me`` playing from ``seat``'s hand (dummy's when declarer plays from
        dummy; ``me`` itself for an observer): a new array, or written into ``out``; with prefixes, ``me``'s prefix
        comes first (int8[P + OBSERVATION_SIZE])."""
        if me != seat:  # declarer on dummy: the other hand it sees is its own
            other = me
        elif self.dummy_visible and (self.contract.declarer + 2) % 4 != me:  # dummy's, once shown, to all but dummy
            other = (self.contract.declarer + 2) % 4
        else:
            other = _NO_HAND
        size = self.prefix_size
        index = _gather_index_with_prefix(me, seat, other, size) if size else _gather_index(me, seat, other)
        if out is None:
            return self.bits[index]
        out[:] = self.bits[index]
        return out


_IDENTITY_4 = np.eye(4, dtype=np.int8).reshape(-1)
_NO_TRICK = bytes(208)


def encode(view: PlayerView) -> np.ndarray:
    """int8[OBSERVATION_SIZE] observation vector of ``view``'s player."""
    hands = {seat: mask_of(cards) for seat, cards in view.known_hands().items()}
    encoder = PlayEncoder(view.contract, view.tricks, view.current_trick, hands, view.declarer_tricks,
                          view.dummy_cards is not None)
    return encoder.observation(view.player, view.seat)


def encode_pieces(view: PlayerView) -> dict[str, np.ndarray]:
    """Each named piece of the observation as float32."""
    obs = encode(view).astype(np.float32)
    return {name: obs[OFFSETS[name]] for name, _ in LAYOUT}


# -- contract, cards already played, reward ---------------------------------------------------------------------
def parse_played(played) -> list[int]:
    """Card indices from names ('SA', 'H7', 'CT') or indices, or from one space-separated string."""
    if isinstance(played, str):
        played = played.split()
    return [parse_card(c) if isinstance(c, str) else int(c) for c in played]


def parse_contract(contract, declarer) -> Contract:
    """A `Contract` from '3NT', '4SX' or a Contract, with the declarer seat (letter or 0-3)."""
    if isinstance(contract, Contract):
        return Contract(contract.level, contract.strain, contract.penalty, parse_seat(declarer))
    return Contract.parse(str(contract), parse_seat(declarer))


def final_reward(state: PlayState, mode: str, vulnerable: bool) -> float:
    """Declarer's reward on the tricks declarer's side has won (at the end of the play, or when it stops early)."""
    tricks = state.declarer_tricks
    if mode == "tricks":
        return float(tricks)
    if mode == "make":
        return float(tricks >= state.contract.tricks_needed)
    c = state.contract
    return float(score(c.level, c.strain, c.penalty, vulnerable, tricks))


def notify_deal(agent, owner) -> None:
    """Show the deal to an agent that sees it (the double-dummy oracle)."""
    if hasattr(agent, "see_deal"):
        agent.see_deal(owner)


# -- deal source ---------------------------------------------------------------------------------------------------
RESET_OPTIONS = {"index", "deal", "contract", "declarer", "played"}


@dataclass(frozen=True)
class CardPlayDeal:
    """The cards and the board of one card-play episode (the contract is chosen separately)."""

    owner: np.ndarray         # uint8[52]
    board: int
    vul: str
    index: int | None = None  # dataset row, None for a deal given as PBN

    def vulnerable(self, seat: int) -> bool:
        return is_vulnerable(parse_vul(self.vul), seat)

    def turned(self, turns: int) -> "CardPlayDeal":
        """The deal with the table turned by ``turns`` seats: seat p's cards go to seat (p + turns) % 4, and the
        vulnerability turns with them (a deal's play is the same with the players renamed)."""
        return CardPlayDeal(rotate_owner(self.owner, turns), self.board, turn_vul(self.vul, turns), self.index)


class CardPlayDealSource(SharedSource):
    """Deals of one dataset for card play: vulnerability from the board number (PBN tags for a PBN deal).

    ``deal_for_reset(rng, options)`` checks the reset options ("index", "deal", "contract", "declarer", "played")
    and returns the deal; without "index"/"deal" it samples a row uniformly."""

    def __init__(self, dataset: Dataset):
        check_nonempty(dataset)
        self.dataset = dataset
        self._boards = dataset.boards.tolist()

    def deal_at(self, row: int) -> CardPlayDeal:
        row = check_row(self.dataset, row)
        board = self._boards[row]
        return CardPlayDeal(self.dataset.owner[row], board, vul_for_board(board), row)

    @staticmethod
    def deal_from_pbn(text: str) -> CardPlayDeal:
        owner, board, vul, _dealer = parse_deal_option(text)
        return CardPlayDeal(owner, board, vul or vul_for_board(board), None)

    def deal_for_reset(self, rng: np.random.Generator, options: dict) -> CardPlayDeal:
        check_reset_options(options, RESET_OPTIONS)
        if "deal" in options:
            return self.deal_from_pbn(options["deal"])
        row = options["index"] if "index" in options else int(rng.integers(len(self.dataset)))
        return self.deal_at(row)


# -- text ----------------------------------------------------------------------------------------------------------
def render_text(state: PlayState) -> str:
    """The four hands still held, the tricks so far and the trick in progress."""
    lines = [f"Contract {state.contract}  tricks declarer {state.declarer_tricks} defence {state.defence_tricks}"]
    remaining = state.remaining_owner()
    for seat in range(4):
        lines.append(f"  {SEATS[seat]} {hand_text(remaining, seat)}")
    for i, trick in enumerate(state.all_tricks()):
        lines.append(f"  trick {i + 1}: " + " ".join(f"{SEATS[s]}:{card_name(c)}" for s, c in
                                                     zip(trick.seats, trick.cards)))
    return "\n".join(lines)
