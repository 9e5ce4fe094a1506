"""Cards, seats, strains and hands: the index conventions of `docs/conventions.md`.

card index = suit * 13 + rank, suits clubs=0, diamonds=1, hearts=2, spades=3, rank 0 = deuce ... 12 = ace.
Seats N=0, E=1, S=2, W=3. Strains C=0, D=1, H=2, S=3, NT=4.
A deal is an ``owner`` array: owner[card] = seat holding that card.
"""

from __future__ import annotations

import numpy as np

NUM_CARDS = 52
NUM_SEATS = 4
NUM_STRAINS = 5
SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
STRAINS = ("C", "D", "H", "S", "NT")
RANKS = "23456789TJQKA"
SEATS = "NESW"
SEAT_NAMES = ("North", "East", "South", "West")
NT = 4


def card_index(suit: int, rank: int) -> int:
    """Card index of (suit, rank)."""
    return suit * 13 + rank


def card_suit(card: int) -> int:
    return card // 13


def card_rank(card: int) -> int:
    return card % 13


def card_name(card: int) -> str:
    """'SA', 'H7', 'CT' for a card index."""
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card index {card} is outside 0..51")
    return SUITS[card // 13] + RANKS[card % 13]


def parse_card(text: str) -> int:
    """Card index from a string such as 'SA', 'h7', 'CT' or 'D10'."""
    t = text.strip().upper().replace("10", "T")
    if len(t) != 2 or t[0] not in SUITS or t[1] not in RANKS:
        raise ValueError(f"not a card: {text!r} (expected suit letter then rank, e.g. 'SA', 'H7', 'CT')")
    return card_index(SUITS.index(t[0]), RANKS.index(t[1]))


def parse_seat(seat: int | str) -> int:
    """Seat index from 0-3 or 'N'/'E'/'S'/'W' (or 'North', ...)."""
    if isinstance(seat, (int, np.integer)) and not isinstance(seat, bool):
        if 0 <= int(seat) < 4:
            return int(seat)
        raise ValueError(f"seat {seat} is outside 0..3 (N, E, S, W)")
    if isinstance(seat, str) and seat.strip():
        letter = seat.strip()[0].upper()
        if letter in SEATS and (len(seat.strip()) == 1 or seat.strip().capitalize() in SEAT_NAMES):
            return SEATS.index(letter)
    raise ValueError(f"not a seat: {seat!r} (expected 0-3 or one of N, E, S, W)")


def parse_strain(text: str) -> int:
    """Strain index from 'C', 'D', 'H', 'S', 'N' or 'NT'."""
    t = text.strip().upper()
    if t in ("N", "NT"):
        return NT
    if len(t) == 1 and t in SUITS:
        return SUITS.index(t)
    raise ValueError(f"not a strain: {text!r} (expected C, D, H, S or NT)")


def partner(seat: int) -> int:
    return (seat + 2) % 4


def side_of(seat: int) -> int:
    """0 for NS, 1 for EW."""
    return seat % 2


def hand_mask(owner: np.ndarray, seat: int) -> np.ndarray:
    """int8[..., 52] 0/1 vector of the cards ``seat`` holds (works on batches of owners)."""
    return (np.asarray(owner) == seat).astype(np.int8)


def validate_owner(owner: np.ndarray) -> None:
    """Raise ValueError unless ``owner`` is a 52-card deal with 13 cards per seat."""
    owner = np.asarray(owner)
    if owner.shape != (NUM_CARDS,):
        raise ValueError(f"a deal needs 52 owners, got shape {owner.shape}")
    counts = np.bincount(owner.astype(np.int64), minlength=4) if owner.min() >= 0 else None
    if counts is None or owner.max() > 3 or not np.all(counts[:4] == 13):
        raise ValueError(f"a deal needs 13 cards for each seat 0-3, got seat counts {np.bincount(owner.astype(np.int64)).tolist()}")


def hand_to_pbn(owner: np.ndarray, seat: int) -> str:
    """One hand in PBN order: spades.hearts.diamonds.clubs, ranks high to low."""
    owner = np.asarray(owner)
    parts = []
    for suit in (3, 2, 1, 0):
        parts.append("".join(RANKS[r] for r in range(12, -1, -1) if owner[suit * 13 + r] == seat))
    return ".".join(parts)


def hand_text(owner: np.ndarray, seat: int) -> str:
    """One hand as a bridge player writes it: '♠AK2 ♥Q32 ♦K432 ♣J32' ('-' for a void)."""
    spades, hearts, diamonds, clubs = hand_to_pbn(owner, seat).split(".")
    return f"♠{spades or '-'} ♥{hearts or '-'} ♦{diamonds or '-'} ♣{clubs or '-'}"


def owner_to_pbn(owner: np.ndarray, first: int = 0) -> str:
    """PBN deal string, e.g. 'N:AKQ.xxx... ...', hands clockwise from ``first``."""
    validate_owner(owner)
    hands = [hand_to_pbn(owner, (first + i) % 4) for i in range(4)]
    return f"{SEATS[first]}:" + " ".join(hands)


def pbn_to_owner(deal: str) -> np.ndarray:
    """owner uint8[52] from a PBN deal string 'N:S.H.D.C E... S... W...'.

    A single missing hand (written '-') is filled with the remaining cards."""
    text = deal.strip().strip('"')
    if len(text) < 2 or text[1] != ":" or text[0].upper() not in SEATS:
        raise ValueError(f"malformed PBN deal {deal!r}: must start with a seat letter and ':' (e.g. 'N:')")
    first = SEATS.index(text[0].upper())
    hands = text[2:].split()
    if len(hands) != 4:
        raise ValueError(f"malformed PBN deal {deal!r}: expected 4 hands, found {len(hands)}")
    owner = np.full(NUM_CARDS, 255, dtype=np.uint8)
    missing = []
    for i, hand in enumerate(hands):
        seat = (first + i) % 4
        if hand == "-":
            missing.append(seat)
            continue
        suits = hand.split(".")
        if len(suits) != 4:
            raise ValueError(f"malformed PBN deal {deal!r}: hand {hand!r} of {SEATS[seat]} needs 4 suits separated by '.'")
        for holding, suit in zip(suits, (3, 2, 1, 0)):
            for ch in holding.upper().replace("10", "T"):
                if ch not in RANKS:
                    raise ValueError(f"malformed PBN deal {deal!r}: {ch!r} is not a rank in {SEATS[seat]}'s hand")
                card = suit * 13 + RANKS.index(ch)
                if owner[card] != 255:
                    raise ValueError(f"malformed PBN deal {deal!r}: {card_name(card)} appears twice")
                owner[card] = seat
    if len(missing) > 1:
        raise ValueError(f"malformed PBN deal {deal!r}: at most one hand may be '-'")
    if missing:
        owner[owner == 255] = missing[0]
    if (owner == 255).any():
        absent = ", ".join(card_name(int(c)) for c in np.flatnonzero(owner == 255))
        raise ValueError(f"malformed PBN deal {deal!r}: cards missing: {absent}")
    counts = np.bincount(owner, minlength=4)
    if not np.all(counts == 13):
        raise ValueError(f"malformed PBN deal {deal!r}: hands have {counts.tolist()} cards (N, E, S, W), need 13 each")
    return owner
