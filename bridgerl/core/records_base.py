"""What the hand-record readers share (`bridgerl.core.records`, `bridgerl.core.records_lin`): the report of a file
read board by board, endplay's calls and cards in the project's indices, and the record made and checked from what
a board tells."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .calls import BID_OFFSET, DOUBLE, PASS, REDOUBLE, bid_index
from .cards import NUM_CARDS, SEAT_NAMES, SEATS, parse_seat
from .contract import Contract
from .dd import card_from_endplay, strain_from_endplay
from .hand_record import _UNKNOWN, HandRecord


@dataclass
class RecordsReport:
    """What a hand-record file gave: ``records`` (the good ones, in file order) and ``refused`` (one
    ``{"source": "file:board", "reason": ...}`` per board that could not be read)."""

    source: str
    records: list = field(default_factory=list)
    refused: list = field(default_factory=list)

    def require(self) -> list:
        """The good records; none at all is refused in one line naming the first problem."""
        if not self.records:
            first = self.refused[0]["reason"] if self.refused else f"{self.source}: no boards"
            raise ValueError(f"no board of {len(self.refused)} could be read; the first: {first}"
                             if len(self.refused) > 1 else first)
        return self.records


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[0].lower() + text[1:] if text[:1].isupper() and not text[1:2].isupper() else text


def _endplay_call(bid) -> int:
    from endplay.types import ContractBid, Penalty

    if isinstance(bid, ContractBid):
        return BID_OFFSET + bid_index(int(bid.level), strain_from_endplay(int(bid.denom)))
    return {Penalty.passed: PASS, Penalty.doubled: DOUBLE, Penalty.redoubled: REDOUBLE}[bid.penalty]


def _endplay_card(card, trick: int) -> int:
    if int(card.suit) == 4:  # endplay's stand-in for '-' (an unknown card)
        raise ValueError(f"unknown card '-' in the play (trick {trick})")
    return card_from_endplay(card)


def _seat_tag(raw: dict, tag: str) -> int | None:
    value = raw.get(tag.lower())
    if value is None or value.strip() in _UNKNOWN:
        return None
    try:
        return parse_seat(value.strip())
    except ValueError:
        raise ValueError(f"unknown seat {value!r} in the {tag} tag (expected N, E, S or W)") from None


def _make(source: str, board: int, dealer: int, vul: str, owner, calls, cards, result: int | None,
          names: dict, event: str | None, result_tag: str, traveller: bool = False, final: Contract | None = None,
          lenient: bool = False) -> HandRecord:
    """The record, with ``result`` (declarer's tricks from a Result / mc tag) turned into ``claimed`` before the
    end of the play and checked against the play after it (not when ``lenient``: a result marked as differing
    from the tricks won, or a play cut at an unknown card, where the play's own count stands)."""
    record = HandRecord(board, dealer, vul, owner, tuple(calls), tuple(cards), None, names, event, source,
                        traveller, final)  # checks the calls and cards
    if result is None or record.contract is None:  # a result on a pass-out or an unfinished auction says nothing
        return record
    if len(cards) == NUM_CARDS:
        played = record.play_state.declarer_tricks
        if played != result and not lenient:
            raise ValueError(f"{result_tag} {result} disagrees with the play: declarer took {played} tricks")
        return record
    try:
        return dataclasses.replace(record, claimed=result)  # HandRecord checks that the play allows the claim
    except ValueError:
        if lenient:
            return record
        raise


def _names(info) -> dict:
    names = {}
    for seat, name in zip(SEATS, SEAT_NAMES):
        value = info.get(name)
        if isinstance(value, str) and value.strip() not in _UNKNOWN:
            names[seat] = value.strip()
    return names
