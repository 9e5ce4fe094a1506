"""Card play (thesis 2.1.5): following suit, trick winners, and the state of a hand being played.

Declarer's left-hand opponent leads; dummy (declarer's partner) is exposed after the opening lead and declarer
chooses dummy's cards. Hands are 52-bit Python ints (bit = card index of `cards.py`), so a state is cheap to copy.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .cards import NT, card_name, parse_card, partner, validate_owner
from .contract import Contract

SUIT_BITS = tuple(((1 << 13) - 1) << (13 * suit) for suit in range(4))
ALL_CARDS = (1 << 52) - 1


class IllegalPlayError(ValueError):
    """A card that may not be played now (not in the hand to play from, or not following suit)."""


def _suit_cards(suit: int) -> tuple[tuple[int, ...], ...]:
    """For each 13-bit holding of ``suit``, its card indices lowest first (index = holding)."""
    table = [()]
    for rank in range(13):
        card = (suit * 13 + rank,)
        table += [cards + card for cards in table]
    return tuple(table)


CARDS_IN = tuple(_suit_cards(suit) for suit in range(4))  # per suit and holding: four lookups make `cards_of`


def cards_of(mask: int) -> list[int]:
    """Card indices of a 52-bit mask, lowest first."""
    clubs, diamonds, hearts, spades = CARDS_IN
    return [*clubs[mask & 0x1FFF], *diamonds[(mask >> 13) & 0x1FFF], *hearts[(mask >> 26) & 0x1FFF],
            *spades[(mask >> 39) & 0x1FFF]]


def mask_of(cards) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


# per seat, a bytes.translate table: that seat's byte -> "1", any other -> "0" (a hand's mask read as a binary number)
_SEAT_DIGITS = tuple(bytes(49 if value == seat else 48 for value in range(256)) for seat in range(4))


def hand_masks(owner: np.ndarray) -> tuple[int, int, int, int]:
    """The 52-bit card masks of N, E, S, W of a deal (uint8[52] owner array); ValueError unless it is a deal of 13
    cards per seat."""
    if owner.shape != (52,) or owner.dtype != np.uint8:
        validate_owner(owner)
        owner = np.asarray(owner, dtype=np.uint8)
    digits = owner.tobytes()[::-1]  # card 51 first: the most significant digit
    north, east, south, west = _SEAT_DIGITS
    hands = (int(digits.translate(north), 2), int(digits.translate(east), 2), int(digits.translate(south), 2),
             int(digits.translate(west), 2))
    if hands[0] | hands[1] | hands[2] | hands[3] != ALL_CARDS or any(hand.bit_count() != 13 for hand in hands):
        validate_owner(owner)  # names the problem
    return hands


# for each 13-bit holding of a suit, its 13 rank bits as bytes 0/1: a 52-bit mask's bytes in four lookups
RANK_BYTES = tuple(row.tobytes() for row in ((np.arange(1 << 13)[:, None] >> np.arange(13)) & 1).astype(np.int8))


def mask_bytes(mask: int) -> bytes:
    """The 52 bytes 0/1 of a 52-bit mask, card 0 first."""
    return b"".join((RANK_BYTES[mask & 0x1FFF], RANK_BYTES[(mask >> 13) & 0x1FFF], RANK_BYTES[(mask >> 26) & 0x1FFF],
                     RANK_BYTES[mask >> 39]))


def mask_to_array(mask: int) -> np.ndarray:
    """uint8[52] 0/1 from a 52-bit mask."""
    return np.frombuffer(bytearray(mask_bytes(mask)), np.uint8)


def trick_winner(leader: int, cards, strain: int) -> int:
    """Seat winning a complete trick led by ``leader``: the highest trump, else the highest card of the suit led."""
    if len(cards) != 4:
        raise ValueError(f"a trick has 4 cards, got {len(cards)}")
    return (leader + winning_position(cards, strain)) % 4


def winning_position(cards, strain: int) -> int:
    """Position (0 = the lead) of the card winning a complete trick. Plain integer code, so the compiled searches
    (`bridgerl.agents.play._cd_search`) compile this one copy of the rule."""
    best = 0
    for i in range(1, 4):
        card, top = cards[i], cards[best]
        if card // 13 == top // 13:
            if card > top:
                best = i
        elif strain != NT and card // 13 == strain:
            best = i
    return best


def legal_mask(hand: int, led_suit: int | None) -> int:
    """Cards of ``hand`` that may be played: the suit led if any are held, else any card."""
    if led_suit is not None:
        follow = hand & SUIT_BITS[led_suit]
        if follow:
            return follow
    return hand


def equivalent_groups(legal, gone: int) -> list[list[int]]:
    """Legal cards in groups of equals: the same suit with only ``gone`` cards (a mask of the cards of completed
    tricks) between them, as partition search normalises ranks (thesis 2.3.1). Each group lowest first."""
    groups: list[list[int]] = []
    for card in sorted(legal):
        prev = groups[-1][-1] if groups else None
        between = ((1 << card) - 1) & ~((1 << (prev + 1)) - 1) if prev is not None else 0
        if prev is not None and prev // 13 == card // 13 and between & ~gone == 0:
            groups[-1].append(card)
        else:
            groups.append([card])
    return groups


_SEAT_ORDER = tuple(tuple((leader + i) % 4 for i in range(4)) for leader in range(4))


class Trick(NamedTuple):
    """A trick: the seat that led it and the cards played to it in order (fewer than 4 while in progress).
    Immutable (a named tuple: one is made for every card played)."""

    leader: int
    cards: tuple[int, ...] = ()

    @property
    def seats(self) -> tuple[int, ...]:
        """The seat that played each card, in order."""
        return _SEAT_ORDER[self.leader][:len(self.cards)]

    @property
    def led_suit(self) -> int | None:
        return self.cards[0] // 13 if self.cards else None

    def __str__(self) -> str:
        return f"{'NESW'[self.leader]}: " + " ".join(card_name(c) for c in self.cards)


class ContractSeats:
    """``declarer`` and ``dummy`` of an object with a ``contract`` (the play state and a player's view)."""

    __slots__ = ()

    @property
    def declarer(self) -> int:
        return self.contract.declarer

    @property
    def dummy(self) -> int:
        return partner(self.contract.declarer)


class _PlayFields(NamedTuple):
    owner: np.ndarray
    contract: Contract
    hands: tuple[int, int, int, int]
    tricks: tuple[Trick, ...] = ()
    trick: Trick | None = None
    declarer_tricks: int = 0
    history: tuple[int, ...] = ()


class PlayState(_PlayFields, ContractSeats):
    """A hand in play: the deal (``owner``, uint8[52] seat of each card), the contract (with declarer), the
    remaining ``hands`` (52-bit masks N, E, S, W), the completed ``tricks``, the ``trick`` in progress, declarer's
    tricks so far and the ``history`` of cards played.

    Immutable, and a tuple underneath: one is made for every card played (the hot path of every search and env), and
    a tuple is the cheapest object Python builds. Equality and hashing read every field but ``owner`` (the deal,
    which the hands and the history imply), as a frozen dataclass with ``owner`` left out of the comparison would."""

    __slots__ = ()

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self[1:] == other[1:]

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self[1:])

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields[1:], self[1:]))
        return f"PlayState({fields})"

    @classmethod
    def start(cls, owner, contract: Contract, played=()) -> "PlayState":
        """The position before the opening lead, then ``played`` (card indices or names like 'SA') in order."""
        owner = np.asarray(owner)
        hands = hand_masks(owner)  # checks the deal before the cast, which would wrap a bad value
        owner = owner.astype(np.uint8, copy=False)
        state = cls(owner, contract, hands, (), Trick((contract.declarer + 1) % 4))
        for i, card in enumerate(played):
            try:
                state = state.play(card)
            except IllegalPlayError as exc:
                raise IllegalPlayError(f"played card {i + 1}: {exc}") from None
        return state

    @property
    def strain(self) -> int:
        return self.contract.strain

    @property
    def is_over(self) -> bool:
        return len(self.tricks) == 13

    @property
    def to_play(self) -> int:
        """Seat whose card is next (dummy's seat when dummy's card is due; declarer chooses it)."""
        return (self.trick.leader + len(self.trick.cards)) % 4

    @property
    def controller(self) -> int:
        """Seat choosing the next card: declarer for dummy's cards, else the seat to play."""
        trick = self.trick
        seat = (trick.leader + len(trick.cards)) % 4
        declarer = self.contract.declarer
        return declarer if seat == (declarer + 2) % 4 else seat

    @property
    def dummy_visible(self) -> bool:
        return len(self.history) > 0

    @property
    def defence_tricks(self) -> int:
        return len(self.tricks) - self.declarer_tricks

    def legal_mask_bits(self) -> int:
        """52-bit mask of the cards that may be played now (0 once the hand is over)."""
        if len(self.tricks) == 13:
            return 0
        trick = self.trick
        cards = trick.cards
        return legal_mask(self.hands[(trick.leader + len(cards)) % 4], cards[0] // 13 if cards else None)

    def legal_cards(self) -> list[int]:
        return cards_of(self.legal_mask_bits())

    def legal_mask(self) -> np.ndarray:
        """int8[52]: 1 for the cards that may be played now."""
        return mask_to_array(self.legal_mask_bits()).astype(np.int8)

    def play(self, card: int | str) -> "PlayState":
        """The state after the next card (index or name); raises IllegalPlayError naming the problem."""
        if type(card) is not int:
            card = parse_card(card) if isinstance(card, str) else int(card)
        if not 0 <= card < 52:
            raise IllegalPlayError(f"card index {card} is outside 0..51")
        owner, contract, hands, tricks, trick, won, history = self
        if len(tricks) == 13:
            raise IllegalPlayError(f"{card_name(card)}: all 13 tricks have been played")
        leader, cards = trick
        seat = (leader + len(cards)) % 4
        hand, bit = hands[seat], 1 << card
        if not hand & bit:
            raise IllegalPlayError(f"{card_name(card)} is not in {'NESW'[seat]}'s hand")
        if cards and not legal_mask(hand, cards[0] // 13) & bit:
            raise IllegalPlayError(f"{card_name(card)}: {'NESW'[seat]} must follow suit "
                                   f"({('clubs', 'diamonds', 'hearts', 'spades')[cards[0] // 13]} were led)")
        hands = list(hands)
        hands[seat] = hand ^ bit
        cards += (card,)
        # the next state built as the bare tuples it is (no argument handling): the hot path of every search and env
        if len(cards) < 4:
            return _tuple_new(PlayState, (owner, contract, tuple(hands), tricks, _tuple_new(Trick, (leader, cards)),
                                          won, history + (card,)))
        winner = (leader + winning_position(cards, contract.strain)) % 4
        won += (winner - contract.declarer) % 2 == 0
        return _tuple_new(PlayState, (owner, contract, tuple(hands), tricks + (_tuple_new(Trick, (leader, cards)),),
                                      _tuple_new(Trick, (winner, ())), won, history + (card,)))

    def completed_mask(self) -> int:
        """Mask of the cards of completed tricks."""
        return ALL_CARDS ^ (self.hands[0] | self.hands[1] | self.hands[2] | self.hands[3]) ^ mask_of(self.trick.cards)

    def remaining_owner(self) -> np.ndarray:
        """Owner array of the cards still held (4 for played cards)."""
        owner = self.owner.copy()
        owner[list(self.history)] = 4
        return owner

    def played_by(self, seat: int) -> list[int]:
        """Cards ``seat`` has played, in order."""
        out = []
        for trick in self.all_tricks():
            for s, c in zip(trick.seats, trick.cards):
                if s == seat:
                    out.append(c)
        return out

    def all_tricks(self) -> tuple[Trick, ...]:
        """Completed tricks, then the trick in progress if it has cards."""
        return self.tricks + ((self.trick,) if self.trick.cards else ())

    def shown_voids(self) -> np.ndarray:
        """bool[4 seats, 4 suits]: True where a seat failed to follow to a suit led."""
        voids = np.zeros((4, 4), dtype=bool)
        for trick in self.all_tricks():
            led = trick.led_suit
            for s, c in zip(trick.seats[1:], trick.cards[1:]):
                if c // 13 != led:
                    voids[s, led] = True
        return voids

    def winner_of(self, index: int) -> int:
        """Seat that won completed trick ``index``."""
        trick = self.tricks[index]
        return trick_winner(trick.leader, trick.cards, self.strain)


_tuple_new = tuple.__new__
