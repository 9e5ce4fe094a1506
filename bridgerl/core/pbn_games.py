"""PBN text cut into games, as the PBN 2.1 standard lays it out (chapter 3 and section 4.8), one game at a time so
that a problem in one game refuses that game only.

- A game ends at a semi-empty line (nothing but spaces and tabs) outside a comment.
- Comments are taken out before anything is read: ``;`` to the end of the line and ``{...}`` (which may span lines,
  semi-empty ones included), never inside a tag's quoted value. Lines starting with ``%`` are escape lines and
  ignored.
- A tag pair is ``[Name "value"]``; the tokens that follow the Auction and Play tags and the supplemental tables
  (``...Table``) up to the next tag are their section; a token anywhere else is a problem of that game. A repeated tag is ignored (3.3). Every ``[Note "N:text"]`` is kept.
- Inheritance (4.8): a value ``#`` is the value of the same tag in the nearest previous game that has one (``""``
  when none does); a value ``##text`` is ``text`` here and in every later game that lacks the tag. Both are refused
  for Dealer, Vulnerable, Deal, Declarer, Contract, Auction, Play and Note.

endplay's PBN decoder reads a file all or nothing, reads ``;`` comments inside a section as tokens and takes ``#``
from the previous game only: the record reader (`bridgerl.core.records`) and `bridgerl.core.pbn.read_pbn_deals`
read the games from here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .cards import pbn_to_owner

_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s*"((?:[^"\\]|\\.)*)"\s*\]')
_NO_INHERIT = frozenset({"dealer", "vulnerable", "deal", "declarer", "contract", "auction", "play", "note"})


@dataclass
class PbnGame:
    """One game of a PBN file: ``line`` (where it starts, 1-based), ``tags`` (lower-case name -> value, inheritance
    resolved), ``sections`` (lower-case name -> the tokens after that tag), ``notes`` ("N" -> text) and ``error``
    (the first problem met while reading its text, or None)."""

    line: int
    tags: dict[str, str] = field(default_factory=dict)
    sections: dict[str, list[str]] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    error: str | None = None

    def tag(self, name: str) -> str | None:
        return self.tags.get(name.lower())

    @property
    def number(self) -> int | None:
        """The board number as tagged (a positive integer), else None."""
        board = (self.tags.get("board") or "").strip()
        return int(board) if board.isascii() and board.isdigit() and int(board) >= 1 else None

    def owner(self) -> np.ndarray:
        """The deal of the Deal tag (`bridgerl.core.cards.pbn_to_owner`); ValueError in one line when it is missing
        or malformed."""
        deal = self.tags.get("deal")
        if deal is None:
            raise ValueError("no Deal tag")
        try:
            return pbn_to_owner(deal)
        except ValueError as exc:
            raise ValueError(f"malformed Deal tag {deal!r}: {deal_problem(exc)}") from None

    @property
    def label(self) -> str:
        """The game's board number as tagged, else the line it starts on."""
        return str(self.number) if self.number is not None else f"at line {self.line}"


def deal_problem(exc: ValueError) -> str:
    """The reason of a `pbn_to_owner` error, without the deal it repeats."""
    return str(exc).split("': ", 1)[-1]


def _strip_comments(line: str, in_brace: bool) -> tuple[str, bool]:
    """(the line without its comments, whether a ``{`` comment is still open at its end)."""
    out, i, quoted = [], 0, False
    while i < len(line):
        char = line[i]
        if in_brace:
            end = line.find("}", i)
            if end < 0:
                return "".join(out), True
            in_brace, i = False, end + 1
            out.append(" ")
            continue
        if quoted:
            if char == "\\" and i + 1 < len(line):
                out.append(line[i:i + 2])
                i += 2
                continue
            quoted = char != '"'
        elif char == '"':
            quoted = True
        elif char == ";":
            break
        elif char == "{":
            in_brace = True
            i += 1
            continue
        out.append(char)
        i += 1
    return "".join(out), in_brace


