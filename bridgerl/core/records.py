"""Hand records: deals with the auction and the play that people (or agents) had at the table, read from PBN and
BBO LIN files through endplay's parsers, written as PBN, and replayed into the whole-deal game of `bridge`.

The record itself (`HandRecord`, checked when it is made), ``replay(record, upto)`` and ``record_of(state)`` live in
`bridgerl.core.hand_record` and are importable from here too.

What endplay 0.5 does and does not do, and what this module adds (see `docs/evaluation.md`, "Hand records"):

* PBN: endplay reads tags, the Auction section (``AP``, notes) and the Play section (columns by seat from the
  opening leader, turned into play order with the trick winners). Read separately here, for messages and checks:
  the raw Board, Dealer, Declarer, Contract, Result and Vulnerable values (endplay reads ``Result "?"`` as 0 tricks,
  defaults a missing Declarer to North, drops the Dealer tag on a board without a contract, rejects
  ``Vulnerable "Love"``, and reads ``AP`` as three passes wherever it stands).
* LIN: endplay's parser finds boards by their ``pn`` tag only, reads one ``pn`` of four names, and fails on a play
  that stops within a trick without an ``mc`` claim (and the result it works out for a full play counts the tricks
  won by the side on lead to each trick, not declarer's). Here the text is cut into boards at ``qx`` (or at ``pn`` after a deal), the board number is read from
  ``ah`` / ``qx``, the claim from ``mc``, and endplay parses each board with an ``mc`` tag supplied when the
  board has none (so it never computes a result of its own).
* Writing: endplay's PBN encoder, with ``Result "?"`` where the record does not say how many tricks declarer took.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .auction import Auction
from .board import dealer_for_board, parse_vul, vul_for_board
from .calls import BID_OFFSET, DOUBLE, PASS, REDOUBLE, bid_index
from .cards import NUM_CARDS, SEAT_NAMES, SEATS, owner_to_pbn, parse_seat, pbn_to_owner
from .contract import Contract
from .dd import card_from_endplay, card_to_endplay, strain_from_endplay, strain_to_endplay, vul_to_endplay
from .files import atomic_write_text
from .hand_record import _PBN_VUL, _UNKNOWN, HandRecord, _auction_of, record_actions, record_of, replay
from .play import PlayState

# -- reading -------------------------------------------------------------------------------------------------------
def read_records(path: str | os.PathLike) -> list[HandRecord]:
    """The records of a ``.pbn`` or ``.lin`` file."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".pbn", ".lin"):
        raise ValueError(f"{path}: unknown hand-record format {path.suffix or '(no extension)'!r}; expected .pbn "
                         f"or .lin")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such hand-record file")
    text = path.read_text(encoding="utf-8", errors="replace")
    return parse_pbn_records(text, str(path)) if suffix == ".pbn" else parse_lin_records(text, str(path))


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


def _tricks_tag(value: str | None, tag: str) -> int | None:
    if value is None or value.strip() in _UNKNOWN:
        return None
    value = value.strip()
    if not value.isdigit() or int(value) > 13:
        raise ValueError(f"malformed {tag} tag {value!r}: expected declarer's tricks 0..13")
    return int(value)


def _make(source: str, board: int, dealer: int, vul: str, owner, calls, cards, result: int | None,
          names: dict, event: str | None, result_tag: str) -> HandRecord:
    """The record, with ``result`` (declarer's tricks from a Result / mc tag) turned into ``claimed`` before the
    end of the play and checked against the play after it."""
    claimed = None
    if result is not None:
        auction = Auction.from_calls(dealer, calls)
        if auction.is_over and auction.last_bid >= 0:  # a result on a pass-out or an unfinished auction says nothing
            if len(cards) == NUM_CARDS:
                played = PlayState.start(owner, auction.contract(), cards).declarer_tricks
                if played != result:
                    raise ValueError(f"{result_tag} {result} disagrees with the play: declarer took {played} tricks")
            else:
                claimed = result
    return HandRecord(board, dealer, vul, owner, tuple(calls), tuple(cards), claimed, names, event, source)


def _names(info) -> dict:
    names = {}
    for seat, name in zip(SEATS, SEAT_NAMES):
        value = info.get(name)
        if isinstance(value, str) and value.strip() not in _UNKNOWN:
            names[seat] = value.strip()
    return names


