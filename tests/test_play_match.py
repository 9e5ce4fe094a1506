"""`bridgerl evaluate play`: the match runner, its resumable output and the play agent specs."""

import json

import pytest

from bridgerl.agents import DoubleDummyAgent, PIMCAgent, RandomAgent
from bridgerl.cli import main
from bridgerl.arena.play import play_match, summarize
from bridgerl.arena.specs import load_play_agent


def test_specs():
    assert isinstance(load_play_agent("random"), RandomAgent)
    assert isinstance(load_play_agent("dd"), DoubleDummyAgent)
    agent = load_play_agent("pimc:worlds=12,objective=make", seed=3)
    assert isinstance(agent, PIMCAgent) and agent.worlds == 12 and agent.objective == "make"
    with pytest.raises(ValueError, match="unknown play agent spec"):
        load_play_agent("gib")
    with pytest.raises(ValueError, match="key=value"):
        load_play_agent("pimc:12")
    with pytest.raises(ValueError, match="unknown key 'width'"):
        load_play_agent("pimc:width=3")


def test_resumed_match_equals_a_fresh_one(tmp_path):
    out = tmp_path / "match.jsonl"
    fresh = play_match(PIMCAgent(6), RandomAgent(), "test", "4S N", deals=5, seed=2)
    play_match(PIMCAgent(6), RandomAgent(), "test", "4S N", deals=3, seed=2, out=out, names=("pimc", "random"))
    resumed = play_match(PIMCAgent(6), RandomAgent(), "test", "4S N", deals=5, seed=2, out=out,
                         names=("pimc", "random"))
    assert [r.play for r in resumed] == [r.play for r in fresh]
    assert len(out.read_text().splitlines()) == 1 + 5
    with pytest.raises(ValueError, match="holds another match: seed is"):
        play_match(PIMCAgent(6), RandomAgent(), "test", "4S N", deals=5, seed=3, out=out, names=("pimc", "random"))
    summary = summarize(resumed)
    assert summary["deals"] == 5 and 0 <= summary["make_rate"] <= 1
    assert summary["tricks"] == sum(r.declarer_tricks for r in fresh) / 5


def test_cli_evaluate_play(tmp_path, capsys):
    path = tmp_path / "summary.json"
    assert main(["evaluate", "play", "--declarer", "dd", "--defenders", "dd", "--deals", "3", "--contract", "3NT",
                 "--seat", "S", "--json", str(path), "--quiet"]) == 0
    summary = json.loads(path.read_text())
    assert summary["deals"] == 3 and summary["contract"] == "3NT S"
    assert "tricks" in capsys.readouterr().out
    assert main(["evaluate", "play", "--declarer", "nope", "--defenders", "dd", "--deals", "1", "--quiet"]) == 2
