"""Hand records: the shipped PBN and LIN files read as written by hand, PBN written and read back unchanged, replay
into the whole-deal game, one-line errors for bad files, and `bridgerl evaluate records`."""

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from bridgerl.cli import main
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.calls import parse_call
from bridgerl.core.cards import parse_card, pbn_to_owner
from bridgerl.core.competitive import CompetitiveDeal
from bridgerl.core.contract import Contract
from bridgerl.core.dd import solve_dd_table
from bridgerl.core.records import (HandRecord, parse_lin_records, parse_pbn_records, read_records, record_actions,
                                   record_of, records_to_pbn, replay, write_pbn_records)

DATA = Path(__file__).resolve().parent / "data"
PBN = DATA / "records.pbn"
LIN = DATA / "records.lin"


def calls(text):
    return tuple(parse_call(c) for c in text.split())


def cards(text):
    return tuple(parse_card(c) for c in text.split())


@pytest.fixture(scope="module")
def pbn_records():
    return read_records(PBN)


@pytest.fixture(scope="module")
def lin_records():
    return read_records(LIN)


def test_pbn_file_reads_as_written(pbn_records):
    assert [r.board for r in pbn_records] == [1, 2, 3, 4, 5]
    full, passed, doubled, claim, unfinished = pbn_records
    assert (full.dealer, full.vul) == (0, "none")
    assert np.array_equal(full.owner, pbn_to_owner(
        "N:AK3.KJ4.QT92.A76 974.862.7653.JT9 Q52.A73.KJ4.8543 JT86.QT95.A8.KQ2"))
    assert full.calls == calls("1NT Pass 3NT Pass Pass Pass")  # the note =1= on 1NT is not a call
    assert len(full.cards) == 52 and full.claimed is None
    assert full.cards[:8] == cards("CJ C3 C2 C6 C9 C4 CQ C7")  # East leads; East wins trick 1 and leads again
    assert full.contract == Contract(3, 4, 0, 0) and full.tricks == 10
    assert full.names == {"N": "Nora", "E": "Ed", "S": "Sam", "W": "Wendy"}
    assert full.event == "bridgerl test records" and full.source == f"{PBN}:1"
    assert (passed.dealer, passed.vul, passed.calls) == (1, "NS", calls("Pass Pass Pass Pass"))  # 'Pass AP'
    assert passed.contract is None and passed.auction_over and passed.tricks == 0
    assert doubled.calls == calls("1H Pass 4H X Pass Pass Pass")
    assert doubled.contract == Contract(4, 2, 1, 2) and doubled.tricks == 9 and doubled.cards[0] == parse_card("C6")
    assert (claim.dealer, claim.vul, claim.contract) == (3, "both", Contract(4, 3, 0, 1))
    # the Play section is in columns S W N E; trick 2 is led by North, who won trick 1 with the club nine
    assert claim.cards == cards("C4 C3 C9 C2 C5 C7 C6 CJ CK CQ C8 CA")  # West (dummy) won trick 2 and leads
    assert claim.claimed == 11 and claim.tricks == 11
    assert unfinished.calls == calls("1NT Pass 2C") and not unfinished.auction_over
    assert unfinished.contract is None and unfinished.tricks is None


def test_lin_file_reads_as_written(lin_records):
    assert [r.board for r in lin_records] == [7, 8, 9]
    claim, partial, passed = lin_records
    assert (claim.dealer, claim.vul) == (2, "both")
    assert claim.calls == calls("Pass 1S X 2S 3H Pass 4H Pass Pass Pass")  # 'd!' with its alert is a double
    assert claim.contract == Contract(4, 2, 0, 2)  # South named hearts first
    assert claim.cards == cards("CA C5 C3 C2 D8 D5 D6 D2") and claim.claimed == 9
    assert claim.names == {"S": "Sam", "W": "Wendy", "N": "Nora", "E": "Ed"}
    # East's hand is left out of the md tag: it holds the other 13 cards
    assert np.array_equal(partial.owner, pbn_to_owner(
        "N:KJ52.A8.95.AQ984 8643.J76.KJ82.72 9.QT943.AQT64.65 AQT7.K52.73.KJT3"))
    assert (partial.dealer, partial.vul, partial.calls) == (3, "none", calls("1C X Pass 2H Pass Pass Pass"))
    assert partial.cards == cards("CT CQ C2 C5 CA C7") and partial.claimed is None and partial.tricks is None
    assert (passed.dealer, passed.vul, passed.calls, passed.cards) == (0, "EW", calls("Pass Pass Pass Pass"), ())