def parse_pbn_records(text: str, source: str = "<pbn>") -> list[HandRecord]:
    """The records of PBN ``text`` (``source`` names it in messages)."""
    from endplay.parsers.pbn import PBNDecoder

    class Decoder(PBNDecoder):
        """endplay's decoder, keeping each board's raw tag values and naming the board when one fails."""

        def clear(self):
            super().clear()
            self.raw: list[dict] = []

        def _label(self, tags: dict) -> str:
            value = tags.get("Board", {}).get("value", "")
            return value if value.isdigit() else str(len(self.boards) + 1)

        def _tags_to_board(self):
            if not self.curtags:
                return None
            label = self._label(self.curtags)
            try:
                raw = {key.lower(): (self.prevtags.get(key, fields) if fields.get("value") == "#" else fields)
                       for key, fields in self.curtags.items()}
                auction = raw.get("auction", {}).get("data", [])
                raw = {key: fields["value"] for key, fields in raw.items() if isinstance(fields.get("value"), str)}
                raw["_all_pass"] = any(call.lower() == "ap" for row in auction for call in row)
                self._normalise(raw)
                board = super()._tags_to_board()
            except Exception as exc:  # noqa: BLE001 - endplay raises ValueError, RuntimeError, KeyError, ...
                raise ValueError(f"{source} board {label}: {_one_line(exc)}") from None
            self.raw.append(raw)
            return board

        def _parse_none(self, curline: str) -> bool:
            try:
                return super()._parse_none(curline)
            except ValueError as exc:
                if curline.lower().startswith("[note") and not hasattr(exc, "lineno"):
                    raise ValueError(f"malformed Note tag {curline[:60]!r}: expected [Note \"1:text\"]") from None
                raise

        def _normalise(self, raw: dict) -> None:
            """Check the tags whose values endplay would misread or reject with an obscure message."""
            if "deal" not in raw:
                raise ValueError("no Deal tag")
            try:
                pbn_to_owner(raw["deal"])
            except ValueError as exc:
                raise ValueError(f"malformed Deal tag {raw['deal']!r}: {_deal_problem(exc)}") from None
            board = raw.get("board", "").strip()
            if board in _UNKNOWN:
                self.curtags.pop(next((k for k in self.curtags if k.lower() == "board"), ""), None)
            elif not board.isdigit() or int(board) < 1:
                raise ValueError(f"malformed Board tag {board!r}: expected a board number 1, 2, ...")
            for tag in ("Dealer", "Declarer", "Auction", "Play"):
                _seat_tag(raw, tag)
            vul = raw.get("vulnerable")
            if vul is not None and vul.strip() not in _UNKNOWN:
                try:
                    canonical = _PBN_VUL[parse_vul(vul)]
                except ValueError:
                    raise ValueError(f"unknown vulnerability {vul!r} in the Vulnerable tag") from None
                key = next(k for k in self.curtags if k.lower() == "vulnerable")
                self.curtags[key] = {**self.curtags[key], "value": canonical}  # endplay rejects 'Love', 'Both'
            _tricks_tag(raw.get("result"), "Result")

    decoder = Decoder()
    try:
        boards = decoder.parse_file(_Lines(text))
    except Exception as exc:  # a tag line endplay cannot read, ...
        if isinstance(exc, ValueError) and str(exc).startswith(f"{source} board "):
            raise
        line = str(getattr(exc, "line", "")).strip()
        raise ValueError(f"{source} board {decoder._label(decoder.curtags)} (line {decoder.lineno}): "
                         f"{_one_line(exc)}{f': {line[:60]!r}' if line else ''}") from None
    if not boards:
        raise ValueError(f"{source}: no boards (no PBN tags found)")
    records = []
    for i, (board, raw) in enumerate(zip(boards, decoder.raw)):
        number = board.board_num or i + 1
        try:
            records.append(_pbn_record(board, raw, number, f"{source}:{number}"))
        except ValueError as exc:
            message = str(exc)
            where = f"{source} board {number}"
            raise ValueError(message if message.startswith(where) else f"{where}: {message}") from None
    return records


def _deal_problem(exc: ValueError) -> str:
    """The reason of a `pbn_to_owner` error, without the deal it repeats."""
    return str(exc).split("': ", 1)[-1]


