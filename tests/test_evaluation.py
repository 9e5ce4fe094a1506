"""Evaluation against constructive par: hand-computed means and categories, third-party agents, errors, reports,
paired comparison and duplicate matches."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bridgerl.agents import PassAgent, RandomBidder, RuleBidder
from bridgerl.core import pbn_to_owner
from bridgerl.evaluation.bidding.competitive import duplicate_match
from bridgerl.arena.specs import load_agent
from bridgerl.evaluation.bidding.uncontested import EvaluationError, compare, evaluate_uncontested

OWNER = pbn_to_owner("N:AK2.Q32.K432.J32 QJ3.K54.QJ65.Q54 T987.JT9.T9.T987 654.A876.A87.AK6")


def _table(west, east=None):
    dd = np.full((4, 5), 3, dtype=np.uint8)
    dd[3] = west
    dd[1] = west if east is None else east
    return dd


# West's tricks in C, D, H, S, NT; nobody vulnerable (boards 1, 8, 11, 14)
DEALS = [
    _table((8, 7, 10, 6, 9)),    # par 4H = 420; 3NT makes 400: 20 short, -1 IMP, wrong strain or level
    _table((7, 7, 11, 12, 12)),  # par 6NT = 990; 3NT+3 = 490: -11 IMPs, underbid across a bonus boundary
    _table((6, 6, 8, 6, 7)),     # par 2H = 110; 3NT down 2 doubled = -300: -9 IMPs, overbid
    _table((6, 6, 9, 6, 10)),    # par 3NT+1 = 430: at par
]


@pytest.fixture()
def dataset(tmp_path):
    path = tmp_path / "hand_built.npz"
    np.savez(path, owner=np.stack([OWNER] * 4), dd=np.stack(DEALS), board=np.array([1, 8, 11, 14]))
    return str(path)


def test_hand_computed_mean_and_categories(dataset):
    summary, outcomes = evaluate_uncontested(load_agent("helper_agents:ThreeNT"), dataset, opening_rules=False)
    assert [o.imps for o in outcomes] == [-1, -11, -9, 0]
    assert [o.category for o in outcomes] == ["wrong_strain_or_level", "underbid_bonus", "overbid", "at_par"]
    assert summary["imps_per_deal"] == pytest.approx(-5.25)
    assert summary["categories"] == {"at_par": 0.25, "overbid": 0.25, "underbid_bonus": 0.25,
                                     "wrong_strain_or_level": 0.25}
    assert summary["at_par_share"] == 0.25 and summary["deals"] == 4
    assert [o.contract for o in outcomes] == ["3NT", "3NT", "3NTX", "3NT"]
    assert outcomes[0].par_contract == "4H E" and outcomes[1].par_contract == "6NT E"  # equal tricks: E first
    assert summary["level_matrix"]["counts"][3][4] == 1 and summary["level_matrix"]["counts"][3][6] == 1
    assert summary["worst_deals"][0]["imps"] == -11


def test_pass_agent_and_skipped_deals(tmp_path):
    nothing = np.full((4, 5), 6, dtype=np.uint8)
    path = tmp_path / "d.npz"
    np.savez(path, owner=np.stack([OWNER] * 3), dd=np.stack([DEALS[0], nothing, DEALS[3]]))
    summary, outcomes = evaluate_uncontested(PassAgent(), str(path), opening_rules=False)
    assert summary["skipped_nothing_makeable"] == 1 and summary["deals"] == 2
    assert [o.imps for o in outcomes] == [-9, -12]   # passed out against 420, and 630 (board 3: EW vulnerable)
    assert all(o.category == "underbid_bonus" for o in outcomes)


def test_illegal_call_names_deal_and_call(dataset):
    with pytest.raises(EvaluationError, match=r"illegal call on deal row 0 \(board 1\).*illegal call 7NT"):
        evaluate_uncontested(load_agent("helper_agents:seven_nt_instance"), dataset)
    with pytest.raises(ValueError, match="unknown agent spec"):
        load_agent("alphazero")
    with pytest.raises(ValueError, match="cannot import"):
        load_agent("no_such_module:Agent")


def test_cli_json_and_report(dataset, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent)}
    out = tmp_path / "out.json"
    report = tmp_path / "report"
    result = subprocess.run([sys.executable, "-m", "bridgerl.cli", "evaluate", "uncontested", "--agent",
                             "helper_agents:ThreeNT", "--data", dataset, "--no-opening-rules", "--json", str(out),
                             "--report", str(report)], capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert "-5.25 IMPs/deal" in result.stdout
    summary = json.loads(out.read_text())
    assert summary["imps_per_deal"] == -5.25 and "ci95" in summary
    text = (report / "report.md").read_text()
    assert "-5.25 IMPs/deal" in text and "| -11 |" in text
    for png in ("imp_histogram.png", "level_matrix.png"):
        assert (report / png).read_bytes()[:4] == b"\x89PNG"


# the slow tier (CI runs it; docs/conventions.md): 300 deals; 100 stay in the default tier
@pytest.mark.parametrize("deals", [100, pytest.param(300, marks=pytest.mark.slow)])
def test_baselines_on_bundled_deals_and_compare(deals):
    rules, rules_out = evaluate_uncontested(RuleBidder(), "test", deals=deals)
    passing, pass_out = evaluate_uncontested(PassAgent(), "test", deals=deals)
    random, _ = evaluate_uncontested(RandomBidder(seed=1), "test", deals=deals)
    assert random["imps_per_deal"] < passing["imps_per_deal"] < rules["imps_per_deal"] <= 0
    paired = compare(rules_out, pass_out)
    assert paired["difference_imps_per_deal"] == pytest.approx(rules["imps_per_deal"] - passing["imps_per_deal"])


def test_duplicate_match_is_antisymmetric():
    result = duplicate_match(RandomBidder(seed=3), PassAgent(), "test", deals=60)
    assert result["boards"] == 60 and result["imps_per_board"] < 0
    same = duplicate_match(PassAgent(), PassAgent(), "test", deals=30)
    assert same["imps_per_board"] == 0


def test_pass_rates_against_the_rule_openings():
    from bridgerl.evaluation.bidding.behaviour import pass_rates

    _, passing = evaluate_uncontested(PassAgent(), "test", deals=400)
    rates = pass_rates(passing, "test")
    openings, responses = rates["openings_12_13_hcp"], rates["responses_6_plus_hcp"]
    assert openings["positions"] > 20 and openings["agent_pass_rate"] == 1.0 and openings["rules_pass_rate"] == 0.0
    assert openings["examples"] and openings["examples"][0]["agent"] == "Pass"
    assert responses["positions"] > 20 and responses["agent_pass_rate"] == 1.0
    _, ruled = evaluate_uncontested(RuleBidder(), "test", deals=400)
    assert pass_rates(ruled, "test")["openings_12_13_hcp"]["agent_pass_rate"] == 0.0
