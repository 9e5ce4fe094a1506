"""The thesis' play measurements (`bridgerl evaluate play-study`) and their pieces: σ cases, the double-dummy
contract, the spec keys of the enhanced player."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helper_endings import ending

from bridgerl.agents.play.pimc import sigma_case
from bridgerl.cli import main
from bridgerl.core import Contract
from bridgerl.envs import view_of
from bridgerl.evaluation.cardplay.play_study import double_dummy_contract, play_study, summarize_study
from bridgerl.arena.specs import load_play_agent



def check_base_and_info(item: dict) -> None:
    """A board's base run (its edge, its ties drawn, 52 cards) and the info run's defence (each tie settled or
    drawn)."""
    base = item["runs"]["base"]
    assert base["edge"] == base["tricks"] - item["dd_tricks"]
    assert base["declaring"]["random_draws"] == base["declaring"]["tied"]  # no tie-break but the draw
    assert base["declaring"]["cards"] + base["defence"]["cards"] == 52
    info = item["runs"]["info"]["defence"]
    assert info["random_draws"] + info["info_decided"] == info["tied"]  # each tie: settled, or drawn

def test_double_dummy_contract_by_hand():
    dd = np.array([[4, 9, 4, 10, 5], [9, 1, 8, 3, 4], [4, 9, 4, 11, 5], [9, 1, 8, 3, 4]])
    assert double_dummy_contract(dd) == Contract(5, 3, 0, 2)  # South's 11 spade tricks: 5S by South
    low = np.full((4, 5), 6)
    low[1, 4] = 6
    assert double_dummy_contract(low) == Contract(1, 0, 0, 0)  # nobody makes seven: the one level


def test_sigma_cases_by_hand():
    """Two choices of a declarer in 6NT who has won 10 tricks and needs 2 more (thesis 3.5.4's G = 2): H the higher
    mean, S the safer; per-world tricks are made up to hit each case (σ with ddof 1)."""
    view = view_of(ending({"N": "AKQ...", "E": ".54..2", "S": "2.32..", "W": "J.6.2."}, "6NT S", "S"))
    assert view.tricks_needed - view.tricks_won == 2
    reps = [g[0] for g in view.equivalent_groups()]
    assert len(reps) >= 2

    def case(high, safe):
        per_world = np.full((len(high), 52), -9.0)  # other choices: far below
        per_world[:, reps[0]], per_world[:, reps[1]] = high, safe
        return sigma_case(view, per_world)

    assert case([3, 2, 3, 2], [2, 2, 2, 2]) == "safety"          # S = 2 >= G with σ = 0
    assert case([4, 4, 4, 4, 0], [3, 3, 3, 3, 2]) == "safest"    # S - σ = 2.35 >= 2 > H - σ = 3.2 - 1.79
    assert case([4, 4, 4, 2, 2], [3, 3, 3, 3, 2]) == "safer"     # S - σ = 2.35 > H - σ = 3.2 - 1.10 = 2.10 >= 2
    assert case([1, 1, 1, 1], [0, 0, 0, 1]) is None              # nothing reaches the goal
    assert case([3, 3, 3, 3], [2, 2, 2, 2]) is None              # the highest mean is also the safest


def test_enhanced_player_from_a_spec():
    agent = load_play_agent("pimc:worlds=8,tiebreak=info,goal=sigma,info_budget=5", seed=3)
    assert (agent.worlds, agent.tiebreak, agent.goal, agent.information.budget) == (8, "info", "sigma", 5)
    assert "tiebreak='info'" in repr(agent)
    with pytest.raises(ValueError, match="tiebreak must be one of"):
        load_play_agent("pimc:tiebreak=coin")
    with pytest.raises(ValueError, match="info_budget"):
        load_play_agent("pimc:info_budget=-1")


def test_two_runs_of_the_study_resume_and_are_deterministic(tmp_path, capsys):
    """The study's machinery on two runs (base and info: every assertion below is one of the slow tier's whole
    study, at two worlds): each run's fields, a run asked alone as beside the other, a resume after the first deal,
    the summary, a changed setting refused, and the command's tables (the σ pair's, on one deal of its own)."""
    out = tmp_path / "study.jsonl"
    runs = ["base", "info"]
    first = play_study("test", deals=2, start=40, worlds=2, seed=1, out=out, runs=runs)
    with pytest.raises(ValueError, match="unknown run"):
        play_study("test", deals=1, worlds=2, runs=["base", "coin"])
    assert [item["row"] for item in first] == [40, 41]
    for item in first:
        assert set(item["runs"]) == set(runs)
        check_base_and_info(item)
    # each run's agents are seeded from (seed, row, run, side): a run asked alone plays as it did beside the other
    again = play_study("test", deals=1, start=40, worlds=2, seed=1, out=tmp_path / "again.jsonl", runs=["info"])
    strip = [{k: {**r, "declaring": {**r["declaring"], "seconds": 0}, "defence": {**r["defence"], "seconds": 0}}
              for k, r in i["runs"].items() if k == "info"} for i in (first + again)]
    assert strip[0] == strip[2]  # same seed, same deal, same play
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:2]) + "\n")  # keep the header and the first deal
    resumed = play_study("test", deals=2, start=40, worlds=2, seed=1, out=out, runs=runs)
    assert len(out.read_text().splitlines()) == 3 and resumed[0] == first[0]
    summary = summarize_study(resumed)
    assert summary["deals"] == 2 and set(summary["runs"]) == set(runs)
    with pytest.raises(ValueError, match="holds another match: worlds is 2 there, 3 now"):
        play_study("test", deals=2, start=40, worlds=3, seed=1, out=out, runs=runs)
    assert main(["evaluate", "play-study", "--deals", "2", "--start", "40", "--worlds", "2", "--seed", "1",
                 "--runs", "base,info", "--out", str(out), "--json", str(tmp_path / "s.json"), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "Table 3.1" in printed and "Table 3.4" in printed
    assert json.loads((tmp_path / "s.json").read_text())["deals"] == 2
    assert main(["evaluate", "play-study", "--deals", "1", "--start", "40", "--worlds", "2", "--seed", "1",
                 "--runs", "sigma_declarer,sigma_defence", "--out", str(tmp_path / "sigma.jsonl"), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "Table 3.5" in printed and "Duplicate, σ goal vs information score alone" in printed
    with pytest.raises(ValueError, match="worlds must be at least 2"):
        play_study("test", deals=1, worlds=1)


# the slow tier (CI runs it; docs/conventions.md): the same checks on two runs at two worlds stay in the default tier
@pytest.mark.slow
def test_study_runs_resumes_and_is_deterministic(tmp_path, capsys):
    out = tmp_path / "study.jsonl"
    first = play_study("test", deals=2, start=40, worlds=3, seed=1, out=out)
    with pytest.raises(ValueError, match="unknown run"):
        play_study("test", deals=1, worlds=3, runs=["base", "coin"])
    assert [item["row"] for item in first] == [40, 41]
    for item in first:
        assert set(item["runs"]) == {"base", "info", "enhanced", "enhanced_declarer", "enhanced_defence",
                                     "sigma_declarer", "sigma_defence"}
        check_base_and_info(item)
    # each run's agents are seeded from (seed, row, run, side): a run asked alone plays as it did beside the others
    again = play_study("test", deals=1, start=40, worlds=3, seed=1, out=tmp_path / "again.jsonl", runs=["base", "info"])
    strip = [{k: {**r, "declaring": {**r["declaring"], "seconds": 0}, "defence": {**r["defence"], "seconds": 0}}
              for k, r in i["runs"].items() if k in ("base", "info")} for i in (first + again)]
    assert strip[0] == strip[2]  # same seed, same deal, same play
    lines = out.read_text().splitlines()
    out.write_text("\n".join(lines[:2]) + "\n")  # keep the header and the first deal
    resumed = play_study("test", deals=2, start=40, worlds=3, seed=1, out=out)
    assert len(out.read_text().splitlines()) == 3 and resumed[0] == first[0]
    summary = summarize_study(resumed)
    assert summary["deals"] == 2 and set(summary["runs"]) == set(item["runs"])
    with pytest.raises(ValueError, match="holds another match: worlds is 3 there, 4 now"):
        play_study("test", deals=2, start=40, worlds=4, seed=1, out=out)
    assert main(["evaluate", "play-study", "--deals", "2", "--start", "40", "--worlds", "3", "--seed", "1",
                 "--out", str(out), "--json", str(tmp_path / "s.json"), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "Table 3.1" in printed and "Table 3.4" in printed and "Table 3.5" in printed
    assert "Duplicate, σ goal vs information score alone" in printed
    assert json.loads((tmp_path / "s.json").read_text())["deals"] == 2
    with pytest.raises(ValueError, match="worlds must be at least 2"):
        play_study("test", deals=1, worlds=1)


def test_best_defence_study_counts_suboptimal_choices():
    from bridgerl.agents import RandomAgent
    from bridgerl.evaluation.cardplay.best_defence_study import best_defence_study, format_best_defence_study

    class Worst:
        """Plays the card of lowest best-defence value: every decision it makes is suboptimal."""

        def act(self, view):
            from bridgerl.agents.play.best_defence import best_defence_values

            values = best_defence_values(view)
            return min(values, key=values.get)

    summary = best_defence_study({"worst": Worst(), "random": RandomAgent()}, positions=2, seed=0, play_worlds=2)
    worst, rand = summary["agents"]["worst"], summary["agents"]["random"]
    assert worst["decisions"] == rand["decisions"] == 2
    assert worst["suboptimal"] == 1.0 and worst["value_lost"] > 0
    assert 0 <= rand["value_lost"] <= worst["value_lost"]
    assert summary["positions_seen"] >= 2 + summary["positions_flat"]
    assert "worst" in format_best_defence_study(summary)


def test_summary_signs_on_made_up_deals():
    """Two made-up deals: the enhanced player makes 3NT (+400) declaring where base PIMC went one down (-50), and
    defends as well as base. Its duplicate IMPs are those of +400 against -50 at one table and 0 at the other."""
    def run(score, edge):
        side = {"cards": 26, "seconds": 1.0, "decisions": 5, "tied": 2, "info_decided": 0, "random_draws": 2,
                "draw_spread": 0, "cases": {"safety": 0, "safest": 0, "safer": 0}}
        return {"tricks": 9 + edge, "edge": edge, "score": score, "declaring": dict(side), "defence": dict(side)}

    item = {"row": 0, "board": 1, "contract": "3NT S", "dd_tricks": 9, "runs": {
        "base": run(-50, -1), "info": run(-50, -1), "enhanced": run(400, 0), "enhanced_declarer": run(400, 0),
        "enhanced_defence": run(-50, -1), "sigma_declarer": run(400, 0), "sigma_defence": run(400, 0)}}
    summary = summarize_study([item, {**item, "row": 1}])
    assert summary["duplicate"]["enhanced_vs_base"]["mean"] == 10  # 450 points: 10 IMPs for the enhanced player
    assert summary["duplicate"]["sigma_vs_info"]["mean"] == 0
    assert summary["edge_differences"]["enhanced_declarer-base"]["mean"] == 1
    assert summary["edge_differences"]["base-enhanced_defence"]["mean"] == 0
    assert summary["runs"]["base"]["edge"]["mean"] == -1
