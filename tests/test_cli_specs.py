"""Agent specs on the command line: the one parser of play spec settings (typed by the agent's constructor), the
documented `worlds` defaults, and `module:attr` agents imported from the current directory."""

import re
import sys

import pytest

from bridgerl.agents import AlphaMuAgent, PIMCAgent
from bridgerl.cli import main
from bridgerl.arena.specs import PLAY_SPEC_HELP, load_agent, load_play_agent, spec_keywords


def test_play_spec_values_take_their_keys_types():
    agent = load_play_agent("pimc:worlds=3,objective=make", seed=1)
    assert isinstance(agent, PIMCAgent) and agent.worlds == 3 and agent.objective == "make"
    agent = load_play_agent("alphamu:max_moves=2,worlds=4,transposition=false", seed=1)
    assert (agent.max_moves, agent.worlds) == (2, 4)


@pytest.mark.parametrize("spec, message", [
    ("pimc:worlds=abc", "worlds needs an integer, got 'abc'"),
    ("alphamu:worlds=2.5", "worlds needs an integer, got '2.5'"),
    ("alphamu:transposition=maybe", "transposition needs true or false, got 'maybe'"),
    ("pimc:world=20", "unknown key 'world' (keys: worlds, objective, max_tries, auction, max_candidates, prior, goal, "
                      "tiebreak, info_budget, sampler, model, reweigh, T, issn, solver, ssn)"),
    ("pimc:worlds", "expected key=value, got 'worlds'"),
    ("pimc:worlds=0", "worlds must be at least 1"),
    ("pimc:seed=3", "unknown key 'seed'"),
])
def test_bad_play_spec_settings_are_named(spec, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        load_play_agent(spec)


def test_bad_play_spec_on_the_command_line_is_one_line(capsys):
    assert main(["evaluate", "play", "--declarer", "pimc:worlds=abc", "--defenders", "dd", "--deals", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "worlds needs an integer" in err[0]


def test_help_states_each_play_agents_default_worlds():
    """PLAY_SPEC_HELP's defaults are the constructors' (read from their signatures)."""
    pimc = re.search(r"pimc\[[^]]*\] \(defaults ([^)]*)\)", PLAY_SPEC_HELP).group(1)
    alphamu = re.search(r"alphamu\[[^]]*\] \(defaults ([^)]*)\)", PLAY_SPEC_HELP).group(1)
    assert f"worlds={spec_keywords(PIMCAgent)['worlds']}" in pimc
    assert f"max_tries={spec_keywords(PIMCAgent)['max_tries']}" in pimc
    assert f"objective={spec_keywords(PIMCAgent)['objective']}" in pimc
    defaults = spec_keywords(AlphaMuAgent)
    assert f"worlds={defaults['worlds']}" in alphamu and f"max_moves={defaults['max_moves']}" in alphamu
    assert defaults["transposition"] and defaults["early_cut"] and defaults["root_cut"] and "all true" in alphamu


AGENT_MODULE = """
import numpy as np


class LowestCall:
    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


class FirstCard:
    def act(self, view):
        return view.legal[0]
"""


def test_module_attr_agents_come_from_the_current_directory(tmp_path, monkeypatch, capsys):
    (tmp_path / "my_cli_agents.py").write_text(AGENT_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "my_cli_agents", raising=False)
    path_before = list(sys.path)
    assert type(load_agent("my_cli_agents:LowestCall")).__name__ == "LowestCall"
    assert type(load_play_agent("my_cli_agents:FirstCard")).__name__ == "FirstCard"
    assert sys.path == path_before  # the current directory was searched only for the import
    monkeypatch.delitem(sys.modules, "my_cli_agents")
    assert main(["evaluate", "uncontested", "--agent", "my_cli_agents:LowestCall", "--deals", "20"]) == 0
    assert "my_cli_agents:LowestCall:" in capsys.readouterr().out
    with pytest.raises(ValueError, match="cannot import 'Nothing' from 'my_cli_agents'"):
        load_agent("my_cli_agents:Nothing")
    with pytest.raises(ValueError, match="cannot import 'Nothing' from 'no_such_module_here'"):
        load_play_agent("no_such_module_here:Nothing")


def test_every_released_model_loads_as_a_bare_path_by_its_kind(capsys):
    """A bare `models/NAME` loads wherever its explicit spec would, the kind read from the checkpoint: a DQN as a
    bidder for its env, the ISSN as a card player; the card-location model and the SSN, which are parts of a
    player, are refused in one line that names the spec to use."""
    from pathlib import Path

    from bridgerl.agents.learned.checkpoint import checkpoint_kind, load_weights
    from bridgerl.cli import main
    from bridgerl.arena.specs import load_agent, load_play_agent

    released = sorted(p.parent for p in Path("models").glob("*/model.msgpack"))
    kinds = {path.name: checkpoint_kind(path) for path in released}
    assert {"DQN", "PPO", "card-location", "ISSN", "SSN", "card-player"} <= set(kinds.values())
    for path in released:
        spec = str(path)
        if kinds[path.name] == "DQN":
            env_id = load_weights(path)[0]["env_id"]
            assert callable(load_agent(spec, env_id=env_id).act)
            if (path / "critic.msgpack").exists():  # its critic: decision-time search
                assert type(load_agent(f"search:{spec}", env_id=env_id)).__name__ == "CriticSearchBidder"
            with pytest.raises(ValueError, match="bids, it does not play cards"):
                load_play_agent(spec)
        elif kinds[path.name] == "PPO":  # a competitive bidder: bare path and explicit spec, matches and games
            for name in (spec, f"ppo:{spec}"):
                assert type(load_agent(name, env_id="competitive_bidding")).__name__ == "PPOAgent"
                assert main(["evaluate", "competitive", "--ns", name, "--ew", "rules", "--deals", "3"]) == 0
                assert main(["evaluate", "game", "--ns", f"bid={name},play=dd", "--ew", "bid=rules,play=dd",
                             "--deals", "2"]) == 0
            with pytest.raises(ValueError, match="bids, it does not play cards"):
                load_play_agent(spec)
        elif kinds[path.name] == "ISSN":
            assert type(load_play_agent(spec)).__name__ == "PolicyAgent"
        elif kinds[path.name] == "card-player":  # the learned card player: bare path and explicit spec
            for name in (spec, f"cardnet:model={spec}"):
                assert type(load_play_agent(name)).__name__ == "CardPlayer"
            with pytest.raises(ValueError, match="serves card play|plays cards"):
                load_agent(spec, env_id="competitive_bidding")
        elif kinds[path.name] == "trick-estimator":  # a part of bidsearch: refused as a bidder and as a player
            for load in (lambda spec: load_agent(spec, env_id="competitive_bidding"), load_play_agent):
                with pytest.raises(ValueError, match="scores a bidding search; use it as bidsearch:estimator="):
                    load(spec)
            assert type(load_agent(f"bidsearch:estimator={spec},base=rules", "competitive_bidding")).__name__ == \
                "BidSearch"
        else:
            with pytest.raises(ValueError, match="serves card play; use it as pimc:"):
                load_play_agent(spec)
            assert main(["evaluate", "uncontested", "--agent", spec, "--deals", "5"]) == 2
            assert "serves card play" in capsys.readouterr().err
