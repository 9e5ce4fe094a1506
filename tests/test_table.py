"""Issue #53: the table protocol (version 18). Our manager and our seat clients over loopback play the boards of
`evaluate game` with the same specs, rows and seeds; the wire, both ways, checked line by line by a seat and a
manager written from the protocol's document (`helper_table.py`); every misbehaviour of a seat gives its one line
and no wrong board; an interrupted session resumes; the PBN reads back through `evaluate records`."""

from __future__ import annotations

import json
import random
import socket
import threading

import numpy as np
import pytest

from bridgerl.arena.game import game_match
from bridgerl.arena.seat_client import SeatClient, SeatError, complete_deal
from bridgerl.arena.specs import load_pair
from bridgerl.arena.table_manager import TableManager
from bridgerl.cli import main
from bridgerl.core import load_dataset
from bridgerl.core.imps import imps
from bridgerl.core.records import read_records
from helper_table import SEATS, RawManager, RawSeat

A = "bid=rules,play=models/card-player"
B = "bid=random,play=models/card-player"  # a bidder that draws random numbers: the seeds must agree


@pytest.fixture(autouse=True)
def _repository_root(monkeypatch, request):
    monkeypatch.chdir(request.config.rootpath)  # models/card-player


def free_ports(count: int) -> int:
    """A first port of ``count`` consecutive free ports."""
    for _ in range(200):
        base = random.randint(20000, 60000)
        sockets = []
        try:
            for k in range(count):
                sock = socket.socket()
                sock.bind(("127.0.0.1", base + k))
                sockets.append(sock)
            return base
        except OSError:
            continue
        finally:
            for sock in sockets:
                sock.close()
    raise RuntimeError("no free ports")


def session(tmp_path, rooms=1, deals=2, start=0, seed=0, raw=None, board_seconds=None, out=None, specs=(A, B),
            timing=False):
    """Run a manager with our clients in every seat but ``raw`` ({(room, seat): RawSeat kwargs}); returns
    (results, clients, raw seats)."""
    port = free_ports(4 * rooms)
    out = out or tmp_path / "boards.pbn"
    manager = TableManager("test", out, port, start=start, deals=deals, rooms=rooms, board_seconds=board_seconds,
                           log=tmp_path / "table.log", timing=timing)
    clients, raws, errors = {}, {}, {}
    for room in range(rooms):
        for seat in range(4):
            pair = (seat % 2 + room) % 2  # A at N/S in room 1, at E/W in room 2
            if raw and (room, seat) in raw:
                raws[room, seat] = RawSeat(port + 4 * room + seat, seat, **{"timing": timing, **raw[room, seat]})
            else:
                clients[room, seat] = SeatClient("127.0.0.1", port + 4 * room + seat, seat, specs[pair],
                                                 team="AB"[pair], seed=seed, room=room + 1, timeout=30)

    def run(key, client):
        try:
            client.run()
        except SeatError as exc:
            errors[key] = str(exc)

    def ready():
        for key, client in clients.items():
            threading.Thread(target=run, args=(key, client), daemon=True).start()
        for seat in raws.values():
            seat.start()

    results = manager.serve(ready)
    for seat in raws.values():
        seat.join(30)
    return results, errors, raws


def outcome(table: dict) -> tuple:
    return table["contract"], table["declarer"], table["tricks"], table["score_ns"], table["auction"], table["play"]


