"""Hand-record files as real ones are written (issue #39): every form of PBN 2.1 the reader must accept, each class
of broken board refused alone with a one-line reason in the project's words, the report and ``--strict``, traveller
records, and `data from-pbn` reading deals only. The files are made here, board by board."""

import json

import pytest

from bridgerl.cli import main
from bridgerl.core.calls import parse_call
from bridgerl.core.contract import Contract
from bridgerl.core.records import (HandRecord, lin_records_report, parse_pbn_records, pbn_records_report,
                                   read_records, read_records_report, replay)
from bridgerl.evaluation.reports.records import evaluate_records

DEAL = "N:AK3.KJ4.QT92.A76 974.862.7653.JT9 Q52.A73.KJ4.8543 JT86.QT95.A8.KQ2"
PLAY = """CJ C3 C2 C6
C9 C4 CQ C7
CT C5 CK CA
D3 DJ D8 D2
D5 C8 H5 D9
D6 D4 DA DT
H2 HA H9 H4
D7 DK HT DQ
H6 H3 HQ HK
H8 H7 S6 HJ
S4 SQ S8 S3
S7 S2 ST SK
S9 S5 SJ SA"""  # 3NT by North, East leads: declarer takes 10 tricks
INTERNALS = ("Hidden", "list index", "NoneType", "string index", "Denom", "invalid literal", "Traceback")


def board(number=1, dealer="N", extra="", auction='[Auction "N"]\n1NT Pass 3NT Pass\nPass Pass', play=None,
          deal=DEAL, result='[Result "10"]', contract='[Declarer "N"]\n[Contract "3NT"]'):
    parts = [f'[Board "{number}"]', f'[Dealer "{dealer}"]', '[Vulnerable "None"]', f'[Deal "{deal}"]', contract,
             result, extra, auction, play]
    return "".join(part.rstrip("\n") + "\n" for part in parts if part)  # no empty line: that ends a game


def calls(text):
    return tuple(parse_call(c) for c in text.split())


def one(text):
    records = parse_pbn_records(text, "t.pbn")
    assert len(records) == 1
    return records[0]


def test_the_whole_board_reads_as_before():
    record = one(board(play='[Play "E"]\n' + PLAY))
    assert record.calls == calls("1NT Pass 3NT Pass Pass Pass") and len(record.cards) == 52 and record.tricks == 10


@pytest.mark.parametrize("result, tricks, claim", [("NS 10", 10, 10), ("EW 3", 10, 10), ("NS 10 EW 3", 10, 10),
                                                   ("EW 3 NS 10", 10, 10), ("^9", 10, 9)])
def test_result_as_a_side_s_tricks(result, tricks, claim):
    """PBN 3.4: the Result may count a side's tricks ("NS 10"); "^" marks a result that differs from the tricks
    won (the play's own count stands). Without the play, the Result is declarer's claim."""
    record = one(board(result=f'[Result "{result}"]', play='[Play "E"]\n' + PLAY))
    assert record.tricks == tricks and record.claimed is None
    assert one(board(result=f'[Result "{result}"]')).claimed == claim


def test_auction_before_the_dealer_with_placeholders_and_comments():
    """Import format: the Auction tag may name a seat before the dealer, one '-' per seat before it; ';' and '{}'
    comments anywhere (a '{' comment may hold an empty line), notes and annotations on calls."""
    text = board(dealer="E", auction='[Auction "N"]\n- 1S! ; a comment\nPass =1= 4S {a comment\n\nspanning lines} '
                                     'Pass\nPass AP', result='[Result "?"]', contract="")
    text += '[Note "1:a note"]\n'
    record = one(text)
    assert record.dealer == 1 and record.calls == calls("1S Pass 4S Pass Pass Pass")
    assert record.contract == Contract(4, 3, 0, 1)


