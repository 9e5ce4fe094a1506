"""The command line's rough edges: every numeric flag range-checked (one-line error, exit 2), help for every
option, --version, no silent overwrite without --force, --resume only on a saved run, PBN files and empty
datasets named in one line, and the interrupted message naming the command that continues."""

import argparse
import json
from pathlib import Path

import numpy as np
import pytest

from bridgerl import __version__
from bridgerl.cli import main
from bridgerl.core.dataset import load_dataset, make_dataset, save_dataset

ROOT = Path(__file__).resolve().parent.parent


def _parsers(parser: argparse.ArgumentParser, path=("bridgerl",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, path + (name,))


def test_every_option_of_every_command_has_help():
    from bridgerl.cli import build_parser

    missing = []
    for path, parser in _parsers(build_parser()):
        for action in parser._actions:
            if isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                continue
            if not (action.help or "").strip():
                missing.append(f"{' '.join(path)} {'/'.join(action.option_strings) or action.dest}")
    assert not missing, missing


def test_the_alphamu_experiment_checks_its_numbers(capsys):
    from bridgerl.cli import main

    for argv in (["deals", "--out", "x.jsonl", "--keep", "-3"], ["play", "--deals", "d", "--declarer", "pimc",
                                                                  "--out", "o", "--runs", "0"]):
        with pytest.raises(SystemExit) as exit_info:
            main(["evaluate", "alphamu", *argv])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert "expected an integer >= 1" in err and len(err.strip().splitlines()) == 1


def test_every_help_text_formats():
    """Every command's --help prints (a bare % in a help string breaks argparse's formatting)."""
    from bridgerl.cli import build_parser

    for path, parser in _parsers(build_parser()):
        assert parser.format_help(), path


def test_run_and_report_directories_are_git_ignored():
    import subprocess

    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: .gitignore does not apply")
    for path in ("runs/small/model.msgpack", "reports/rules/report.md"):
        assert subprocess.run(["git", "check-ignore", "-q", path], cwd=ROOT).returncode == 0, path


def test_version(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"bridgerl {__version__}" == "bridgerl 0.1.0"


@pytest.mark.parametrize("argv, flag", [
    (["train", "uncontested", "--out", "x", "--steps", "-5"], "--steps"),
    (["train", "uncontested", "--out", "x", "--batch-size", "-1"], "--batch-size"),
    (["train", "uncontested", "--out", "x", "--learning-rate", "nan"], "--learning-rate"),
    (["train", "uncontested", "--out", "x", "--eps-start", "1.5"], "--eps-start"),
    (["train", "uncontested", "--out", "x", "--hidden", "64", "0"], "--hidden"),
    (["train", "competitive", "--out", "x", "--pool-prob", "2"], "--pool-prob"),
    (["train", "competitive", "--out", "x", "--demo-weight", "inf"], "--demo-weight"),
    (["train", "competitive", "--out", "x", "--eval-deals", "0"], "--eval-deals"),
    (["evaluate", "uncontested", "--agent", "rules", "--deals", "0"], "--deals"),
    (["evaluate", "compare", "--a", "pass", "--b", "rules", "--deals", "-3"], "--deals"),
    (["evaluate", "competitive", "--ns", "pass", "--ew", "rules", "--seed", "-1"], "--seed"),
    (["evaluate", "play", "--declarer", "dd", "--defenders", "dd", "--start", "-1"], "--start"),
    (["data", "generate", "--deals", "0", "--seed", "1", "--out", "x.npz"], "--deals"),
    (["data", "generate", "--deals", "10", "--seed", "1", "--out", "x.npz", "--workers", "0"], "--workers"),
    (["data", "augment", "test", "--out", "x.npz", "--suit-permutations", "25"], "--suit-permutations"),
    (["data", "augment", "test", "--out", "x.npz", "--suit-permutations", "many"], "--suit-permutations"),
])
def test_bad_numbers_are_refused_in_one_line(argv, flag, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and f"argument {flag}" in lines[0] and "error" in lines[0], captured.err
    assert not list(tmp_path.iterdir())  # nothing was written


def _tiny_dataset(path: Path, rows: int = 4) -> Path:
    test = load_dataset("test")
    save_dataset(path, make_dataset(test.owner[:rows], test.dd[:rows], test.boards[:rows]))
    return path


def test_pbn_data_is_named_with_the_command_converting_it(tmp_path, capsys):
    pbn = tmp_path / "deals.pbn"
    pbn.write_text('[Board "1"]\n[Deal "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"]\n')
    disguised = tmp_path / "deals.npz"
    disguised.write_bytes(pbn.read_bytes())
    for argv in (["evaluate", "uncontested", "--agent", "rules", "--data", str(pbn)],
                 ["train", "uncontested", "--out", str(tmp_path / "run"), "--data", str(disguised)],
                 ["data", "info", str(pbn)]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "is PBN; convert it first: bridgerl data from-pbn" in err[0], err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("argv", [
    ["evaluate", "uncontested", "--agent", "pass", "--data", "EMPTY"],
    ["evaluate", "competitive", "--ns", "pass", "--ew", "rules", "--data", "EMPTY"],
    ["evaluate", "play", "--declarer", "random", "--defenders", "random", "--data", "EMPTY"],
    ["data", "info", "EMPTY"],
    ["data", "augment", "EMPTY", "--out", "OUT"],
    ["train", "uncontested", "--out", "OUT", "--data", "EMPTY", "--quiet"],
])
def test_an_empty_dataset_is_a_one_line_error(argv, tmp_path, capsys):
    empty = tmp_path / "empty.npz"
    test = load_dataset("test")
    save_dataset(empty, make_dataset(test.owner[:0], test.dd[:0]))
    argv = [str(empty) if a == "EMPTY" else str(tmp_path / "out") if a == "OUT" else a for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bridgerl: error:"), err
    assert "no deal" in err[0] or "no board" in err[0], err
    assert not (tmp_path / "out").exists()


def test_data_outputs_are_not_replaced_without_force(tmp_path, capsys):
    small = _tiny_dataset(tmp_path / "small.npz")
    commands = {
        "merge": (["data", "merge", str(small), str(small), "--out"], "merged.npz"),
        "augment": (["data", "augment", str(small), "--suit-permutations", "2", "--out"], "augmented.npz"),
        "to-pbn": (["data", "to-pbn", str(small)], "small.pbn"),
    }
    for name, (argv, out) in commands.items():
        target = tmp_path / out
        target.write_text("keep me")
        assert main(argv + [str(target)]) == 2, name
        assert "pass --force" in capsys.readouterr().err
        assert target.read_text() == "keep me"
        assert main(argv + [str(target), "--force"]) == 0, name
        assert target.read_bytes() != b"keep me"
    assert len(load_dataset(tmp_path / "merged.npz")) == 8 and len(load_dataset(tmp_path / "augmented.npz")) == 8
    # from-pbn: the output is checked before any DDS work
    (tmp_path / "from.npz").write_text("keep me")
    assert main(["data", "from-pbn", str(tmp_path / "small.pbn"), str(tmp_path / "from.npz")]) == 2
    assert (tmp_path / "from.npz").read_text() == "keep me"
    assert main(["data", "from-pbn", str(tmp_path / "small.pbn"), str(tmp_path / "from.npz"), "--force"]) == 0
    assert np.array_equal(load_dataset(tmp_path / "from.npz").dd, load_dataset(small).dd)


def test_generate_refuses_an_existing_final_file(tmp_path, capsys):
    out = tmp_path / "deals.npz"
    out.write_text("keep me")
    assert main(["data", "generate", "--deals", "2", "--seed", "1", "--out", str(out), "--quiet"]) == 2
    assert "pass --force" in capsys.readouterr().err and out.read_text() == "keep me"
    assert main(["data", "generate", "--deals", "2", "--seed", "1", "--out", str(out), "--quiet", "--force"]) == 0
    assert len(load_dataset(out)) == 2


def test_train_export_refuses_to_replace_a_release(tmp_path, capsys):
    model = ROOT / "models" / "uncontested-dqn"
    out = tmp_path / "release"
    assert main(["train", "export", str(model), "--out", str(out), "--dtype", "float32"]) == 0
    before = (out / "model.msgpack").read_bytes()
    assert main(["train", "export", str(model), "--out", str(out)]) == 2
    assert "pass --force" in capsys.readouterr().err and (out / "model.msgpack").read_bytes() == before
    assert main(["train", "export", str(model), "--out", str(out), "--force"]) == 0
    assert (out / "model.msgpack").read_bytes() != before  # bfloat16 now


def _play_positions(count=6):
    """(states, views) at a few points of the play of validation deals (every view knows its auction)."""
    from bridgerl.core.bridge import BridgeState
    from bridgerl.core.competitive import CompetitiveDealSource
    from bridgerl.core.contract import Contract

    source = CompetitiveDealSource(load_dataset("valid"))
    states = []
    for row in range(count):
        state = BridgeState.at_opening_lead(source.deal_at(row), Contract(1 + row % 7, row % 5, row % 3, row % 4))
        for n in range(row * 11 % 45):
            legal = state.legal_actions()
            state = state.apply(legal[(n * 7 + row) % len(legal)])
        states.append(state)
    return states, [state.view() for state in states]


@pytest.mark.parametrize("name", ["issn", "ssn", "card-player", "card-location"])
def test_train_export_releases_the_play_models(name, tmp_path, capsys):
    """`train export` of a released play model in float16: it loads where the original does (its loader class and
    its play spec), its outputs agree with the original's to float16's rounding, and it is not replaced without
    --force."""
    from bridgerl.agents.learned.card_location import LocationModel, view_inputs
    from bridgerl.agents.learned.card_player import CardPlayer
    from bridgerl.agents.learned.simulation import PolicyModel, SolverModel, worlds_ssn_inputs
    from bridgerl.core.play_features import play_features
    from bridgerl.arena.specs import load_play_agent

    model, out = ROOT / "models" / name, tmp_path / "release"
    assert main(["train", "export", str(model), "--out", str(out), "--dtype", "float16"]) == 0
    printed = capsys.readouterr().out.strip().splitlines()
    assert len(printed) == 1 and printed[0].startswith(f"wrote {out / 'model.msgpack'} (") and "float16" in printed[0]
    assert sorted(p.name for p in out.iterdir()) == ["model.msgpack"]
    assert (out / "model.msgpack").stat().st_size < 0.6 * (model / "model.msgpack").stat().st_size
    states, views = _play_positions()
    loader = {"issn": PolicyModel, "ssn": SolverModel, "card-player": CardPlayer, "card-location": LocationModel}[name]
    original, exported = loader.load(model), loader.load(out)
    assert exported.metadata == {**original.metadata, "dtype": "float16"}
    if name == "issn":
        np.testing.assert_allclose(np.exp(exported.decision_log_probs(views)),
                                   np.exp(original.decision_log_probs(views)), atol=2e-3)
    elif name == "ssn":
        for state, view in zip(states, views):
            inputs = worlds_ssn_inputs(view, state.deal.owner[None])
            np.testing.assert_allclose(exported.values(*inputs), original.values(*inputs), atol=0.02)
    elif name == "card-location":
        for view in views:
            np.testing.assert_allclose(exported.probabilities(view_inputs(view)),
                                       original.probabilities(view_inputs(view)), atol=2e-3)
    else:
        for view in views:
            np.testing.assert_allclose(exported.outputs(play_features(view)), original.outputs(play_features(view)),
                                       atol=0.02)
        cards = exported.act_views(views)
        assert all(int(card) in view.legal for card, view in zip(cards, views))
        np.testing.assert_array_equal(cards, original.act_views(views))
    spec = {"issn": f"issn:model={out}", "ssn": f"pimc:solver=ssn,ssn={out},worlds=2",
            "card-player": f"cardnet:model={out}", "card-location": f"pimc:sampler=network,model={out},worlds=2"}[name]
    agent = load_play_agent(spec)
    assert all(agent.act(view) in view.legal for view in views[:3])
    before = (out / "model.msgpack").read_bytes()
    assert main(["train", "export", str(model), "--out", str(out)]) == 2
    assert "pass --force" in capsys.readouterr().err and (out / "model.msgpack").read_bytes() == before
    assert main(["train", "export", str(model), "--out", str(out), "--force"]) == 0
    assert loader.load(out).metadata["dtype"] == "bfloat16"  # the default type, read back as float32


def test_resume_needs_a_saved_run(tmp_path, capsys):
    out = tmp_path / "nothing"
    assert main(["train", "uncontested", "--out", str(out), "--resume", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no run to resume" in err[0] and "train_state.msgpack" in err[0]
    assert not out.exists()


def test_json_output_is_written(tmp_path):
    out = tmp_path / "nested" / "summary.json"
    assert main(["evaluate", "uncontested", "--agent", "pass", "--deals", "30", "--json", str(out)]) == 0
    summary = json.loads(out.read_text())
    assert summary["agent"] == "pass" and summary["deals"] > 0
    assert [p.name for p in out.parent.iterdir()] == ["summary.json"]  # no temporary file left


def _interrupt(args):
    raise KeyboardInterrupt


@pytest.mark.parametrize("argv, saved, expected", [
    (["train", "uncontested", "--out", "RUN", "--steps", "64"], False,
     "bridgerl train uncontested --out RUN --steps 64"),
    (["train", "uncontested", "--out", "RUN", "--steps", "64"], True,
     "bridgerl train uncontested --out RUN --steps 64 --resume"),
    (["train", "competitive", "--out", "RUN", "--resume"], True, "bridgerl train competitive --out RUN --resume"),
    (["train", "uncontested", "--out", "RUN", "--force"], True, "bridgerl train uncontested --out RUN --resume"),
    (["data", "generate", "--deals", "5", "--seed", "2", "--out", "d.npz"], False,
     "bridgerl data generate --deals 5 --seed 2 --out d.npz"),
    (["evaluate", "play", "--declarer", "pimc:worlds=2", "--defenders", "dd", "--out", "p.jsonl"], False,
     "bridgerl evaluate play --declarer pimc:worlds=2 --defenders dd --out p.jsonl"),
    (["evaluate", "uncontested", "--agent", "rules"], False, None),
])
def test_interrupted_message_names_the_command_that_continues(argv, saved, expected, tmp_path, monkeypatch, capsys):
    from bridgerl.cli import data, evaluate, evaluate_play, train

    for group, name in ((train, "_train_uncontested"), (train, "_train_competitive"), (data, "_data_generate"),
                        (evaluate_play, "_evaluate_play"), (evaluate, "_evaluate_uncontested")):
        monkeypatch.setattr(group, name, _interrupt)
    run = tmp_path / "run"
    if saved:
        run.mkdir()
        (run / "train_state.msgpack").write_bytes(b"")
    argv = [str(run) if a == "RUN" else a for a in argv]
    assert main(argv) == 130
    err = capsys.readouterr().err.strip()
    if expected is None:
        assert err == "bridgerl: interrupted"
    else:
        assert err.endswith("continue with: " + expected.replace("RUN", str(run)))


def test_resume_on_a_run_of_another_kind_says_what_it_found(tmp_path):
    """`--resume` where a run of another kind was saved: one line naming that kind and the command resuming it."""
    from flax import serialization

    from bridgerl.training.state import load_state

    path = tmp_path / "train_state.msgpack"
    saved = {"env_id": "competitive_bidding", "algo": "ppo", "config": {}}
    path.write_bytes(serialization.msgpack_serialize({"meta": json.dumps(saved), "leaves": {}}))
    with pytest.raises(ValueError, match=r"--resume found a `train competitive --algo ppo` run there, not a `train "
                                         r"uncontested` one; resume it with `bridgerl train competitive --algo ppo "
                                         r"--resume`"):
        load_state(path, None, {"env_id": "uncontested_bidding", "config": {}})


@pytest.mark.parametrize("argv, message", [
    (["evaluate", "competitive", "--ns", "models/no-such-model", "--ew", "pass", "--deals", "2"],
     "agent spec 'models/no-such-model': no such model file or directory"),
    (["evaluate", "game", "--ns", "bid=rules,play=models/no-such-player", "--ew", "bid=rules,play=dd", "--deals",
      "2"], "play agent spec 'models/no-such-player': no such model file or directory"),
    (["evaluate", "best-defence", "--positions", "10"],
     "--positions 10: the number of decisions is now --count"),
])
def test_paths_and_renamed_options_are_named(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0], err


REFUSALS_BEFORE_JAX = r'''
import contextlib, io, json, sys
from bridgerl.cli import main
cases = json.loads(sys.argv[1])
for argv, expected in cases:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            code = main(argv)
    except SystemExit as exc:  # an argument error: not what this test is for
        code = ("argparse", exc.code)
    line = err.getvalue().strip()
    assert code == 2 and expected in line and len(line.splitlines()) == 1, (argv, code, line)
    loaded = [name for name in ("jax", "flax") if name in sys.modules]
    assert not loaded, (argv, "refused only after importing", loaded)
print("refused", len(cases))
'''


def test_a_wrong_model_file_is_refused_before_jax_loads(tmp_path):
    """A spec or --model naming a missing file or a model of another kind is refused before the imports of its
    agent (JAX, flax: seconds), whatever the kind of spec: bidders, card players, the card-location model."""
    import subprocess
    import sys

    missing = str(tmp_path / "nothing")
    cases = [
        (["evaluate", "competitive", "--ns", "nosuch/path", "--ew", "rules"], "no such model file or directory"),
        (["evaluate", "competitive", "--ns", f"dqn:{missing}", "--ew", "rules"], "no DQN checkpoint there"),
        (["evaluate", "competitive", "--ns", "ppo:models/card-player", "--ew", "rules"], "not a PPO one"),
        (["evaluate", "uncontested", "--agent", f"search:{missing}"], "no DQN checkpoint there"),
        (["evaluate", "competitive", "--ns", "rules+dqn:models/card-location", "--ew", "rules"], "not a DQN one"),
        (["evaluate", "competitive", "--ns", f"brl:{missing}", "--ew", "rules"], "cannot read it"),
        (["evaluate", "competitive", "--ns", "models/card-player", "--ew", "rules"], "plays cards, it does not bid"),
        (["evaluate", "play", "--declarer", f"pimc:sampler=network,model={missing}", "--defenders", "dd",
          "--contract", "3NT"], "no card-location checkpoint there"),
        (["evaluate", "play", "--declarer", "pimc:sampler=network,model=models/card-player", "--defenders", "dd",
          "--contract", "3NT"], "not a card-location one"),
        (["evaluate", "trick-loss", "--agent", f"cardsearch:model={missing}", "--positions", missing],
         "no card-player checkpoint there"),
        (["evaluate", "game", "--ns", "bid=rules,play=cardnet:model=models/issn", "--ew", "rules"],
         "not a card-player one"),
        (["evaluate", "inference", "--model", "pimc", "--positions", missing], "pimc: no card-location checkpoint"),
    ]
    done = subprocess.run([sys.executable, "-c", REFUSALS_BEFORE_JAX, json.dumps(cases)], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0 and f"refused {len(cases)}" in done.stdout, done.stderr[-2000:]


def test_the_command_leaves_a_callers_warning_format_as_it_was(capsys):
    """`main` formats warnings in one line while it runs, and gives the caller (a test, a notebook) its own back."""
    import warnings

    before = warnings.formatwarning
    assert main(["data", "info", "test"]) == 0
    assert warnings.formatwarning is before
