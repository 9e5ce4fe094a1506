"""Hand records: deals with the auction and the play that people (or agents) had at the table, read from PBN and
BBO LIN files through endplay's parsers, written as PBN, and replayed into the whole-deal game of `bridge`.

A `HandRecord` holds the deal (``owner``), the board's number, dealer and vulnerability, the calls (0 Pass, 1 X,
2 XX, 3 + bid) and the cards (suit * 13 + rank) in the order they were made, and ``claimed``: declarer's total
tricks when the record ends with a claim or a result before all 52 cards were played. Every record is checked when
it is made: the calls must be legal in turn from the dealer, the cards must be played by the right seat from its
hand, following suit, and only after the auction has ended in a contract. A record may stop part-way (an auction or
a play not finished). A bad record raises ValueError in one line naming the file, the board and the problem.

``replay(record, upto)`` gives the `BridgeState` after the first ``upto`` actions (calls then cards, the 90-action
ids of `bridge`: calls 0..37, card c -> 38 + c); ``record_of(state)`` turns a game back into a record.

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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .auction import Auction
from .board import dealer_for_board, parse_vul, vul_for_board
from .bridge import CARD_OFFSET, BridgeState
from .calls import BID_OFFSET, DOUBLE, PASS, REDOUBLE, bid_index, call_name
from .cards import (NUM_CARDS, SEAT_NAMES, SEATS, card_name, owner_to_pbn, parse_seat, pbn_to_owner,
                    validate_owner)
from .contract import Contract
from .dd import card_from_endplay, card_to_endplay, strain_from_endplay, strain_to_endplay, vul_to_endplay
from .files import atomic_write_text
from .play import PlayState

SUIT_NAMES = ("club", "diamond", "heart", "spade")
_PBN_VUL = {"none": "None", "NS": "NS", "EW": "EW", "both": "All"}
_UNKNOWN = ("", "?")


def _where(source: str) -> str:
    """'records.pbn board 3' for the source 'records.pbn:3'."""
    head, sep, tail = source.rpartition(":")
    return f"{head} board {tail}" if sep and tail.isdigit() and head else source


@dataclass(frozen=True, eq=False)
class HandRecord:
    """One board as it was played: see the module docstring. Equality compares everything but ``source``."""

    board: int
    dealer: int
    vul: str
    owner: np.ndarray                      # uint8[52]: seat 0-3 (N, E, S, W) holding each card
    calls: tuple[int, ...] = ()            # 0 Pass, 1 X, 2 XX, 3 + bid
    cards: tuple[int, ...] = ()            # card ids in play order
    claimed: int | None = None             # declarer's total tricks after a claim / result with fewer than 52 cards
    names: dict = field(default_factory=dict)  # seat letter -> player name, for the seats a file names
    event: str | None = None
    source: str = "<record>"               # 'file:board', for messages

    def __post_init__(self):
        where = _where(self.source)
        owner = np.array(self.owner, dtype=np.int64)
        try:
            validate_owner(owner)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        owner = owner.astype(np.uint8)
        owner.setflags(write=False)
        set_ = object.__setattr__
        set_(self, "owner", owner)
        try:
            if int(self.board) < 1:
                raise ValueError(f"board number {self.board} must be 1 or more")
            set_(self, "board", int(self.board))
            set_(self, "dealer", parse_seat(self.dealer))
            set_(self, "vul", parse_vul(self.vul))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{where}: {exc}") from None
        set_(self, "calls", tuple(int(c) for c in self.calls))
        set_(self, "cards", tuple(int(c) for c in self.cards))
        set_(self, "claimed", None if self.claimed is None else int(self.claimed))
        set_(self, "names", {SEATS[parse_seat(k)]: str(v) for k, v in dict(self.names or {}).items()})
        try:
            _check(self)
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None

    def __eq__(self, other) -> bool:
        if not isinstance(other, HandRecord):
            return NotImplemented
        return (self.board, self.dealer, self.vul, self.calls, self.cards, self.claimed, self.names, self.event) == (
            other.board, other.dealer, other.vul, other.calls, other.cards, other.claimed, other.names,
            other.event) and np.array_equal(self.owner, other.owner)

    __hash__ = None

    def __repr__(self) -> str:
        return (f"HandRecord(board={self.board}, dealer={SEATS[self.dealer]}, vul={self.vul}, "
                f"calls=[{' '.join(call_name(c) for c in self.calls)}], cards={len(self.cards)}, "
                f"claimed={self.claimed}, source={self.source!r})")

    # -- what the record says -------------------------------------------------------------------------------------
    @property
    def auction(self) -> Auction:
        return Auction.from_calls(self.dealer, self.calls)

    @property
    def auction_over(self) -> bool:
        return self.auction.is_over

    @property
    def contract(self) -> Contract | None:
        """The final contract; None for a pass-out or an auction that is not over (see `auction_over`)."""
        auction = self.auction
        return auction.contract() if auction.is_over else None

    @property
    def play_state(self) -> PlayState | None:
        """The play so far (None without a contract)."""
        contract = self.contract
        return None if contract is None else PlayState.start(self.owner, contract, self.cards)

    @property
    def tricks(self) -> int | None:
        """Declarer's tricks when the record tells them: all 13 tricks played, or a claim / result; 0 for a
        pass-out; None otherwise."""
        auction = self.auction
        if not auction.is_over:
            return None
        if auction.last_bid < 0:
            return 0
        if self.claimed is not None:
            return self.claimed
        play = self.play_state
        return play.declarer_tricks if play.is_over else None


def _auction_of(dealer: int, calls) -> Auction:
    """The auction of ``calls`` from ``dealer``; ValueError naming the first illegal call."""
    auction = Auction(dealer)
    for call in calls:
        if auction.is_over:
            raise ValueError(f"call {_call_text(call)} after the end of the auction ({auction})")
        if not auction.is_legal(call):
            seat = SEAT_NAMES[auction.to_act]
            after = f"after {auction}" if auction.calls else "as the first call"
            raise ValueError(f"illegal call {_call_text(call)} by {seat} {after}")
        auction = auction.add(call)
    return auction


def _check(record: HandRecord) -> None:
    """Raise ValueError naming the first problem of the record's calls, cards and claim."""
    auction = _auction_of(record.dealer, record.calls)
    if not record.cards and record.claimed is None:
        return
    if not auction.is_over:
        what = f"card {_card_text(record.cards[0])}" if record.cards else f"a claim of {record.claimed} tricks"
        raise ValueError(f"{what} before the end of the auction ({auction})")
    if auction.last_bid < 0:
        what = f"card {_card_text(record.cards[0])}" if record.cards else f"a claim of {record.claimed} tricks"
        raise ValueError(f"{what} on a passed-out board")
    play = PlayState.start(record.owner, auction.contract())
    for card in record.cards:
        play = _play(play, card)
    if record.claimed is not None:
        if play.is_over:
            raise ValueError(f"a claim of {record.claimed} tricks after all 13 tricks were played")
        done, won = len(play.tricks), play.declarer_tricks
        if not won <= record.claimed <= won + 13 - done:
            raise ValueError(f"a claim of {record.claimed} tricks is impossible: declarer has won {won} of the "
                             f"{done} tricks played")