def test_lin_boards_are_cut_at_qx_and_may_span_lines():
    deal = "md|3SQ52HA73DKJ4C8543,SJT86HQT95DA8CKQ2,SAK3HKJ4DQT92CA76,|sv|o|"
    text = (f"vg|Final,Seg 1,I,1,16,A,0,B,0|\nrs|3NN,|\npn|a,b,c,d,e,f,g,h|\nqx|o1|st||{deal}\n"
            f"mb|1N|mb|p|mb|3N|mb|p|mb|p|mb|p|pg||\npc|CJ|pc|C3|pc|C2|pc|C6|pg||mc|9|\n"
            f"qx|c2|st||{deal}mb|p|mb|p|mb|p|mb|p|pg||\n")
    opened, closed = parse_lin_records(text, "vugraph.lin")  # the header (vg, rs, 8 names) holds no board
    assert (opened.board, opened.calls, opened.cards, opened.claimed) == (
        1, calls("1NT Pass 3NT Pass Pass Pass"), cards("CJ C3 C2 C6"), 9)
    assert (closed.board, closed.calls) == (2, calls("Pass Pass Pass Pass"))
    with pytest.raises(ValueError, match="one.lin board 1: the pn tag names 8 players"):
        parse_lin_records(f"pn|a,b,c,d,e,f,g,h|{deal}", "one.lin")


def test_pbn_round_trip(pbn_records, tmp_path):
    assert parse_pbn_records(records_to_pbn(pbn_records), "again.pbn") == pbn_records
    out = tmp_path / "out" / "records.pbn"
    write_pbn_records(out, pbn_records)
    assert read_records(out) == pbn_records
    assert [p.name for p in out.parent.iterdir()] == ["records.pbn"]  # written atomically, nothing left over
    text = out.read_text()
    assert '[Contract "4HX"]' in text and '[Contract "Pass"]' in text and '[Result "11"]' in text


def test_lin_to_pbn_round_trip(lin_records):
    text = records_to_pbn(lin_records)
    assert '[Result "?"]' in text  # board 8: the play stops after six cards without a claim
    assert parse_pbn_records(text) == lin_records


def test_record_of_a_played_game_round_trips(pbn_records):
    record = pbn_records[0]
    state = replay(record)
    assert state.is_over and state.result().tricks == 10
    assert record_of(state) == dataclasses.replace(record, names={}, event=None)
    rng = np.random.default_rng(3)
    state = BridgeState.start(CompetitiveDeal(record.owner, solve_dd_table(record.owner), 2, "EW", 3, None))
    while not state.is_over:
        state = state.apply(int(rng.choice(state.legal_actions())))
    played = record_of(state, names=["n", "e", "s", "w"], event="random game")
    assert (played.board, played.dealer, played.vul, played.names["W"]) == (3, 2, "EW", "w")
    assert parse_pbn_records(records_to_pbn([played])) == [played]
    dd_game = replay(pbn_records[3], play="double_dummy")
    dd_record = record_of(dd_game)
    assert dd_record.cards == () and dd_record.claimed == 11  # the DD tricks
    assert parse_pbn_records(records_to_pbn([dd_record])) == [dd_record]


def test_replay_equals_stepping_by_hand(pbn_records):
    record = pbn_records[3]
    actions = record_actions(record)
    assert actions == list(record.calls) + [CARD_OFFSET + c for c in record.cards] and len(actions) == 22
    dd = solve_dd_table(record.owner)
    state = BridgeState.start(CompetitiveDeal(record.owner, dd, record.dealer, record.vul, record.board, None))
    for upto in range(len(actions) + 1):
        replayed = replay(record, upto, dd=dd)
        assert replayed.auction == state.auction and replayed.phase == state.phase
        assert (replayed.play is None) == (state.play is None)
        if state.play is not None:
            assert replayed.play.history == state.play.history and replayed.player == state.player
        assert np.array_equal(replayed.legal_mask(), state.legal_mask())
        if upto < len(actions):
            state = state.apply(actions[upto])
    assert replay(record, dd=dd).play.history == record.cards
    assert replay(record, 4, play="double_dummy", dd=dd).phase == "auction"
    for bad, mode in ((23, "agents"), (-1, "agents"), (11, "double_dummy")):
        with pytest.raises(ValueError, match=f"upto {bad} is outside 0..") as info:
            replay(record, bad, play=mode, dd=dd)
        assert "board 4" in str(info.value)