class _Lines:
    """The file-like object endplay's ``parse_file`` reads (``readlines``)."""

    def __init__(self, text: str):
        self.text = text

    def readlines(self) -> list[str]:
        return self.text.splitlines(keepends=True)


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text[0].lower() + text[1:] if text[:1].isupper() and not text[1:2].isupper() else text


def _pbn_record(board, raw: dict, number: int, source: str) -> HandRecord:
    owner = pbn_to_owner(board.deal.to_pbn())
    dealer_tag, auction_seat = _seat_tag(raw, "Dealer"), _seat_tag(raw, "Auction")
    if dealer_tag is not None and auction_seat is not None and dealer_tag != auction_seat:
        raise ValueError(f"the Auction starts with {SEATS[auction_seat]} but the Dealer is {SEATS[dealer_tag]}")
    dealer = next((s for s in (dealer_tag, auction_seat) if s is not None), dealer_for_board(number))
    vul_tag = raw.get("vulnerable", "").strip()
    vul = vul_for_board(number) if vul_tag in _UNKNOWN else parse_vul(vul_tag)
    calls = [_endplay_call(bid) for bid in board.auction]
    if raw["_all_pass"]:  # 'AP': passes to the end of the auction (endplay always reads it as three passes)
        while calls and calls[-1] == PASS:
            calls.pop()
    auction = _auction_of(dealer, calls)
    while raw["_all_pass"] and not auction.is_over:
        calls.append(PASS)
        auction = auction.add(PASS)
    contract = auction.contract() if auction.is_over else None
    if contract is not None:
        _check_contract_tags(raw, board, contract)
        leader = _seat_tag(raw, "Play")
        if board.play and leader is not None and leader != (contract.declarer + 1) % 4:
            raise ValueError(f"the Play section starts with {SEATS[leader]}, but the opening leader against "
                             f"{contract} is {SEATS[(contract.declarer + 1) % 4]}")
    cards = [_endplay_card(card, i // 4 + 1) for i, card in enumerate(board.play)]
    event = raw.get("event", "").strip()
    return _make(source, number, dealer, vul, owner, calls, cards, _tricks_tag(raw.get("result"), "Result"),
                 _names(board.info), None if event in _UNKNOWN else event, "Result")


def _check_contract_tags(raw: dict, board, contract: Contract) -> None:
    """The Contract and Declarer tags, when given, must be the auction's."""
    text = raw.get("contract", "").strip()
    if text in _UNKNOWN or board.contract is None:
        return
    declarer = _seat_tag(raw, "Declarer")
    if board.contract.is_passout():
        raise ValueError(f"the Contract tag says Pass, but the auction ends in {contract}")
    tagged = (int(board.contract.level), strain_from_endplay(int(board.contract.denom)),
              {1: 0, 2: 1, 4: 2}[int(board.contract.penalty)])
    if tagged != (contract.level, contract.strain, contract.penalty) or (
            declarer is not None and declarer != contract.declarer):
        by = f" by {SEATS[declarer]}" if declarer is not None else ""
        raise ValueError(f"the Contract tag {text}{by} disagrees with the auction, which ends in {contract}")


def _lin_pairs(text: str) -> list[tuple[str, str]]:
    """(tag, value) pairs of LIN text, read across lines (a board may span several, or share one)."""
    tokens: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        parts = line.split("|")
        if line.endswith("|"):
            parts = parts[:-1]
        tokens.extend(parts)
    if len(tokens) % 2:
        tokens.append("")
    return list(zip(tokens[0::2], tokens[1::2]))


def _lin_boards(pairs) -> list[list[tuple[str, str]]]:
    """Pairs cut into boards: a board starts at ``qx``, or at ``pn`` once the current one has its ``md``."""
    boards, current, has_md = [], [], False
    for key, value in pairs:
        tag = key.strip().lower()
        if current and (tag == "qx" or (tag == "pn" and has_md)):
            boards.append(current)
            current, has_md = [], False
        current.append((key.strip(), value))
        has_md = has_md or tag == "md"
    if current:
        boards.append(current)
    return [b for b in boards if any(k.lower() in ("md", "mb", "pc", "mc") for k, _ in b)]


def parse_lin_records(text: str, source: str = "<lin>") -> list[HandRecord]:
    """The records of BBO LIN ``text`` (``source`` names it in messages)."""
    boards = _lin_boards(_lin_pairs(text))
    if not boards:
        raise ValueError(f"{source}: no boards (no LIN md tag found)")
    records = []
    for i, pairs in enumerate(boards):
        number = i + 1
        for key, value in pairs:
            if key.lower() in ("ah", "qx"):
                digits = re.findall(r"\d+", value)
                if digits and int(digits[-1]) >= 1:
                    number = int(digits[-1])
                    break
        try:
            records.append(_lin_record(pairs, number, f"{source}:{number}"))
        except ValueError as exc:
            message = str(exc)
            where = f"{source} board {number}"
            raise ValueError(message if message.startswith(where) else f"{where}: {message}") from None
    return records


def _lin_record(pairs, number: int, source: str) -> HandRecord:
    from endplay.parsers.lin import LINDecoder

    tags = {}
    for key, value in pairs:
        tags.setdefault(key.lower(), value)
    if "md" not in tags:
        raise ValueError("no md (deal) tag")
    md = tags["md"].strip()
    if not md or md[0] not in "1234":
        raise ValueError(f"unknown dealer seat {md[:1]!r} in the md tag (1 South, 2 West, 3 North, 4 East)")
    names = tags.get("pn")
    if names is not None and len(names.split(",")) != 4:
        raise ValueError(f"the pn tag names {len(names.split(','))} players; a one-table LIN record names four "
                         f"(South, West, North, East)")
    result = None
    if "mc" in tags:
        if not tags["mc"].strip().isdigit() or int(tags["mc"]) > 13:
            raise ValueError(f"malformed mc tag {tags['mc']!r}: expected declarer's tricks 0..13")
        result = int(tags["mc"])
    kept = [(k, v) for k, v in pairs if k.lower() not in ("ah", "qx", "mc")]  # read here, not by endplay
    line = "".join(f"{k}|{v}|" for k, v in kept) + "mc|0|"  # endplay then takes no result of its own
    try:
        board = LINDecoder().parse_line(line)
    except Exception as exc:  # noqa: BLE001 - endplay raises ValueError, IndexError, AttributeError, ...
        raise ValueError(_one_line(exc)) from None
    try:
        owner = pbn_to_owner(board.deal.to_pbn())
    except ValueError as exc:
        raise ValueError(f"malformed md tag {tags['md']!r}: {_deal_problem(exc)}") from None
    dealer = int(board.dealer)
    vul = vul_for_board(number) if board.vul is None else ("none", "both", "NS", "EW")[int(board.vul)]
    calls = [_endplay_call(bid) for bid in board.auction]
    cards = [_endplay_card(card, i // 4 + 1) for i, card in enumerate(board.play)]
    return _make(source, number, dealer, vul, owner, calls, cards, result, _names(board.info), None, "mc")


# -- writing -------------------------------------------------------------------------------------------------------
def _endplay_board(record: HandRecord):
    from endplay.types import Bid, Board, Deal, Denom, Penalty, Player
    from endplay.types import Contract as EContract

    auction = record.auction
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
    if auction.is_over:
        final = auction.contract()
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


def records_to_pbn(records) -> str:
    """PBN text of ``records`` (endplay's encoder: Event .. South, Dealer, Vulnerable, Deal, Scoring, Declarer,
    Contract, Result, Auction, Play; ``Result "?"`` where the record does not tell declarer's tricks)."""
    from endplay.parsers.pbn import PBNEncoder

    encoder = PBNEncoder()
    out = [f"% PBN {encoder.pbn_version}\n", "% EXPORT\n", "% bridgerl hand records\n", "\n"]
    for record in records:
        encoder.export_board(_endplay_board(record))
        unknown = record.auction_over and record.contract is not None and record.tricks is None
        tags = []
        for tag in encoder.tags:
            if tag.startswith("[Contract "):
                tag = re.sub(r'x+(?="\])', lambda m: m.group(0).upper(), tag)  # endplay writes 4Hx; PBN 4HX
            elif tag.startswith("[Result ") and unknown:
                tag = '[Result "?"]\n'
            tags.append(tag)
        out.extend(tags)
        out.append("\n")
    return "".join(out)


def write_pbn_records(path: str | os.PathLike, records) -> None:
    """Write ``records`` as PBN, atomically."""
    atomic_write_text(path, records_to_pbn(records))


__all__ = ["HandRecord", "parse_lin_records", "parse_pbn_records", "read_records", "record_actions", "record_of",
           "records_to_pbn", "replay", "write_pbn_records"]
