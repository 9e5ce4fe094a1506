"""Hand records: deals with the auction and the play that people (or agents) had at the table, read from PBN and
BBO LIN files, written as PBN, and replayed into the whole-deal game of `bridge`.

The record itself (`HandRecord`, checked when it is made), ``replay(record, upto)`` and ``record_of(state)`` live in
`bridgerl.core.hand_record` and are importable from here too.

Reading is per board (issue #39): a board that cannot be read is refused with its source and a one-line reason in
the project's words, and the others are kept (`read_records_report`; ``strict=True`` refuses the whole file at the
first bad board, as before). `read_records` returns the good records.

* PBN: the games are cut, their comments taken out and inherited tags (``#``, ``##``) resolved by
  `bridgerl.core.pbn_games`, then each game is read here with the rules core, as PBN 2.1 allows
  (`_pbn_game_record`: an auction before the dealer with ``-`` placeholders, ``AP``, ``*`` and ``+``, notes and
  annotations; a complete auction with or without a Contract tag; a traveller board with Contract, Declarer and
  Result but no auction; a Result as declarer's tricks or a side's, "NS 11"; a play cut at an unknown card ``-``,
  kept up to there with its Result as a claim; ``[Play ""]`` on a passed-out board). endplay's PBN decoder reads a
  file all or nothing and misreads several of these (``Result "?"`` as 0 tricks, ``AP`` as three passes wherever
  it stands, a missing Declarer as North, ``;`` comments in a section as calls), so it is not used for reading.
* LIN: endplay's parser finds boards by their ``pn`` tag only, reads one ``pn`` of four names, and fails on a play
  that stops within a trick without an ``mc`` claim (and the result it works out for a full play counts the tricks
  won by the side on lead to each trick, not declarer's). Here the text is cut into boards at ``qx`` (or at ``pn``
  after a deal), the board number is read from ``ah`` / ``qx``, the claim from ``mc``, and endplay parses each
  board with an ``mc`` tag supplied when the board has none (so it never computes a result of its own).
* Writing: endplay's PBN encoder, with ``Result "?"`` where the record does not say how many tricks declarer took.

PBN reading is here; LIN reading is `bridgerl.core.records_lin`, writing `bridgerl.core.records_write`, what the
readers share `bridgerl.core.records_base` (issue #52 split them; every name importable from here as before).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .auction import Auction
from .board import dealer_for_board, parse_vul, vul_for_board
from .calls import PASS, parse_call
from .cards import SEAT_NAMES, SEATS, parse_card
from .contract import Contract
from .hand_record import _UNKNOWN, HandRecord, _auction_of, _play, record_actions, record_of, replay
from .play import PlayState
from .records_base import RecordsReport, _make, _seat_tag
from .records_lin import lin_records_report, parse_lin_records
from .records_write import records_to_pbn, write_pbn_records

# -- reading -------------------------------------------------------------------------------------------------------
def read_records(path: str | os.PathLike, strict: bool = False) -> list[HandRecord]:
    """The good records of a ``.pbn`` or ``.lin`` file, in file order: a board that cannot be read is left out
    (`read_records_report` says which and why; ``strict``: the first one refuses the whole file). A file with no
    good board is refused in one line naming the first problem."""
    return read_records_report(path, strict).require()


def read_records_report(path: str | os.PathLike, strict: bool = False) -> "RecordsReport":
    """The records of a ``.pbn`` or ``.lin`` file with the boards refused (`RecordsReport`: ``records``,
    ``refused`` as ``[{source, reason}]``); ``strict``: the first bad board refuses the whole file (ValueError)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".pbn", ".lin"):
        raise ValueError(f"{path}: unknown hand-record format {path.suffix or '(no extension)'!r}; expected .pbn "
                         f"or .lin")
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such hand-record file")
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    return (pbn_records_report if suffix == ".pbn" else lin_records_report)(text, str(path), strict)


def parse_pbn_records(text: str, source: str = "<pbn>", strict: bool = True) -> list[HandRecord]:
    """The records of PBN ``text`` (``source`` names it in messages). ``strict``: the first bad board refuses the
    whole text (ValueError naming it); otherwise bad boards are left out (`pbn_records_report` lists them)."""
    return pbn_records_report(text, source, strict).records