def test_inherited_tags():
    """Section 4.8: '#' is the previous game's value; '##text' holds for every later game that lacks the tag."""
    from bridgerl.core.pbn_games import pbn_games

    first = '[Event "##Club night"]\n[Site "Delft"]\n' + board(1)
    second = '[Site "#"]\n' + board(2, dealer="E", auction='[Auction "E"]\nPass 1NT Pass 3NT\nPass Pass Pass',
                                    result='[Result "?"]', contract="")
    records = parse_pbn_records(first + "\n" + second, "t.pbn")
    assert [r.event for r in records] == ["Club night", "Club night"]
    assert [game.tag("site") for game in pbn_games(first + "\n" + second)] == ["Delft", "Delft"]
    with pytest.raises(ValueError, match="the Deal tag may not inherit a value"):
        parse_pbn_records(board(1) + "\n" + board(2, deal="#"), "t.pbn")


def test_an_unknown_card_keeps_the_board_up_to_there_with_the_result_as_a_claim():
    rows = PLAY.splitlines()
    cut = "\n".join(rows[:3] + ["D3 - D8 D2"] + rows[4:])
    record = one(board(play='[Play "E"]\n' + cut))
    assert len(record.cards) == 14 and record.claimed == 10 and record.tricks == 10  # North led trick 4: D2, D3
    record = one(board(play='[Play "E"]\n' + "\n".join(rows[:2]) + "\n*", result='[Result "?"]'))
    assert len(record.cards) == 8 and record.claimed is None and record.tricks is None


def test_complete_auction_without_contract_tag_and_passed_out_board_with_empty_play():
    record = one(board(contract="", result=""))
    assert record.contract == Contract(3, 4, 0, 0) and record.tricks is None
    passed = one(board(auction='[Auction "N"]\nPass Pass Pass Pass', contract='[Contract "Pass"]',
                       result='[Result ""]', play='[Play ""]'))
    assert passed.passed_out and passed.tricks == 0
    passed = one(board(auction='[Auction "N"]\nAP', contract="", result="", play='[Play "E"]\n*'))
    assert passed.passed_out


def test_traveller_records():
    """A contract and result without an auction: a traveller record, scored against par; replay refuses it."""
    record = one(board(auction="", result='[Result "NS 9"]'))
    assert record.traveller and record.calls == () and record.contract == Contract(3, 4, 0, 0)
    assert record.auction_over and record.tricks == 9
    with pytest.raises(ValueError, match="t.pbn board 1 is a traveller's result .*no game to replay"):
        replay(record)
    passed = one(board(auction="", contract='[Contract "Pass"]', result='[Result ""]'))
    assert passed.traveller and passed.passed_out and passed.tricks == 0
    played = one(board(auction="", play='[Play "E"]\n' + PLAY))
    assert played.traveller and played.tricks == 10
    from bridgerl.core.records import records_to_pbn

    again = parse_pbn_records(records_to_pbn([record, passed, played]), "t.pbn")
    assert again == [record, passed, played]
    with pytest.raises(ValueError, match="no calls"):
        HandRecord(1, 0, "none", record.owner, calls("Pass Pass Pass Pass"), traveller=True)


BROKEN = [
    ("no Deal tag", '[Board "2"]\n[Dealer "N"]\n', "board 2: no Deal tag"),
    ("malformed deal", board(2, deal="N:AK3.KJ4 974.862.7653.JT9 - -"), "board 2: malformed Deal tag"),
    ("illegal call", board(2, auction='[Auction "N"]\n1NT 1C Pass Pass Pass'), "board 2: illegal call 1C by East"),
    ("unknown call", board(2, auction='[Auction "N"]\n1NT Zap'), "board 2: unknown call 'Zap' in the auction"),
    ("calls after +", board(2, auction='[Auction "N"]\n1NT + Pass'), "board 2: call 'Pass' after '+'"),
    ("contract disagrees", board(2, contract='[Declarer "N"]\n[Contract "4S"]'),
     "board 2: the Contract tag 4S by N disagrees with the auction"),
    ("revoke", board(2, play='[Play "E"]\nCJ C3 D8 C6'), "board 2: revoke at trick 1: West plays D8 on a club "
                                                        "lead while holding"),
    ("unknown card", board(2, play='[Play "E"]\nCJ C3 Z9 C6'), "board 2: unknown card 'Z9' in the play"),
    ("wrong leader", board(2, play='[Play "S"]\nCJ C3 C2 C6'), "board 2: the Play section starts with S"),
    ("bad result", board(2, result='[Result "NS eleven"]'), "board 2: malformed Result tag 'NS eleven'"),
    ("bad seat", board(2, dealer="Q"), "board 2: unknown seat 'Q' in the Dealer tag"),
    ("stray text", board(2).replace('[Board "2"]\n', '[Board "2"]\ngarbage\n'),
     "board 2: line 13: 'garbage' outside the Auction and Play sections"),
    ("irregular call", board(2, auction='[Auction "N"]\n1NT ^S 2C'), "board 2: irregular call '^S'"),
    ("dealer disagrees", board(2, dealer="E"), "board 2: the Auction starts with N, so its first call is N's, but "
                                               "the Dealer is E"),
]