def test_a_table_plays_the_boards_of_evaluate_game(tmp_path):
    results, errors, _ = session(tmp_path, rooms=2, deals=3, start=4, seed=3)
    assert results["failure"] is None and not errors
    expected = game_match(load_pair(A, seed=3), load_pair(B, seed=4), "test", deals=3, start=4, seed=3)
    assert [b["board"] for b in results["board_results"]] == [5, 6, 7]
    for got, want in zip(results["board_results"], expected):
        assert [outcome(t) for t in got["tables"]] == [outcome(t) for t in want["tables"]]
        assert got["imps"] == want["imps"]
    summary = results["summary"]
    assert summary["boards"] == 3 and summary["a"] == "A" and summary["b"] == "B"
    assert summary["imps_per_board"] == pytest.approx(np.mean([b["imps"] for b in expected]))
    # the PBN: one game per room and board, read back with the same results
    records = sorted(read_records(tmp_path / "boards.pbn"), key=lambda r: (r.board, r.event))  # as they finished
    assert [(r.board, r.event) for r in records] == [(b, f"bridgerl table, room {room}") for b in (5, 6, 7)
                                                     for room in (1, 2)]
    for record, (board, room) in zip(records, [(b, r) for b in range(3) for r in range(2)]):
        table = expected[board]["tables"][room]
        assert (record.contract.name if record.contract else "Pass", record.tricks) == \
            (table["contract"], table["tricks"] if record.contract else None)
    text = (tmp_path / "boards.pbn").read_text()
    assert text.count("[Event ") == 6 and '[Contract "' in text and '[Declarer "' in text and '[Result "' in text
    assert main(["evaluate", "records", str(tmp_path / "boards.pbn"), "--json", str(tmp_path / "r.json")]) == 0
    assert json.loads((tmp_path / "r.json").read_text())["records"] == 6


def test_the_manager_speaks_the_documents_words(tmp_path):
    """A seat written from the document sits West at our manager: every line it gets matches the document's
    wording at its place in the exchange (the seat asserts each one), over two boards and the end of session."""
    results, errors, raws = session(tmp_path, deals=2, raw={(0, 3): {}}, timing=True)
    west = raws[0, 3]
    assert west.error is None, west.error
    assert results["failure"] is None and not errors and west.boards == 2
    received = west.wire.received
    assert received[:3] == ['West ("raw") seated', 'Teams : N/S : "A" E/W : "B"', "Start of board"]
    assert received[3] == "Board number 1. Dealer North. Neither vulnerable."
    assert received[4].startswith("West's cards : S ") and received[-1] == "End of session"
    declarers = [b["tables"][0]["declarer"] for b in results["board_results"]]
    shown = sum(d is not None and d != "E" for d in declarers)  # West sees dummy unless West is dummy
    assert sum(line.startswith("Dummy's cards : ") for line in received) == shown
    assert sum(line.startswith("Timing - N/S : this board") for line in received) == 2
    assert sum(line == "Start of board" for line in received) == 2
    assert len(results["board_results"]) == 2


def _south_opens(dataset) -> int:
    """A row dealt by South whose South hand the rule bidder opens (16+ HCP)."""
    points = np.array([0] * 9 + [1, 2, 3, 4])
    for row in range(len(dataset)):
        if row % 4 == 2 and points[np.flatnonzero(dataset.owner[row] == 2) % 13].sum() >= 16:
            return row
    raise AssertionError("no such row")


def test_our_seat_speaks_the_documents_words(tmp_path):
    """Our seat client at South, under a manager written from the document that checks every line it sends (the
    three other seats pass and play their lowest legal card): it opens, declares and plays all 52 cards."""
    dataset = load_dataset("test")
    row = _south_opens(dataset)
    port = free_ports(1)
    manager = RawManager(port, 2, dataset.owner[row], row + 1, dealer=2, vul="Both")
    manager.start()
    client = SeatClient("127.0.0.1", port, 2, "bid=rules,play=models/card-player", team="ours", timeout=30)
    assert client.run() == 1
    manager.join(30)
    assert manager.error is None, manager.error
    assert manager.result["auction"][0].startswith("bids") and manager.result["declarer"] == 2
    sent = manager.wire.received
    assert sent[:5] == ['Connecting "ours" as South using protocol version 18', "South ready for teams",
                        "South ready to start", "South ready for deal", "South ready for cards"]
    assert "South ready for West's card to trick 1" in sent and "South ready for dummy" in sent
    assert sum(line.startswith(("South plays", "North plays")) for line in sent) == 26