def pbn_records_report(text: str, source: str = "<pbn>", strict: bool = False) -> "RecordsReport":
    """The good records of PBN ``text`` and the refused boards, each with its source and reason (`RecordsReport`).
    The games are cut and their comments and inherited tags read by `bridgerl.core.pbn_games`; each game is then
    read here (see `_pbn_game_record` for the forms of PBN 2.1 it reads)."""
    from .pbn_games import pbn_games

    games = pbn_games(text)
    if not games:
        raise ValueError(f"{source}: no boards (no PBN tags found)")
    report = RecordsReport(source)
    for i, game in enumerate(games):
        tagged = game.number is not None
        number = game.number if tagged else i + 1
        where = f"{source} board {game.label}"
        try:
            if game.error:
                raise ValueError(game.error)
            report.records.append(_pbn_game_record(game, number, f"{source}:{number}"))
        except ValueError as exc:
            message = " ".join(str(exc).split())
            message = message if message.startswith(where) else f"{where}: {message}"
            if message.startswith(f"{source}:{number} "):  # HandRecord's own 'file board N: ...'
                message = message.replace(f"{source}:{number} ", f"{where} ", 1)
            if strict:
                raise ValueError(message) from None
            report.refused.append({"source": f"{source}:{number}" if tagged else f"{source}:{game.label}",
                                   "reason": message})
    return report


_CALL_NOTE = re.compile(r"^=\d+=$")
_SUFFIX = re.compile(r"[!?]+$")


def _call_tokens(tokens: list[str]) -> list[str]:
    """The calls and markers of an Auction section without its notes, NAGs and suffix annotations."""
    out = []
    for token in tokens:
        if _CALL_NOTE.match(token) or token.startswith("$") or _SUFFIX.fullmatch(token):
            continue
        out.append(_SUFFIX.sub("", token) if len(token) > 1 else token)
    return out


def _pbn_auction(game, dealer_tag: int | None) -> tuple[int | None, list[int], bool]:
    """(dealer, calls, complete) of the game's Auction section. Import format may start the auction before the
    dealer, one ``-`` for each seat before the dealer; ``AP`` is all pass; ``*`` ends an auction that is told no
    further, ``+`` one that is to be continued (no call may follow either)."""
    value = game.tag("auction")
    if value is None:
        return dealer_tag, [], False
    seat = _seat_tag({"auction": value}, "Auction")
    tokens = _call_tokens(game.sections.get("auction", []))
    fillers = 0
    while fillers < len(tokens) and tokens[fillers] == "-":
        fillers += 1
    tokens = tokens[fillers:]
    dealer = dealer_tag
    if seat is not None:
        first = (seat + fillers) % 4
        if dealer_tag is not None and first != dealer_tag:
            hint = f" after {fillers} '-'" if fillers else ""
            raise ValueError(f"the Auction starts with {SEATS[seat]}{hint}, so its first call is {SEATS[first]}'s, "
                             f"but the Dealer is {SEATS[dealer_tag]}")
        dealer = first
    if not tokens:
        return dealer, [], False
    calls, all_pass, ended = [], False, None
    for token in tokens:
        if ended is not None:
            raise ValueError(f"call {token!r} after {ended!r}, which ends the calls told (PBN 3.5)")
        upper = token.upper()
        if upper in ("*", "+"):
            ended = token
        elif upper == "AP":
            all_pass, ended = True, "AP"
        elif upper == "-":
            raise ValueError("'-' in the middle of the auction (it only stands for the seats before the dealer)")
        elif upper.startswith("^"):
            raise ValueError(f"irregular call {token!r} (PBN 3.9): an auction with an irregularity is not read")
        else:
            try:
                calls.append(parse_call(token))
            except ValueError:
                raise ValueError(f"unknown call {token!r} in the auction") from None
    if dealer is None:
        return None, calls, False
    auction = _auction_of(dealer, calls)
    while all_pass and not auction.is_over:
        calls.append(PASS)
        auction = auction.add(PASS)
    return dealer, calls, auction.is_over