@pytest.mark.parametrize("name, text, reason", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_board_is_refused_alone(name, text, reason, tmp_path):
    """Between two good boards, the broken one is refused with its source and a one-line reason in our words;
    the good ones are read; ``strict`` refuses the whole file with that reason."""
    path = tmp_path / "mixed.pbn"
    path.write_text(board(1) + "\n" + text + "\n" + board(3))
    report = read_records_report(path)
    assert [r.board for r in report.records] == [1, 3]
    assert len(report.refused) == 1 and report.refused[0]["source"] == f"{path}:2"
    message = report.refused[0]["reason"]
    assert message.startswith(f"{path} {reason}") and "\n" not in message, message
    assert not any(word in message for word in INTERNALS), message
    assert [r.board for r in read_records(path)] == [1, 3]
    with pytest.raises(ValueError, match="board 2: ") as failure:
        read_records(path, strict=True)
    assert str(failure.value) == message


LIN_GOOD = ("pn|Sam,Wendy,Nora,Ed|st||md|3SJ984HKQ8DQ52CAJ7,SAQ7532HT7D6CKT83,S6HA96432DAT93CQ6,SKTHJ5DKJ874C9542|"
            "rh||ah|Board {n}|sv|e|mb|1s|mb|p|mb|p|mb|p|pg||pc|hj|\n")


@pytest.mark.parametrize("change, reason", [
    (("mb|1s|mb|p", "mb|1s|mb|1c"), "illegal call 1C by East after 1S"),
    (("mb|1s", "mb|1z"), "unknown call '1z' in an mb tag"),
    (("pc|hj", "pc|hx"), "unknown card 'hx' in a pc tag"),
    (("pc|hj", "pc|"), "unknown card '' in a pc tag"),
    (("mb|1s", "mb|?"), "unknown call '?' in an mb tag"),
    (("pc|hj", "pc|ca"), "card CA is not in East's hand (trick 1"),
    (("md|3SJ984", "md|3SJ9Z4"), "malformed md tag"),
    (("rh||", "rh|"), "malformed LIN: 'Board 2' where a tag was expected"),
])
def test_lin_boards_are_refused_alone(change, reason):
    """A broken LIN board is refused alone in our words (never endplay's internals), even a '|' missing, after
    which the next boards realign; a ten written "10" is read."""
    bad = LIN_GOOD.replace("{n}", "2").replace(*change)
    text = "".join(LIN_GOOD.replace("{n}", str(n)) for n in (1,)) + bad + "".join(
        LIN_GOOD.replace("{n}", str(n)) for n in (3, 4))
    report = lin_records_report(text, "t.lin")
    assert [r.board for r in report.records] == [1, 3, 4]
    assert len(report.refused) == 1 and report.refused[0]["source"] == "t.lin:2"
    message = report.refused[0]["reason"]
    assert message.startswith("t.lin board 2: ") and reason in message, message
    assert not any(word in message for word in INTERNALS + ("Rank", "could not convert")), message
    ten = lin_records_report(LIN_GOOD.replace("{n}", "5").replace("SKTHJ5", "SK10HJ5"), "t.lin")
    assert len(ten.records) == 1 and not ten.refused


def test_a_broken_layout_loses_no_other_board(tmp_path):
    """A '{' comment never closed refuses its own board only; games written with no empty line between them are
    read as games; a UTF-8 byte-order mark is no problem; a Result side's count is checked."""
    text = board(1) + "\n" + board(2).replace('[Auction "N"]', '{oops\n[Auction "N"]') + "\n" + board(3) + "\n" + \
        board(4)
    report = pbn_records_report(text, "t.pbn")
    assert [r.board for r in report.records] == [1, 3, 4]
    assert report.refused[0]["reason"].startswith("t.pbn board 2: line ") and "never closed" in \
        report.refused[0]["reason"]
    joined = board(1) + board(2) + board(3)  # no empty lines
    assert [r.board for r in parse_pbn_records(joined, "t.pbn")] == [1, 2, 3]
    path = tmp_path / "bom.pbn"
    path.write_text("\ufeff" + board(1), encoding="utf-8")
    assert [r.board for r in read_records(path)] == [1]
    for result in ("NS 14", "NS 9 NS 4"):
        with pytest.raises(ValueError, match="malformed Result tag"):
            parse_pbn_records(board(1, result=f'[Result "{result}"]'), "t.pbn")
    record = one(board(1, contract='[Contract "3NT"]'))  # no Declarer: the auction's
    assert record.contract == Contract(3, 4, 0, 0)
    west = one(board(1, auction="", contract='[Declarer "W"]\n[Contract "2HX"]', result='[Result "NS 8"]'))
    assert west.traveller and west.contract == Contract(2, 2, 1, 3) and west.tricks == 5


def test_evaluate_records_report_and_strict(tmp_path, capsys):
    """`evaluate records`: JSON ``records`` (boards read), ``skipped`` (read, not scored: why), ``refused``
    ([{source, reason}]); a traveller board is scored; ``--strict`` refuses the file; a one-board file says it
    has no CI instead of printing nan."""
    path = tmp_path / "club.pbn"
    unfinished = board(4, auction='[Auction "N"]\n1NT Pass', contract="", result="")
    path.write_text("\n".join([board(1), board(2, dealer="Q"), board(3, auction="", result='[Result "NS 9"]'),
                               unfinished]))
    out = tmp_path / "r.json"
    assert main(["evaluate", "records", str(path), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "1 skipped (auction unfinished), 1 refused" in printed and "refused: " in printed
    summary = json.loads(out.read_text())
    assert summary["records"] == 3 and summary["boards"] == 2 and summary["travellers"] == 1
    assert [s["board"] for s in summary["skipped"]] == [4]
    assert summary["refused"] == [{"source": f"{path}:2", "reason": f"{path} board 2: unknown seat 'Q' in the "
                                                                    "Dealer tag (expected N, E, S or W)"}]
    traveller = next(o for o in summary["outcomes"] if o["traveller"])
    assert traveller["auction"] == "" and traveller["tricks"] == 9 and not traveller["uncontested"]
    assert main(["evaluate", "records", str(path), "--strict"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "board 2: unknown seat 'Q'" in err[0]
    single = tmp_path / "one.pbn"
    single.write_text(board(1))
    assert main(["evaluate", "records", str(single)]) == 0
    printed = capsys.readouterr().out
    assert "nan" not in printed and "no CI from one board" in printed
    summary, _ = evaluate_records(path)
    assert summary["records"] == 3


def test_data_from_pbn_reads_deals_only(tmp_path, capsys):
    """`data from-pbn` needs the deals only: a board whose play is broken is read; one whose deal is broken is
    left out and named."""
    path = tmp_path / "deals.pbn"
    path.write_text("\n".join([board(1, play='[Play "E"]\nCJ C3 D8 C6'), board(2, deal="N:AK3 - - -"),
                               board(3, auction='[Auction "N"]\n1NT 1C')]))
    assert main(["data", "from-pbn", str(path), str(tmp_path / "d.npz")]) == 0
    printed = capsys.readouterr().out
    assert "wrote 2 deals" in printed and "1 boards left out" in printed and "board 2: malformed PBN" in printed
    report = pbn_records_report(path.read_text(), "deals.pbn")
    assert len(report.records) == 0 and len(report.refused) == 3
