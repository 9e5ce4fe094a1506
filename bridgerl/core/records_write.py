"""Hand records written as PBN (`bridgerl.core.records` re-exports these): endplay's PBN encoder, with
``Result "?"`` where the record does not say how many tricks declarer took, and PBN's upper-case doubling marks."""

from __future__ import annotations

import os
import re

from .calls import BID_OFFSET
from .cards import NUM_CARDS, SEAT_NAMES, SEATS, owner_to_pbn
from .dd import card_to_endplay, strain_to_endplay, vul_to_endplay
from .files import atomic_write_text
from .hand_record import HandRecord


def _endplay_board(record: HandRecord):
    from endplay.types import Bid, Board, Deal, Denom, Penalty, Player
    from endplay.types import Contract as EContract

    bids = []
    for call in record.calls:
        if call >= BID_OFFSET:
            bid = call - BID_OFFSET
            strain = bid % 5
            bids.append(Bid(f"{bid // 5 + 1}{'CDHSN'[strain]}"))
        else:
            bids.append(Bid(("P", "X", "XX")[call]))
    cards = [card_to_endplay(c) for c in record.cards]
    contract = None
    if record.auction_over:
        final = record.contract
        if final is None:
            contract = EContract(level=0)
        else:
            tricks = record.tricks
            contract = EContract(level=final.level, denom=Denom(strain_to_endplay(final.strain)),
                                 declarer=Player(final.declarer),
                                 penalty=(Penalty.passed, Penalty.doubled, Penalty.redoubled)[final.penalty],
                                 result=0 if tricks is None else tricks - final.level - 6)
    info = {name: record.names[seat] for seat, name in zip(SEATS, SEAT_NAMES) if seat in record.names}
    if record.event:
        info["Event"] = record.event
    return Board(Deal(owner_to_pbn(record.owner)), bids, cards, record.board, vul=vul_to_endplay(record.vul),
                 dealer=Player(record.dealer), contract=contract,
                 claimed=record.claimed is not None and len(record.cards) < NUM_CARDS, **info)


PBN_HEADER = "% PBN {version}\n% EXPORT\n% bridgerl hand records\n"  # no blank line: bridge_env reads one as an empty game


def pbn_header() -> str:
    """The lines a PBN file of `records_to_pbn` opens with."""
    from endplay.parsers.pbn import PBNEncoder

    return PBN_HEADER.format(version=PBNEncoder().pbn_version)


def record_pbn(record: HandRecord, encoder=None) -> str:
    """One record's PBN game (its tags, then a blank line), as `records_to_pbn` writes it."""
    from endplay.parsers.pbn import PBNEncoder

    encoder = PBNEncoder() if encoder is None else encoder
    encoder.export_board(_endplay_board(record))
    unknown = record.auction_over and record.contract is not None and record.tricks is None
    tags = []
    for tag in encoder.tags:
        if tag.startswith("[Contract "):
            tag = re.sub(r'x+(?="\])', lambda m: m.group(0).upper(), tag)  # endplay writes 4Hx; PBN 4HX
        elif tag.startswith("[Result ") and unknown:
            tag = '[Result "?"]\n'
        tags.append(tag)
    return "".join(tags) + "\n"


def records_to_pbn(records) -> str:
    """PBN text of ``records`` (endplay's encoder: Event .. South, Dealer, Vulnerable, Deal, Scoring, Declarer,
    Contract, Result, Auction, Play; ``Result "?"`` where the record does not tell declarer's tricks)."""
    from endplay.parsers.pbn import PBNEncoder

    encoder = PBNEncoder()
    return pbn_header() + "".join(record_pbn(record, encoder) for record in records)


def write_pbn_records(path: str | os.PathLike, records) -> None:
    """Write ``records`` as PBN, atomically."""
    atomic_write_text(path, records_to_pbn(records))


__all__ = ["pbn_header", "record_pbn", "records_to_pbn", "write_pbn_records"]