def _pbn_contract(game) -> tuple[bool, tuple | None]:
    """(told, (level, strain, penalty, declarer or None)) of the Contract and Declarer tags: told False when the
    tags do not say; None for "Pass"."""
    text = (game.tag("contract") or "").strip()
    if text in _UNKNOWN:
        return False, None
    if text.upper() in ("PASS", "P", "AP"):
        return True, None
    match = re.fullmatch(r"([1-7])\s*(NT|N|S|H|D|C)\s*(XX|X|)", text.upper())
    if not match:
        raise ValueError(f"malformed Contract tag {text!r}: expected Pass or a contract such as 4S, 3NTX, 6HXX")
    declarer_text = (game.tag("declarer") or "").strip().lstrip("^")
    declarer = None if declarer_text in _UNKNOWN else _seat_tag({"declarer": declarer_text}, "Declarer")
    from .cards import parse_strain

    return True, (int(match.group(1)), parse_strain(match.group(2)), len(match.group(3)), declarer)


def _pbn_result(game, contract: Contract | None) -> tuple[int | None, bool]:
    """(declarer's tricks from the Result tag, whether it is marked ``^``: differing from the tricks won in the
    play). Forms of PBN 3.4: "10" (declarer's), "NS 9" / "EW 4" (that side's), "NS 9 EW 4"."""
    text = (game.tag("result") or "").strip()
    if text in _UNKNOWN:
        return None, False
    marked = text.startswith("^")
    text = text.lstrip("^").strip()
    if text.isdigit():
        tricks = int(text)
    else:
        parts = text.upper().split()
        if len(parts) not in (2, 4) or any(side not in ("NS", "EW") for side in parts[0::2]) or not all(
                n.isdigit() for n in parts[1::2]):
            raise ValueError(f"malformed Result tag {game.tag('result')!r}: expected declarer's tricks 0..13, or a "
                             "side's such as 'NS 9'")
        told = {side: int(n) for side, n in zip(parts[0::2], parts[1::2])}
        if len(told) != len(parts) // 2 or max(told.values()) > 13:
            raise ValueError(f"malformed Result tag {game.tag('result')!r}: expected a side's tricks 0..13, each side "
                             "once")
        if len(told) == 2 and sum(told.values()) != 13:
            raise ValueError(f"malformed Result tag {game.tag('result')!r}: the two sides' tricks do not add to 13")
        if contract is None:
            return None, marked
        side = ("NS", "EW")[contract.declarer % 2]
        tricks = told[side] if side in told else 13 - next(iter(told.values()))
    if tricks > 13:
        raise ValueError(f"malformed Result tag {game.tag('result')!r}: expected declarer's tricks 0..13")
    return tricks, marked


def _pbn_cards(game, owner, contract: Contract) -> tuple[list[int], bool]:
    """(the cards of the Play section in play order, whether it stopped at an unknown card). Each line is a trick
    in fixed columns from the Play tag's seat; the cards are put in play order with the trick winners. A ``-`` or
    ``+`` (an unknown card, or the next card to play) ends what is read; ``*`` ends the section."""
    tokens = [t for t in game.sections.get("play", []) if not _CALL_NOTE.match(t) and not t.startswith("$")
              and not _SUFFIX.fullmatch(t)]
    leader_tag = _seat_tag(game.tags, "Play")
    leader = (contract.declarer + 1) % 4
    if tokens and leader_tag is not None and leader_tag != leader:
        raise ValueError(f"the Play section starts with {SEATS[leader_tag]}, but the opening leader against "
                         f"{contract.name} by {SEATS[contract.declarer]} is {SEATS[leader]}")
    if "*" in tokens:
        tokens = tokens[:tokens.index("*")]
    first = leader if leader_tag is None else leader_tag
    play = PlayState.start(owner, contract)
    cards: list[int] = []
    for trick in range(0, len(tokens), 4):
        row = tokens[trick:trick + 4]
        for _ in range(4):
            if play.is_over:
                break
            column = (play.to_play - first) % 4
            if column >= len(row) or row[column] in ("-", "+"):
                return cards, True
            token = _SUFFIX.sub("", row[column])
            if token.startswith("^"):
                raise ValueError(f"irregular card {token!r} (PBN 3.9): a play with an irregularity is not read")
            try:
                card = parse_card(token)
            except ValueError:
                raise ValueError(f"unknown card {token!r} in the play (trick {trick // 4 + 1})") from None
            play = _play(play, card)
            cards.append(card)
    return cards, False