def pbn_games(text: str) -> list[PbnGame]:
    """The games of PBN ``text`` in file order (those with at least one tag); see the module docstring. A ``{``
    comment never closed is taken to end with the line it opens on (its game is refused for it, the games after it
    are read); a game whose Event or Board tag comes again after its Deal, with no empty line between, is taken as
    two games."""
    lines = text.lstrip("\ufeff").splitlines()
    cut_at: set[int] = set()
    while True:
        games, unclosed = _cut(lines, cut_at)
        if unclosed is None:
            break
        cut_at.add(unclosed)
    _inherit(games)
    return games


def _cut(lines: list[str], cut_at: set[int]) -> tuple[list[PbnGame], int | None]:
    """(the games, the line of a ``{`` comment still open at the end, or None). A ``{`` opened on a line in
    ``cut_at`` ends with that line, and its game is refused for it."""
    games: list[PbnGame] = []
    current: PbnGame | None = None
    last_tag: str | None = None
    in_brace, opened = False, None
    for number, raw in enumerate(lines, start=1):
        if not in_brace and raw.strip() == "":
            if current is not None and current.tags:
                games.append(current)
            current, last_tag = None, None
            continue
        if not in_brace and raw.startswith("%"):
            continue
        was_open = in_brace
        line, in_brace = _strip_comments(raw, in_brace)
        if in_brace and not was_open:
            opened = number
            if number in cut_at:
                in_brace = False
                if current is None:
                    current = PbnGame(number)
                current.error = current.error or f"line {number}: a '{{' comment is never closed"
        line = line.strip()
        if not line:
            continue
        if current is None:
            current = PbnGame(number)
        position = 0
        while position < len(line):
            if line[position].isspace():
                position += 1
                continue
            match = _TAG.match(line, position)
            if match:
                name, value = match.group(1), match.group(2).replace('\\"', '"').replace("\\\\", "\\")
                key = name.lower()
                if key in ("event", "board") and key in current.tags and "deal" in current.tags:
                    games.append(current)  # a new game with no empty line before it
                    current, last_tag = PbnGame(number), None
                if key == "note":
                    index, sep, note = value.partition(":")
                    if not sep or not index.strip().isdigit():
                        current.error = current.error or f"malformed Note tag {value[:40]!r}: expected \"N:text\""
                    else:
                        current.notes[index.strip()] = note
                    last_tag = None
                elif key in current.tags:
                    last_tag = None  # a repeated tag is ignored, and so is its section
                else:
                    current.tags[key] = value
                    current.sections[key] = []
                    last_tag = key
                position = match.end()
                continue
            if line[position] == "[":
                current.error = current.error or f"line {number}: malformed tag {line[position:position + 40]!r}"
                break
            end = position
            if line[position] == '"':  # a quoted token of a table (a name may hold spaces or brackets)
                close = line.find('"', position + 1)
                end = len(line) if close < 0 else close + 1
            else:
                while end < len(line) and not line[end].isspace() and line[end] != "[":
                    end += 1
            token = line[position:end]
            if last_tag is None or not (last_tag in ("auction", "play") or (last_tag.endswith("table")
                                                                          and last_tag != "table")):
                current.error = current.error or (f"line {number}: {token!r} outside the Auction and Play sections "
                                                  "(and the supplemental tables)")
            else:
                current.sections[last_tag].append(token)
            position = end
    if current is not None and current.tags:
        games.append(current)
    return games, opened if in_brace else None


def _inherit(games: list[PbnGame]) -> None:
    """Resolve ``#`` and ``##`` values (section 4.8) in place."""
    previous: dict[str, str] = {}
    defaults: dict[str, str] = {}
    for game in games:
        for key, value in defaults.items():
            game.tags.setdefault(key, value)
            game.sections.setdefault(key, [])
        for key, value in list(game.tags.items()):
            if value == "#" or value.startswith("##"):
                if key in _NO_INHERIT:
                    game.error = game.error or f"the {key.capitalize()} tag may not inherit a value ({value!r})"
                    continue
                if value.startswith("##"):
                    value = defaults[key] = value[2:]
                elif value == "#":
                    value = previous.get(key, "")
                game.tags[key] = value
        previous.update(game.tags)


__all__ = ["PbnGame", "deal_problem", "pbn_games"]