GOOD = ("bid=rules,play=models/card-player", "bid=sayc,play=models/card-player")
_REFERENCE: dict = {}


def _reference(tmp_path, seat: int) -> list:
    """The boards a well-behaved raw seat at ``seat`` plays (what a misbehaving one must not spoil before it)."""
    if seat not in _REFERENCE:
        (tmp_path / f"reference{seat}").mkdir()
        results, _, _ = session(tmp_path / f"reference{seat}", deals=2, raw={(0, seat): {}}, specs=GOOD)
        _REFERENCE[seat] = [[outcome(t) for t in b["tables"]] for b in results["board_results"]]
    return _REFERENCE[seat]


@pytest.mark.parametrize("misbehave, seat, board, words, extra", [
    ("malformed", 1, 1, "'Connecting \"TEAM\" as East using protocol version 18' was expected", {}),
    ("wrong_seat", 1, 1, "as East", {}),
    ("version", 2, 1, "version 18 only", {}),
    ("bad_team", 3, 1, "team name", {"team": "x\\"}),
    ("out_of_turn", 0, 1, "North passes | doubles", {}),
    ("illegal_call", 0, 2, "illegal call", {}),
    ("long_line", 0, 2, "more than 1000 bytes", {}),
    ("illegal_card", 1, 1, "illegal card", {}),
    ("dropped", 0, 2, "North dropped the connection", {}),
    ("stalled", 0, 1, "waited too long for North", {}),
])
def test_a_misbehaving_seat_gets_one_line_and_no_wrong_board(tmp_path, misbehave, seat, board, words, extra):
    (tmp_path / "run").mkdir()
    results, errors, raws = session(tmp_path / "run", deals=2, specs=GOOD,
                                    raw={(0, seat): {"misbehave": misbehave, "on_board": board, **extra}},
                                    board_seconds=3 if misbehave == "stalled" else None)
    bad = raws[0, seat]
    assert bad.error is None, bad.error
    assert results["failure"] is not None and words.lower() in results["failure"].lower(), results["failure"]
    assert "\n" not in results["failure"]
    if misbehave != "dropped":  # the seat is told once, in one line naming it, and nothing more
        assert len(bad.after) == 1, bad.after
        assert bad.after[0].startswith(("Error:", "Illegal", "Board stopped:"))
        assert SEATS[seat] in bad.after[0] + results["failure"]
    finished = results["board_results"]
    assert len(finished) == board - 1  # the boards before it, and not the one it broke
    if finished:  # what was written is right: the first board as a well-behaved seat plays it
        assert [[outcome(t) for t in b["tables"]] for b in finished] == _reference(tmp_path, seat)[:1]
        assert len(read_records(tmp_path / "run" / "boards.pbn")) == 1


def test_robots_conventions_are_accepted(tmp_path):
    """WBridge5 connects "as ANYPL" (it gets its port's seat); a message with a full stop at the end is read too."""
    results, errors, raws = session(tmp_path, deals=2, raw={(0, 3): {"anypl": True, "full_stops": True}}, specs=GOOD)
    assert raws[0, 3].error is None, raws[0, 3].error
    assert results["failure"] is None and not errors and raws[0, 3].boards == 2
    assert raws[0, 3].wire.received[0] == 'West ("raw") seated'


def test_an_interrupted_session_resumes_after_its_boards(tmp_path):
    out = tmp_path / "boards.pbn"
    first, _, _ = session(tmp_path, deals=2, raw={(0, 0): {"misbehave": "dropped", "on_board": 2}}, out=out)
    assert first["boards_played"] == 1
    again, errors, _ = session(tmp_path, deals=2, raw={(0, 0): {}}, out=out)
    assert again["failure"] is None and not errors and again["boards_played"] == 2
    once, _, _ = session(tmp_path, deals=2, raw={(0, 0): {}}, out=tmp_path / "once.pbn")  # the same seats, at once
    assert [outcome(b["tables"][0]) for b in again["board_results"]] == \
        [outcome(b["tables"][0]) for b in once["board_results"]]
    assert [r.board for r in read_records(out)] == [1, 2]
    summary = again["summary"]  # one room: N/S against par, and the points they scored
    vs_par = [imps(b["tables"][0]["score_ns"] - b["par_ns"]) for b in again["board_results"]]
    assert summary["boards"] == 2 and summary["vs_par_imps_per_board"] == pytest.approx(np.mean(vs_par))
    assert summary["score_ns_per_board"] == pytest.approx(np.mean([b["tables"][0]["score_ns"]
                                                                   for b in again["board_results"]]))


