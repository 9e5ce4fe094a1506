"""PBN import and export of datasets.

Export writes Board, Dealer, Vulnerable, Deal and the DD table as a PBN 2.1 ``OptimumResultTable``.
Import reads every board's deal and board number only (`bridgerl.core.pbn_games` cuts the games; a board whose
deal cannot be read is left out and reported); DD tables are computed with DDS.
"""

from __future__ import annotations

import io
import os
from pathlib import Path

import numpy as np

from .board import dealer_for_board, vul_for_board
from .cards import SEATS, STRAINS, owner_to_pbn, pbn_to_owner
from .dataset import Dataset, make_dataset
from .dd import solve_dd_tables
from .files import atomic_write_text

_PBN_VUL = {"none": "None", "NS": "NS", "EW": "EW", "both": "All"}


def dataset_to_pbn(dataset: Dataset) -> str:
    """PBN text with one board per deal."""
    out = io.StringIO()
    out.write("% PBN 2.1\n% EXPORT\n% bridgerl dataset\n")  # no blank line before the first game (records_write)
    for row in range(len(dataset)):
        board = int(dataset.boards[row])
        out.write(f'[Event "bridgerl"]\n[Board "{board}"]\n')
        out.write(f'[Dealer "{SEATS[dealer_for_board(board)]}"]\n')
        out.write(f'[Vulnerable "{_PBN_VUL[vul_for_board(board)]}"]\n')
        out.write(f'[Deal "{owner_to_pbn(dataset.owner[row])}"]\n')
        out.write('[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\n')
        for seat in range(4):
            for strain in (4, 3, 2, 1, 0):
                out.write(f"{SEATS[seat]} {STRAINS[strain]:>2} {int(dataset.dd[row, seat, strain]):>2}\n")
        out.write("\n")
    return out.getvalue()


def write_pbn(path: str | os.PathLike, dataset: Dataset) -> None:
    """Write ``dataset`` as PBN, atomically."""
    atomic_write_text(path, dataset_to_pbn(dataset))


def read_pbn_deals(text: str, source: str = "<pbn>", refused: list | None = None,
                   strict: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """owner uint8[N, 52] and board int32[N] of every board in PBN ``text`` (board 1, 2, ... where untagged). Only
    the Deal and Board tags are read (`bridgerl.core.pbn_games` cuts the games): a problem in a board's auction or
    play does not matter here. A board whose deal cannot be read is left out and, when ``refused`` is a list,
    appended to it as ``{"source", "reason"}`` (``strict``: it refuses the whole text). No readable deal at all is
    refused in one line."""
    from .pbn_games import pbn_games

    games = pbn_games(text)
    if not games:
        raise ValueError(f"{source}: no boards (no PBN tags found)")
    owners, numbers, problems = [], [], []
    for i, game in enumerate(games):
        number = game.number if game.number is not None else i + 1
        try:
            owners.append(game.owner())
        except ValueError as exc:
            message = f"{source} board {number}: malformed PBN: {exc}"
            if strict:
                raise ValueError(message) from None
            problems.append({"source": f"{source}:{number}", "reason": message})
            continue
        numbers.append(number)
    if refused is not None:
        refused.extend(problems)
    if not owners:
        first = problems[0]["reason"] if problems else f"{source}: no boards with a [Deal] tag found"
        raise ValueError(first if len(problems) <= 1 else f"no deal of {len(problems)} boards could be read; the "
                                                          f"first: {first}")
    return np.stack(owners), np.asarray(numbers, dtype=np.int32)


def read_pbn(path: str | os.PathLike, refused: list | None = None) -> Dataset:
    """Dataset from a PBN file (its deals only: `read_pbn_deals`), DD tables computed with DDS."""
    owner, board = read_pbn_deals(Path(path).read_text(encoding="utf-8-sig", errors="replace"), str(path), refused)
    return make_dataset(owner, solve_dd_tables(owner), board, str(path))


def parse_deal_option(text: str) -> tuple[np.ndarray, int, str | None, int | None]:
    """A deal given to an env's ``reset``: a PBN deal string ('N:...') or PBN text with tags.

    Returns (owner, board, vulnerability or None, dealer or None); board 1 when the text has no Board tag."""
    from .board import parse_vul
    from .cards import parse_seat

    if "[" not in text:
        return pbn_to_owner(text), 1, None, None
    tags = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]") and '"' in line:
            key, _, value = line[1:-1].partition(" ")
            tags[key.lower()] = value.strip().strip('"')
    if "deal" not in tags:
        raise ValueError(f"malformed PBN: no [Deal] tag in {text[:60]!r}")
    owner = pbn_to_owner(tags["deal"])
    board = int(tags["board"]) if tags.get("board", "").isdigit() else 1
    vul = parse_vul(tags["vulnerable"]) if tags.get("vulnerable") not in (None, "", "?") else None
    dealer = parse_seat(tags["dealer"]) if tags.get("dealer") not in (None, "", "?") else None
    return owner, board, vul, dealer
