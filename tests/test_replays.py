"""Behaviour pins of the released models (issue #52: a structure change changes no behaviour): a fixed subset of
each released model's documented match replays board for board, every call, card, contract, trick count and score
equal to what the code made before the change (`tests/data/replays.json`).

The pins were written by the code of the commit before issue #52's moves and are rewritten only on purpose, for a
change that is meant to change play:

    python3 tests/test_replays.py --write [NAME ...]   # from the repository root: those pins (all by default)

The test names the first board that differs. Issue #50 released a new `models/card-player` on purpose: the first
player's pins moved to `card-player-1` (its checkpoint, unchanged, with `competitive-played`'s match, which was
played with it), and `card-player`'s pin was written for the new checkpoint.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PINS = ROOT / "tests" / "data" / "replays.json"
CP = "models/card-player"
CP1 = "models/card-player-1"  # the first release (issue #37), the player of competitive-played's tables
# name -> (kind, arguments, boards): the documented match of each released model (docs/results.md, its README),
# cut to its first boards of the test split; the searches' matches are cut shortest (they cost seconds a board)
REPLAYS = {
    "uncontested-dqn": ("uncontested", "dqn:models/uncontested-dqn", 200),
    "uncontested-critic": ("uncontested", "models/uncontested-critic", 200),
    "competitive-dqn": ("competitive", ["--ns", "dqn:models/competitive-dqn", "--ew", "rules"], 200),
    "competitive-ppo": ("competitive", ["--ns", "models/competitive-ppo", "--ew", "rules"], 200),
    "competitive-played": ("game", ["--ns", f"bid=models/competitive-played,play={CP1}", "--ew",
                                    f"bid=rules,play={CP1}"], 100),
    "card-player": ("game", ["--ns", f"bid=rules,play={CP}", "--ew", "bid=rules,play=pimc:worlds=20"], 6),
    "card-player-1": ("game", ["--ns", f"bid=rules,play={CP1}", "--ew", "bid=rules,play=pimc:worlds=20"], 6),
    "issn": ("game", ["--ns", "bid=rules,play=issn", "--ew", "bid=rules,play=dd"], 20),
    "ssn": ("game", ["--ns", "bid=rules,play=pimc:worlds=8,solver=ssn", "--ew", "bid=rules,play=dd"], 6),
    "card-location": ("game", ["--ns", "bid=rules,play=pimc:worlds=8,sampler=network,model=models/card-location",
                               "--ew", "bid=rules,play=dd"], 4),
}


def _table(table: dict) -> str:
    return (f"{' '.join(table['auction'])} | {' '.join(table.get('play', []))} | {table['contract']} "
            f"{table['declarer']} {table['tricks']} {table['score_ns']}")


def _uncontested(spec: str, boards: int) -> list[str]:
    try:
        from bridgerl.arena.specs import load_agent
        from bridgerl.evaluation.bidding.uncontested import evaluation_rows, play_deals
    except ImportError:  # the code before issue #52 (the pins were written by it)
        from bridgerl.evaluation.specs import load_agent
        from bridgerl.evaluation.uncontested import evaluation_rows, play_deals
    from bridgerl.core import load_dataset

    dataset = load_dataset("test")
    rows, _ = evaluation_rows(dataset, "thesis", boards)
    outcomes = play_deals(load_agent(spec, "uncontested_bidding"), dataset, rows)
    return [f"{o.row} {o.auction} | {o.contract} {o.declarer} {o.tricks} {o.score} {o.imps}" for o in outcomes]


def replay(name: str, boards: int | None = None) -> list[str]:
    """One line per board of ``name``'s replay (its first ``boards``, all by default): each table's calls, cards,
    contract, declarer, tricks and score."""
    from bridgerl.cli import main

    kind, args, whole = REPLAYS[name]
    boards = whole if boards is None else boards
    if kind == "uncontested":
        return _uncontested(args, boards)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        if kind == "competitive":
            code = main(["evaluate", "competitive", *args, "--data", "test", "--deals", str(boards), "--json",
                         str(out)])
            results = json.loads(out.read_text())["board_results"]
        else:
            code = main(["evaluate", "game", *args, "--data", "test", "--deals", str(boards), "--out", str(out),
                         "--quiet"])
            results = [json.loads(line) for line in out.read_text().splitlines()[1:]]
        assert code == 0
    return [f"{r['row']} {' || '.join(_table(t) for t in r['tables'])} | {r['imps']}" for r in results]


# the slow tier (CI runs it; docs/conventions.md): the first card player's pins (the released player's stay here),
# and the whole pins of the two PIMC matches (their first boards, in the same match, stay here: a board's agents are
# seeded from the board, so a match cut shorter plays its boards as the whole match does)
CUT = {"card-player": 3, "card-location": 2}


def _cases():
    for name in sorted(REPLAYS):
        if name == "card-player-1":
            yield pytest.param(name, None, marks=pytest.mark.slow, id=name)
        elif name in CUT:
            yield pytest.param(name, CUT[name], id=f"{name}-first-{CUT[name]}")
            yield pytest.param(name, None, marks=pytest.mark.slow, id=name)
        else:
            yield pytest.param(name, None, id=name)


@pytest.mark.parametrize("name,boards", _cases())
def test_released_models_replay_board_for_board(name, boards, monkeypatch):
    monkeypatch.chdir(ROOT)  # the models' paths are the repository's
    expected = json.loads(PINS.read_text())[name]
    boards = REPLAYS[name][2] if boards is None else boards
    assert len(expected) == REPLAYS[name][2]
    expected = expected[:boards]
    got = replay(name, boards)
    assert len(got) == len(expected) == boards
    for index, (a, b) in enumerate(zip(got, expected)):
        assert a == b, f"{name}: board {index} (test row) differs:\n now    {a}\n pinned {b}"


if __name__ == "__main__":
    if sys.argv[1:2] != ["--write"] or not set(sys.argv[2:]) <= set(REPLAYS):
        sys.exit(f"usage: python3 tests/test_replays.py --write [NAME ...]   (rewrites those pins in "
                 f"tests/data/replays.json, all by default; names: {', '.join(sorted(REPLAYS))})")
    import os

    os.chdir(ROOT)
    pins = json.loads(PINS.read_text()) if PINS.exists() else {}
    for key in sorted(sys.argv[2:] or REPLAYS):
        pins[key] = replay(key)
        print(key, len(pins[key]), file=sys.stderr)
    PINS.write_text(json.dumps(dict(sorted(pins.items())), indent=0) + "\n")