def test_a_foreign_file_is_not_replaced(tmp_path, capsys):
    out = tmp_path / "mine.pbn"
    out.write_text("not a hand record\n")
    port = free_ports(4)
    code = main(["table", "serve", "--port", str(port), "--data", "test", "--deals", "1", "--out", str(out)])
    assert code == 2 and out.read_text() == "not a hand record\n"
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--force" in err


def test_the_seat_refuses_agents_that_would_see_hidden_cards():
    with pytest.raises(ValueError, match="whole deal"):
        SeatClient("127.0.0.1", 1, 0, "bid=rules,play=dd")
    with pytest.raises(ValueError, match="DD tables"):
        SeatClient("127.0.0.1", 1, 0, "bid=punisher:rules,play=models/card-player")


def test_complete_deal_agrees_with_everything_seen():
    rng = np.random.default_rng(0)
    owner = rng.permutation(np.repeat(np.arange(4), 13))
    # West shows out of clubs on trick 1 (clubs led by North); its hidden cards hold no club
    clubs_north = [c for c in range(13) if owner[c] == 0]
    diamonds_west = [c for c in range(13, 26) if owner[c] == 3]
    if not clubs_north or not diamonds_west:
        pytest.skip("deal without the shape")
    owner = owner.copy()
    for c in range(13):
        if owner[c] == 3:  # give West's clubs to East for East's diamonds, so West is void in clubs
            swap = next(d for d in range(13, 52) if owner[d] == 1)
            owner[c], owner[swap] = 1, 3
    diamonds_west = [c for c in range(13, 26) if owner[c] == 3] or [c for c in range(26, 52) if owner[c] == 3]
    seen = [(0, clubs_north[0]), (1, next(c for c in range(52) if owner[c] == 1)), (2, next(
        c for c in range(52) if owner[c] == 2)), (3, diamonds_west[0])]
    known = {2: set(np.flatnonzero(owner == 2))}
    filled = complete_deal(known, seen)
    assert np.bincount(filled, minlength=4).tolist() == [13, 13, 13, 13]
    assert all(filled[c] == s for s, c in seen) and all(filled[c] == 2 for c in known[2])
    assert not any(filled[c] == 3 for c in range(13))  # West's void


# ---------------------------------------------------------------- brl's networks by file

def _brl_params(seed: int = 0) -> dict:
    """Random weights in brl's layout: Haiku's names for its DeepMind MLP, JAX arrays (as brl pickles them)."""
    import jax.numpy as jnp

    rng = np.random.default_rng(seed)
    shapes = [(480, 1024), (1024, 1024), (1024, 1024), (1024, 1024), (1024, 38), (1024, 1)]
    names = ["linear"] + [f"linear_{k}" for k in range(1, 6)]
    return {f"actor_critic/~/{name}": {"w": jnp.asarray(rng.normal(0, 0.05, shape).astype(np.float32)),
                                      "b": jnp.asarray(rng.normal(0, 0.05, shape[1]).astype(np.float32))}
            for name, shape in zip(names, shapes)}


