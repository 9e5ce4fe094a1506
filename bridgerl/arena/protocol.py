"""The words of the computer-bridge table protocol (Blue Chip Bridge table manager protocol, version 18, the protocol
of the World Computer Bridge Championships; `docs/table.md`): every message the table manager and a seat send each
other, written by one function each and read back by `parse`, matched without regard to case.

A seat is named in full (``North``); a card is its rank then its suit (``TC``: the ten of clubs); a hand is four
suits, spades first, each ``S`` then its ranks or ``-`` and a full stop (``S A K 3. H -. D Q J T 9 8. C 7 6 5 4 3.``).
Messages are lines of plain ASCII ended by CR LF on the wire (`bridgerl.arena.table_manager`, `seat_client`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from bridgerl.core.board import parse_vul
from bridgerl.core.bridge import action_name
from bridgerl.core.calls import BID_OFFSET, parse_call
from bridgerl.core.cards import RANKS, SEAT_NAMES, SUITS

PROTOCOL_VERSION = 18
VULNERABLE_WORDS = {"none": "Neither", "NS": "N/S", "EW": "E/W", "both": "Both"}
END_OF_SESSION = "End of session"
TEAM_NAME = re.compile(r"[ !#-\[\]-~]{1,60}")  # a team name: printable ASCII but the double quote and the backslash
MAX_MESSAGE = 500  # characters: the longest message (a call with an alert's explanation) is far shorter
START_OF_BOARD = "Start of board"


class ProtocolError(ValueError):
    """A line that is not the message expected (one line: the seat, what was expected and what came)."""


def seat_name(seat: int) -> str:
    return SEAT_NAMES[seat]


def parse_seat(word: str) -> int:
    for seat, name in enumerate(SEAT_NAMES):
        if word.strip().lower() == name.lower():
            return seat
    raise ProtocolError(f"{word!r} is not a seat (North, East, South or West)")


def card_word(card: int) -> str:
    """``AS``, ``TC``: the protocol's card (rank, then suit)."""
    return RANKS[card % 13] + SUITS[card // 13]


def parse_card_word(word: str) -> int:
    text = word.strip().upper().replace("10", "T")
    if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
        raise ProtocolError(f"{word!r} is not a card (rank then suit, e.g. AS or TC)")
    return SUITS.index(text[1]) * 13 + RANKS.index(text[0])


def hand_words(cards) -> str:
    """A hand as the protocol writes it: spades, hearts, diamonds, clubs, each suit's ranks high to low."""
    parts = []
    for suit in (3, 2, 1, 0):
        ranks = sorted((c % 13 for c in cards if c // 13 == suit), reverse=True)
        parts.append(f"{SUITS[suit]} {' '.join(RANKS[r] for r in ranks) if ranks else '-'}.")
    return " ".join(parts)


_SUIT_PART = re.compile(r"\s*([SHDC])\s*([^.]*)\.", re.IGNORECASE)


def parse_hand_words(text: str) -> tuple[int, ...]:
    """The cards of a hand written by `hand_words` (any order of suits, any case and spacing, ``10`` or ``T``, a
    void as ``-`` or nothing)."""
    cards, seen, position = [], set(), 0
    text = text.strip()
    while position < len(text):
        match = _SUIT_PART.match(text, position)
        if match is None:
            raise ProtocolError(f"{text!r} is not a hand (S ... . H ... . D ... . C ... .)")
        suit = match.group(1).upper()
        if suit in seen:
            raise ProtocolError(f"{text!r}: the suit {suit} is given twice")
        seen.add(suit)
        for rank in match.group(2).split():
            if rank != "-":
                cards.append(parse_card_word(rank + suit))
        position = match.end()
    if seen != set("SHDC") or len(cards) != 13 or len(set(cards)) != 13:
        raise ProtocolError(f"{text!r} is not a hand of 13 cards in four suits")
    return tuple(sorted(cards))


def call_words(call: int) -> str:
    """What follows the seat in a call message: ``passes``, ``doubles``, ``redoubles``, ``bids 1NT``."""
    if call < BID_OFFSET:
        return ("passes", "doubles", "redoubles")[call]
    return f"bids {action_name(call)}"


# the messages, by who sends them (M: the table manager, S: a seat)
def connecting(team: str, seat: int) -> str:  # S
    return f'Connecting "{team}" as {seat_name(seat)} using protocol version {PROTOCOL_VERSION}'


def seated(seat: int, team: str) -> str:  # M
    return f'{seat_name(seat)} ("{team}") seated'


def ready_for_teams(seat: int) -> str:  # S
    return f"{seat_name(seat)} ready for teams"


def teams(ns: str, ew: str) -> str:  # M (no full stop after the first name: BEN's client reads it so)
    return f'Teams : N/S : "{ns}" E/W : "{ew}"'


def ready_to_start(seat: int) -> str:  # S
    return f"{seat_name(seat)} ready to start"


def ready_for_deal(seat: int) -> str:  # S
    return f"{seat_name(seat)} ready for deal"


def board_words(board: int, dealer: int, vul: str) -> str:  # M
    return f"Board number {int(board)}. Dealer {seat_name(dealer)}. {VULNERABLE_WORDS[parse_vul(vul)]} vulnerable."


def ready_for_cards(seat: int) -> str:  # S
    return f"{seat_name(seat)} ready for cards"


def cards_words(seat: int, cards) -> str:  # M
    return f"{seat_name(seat)}'s cards : {hand_words(cards)}"


def call_message(seat: int, call: int) -> str:  # S (its own call), M (relayed to the others)
    return f"{seat_name(seat)} {call_words(call)}"


def ready_for_bid(seat: int, caller: int) -> str:  # S
    return f"{seat_name(seat)} ready for {seat_name(caller)}'s bid"


def to_lead(seat: int, dummy: bool) -> str:  # M, to the seat that chooses the lead
    return f"{'Dummy' if dummy else seat_name(seat)} to lead"


def ready_for_dummy(seat: int) -> str:  # S
    return f"{seat_name(seat)} ready for dummy"


def dummy_cards(cards) -> str:  # M
    return f"Dummy's cards : {hand_words(cards)}"


def ready_for_card(seat: int, player: int, trick: int, dummy: bool) -> str:  # S (trick counted from 1)
    return f"{seat_name(seat)} ready for {'dummy' if dummy else seat_name(player)}'s card to trick {trick}"


def plays(seat: int, card: int) -> str:  # S (declarer for dummy too), M (relayed)
    return f"{seat_name(seat)} plays {card_word(card)}"


def _clock(seconds: float, hours: bool) -> str:
    seconds = int(round(seconds))
    if hours:
        return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{seconds // 60:02d}:{seconds % 60:02d}"


def timing(board_seconds: tuple[float, float], total_seconds: tuple[float, float]) -> str:  # M, end of a board
    return (f"Timing - N/S : this board  [{_clock(board_seconds[0], False)}],  total  [{_clock(total_seconds[0], True)}]."
            f"  E/W : this board  [{_clock(board_seconds[1], False)}],  total  [{_clock(total_seconds[1], True)}].")


DIALECTS = ("default", "openspiel")
_SEAT_WORD = re.compile(r"\b(North|East|South|West)\b")
_CALL_WORD = re.compile(r"\b(passes|doubles|redoubles)\b")
_PLAYED_CARD = re.compile(r"\bplays ([2-9TJQKA][CDHS])\b")


def in_dialect(text: str, dialect: str = "default") -> str:
    """A seat's message ``text`` as ``dialect`` writes it. ``openspiel``: as OpenSpiel's Blue Chip wrappers
    (``bluechip_bridge.py``, ``bluechip_bridge_uncontested_bidding.py``) match it, exactly and case-sensitively: it
    connects ``as ANYPL``, writes seats and the words of calls in upper case (``NORTH PASSES``, ``NORTH bids 1NT``),
    a card in lower case (``NORTH plays tc``) and dummy as ``Dummy's card``; team names (in quotes) are kept."""
    if dialect == "default":
        return text
    if dialect != "openspiel":
        raise ValueError(f"dialect {dialect!r}: one of {', '.join(DIALECTS)}")
    parts = text.split('"')
    for i in range(0, len(parts), 2):  # outside the quotes
        part = _SEAT_WORD.sub(lambda m: m.group(1).upper(), parts[i])
        part = _CALL_WORD.sub(lambda m: m.group(1).upper(), part)
        part = _PLAYED_CARD.sub(lambda m: "plays " + m.group(1).lower(), part)
        part = part.replace("for dummy's card", "for Dummy's card")
        if i == 2 and parts[0].startswith("Connecting"):
            part = re.sub(r"\bas [A-Z]+ using", "as ANYPL using", part)
        parts[i] = part
    return '"'.join(parts)


_SEAT = r"(?P<seat>north|east|south|west)"
_PATTERNS = {
    "connecting": r'connecting\s+"(?P<team>[^"]*)"\s+as\s+(?P<seat>north|east|south|west|anypl)\s+using\s+protocol'
                  r"\s+version\s+(?P<version>\d{1,4})",
    "seated": rf'{_SEAT}\s+\(?"?(?P<team>[^"]*?)"?\)?\s+seated',
    "ready_for_teams": rf"{_SEAT}\s+ready\s+for\s+teams",
    "teams": r'teams\s*:\s*n/s\s*:?\s*"(?P<ns>[^"]*)"\.?\s*e/w\s*:?\s*"(?P<ew>[^"]*)"\.?',
    "ready_to_start": rf"{_SEAT}\s+ready\s+to\s+start",
    "start_of_board": r"start\s+of\s+board",
    "ready_for_deal": rf"{_SEAT}\s+ready\s+for\s+deal",
    "board": r"board\s+number\s+(?P<board>\d{1,9})\s*\.\s*dealer\s+(?P<dealer>north|east|south|west)\s*\.\s*"
             r"(?P<vul>neither|n/s|e/w|both)\s+vulnerable\.?",
    "ready_for_cards": rf"{_SEAT}\s+ready\s+for\s+cards",
    "cards": rf"{_SEAT}'s\s+cards\s*:\s*(?P<hand>.*)",
    "call": rf"{_SEAT}\s+(?:(?P<word>passes|doubles|redoubles)|bids\s+(?P<bid>[1-7](?:nt|[cdhs])))"
            rf"(?:\s+alert\.?(?P<explanation>.*))?",
    "ready_for_bid": rf"{_SEAT}\s+ready\s+for\s+(?P<caller>north|east|south|west)'s\s+bid",
    "to_lead": r"(?P<leader>north|east|south|west|dummy)\s+to\s+lead",
    "ready_for_dummy": rf"{_SEAT}\s+ready\s+for\s+dummy",
    "dummy_cards": r"dummy's\s+cards\s*:\s*(?P<hand>.*)",
    "ready_for_card": rf"{_SEAT}\s+ready\s+for\s+(?P<player>north|east|south|west|dummy)'s\s+card\s+to\s+trick\s+"
                      r"(?P<trick>\d{1,2})",
    "plays": rf"{_SEAT}\s+plays\s+(?P<card>(?:10|[2-9tjqka])[cdhs])",
    "timing": r"timing\s*-.*",
    "end_of_session": r"end\s+of\s+session",
}
# any message may end with a full stop (some programs write one after every message)
_COMPILED = {kind: re.compile(rf"\s*{pattern}\s*\.?\s*", re.IGNORECASE) for kind, pattern in _PATTERNS.items()}


@dataclass(frozen=True)
class Message:
    """One parsed message: its kind (a key of the patterns) and its fields, decoded (seats as 0-3, a call as the
    core's action, a card as the core's card index, a hand as its cards)."""

    kind: str
    fields: dict = field(default_factory=dict)
    text: str = ""

    def __getitem__(self, key):
        return self.fields[key]


def _decoded(kind: str, groups: dict) -> dict:
    out = {}
    for key, value in groups.items():
        if value is None:
            continue
        if key == "seat" and value.lower() == "anypl":
            out[key] = None  # "as ANYPL": the manager seats it at its port's seat
        elif key in ("seat", "caller", "dealer"):
            out[key] = parse_seat(value)
        elif key in ("player", "leader"):
            out[key] = "dummy" if value.lower() == "dummy" else parse_seat(value)
        elif key in ("board", "trick", "version"):
            out[key] = int(value)
        elif key == "vul":
            out[key] = {"neither": "none", "n/s": "NS", "e/w": "EW", "both": "both"}[value.lower()]
        elif key == "hand":
            out[key] = parse_hand_words(value)
        elif key == "card":
            out[key] = parse_card_word(value)
        elif key == "explanation":
            out[key] = value.strip()
        else:
            out[key] = value
    if kind == "call":
        if "word" in out:
            out["call"] = ("passes", "doubles", "redoubles").index(out.pop("word").lower())
        else:
            out["call"] = parse_call(out.pop("bid"))
    return out


def parse(line: str) -> Message:
    """The message ``line`` is (case and spacing aside); `ProtocolError` naming the line when it is none."""
    if len(line) <= MAX_MESSAGE:
        for kind, pattern in _COMPILED.items():
            match = pattern.fullmatch(line)
            if match is not None:
                return Message(kind, _decoded(kind, match.groupdict()), line)
    raise ProtocolError(f"{line[:120]!r} is not a message of the table protocol")


def expect(line: str, kind: str, **wanted) -> Message:
    """``line`` parsed, checked to be a message of ``kind`` whose fields include ``wanted``; else `ProtocolError`."""
    try:
        message = parse(line)
    except (ProtocolError, ValueError):
        message = None
    if message is None or message.kind != kind or any(message.fields.get(k) != v for k, v in wanted.items()):
        raise ProtocolError(f"got {line[:120]!r}")
    return message