@pytest.mark.parametrize("name, board, problem", [
    ("illegal_call.pbn", 3, "illegal call 1C by East after 1NT"),
    ("card_not_in_hand.pbn", 2, "card SA is not in East's hand"),
    ("revoke.pbn", 6, "revoke at trick 1: South plays D4 on a club lead"),
    ("malformed_deal.pbn", 4, "malformed Deal tag"),
    ("unknown_seat.pbn", 5, "unknown seat 'X' in the Dealer tag"),
    ("illegal_call.lin", 3, "illegal call 1C by East after 1NT"),
    ("revoke.lin", 6, "revoke at trick 1: South plays D4 on a club lead"),
    ("unknown_seat.lin", 5, "unknown dealer seat '7' in the md tag"),
])
def test_a_bad_record_is_one_line_naming_the_board(name, board, problem):
    path = DATA / "bad_records" / name
    with pytest.raises(ValueError) as info:
        read_records(path)
    message = str(info.value)
    assert message.startswith(f"{path} board {board}: ") and problem in message and "\n" not in message


def test_records_are_checked_when_made(pbn_records):
    record = pbn_records[0]
    with pytest.raises(ValueError, match=r"board 1: card C2 is not in South's hand \(trick 1, West holds it\)"):
        dataclasses.replace(record, cards=cards("CJ C2"))
    with pytest.raises(ValueError, match="a claim of 3 tricks on a passed-out board"):
        HandRecord(1, 0, "none", record.owner, calls("Pass Pass Pass Pass"), (), 3)
    with pytest.raises(ValueError, match="card CJ before the end of the auction"):
        HandRecord(1, 0, "none", record.owner, calls("1NT Pass"), cards("CJ"))
    with pytest.raises(ValueError, match="unknown hand-record format '.txt'"):
        read_records(DATA / "records.txt")
    text = PBN.read_text().replace('[Result "10"]', '[Result "9"]')
    with pytest.raises(ValueError, match="board 1: Result 9 disagrees with the play: declarer took 10 tricks"):
        parse_pbn_records(text, "edited.pbn")
    with pytest.raises(ValueError, match=r"board 3: the Contract tag 4H by S disagrees with the auction"):
        parse_pbn_records(PBN.read_text().replace('[Contract "4HX"]', '[Contract "4H"]'), "edited.pbn")


def test_evaluate_records_scores_like_table_4_1():
    from bridgerl.evaluation.reports.records import evaluate_records

    summary, outcomes = evaluate_records(PBN)
    assert [o.board for o in outcomes] == [1, 2, 3, 4]
    assert [o.imps for o in outcomes] == [0, -3, -6, 0]
    assert [o.category for o in outcomes] == ["at_par", "underbid_bonus", "overbid", "at_par"]
    assert [o.side for o in outcomes] == ["NS", "EW", "NS", "EW"]  # board 2 is passed out: EW could make 2S
    assert [o.uncontested for o in outcomes] == [True, True, False, True]  # East doubled on board 3
    assert outcomes[2].score == -100 and outcomes[2].constructive_par == 140  # 4HX one off against 3H making
    assert summary["imps_per_board"] == -2.25 and summary["boards"] == 4 and summary["records"] == 5
    assert summary["uncontested"]["imps_per_board"] == -1.0 and summary["vs_par"]["boards"] == 4
    assert summary["skipped"] == [{"board": 5, "source": f"{PBN}:5",
                                   "reason": "auction unfinished after 3 calls (1NT Pass 2C)"}]
    _, lin = evaluate_records(LIN)
    assert [o.imps_vs_par_actual for o in lin] == [1, None, -9]  # board 8: the table's tricks are unknown


def test_cli_evaluate_records(tmp_path, capsys):
    out = tmp_path / "records.json"
    assert main(["evaluate", "records", str(PBN), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"{PBN}: -2.25 IMPs/board vs constructive par") and "1 skipped" in printed
    summary = json.loads(out.read_text())
    assert summary["boards"] == 4 and len(summary["outcomes"]) == 4 and summary["skipped"][0]["board"] == 5
    assert main(["evaluate", "records", str(PBN), "--json", str(out)]) == 2  # kept: replaced only with --force
    assert "pass --force to replace it" in capsys.readouterr().err
    assert main(["evaluate", "records", str(PBN), "--json", str(out), "--force"]) == 0  # replaced atomically


def test_cli_evaluate_records_bad_file(capsys):
    path = DATA / "bad_records" / "revoke.pbn"
    assert main(["evaluate", "records", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"bridgerl: error: {path} board 6: revoke"), err