def test_a_brl_file_bids_legal_calls_in_200_auctions(tmp_path):
    import pickle

    from bridgerl.agents.learned.brl import BrlBidder, load_brl_params

    params = _brl_params()
    path = tmp_path / "model-sl.pkl"
    path.write_bytes(pickle.dumps(params))
    assert b"jax._src.array" in path.read_bytes() and b"_reconstruct" in path.read_bytes()
    layers = load_brl_params(path)
    assert np.array_equal(layers["linear_4"]["w"], np.asarray(params["actor_critic/~/linear_4"]["w"]))
    # numpy 1.x's name for the reconstructor, in a protocol-2 pickle
    old = pickle.dumps(params, protocol=2).replace(b"numpy._core.multiarray", b"numpy.core.multiarray")
    (tmp_path / "old.pkl").write_bytes(old)
    assert np.array_equal(load_brl_params(tmp_path / "old.pkl")["linear"]["b"], layers["linear"]["b"])
    # 200 auctions of brl against rules, every call legal (evaluate competitive checks each)
    code = main(["evaluate", "competitive", "--ns", f"brl:{path}", "--ew", "rules", "--data", "test", "--deals",
                 "200", "--json", str(tmp_path / "m.json")])
    assert code == 0 and json.loads((tmp_path / "m.json").read_text())["boards"] == 200
    # the batched path (observations read back into views) chooses as the view path does
    from bridgerl.core.bridge import BridgeState
    from bridgerl.core.competitive import CompetitiveDealSource

    bidder, source = BrlBidder.load(path), CompetitiveDealSource(load_dataset("test"))
    for row in range(20):
        state = BridgeState.start(source.deal_at(row))
        for call in (0, 3 + row % 10)[: row % 3]:
            state = state.apply(call)
        view, obs, mask = state.view(), state.auction_observation(), state.auction.legal_mask()
        assert bidder.act(obs, mask) == bidder.act_view(view)