def _pbn_game_record(game, number: int, source: str) -> HandRecord:
    """The record of one PBN game: see `pbn_records_report`. Read as PBN 2.1 allows: an Auction before the dealer
    with ``-`` placeholders, ``AP``, ``*``/``+`` ends, notes and annotations; a complete auction with or without a
    Contract tag (which must agree when given); a board with Contract, Declarer and Result and no auction (a
    traveller record); a Result as declarer's tricks or a side's ("NS 11"); a play that stops at an unknown card
    ``-`` (the board is kept up to there, its Result a claim); ``[Play ""]`` on a passed-out board."""
    owner = game.owner()
    dealer_tag = _seat_tag(game.tags, "Dealer")
    vul_tag = (game.tag("vulnerable") or "").strip()
    try:
        vul = vul_for_board(number) if vul_tag in _UNKNOWN else parse_vul(vul_tag)
    except ValueError:
        raise ValueError(f"unknown vulnerability {vul_tag!r} in the Vulnerable tag") from None
    dealer, calls, complete = _pbn_auction(game, dealer_tag)
    if dealer is None:
        dealer = dealer_for_board(number)
        if calls:
            _auction_of(dealer, calls)
    told, tagged = _pbn_contract(game)
    traveller = not calls and told
    if complete:
        contract = Auction.from_calls(dealer, calls).contract()
        if told:
            _check_told_contract(tagged, contract)
    elif traveller and tagged is not None:
        if tagged[3] is None:
            raise ValueError(f"the Contract tag says {game.tag('contract').strip()} with no auction, and the "
                             "Declarer tag does not say who declares it")
        contract = Contract(*tagged)
    else:
        contract = None
    names = {seat: game.tag(name).strip() for seat, name in zip(SEATS, SEAT_NAMES)
             if (game.tag(name) or "").strip() not in _UNKNOWN}
    event = (game.tag("event") or "").strip()
    result, marked = _pbn_result(game, contract)
    cards, stopped = [], False
    if game.sections.get("play") and any(t not in ("*", "-", "+") for t in game.sections["play"]):
        if not (complete or traveller):
            raise ValueError("a Play section after an unfinished auction")
        if contract is None:
            raise ValueError("a Play section on a passed-out board")
        cards, stopped = _pbn_cards(game, owner, contract)
    return _make(source, number, dealer, vul, owner, calls, cards, result if (complete or traveller) else None,
                 names, None if event in _UNKNOWN else event, "Result", traveller=traveller,
                 final=contract if traveller else None, lenient=marked or stopped)


def _check_told_contract(tagged: tuple | None, contract: Contract | None) -> None:
    """The Contract and Declarer tags, when given, must be the auction's (a missing Declarer is the auction's)."""
    if tagged is None and contract is not None:
        raise ValueError(f"the Contract tag says Pass, but the auction ends in {contract}")
    if tagged is None:
        return
    level, strain, penalty, declarer = tagged
    told = Contract(level, strain, penalty, contract.declarer if declarer is None and contract else declarer or 0)
    by = f" by {SEATS[declarer]}" if declarer is not None else ""
    if contract is None:
        raise ValueError(f"the Contract tag says {told.name}{by}, but the auction is passed out")
    if (level, strain, penalty) != (contract.level, contract.strain, contract.penalty) or (
            declarer is not None and declarer != contract.declarer):
        raise ValueError(f"the Contract tag {told.name}{by} disagrees with the auction, which ends in {contract}")


__all__ = ["HandRecord", "RecordsReport", "lin_records_report", "parse_lin_records", "parse_pbn_records",
           "pbn_records_report", "read_records", "read_records_report", "record_actions", "record_of",
           "records_to_pbn", "replay", "write_pbn_records"]
