"""`bridgerl evaluate agreements` (issue #35): a system's readings against the hands that made its calls."""

import json

import pytest

from bridgerl.cli import main
from bridgerl.evaluation.bidding import agreements
from bridgerl.evaluation.bidding.agreements import reading_fidelity


@pytest.mark.parametrize("system", ["rules", "sayc"])
def test_shares_are_counted_over_the_calls_the_table_reads(system):
    result = reading_fidelity(system, "valid", 25)
    assert result["deals"] == 25 and result["seats"] == 100
    assert 0 < result["calls_read"] <= result["calls"]
    assert 0.0 <= result["faithful_share"] <= 1.0 and 0.0 <= result["seat_readings_admit_hand"] <= 1.0
    failed = sum(item["failed"] for item in result["failing_entries"])
    assert failed >= round((1 - result["faithful_share"]) * result["calls_read"])  # a failing call names its entries


def test_the_rules_readings_are_what_the_rule_bidders_do():
    """One engine: the rule bidders bid from the table the sampler reads back, so every call the table reads admits
    the hand that made it (5,000 `valid` deals in docs/play.md; 300 here)."""
    result = reading_fidelity("rules", "valid", 300)
    assert result["calls_read"] > 0.7 * result["calls"]
    assert result["faithful_share"] == 1.0 and result["seat_readings_admit_hand"] == 1.0


def test_a_reading_no_hand_meets_fails_every_call(monkeypatch):
    """The check bites: read every call as '37 HCP and 13 spades' (no hand has both) and no call is faithful."""
    from bridgerl.agents.bidding.agreements import Shown

    bidder, _ = agreements._system("rules")

    def impossible(auction, seat):
        return [Shown("impossible", i, 37, 37, (None, None, None, (13, 13)))
                for i in range(len(auction.calls)) if (auction.dealer + i) % 4 == seat]

    monkeypatch.setattr(agreements, "_system", lambda name: (bidder, impossible))
    result = reading_fidelity("rules", "valid", 5)
    assert result["calls_read"] == result["calls"] > 0
    assert result["faithful_share"] == 0.0 and result["seat_readings_admit_hand"] == 0.0
    assert result["failing_entries"][0]["entry"] == "impossible"


def test_command_prints_and_writes_json(tmp_path, capsys):
    out = tmp_path / "a.json"
    assert main(["evaluate", "agreements", "--system", "sayc", "--deals", "5", "--json", str(out)]) == 0
    assert "calls whose reading admits the hand" in capsys.readouterr().out
    assert json.loads(out.read_text())["system"] == "sayc"
    assert main(["evaluate", "agreements", "--system", "sayc", "--deals", "5", "--json", str(out)]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["evaluate", "agreements", "--system", "sayc", "--deals", "5", "--json", str(out), "--force"]) == 0
