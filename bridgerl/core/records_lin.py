"""BBO LIN hand records (`bridgerl.core.records` reads a file of either kind): endplay's parser finds boards by
their ``pn`` tag only, reads one ``pn`` of four names, and fails on a play that stops within a trick without an
``mc`` claim (and the result it works out for a full play counts the tricks won by the side on lead to each trick,
not declarer's). Here the text is cut into boards at ``qx`` (or at ``pn`` after a deal), the board number is read
from ``ah`` / ``qx``, the claim from ``mc``, and endplay parses each board with an ``mc`` tag supplied when the
board has none (so it never computes a result of its own)."""

from __future__ import annotations

import re

from .board import vul_for_board
from .calls import parse_call
from .cards import parse_card, pbn_to_owner
from .hand_record import HandRecord
from .pbn_games import deal_problem
from .records_base import RecordsReport, _endplay_call, _endplay_card, _make, _names, _one_line


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
    pairs, i = [], 0
    while i < len(tokens):
        key = tokens[i].strip()
        if re.fullmatch(r"[A-Za-z]{2}", key):
            pairs.append((tokens[i], tokens[i + 1] if i + 1 < len(tokens) else ""))
            i += 2
        else:  # a '|' missing or extra before here: this board is broken, the next ones realign
            pairs.append((_LIN_BROKEN, f"malformed LIN: {key[:30]!r} where a tag was expected (a '|' missing or "
                                       "extra before it)"))
            i += 1
    return pairs


_LIN_BROKEN = "!broken"
_LIN_HAND = re.compile(r"(S(?:[2-9TJQKA]|10)*)?(H(?:[2-9TJQKA]|10)*)?(D(?:[2-9TJQKA]|10)*)?(C(?:[2-9TJQKA]|10)*)?",
                       re.IGNORECASE)


def _parses(parse, text: str) -> bool:
    try:
        parse(text)
    except ValueError:
        return False
    return True


def _check_lin_values(tags_in_order) -> None:
    """Refuse, in our words, the values endplay's LIN parser would fail on with its own internals."""
    for key, value in tags_in_order:
        tag, value = key.strip().lower(), value.strip()
        if tag == _LIN_BROKEN:
            raise ValueError(value)
        if tag == "mb" and not _parses(parse_call, value.rstrip("!")):
            raise ValueError(f"unknown call {value!r} in an mb tag (expected p, d, r or a bid such as 1c ... 7n)")
        if tag == "pc" and not _parses(parse_card, value):
            raise ValueError(f"unknown card {value!r} in a pc tag (expected a suit letter and a rank, e.g. sa, h7, "
                             "ct)")
        if tag == "md" and len(value) > 1:
            hands = value[1:].split(",")
            if len(hands) > 4 or any(not _LIN_HAND.fullmatch(hand.strip()) for hand in hands):
                raise ValueError(f"malformed md tag {value!r}: expected a dealer digit, then up to four hands as "
                                 "S..H..D..C.. separated by commas")


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
    return [b for b in boards if any(k.lower() in ("md", "mb", "pc", "mc", _LIN_BROKEN) for k, _ in b)]


def parse_lin_records(text: str, source: str = "<lin>", strict: bool = True) -> list[HandRecord]:
    """The records of BBO LIN ``text`` (``source`` names it in messages); ``strict`` as `parse_pbn_records`."""
    return lin_records_report(text, source, strict).records


def lin_records_report(text: str, source: str = "<lin>", strict: bool = False) -> "RecordsReport":
    """The good records of LIN ``text`` and the refused boards (`RecordsReport`)."""
    boards = _lin_boards(_lin_pairs(text))
    if not boards:
        raise ValueError(f"{source}: no boards (no LIN md tag found)")
    report = RecordsReport(source)
    for i, pairs in enumerate(boards):
        number = i + 1
        for key, value in pairs:
            if key.lower() in ("ah", "qx"):
                digits = re.findall(r"\d+", value)
                if digits and int(digits[-1]) >= 1:
                    number = int(digits[-1])
                    break
        try:
            report.records.append(_lin_record(pairs, number, f"{source}:{number}"))
        except ValueError as exc:
            message = " ".join(str(exc).split())
            where = f"{source} board {number}"
            message = message if message.startswith(where) else f"{where}: {message}"
            if strict:
                raise ValueError(message) from None
            report.refused.append({"source": f"{source}:{number}", "reason": message})
    return report


def _lin_record(pairs, number: int, source: str) -> HandRecord:
    from endplay.parsers.lin import LINDecoder

    _check_lin_values(pairs)
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
    kept = [(k, v.replace("10", "T") if k.lower() in ("pc", "md") else v)  # endplay reads no "10" rank
            for k, v in pairs if k.lower() not in ("ah", "qx", "mc")]  # those three are read here, not by endplay
    line = "".join(f"{k}|{v}|" for k, v in kept) + "mc|0|"  # endplay then takes no result of its own
    try:
        board = LINDecoder().parse_line(line)
    except Exception as exc:  # noqa: BLE001 - endplay raises ValueError, IndexError, AttributeError, ...
        raise ValueError(_one_line(exc)) from None
    try:
        owner = pbn_to_owner(board.deal.to_pbn())
    except ValueError as exc:
        raise ValueError(f"malformed md tag {tags['md']!r}: {deal_problem(exc)}") from None
    dealer = int(board.dealer)
    vul = vul_for_board(number) if board.vul is None else ("none", "both", "NS", "EW")[int(board.vul)]
    calls = [_endplay_call(bid) for bid in board.auction]
    cards = [_endplay_card(card, i // 4 + 1) for i, card in enumerate(board.play)]
    return _make(source, number, dealer, vul, owner, calls, cards, result, _names(board.info), None, "mc")