def test_brl_observation_is_pgx_14s():
    """The 480 values by hand for one auction: 1C by the dealer (RHO of the player), X by partner... as pgx 1.4
    lays them out (vulnerability we/they, passes before the first bid, each bid by relative seat with its doubles,
    the hand in OpenSpiel's card order)."""
    from bridgerl.agents.learned.brl import brl_observation
    from bridgerl.core.competitive import AuctionView

    # player East (seat 1); dealer North passes, then... relative seats: North = 3 (RHO), South = 1 (LHO)
    calls = [(3, 0), (0, 3 + 0), (1, 1), (2, 0), (3, 3 + 7)]  # N pass, E 1C, S X, W pass, N 2H
    hand = [0, 13, 26, 39, 51, 12, 25, 38, 1, 2, 3, 4, 5]
    view = AuctionView(calls, hand, True, False, legal=[0, 1] + list(range(11, 38)), seat=1)
    obs = brl_observation(view)
    expected = np.zeros(480)
    expected[[1, 2]] = 1  # we vulnerable, they not
    expected[4 + 3] = 1  # RHO passed before the first bid
    expected[8 + 0 * 12 + 0] = 1  # 1C by the player
    expected[8 + 0 * 12 + 4 + 1] = 1  # doubled by LHO
    expected[8 + 7 * 12 + 3] = 1  # 2H by RHO
    for card in hand:
        expected[428 + card // 13 + 4 * (card % 13)] = 1
    assert np.array_equal(obs, expected)


@pytest.mark.parametrize("payload", ["os_system", "builtins_eval", "object_array", "not_dict", "fair",
                                     "ndarray_call", "huge_shape", "deep"])
def test_brl_refuses_a_pickle_that_carries_code_or_is_not_brls(tmp_path, payload):
    import pickle

    from bridgerl.agents.learned.brl import BrlFileError, load_brl_params

    marker = tmp_path / "ran"

    class Evil:
        def __reduce__(self):
            import os

            return (os.system, (f"touch {marker}",))

    class EvalCall:
        def __reduce__(self):
            return (eval, (f"open({str(marker)!r}, 'w')",))

    class NdarrayCall:  # numpy.ndarray called by the pickle: a zero-stride view of any size from 8 bytes
        def __reduce__(self):
            return (np.ndarray, ((10**6, 10**6), np.float32, b"12345678", 0, (0, 0)))

    class HugeShape:  # numpy's reconstructor asked for an array of 10^12 items
        def __reduce__(self):
            return (np._core.multiarray._reconstruct, (np.ndarray, (10**12,), b"b"))

    deep: dict = {}
    for _ in range(50):
        deep = {"x": deep}
    data = {"ndarray_call": lambda: pickle.dumps({"actor_critic/~/linear": {"w": NdarrayCall()}}),
            "huge_shape": lambda: pickle.dumps({"actor_critic/~/linear": {"w": HugeShape()}}),
            "deep": lambda: pickle.dumps(deep),
            "os_system": lambda: pickle.dumps({"actor_critic/~/linear": {"w": Evil()}}),
            "builtins_eval": lambda: pickle.dumps([EvalCall()]),
            "object_array": lambda: pickle.dumps({"a": np.array([1, "x"], dtype=object)}),
            "not_dict": lambda: pickle.dumps([1, 2, 3]),
            "fair": lambda: pickle.dumps({"actor_critic/~/linear": {"w": np.zeros((480, 200), np.float32),
                                                                    "b": np.zeros(200, np.float32)}})}[payload]()
    path = tmp_path / "model.pkl"
    path.write_bytes(data)
    with pytest.raises(BrlFileError) as error:
        load_brl_params(path)
    assert "\n" not in str(error.value) and str(path) in str(error.value)
    assert not marker.exists()
    assert main(["evaluate", "competitive", "--ns", f"brl:{path}", "--ew", "rules", "--deals", "2"]) == 2
    assert not marker.exists()


def test_the_words_of_other_programs_parse():
    """Lines as WBridge5 (OpenSpiel's transcript), BEN and other managers write them (with or without a full stop)."""
    from bridgerl.arena import protocol as P

    lines = {
        'Connecting "WBridge5" as ANYPL using protocol version 18': ("connecting", {"seat": None, "team": "WBridge5"}),
        'WEST ("WBridge5") seated': ("seated", {"seat": 3}),
        'south emanon seated': ("seated", {"seat": 2, "team": "emanon"}),
        'Teams: N/S "silent" E/W "bidders"': ("teams", {"ns": "silent", "ew": "bidders"}),
        "Board number 8. Dealer WEST. Neither vulnerable.": ("board", {"board": 8, "dealer": 3, "vul": "none"}),
        "WEST's cards: S A T 9 5. H K 6 5. D Q J 8 7 6. C 7.": ("cards", {"seat": 3}),
        "north's cards : s a k 3. h. d q j t 9 8 7 6 5. c 4 3.": ("cards", {"seat": 0}),
        "WEST ready for  NORTH's bid": ("ready_for_bid", {"seat": 3, "caller": 0}),
        "WEST PASSES": ("call", {"seat": 3, "call": 0}),
        "EAST bids 1C": ("call", {"seat": 1, "call": 3}),
        "South bids 1NT Alert. 12 to 14 total points": ("call", {"seat": 2, "call": 7}),
        "North ready to start.": ("ready_to_start", {"seat": 0}),
        "East ready for dummy.": ("ready_for_dummy", {"seat": 1}),
        "west plays kc": ("plays", {"seat": 3, "card": 11}),
        "South plays 10H": ("plays", {"seat": 2, "card": 34}),
        "Dummy to lead": ("to_lead", {"leader": "dummy"}),
        "End of session": ("end_of_session", {}),
    }
    for line, (kind, fields) in lines.items():
        message = P.parse(line)
        assert message.kind == kind and all(message[k] == v for k, v in fields.items()), line
    assert len(P.parse("WEST's cards: S A T 9 5. H K 6 5. D Q J 8 7 6. C 7.")["hand"]) == 13
    for bad in ["North bids 8C", "North plays 1S", "Board number 99999999999. Dealer North. Both vulnerable.",
                "North ready for " + "x" * 600, "North's cards : S A K. H -. D -. C -."]:
        with pytest.raises(P.ProtocolError):
            P.parse(bad)