def _call_text(call: int) -> str:
    try:
        return call_name(call)
    except ValueError:
        return f"#{call} (not a call id 0..37)"


def _card_text(card: int) -> str:
    return card_name(card) if 0 <= card < NUM_CARDS else f"#{card} (not a card id 0..51)"


def _play(play: PlayState, card: int) -> PlayState:
    """``play.play(card)`` with the problem told as a bridge player would."""
    trick = len(play.tricks) + 1
    if not 0 <= card < NUM_CARDS:
        raise ValueError(f"card #{card} is not a card id 0..51 (trick {trick})")
    if play.is_over:
        raise ValueError(f"card {card_name(card)} after the 13th trick")
    seat = play.to_play
    name = SEAT_NAMES[seat]
    if not play.hands[seat] >> card & 1:
        if int(play.owner[card]) == seat:
            raise ValueError(f"card {card_name(card)} by {name} was already played (trick {trick})")
        raise ValueError(f"card {card_name(card)} is not in {name}'s hand (trick {trick}, "
                         f"{SEAT_NAMES[int(play.owner[card])]} holds it)")
    if not play.legal_mask_bits() >> card & 1:
        led = play.trick.led_suit
        held = " ".join(card_name(c) for c in play.legal_cards())
        raise ValueError(f"revoke at trick {trick}: {name} plays {card_name(card)} on a {SUIT_NAMES[led]} lead "
                         f"while holding {held}")
    return play.play(card)


# -- actions and replay ------------------------------------------------------------------------------------------
def record_actions(record: HandRecord) -> list[int]:
    """The record's moves as the 90 actions of `bridge`: the calls, then 38 + card for each card."""
    return list(record.calls) + [CARD_OFFSET + card for card in record.cards]


def replay(record: HandRecord, upto: int | None = None, play: str = "agents", dd=None) -> BridgeState:
    """The game after the first ``upto`` actions of ``record`` (calls, then cards; None: all of them).

    The deal is a `CompetitiveDeal` of the record's deal, dealer, vulnerability and board (``index`` None), with
    the DD table ``dd`` when given, else solved with DDS. With ``play="double_dummy"`` the game ends with the
    auction, so ``upto`` counts calls only (None: all the calls)."""
    from .competitive import CompetitiveDeal
    from .dd import solve_dd_table

    actions = record_actions(record)
    available = len(record.calls) if play == "double_dummy" else len(actions)
    if upto is None:
        upto = available
    elif isinstance(upto, bool) or not isinstance(upto, (int, np.integer)) or not 0 <= int(upto) <= available:
        extra = " (with play='double_dummy' the game ends with the auction)" if play == "double_dummy" else ""
        raise ValueError(f"upto {upto!r} is outside 0..{available}: {_where(record.source)} has "
                         f"{len(record.calls)} calls and {len(record.cards)} cards{extra}")
    table = solve_dd_table(record.owner) if dd is None else np.asarray(dd)
    if table.shape != (4, 5):
        raise ValueError(f"a DD table has shape (4, 5), got {table.shape}")
    deal = CompetitiveDeal(record.owner, table, record.dealer, record.vul, record.board, None)
    state = BridgeState.start(deal, play)
    for action in actions[:int(upto)]:
        state = state.apply(action)
    return state


def record_of(state: BridgeState, board: int | None = None, names=None, event: str | None = None) -> HandRecord:
    """The record of a game (finished or not). ``names``: a dict seat -> name or four names N, E, S, W. A game
    played with ``play="double_dummy"`` records its DD tricks as ``claimed``."""
    deal = state.deal
    cards = state.play.history if state.play is not None else ()
    claimed = None
    if state.play is None and state.is_over and state.contract is not None:
        claimed = state.result().tricks
    if names is not None and not isinstance(names, dict):
        names = list(names)
        if len(names) != 4:
            raise ValueError(f"names: expected a dict seat -> name or four names (N, E, S, W), got {len(names)}")
        names = dict(zip(SEATS, names))
    board = deal.board if board is None else int(board)
    return HandRecord(board, deal.dealer, deal.vul, deal.owner, state.auction.calls, cards, claimed,
                      {k: v for k, v in (names or {}).items() if v}, event, f"<game>:{board}")


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
