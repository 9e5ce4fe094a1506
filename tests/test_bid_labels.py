"""One labelling route for any teacher (`bridgerl data bid-labels`, `train competitive --demos / --teacher`): label
files reproducible from their seed and resumable, DAgger's seats, the teacher's probabilities as soft targets,
`sayc` and its wrappers refused by what loads, the test split never read, and the rule teacher cloned to 80% of its
calls."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from helper_ben import write_causal_onnx

import bridgerl.training.bid_labels as bid_labels
from bridgerl.arena.specs import load_agent
from bridgerl.cli import main
from bridgerl.training.bid_labels import LabelError, LabelJob, load_labels, load_teacher, write_labels


def _arrays(path: Path) -> dict:
    with np.load(path) as data:
        return {key: data[key] for key in data.files if key != "meta"}


def _label(out, deals, **job):
    spec = job.pop("bidder", "rules")
    teacher, identity = load_teacher(spec)
    student = job.pop("student", None)
    return write_labels(LabelJob(spec, job.pop("data", "fresh"), deals, **job), out, teacher, identity,
                        None if student is None else load_agent(student, "competitive_bidding"))


def test_label_files_are_reproducible_from_their_seed_and_resume(tmp_path, monkeypatch):
    monkeypatch.setattr(bid_labels, "CHUNK", 40)
    _label(tmp_path / "whole.npz", 100, seed=5)
    whole = _arrays(tmp_path / "whole.npz")
    assert len(whole["owner"]) == 100 and sorted(set(whole["board"].tolist())) == list(range(1, 17))
    assert (np.sort(whole["owner"], 1) == np.repeat(np.arange(4), 13)).all()  # 13 cards each
    assert len(whole["call"]) > 600 and (whole["call"] == whole["played"]).all() and not whole["by_student"].any()
    assert np.isnan(whole["probs"]).all()  # the rules give no probabilities
    _label(tmp_path / "part.npz", 40, seed=5)  # one chunk, as if the run had stopped there
    _label(tmp_path / "part.npz", 100, seed=5)  # the same command with the deals asked: it continues
    for key, value in _arrays(tmp_path / "part.npz").items():
        np.testing.assert_array_equal(value, whole[key], err_msg=key)

    class PowerCut(Exception):
        pass

    class Interrupting:  # the rules, stopped in the third chunk
        def __init__(self):
            self.rules, self.auctions = load_agent("rules", "competitive_bidding"), 0

        def act_view(self, view):
            self.auctions += not view.calls  # a dealer's first call: a new auction
            if self.auctions > 2 * 40:
                raise PowerCut
            return self.rules.act_view(view)

    job = LabelJob("rules", "fresh", 100, seed=5)
    with pytest.raises(PowerCut):
        write_labels(job, tmp_path / "cut.npz", Interrupting(), {})
    assert not (tmp_path / "cut.npz").exists()  # the file comes when every chunk is done; the chunks meanwhile:
    assert sorted(p.name for p in (tmp_path / "cut.npz.partial").glob("chunk-*.npz")) == ["chunk-000000.npz",
                                                                                          "chunk-000001.npz"]
    write_labels(job, tmp_path / "cut.npz", load_agent("rules", "competitive_bidding"), {})
    for key, value in _arrays(tmp_path / "cut.npz").items():
        np.testing.assert_array_equal(value, whole[key], err_msg=key)
    assert not (tmp_path / "cut.npz.partial").exists()
    _label(tmp_path / "odd.npz", 30, seed=5)  # a file ending inside a chunk, asked for more: the same file again
    _label(tmp_path / "odd.npz", 100, seed=5)
    for key, value in _arrays(tmp_path / "odd.npz").items():
        np.testing.assert_array_equal(value, whole[key], err_msg=key)
    _label(tmp_path / "other.npz", 40, seed=6)
    assert not np.array_equal(_arrays(tmp_path / "other.npz")["owner"], whole["owner"][:40])
    with pytest.raises(LabelError, match=r"labels of another run \(seed differs\)"):
        _label(tmp_path / "part.npz", 100, seed=6)


def test_dataset_rows_dagger_seats_and_the_teachers_probabilities(tmp_path):
    write_causal_onnx(tmp_path / "ben")
    _label(tmp_path / "soft.npz", 30, bidder=f"ben:{tmp_path / 'ben'}", data="valid", start=10,
           student="random", share=0.5)
    arrays = _arrays(tmp_path / "soft.npz")
    from bridgerl.core.dataset import load_dataset

    np.testing.assert_array_equal(arrays["owner"], load_dataset("valid").owner[10:40])
    assert 0.3 < arrays["by_student"].mean() < 0.7
    # the teacher's call everywhere, its legal argmax; the student's calls played at its seats
    probs, mask = arrays["probs"], arrays["mask"]
    assert not np.isnan(probs).any()
    np.testing.assert_array_equal(np.where(mask, probs, -np.inf).argmax(1), arrays["call"])
    assert (arrays["played"][~arrays["by_student"]] == arrays["call"][~arrays["by_student"]]).all()
    assert (arrays["played"][arrays["by_student"]] != arrays["call"][arrays["by_student"]]).any()
    demos = load_labels(tmp_path / "soft.npz")
    np.testing.assert_allclose(demos.target.sum(1), 1.0, rtol=1e-5)
    assert (demos.target[~demos.mask] == 0).all() and demos.obs.shape == (len(probs), 231)
    hard = load_labels([tmp_path / "soft.npz"])  # a list of files reads the same
    np.testing.assert_array_equal(hard.action, demos.action)


def test_sayc_and_its_wrappers_are_refused_as_teachers(tmp_path, monkeypatch, capsys):
    (tmp_path / "wrappers.py").write_text(
        "from bridgerl.agents.bidding.sayc import SAYCBidder\n"
        "class Holds:\n"
        "    def __init__(self):\n"
        "        self.inner = [SAYCBidder()]\n"
        "    def act(self, observation, mask):\n"
        "        return self.inner[0].act(observation, mask)\n"
        "class Lazy:\n"
        "    def act(self, observation, mask):\n"
        "        return SAYCBidder().act(observation, mask)\n")
    monkeypatch.chdir(tmp_path)
    for spec in ("sayc", "punisher:sayc", "wrappers:Holds"):
        code = main(["data", "bid-labels", "--bidder", spec, "--deals", "5", "--out", "x.npz", "--quiet"])
        err = capsys.readouterr().err.strip()
        assert code == 2 and len(err.splitlines()) == 1 and "held out: never a teacher" in err, (spec, err)
    code = main(["data", "bid-labels", "--bidder", "wrappers:Lazy", "--deals", "5", "--out", "y.npz", "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "asked sayc, which is held out" in err and len(err.splitlines()) == 1
    code = main(["train", "competitive", "--algo", "ppo", "--teacher", "punisher:sayc", "--pretrain-deals", "10",
                 "--steps", "64", "--out", "run", "--quiet"])
    assert code == 2 and "held out: never a teacher" in capsys.readouterr().err


def test_the_test_split_is_never_labelled(tmp_path, capsys):
    from bridgerl.core.dataset import load_dataset, save_dataset

    save_dataset(tmp_path / "copy.npz", load_dataset("test"))
    for data in ("test", str(tmp_path / "copy.npz")):
        assert main(["data", "bid-labels", "--bidder", "rules", "--data", data, "--deals", "5", "--out",
                     str(tmp_path / "l.npz"), "--quiet"]) == 2
        assert "never made on" in capsys.readouterr().err
    assert not (tmp_path / "l.npz").exists()


def test_train_refuses_what_does_not_go_with_labels(tmp_path, capsys):
    _label(tmp_path / "l.npz", 20)
    base = ["train", "competitive", "--out", str(tmp_path / "run"), "--steps", "64", "--quiet"]
    for extra, message in ((["--demos", str(tmp_path / "l.npz")], "--algo ppo"),
                           (["--algo", "ppo", "--demos", str(tmp_path / "l.npz"), "--teacher", "rules"], "one of them"),
                           (["--algo", "ppo", "--demos", str(tmp_path / "l.npz"), "--pretrain-deals", "9"],
                            "--pretrain-deals goes with --teacher"),
                           (["--algo", "ppo", "--teacher", "random"], "give --pretrain-deals"),
                           (["--algo", "ppo", "--teacher", "random", "--pretrain-deals", "9", "--constructive",
                             "models/uncontested-dqn"], "only with --teacher rules"),
                           (["--algo", "ppo", "--demos", str(tmp_path / "nothing.npz")], "no such file"),
                           (["--algo", "ppo", "--demos", "models/card-player/model.msgpack"], "not a label file"),
                           (["--algo", "ppo", "--init", "models/competitive-played"], "go with --demos"),
                           (["--algo", "ppo", "--demos", str(tmp_path / "l.npz"), "--pretrain-updates", "0"],
                            "goes with --init"),
                           (["--algo", "ppo", "--demos", str(tmp_path / "l.npz"), "--init",
                             "models/card-player/model.msgpack"], "not a PPO"),
                           (["--algo", "ppo", "--demos", str(tmp_path / "l.npz"), "--init",
                             "models/competitive-played", "--hidden", "64"], "give --hidden to match")):
        assert main(base + extra) == 2, extra
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, (extra, err)


def _cloned_teacher(tmp_path):
    """A PPO run cloned from a teacher spec (BEN's stand-in, labels written into the run); the run's settings, the
    labels (copied out of the run) and the clone."""
    from test_ppo import TINY

    from bridgerl.agents import PPOAgent
    from bridgerl.training.demonstrations import PretrainConfig
    from bridgerl.training.run import train_competitive

    write_causal_onnx(tmp_path / "ben")
    from bridgerl.evaluation.bidding.competitive import rule_baseline_evaluator

    kwargs = dict(steps=64, preset="small", data="test", eval_data="test", overrides=TINY, chunk=2,
                  progress=False, command="pytest", eval_deals=8, algo="ppo",
                  evaluate_agent=rule_baseline_evaluator("test", 8))
    pretrain = PretrainConfig(deals=60, updates=1000, batch_size=64, teacher=f"ben:{tmp_path / 'ben'}")
    train_competitive(tmp_path / "teacher", pretrain=pretrain, **kwargs)
    labels = tmp_path / "teacher" / "teacher_labels.npz"
    assert json.loads(str(np.load(labels)["meta"]))["deals_done"] == 60
    demos = load_labels(labels)
    start = PPOAgent.load(tmp_path / "teacher" / "snapshots" / "model-0000000000.msgpack")
    agree = (start.act_batch(demos.obs, demos.mask) == demos.action).mean()
    assert agree > 0.5, agree  # the stand-in's calls, cloned from 60 deals
    copied = tmp_path / "copy.npz"
    copied.write_bytes(labels.read_bytes())
    return kwargs, demos, copied, start


def _init_from_the_clone(tmp_path, kwargs, demos, copied, start, name, updates, end):
    """--init: the teacher run's clone, cloned ``updates`` more times with the rate decaying to ``end``; its hash is
    recorded."""
    from bridgerl.agents import PPOAgent
    from bridgerl.training.demonstrations import PretrainConfig
    from bridgerl.training.run import train_competitive

    snapshot = tmp_path / "teacher" / "snapshots" / "model-0000000000.msgpack"
    train_competitive(tmp_path / name, pretrain=PretrainConfig(
        deals=0, updates=updates, batch_size=64, demos=(str(copied),), init=str(snapshot),
        learning_rate_end=end), **kwargs)
    kept = PPOAgent.load(tmp_path / name / "snapshots" / "model-0000000000.msgpack")
    same = (kept.act_batch(demos.obs, demos.mask) == start.act_batch(demos.obs, demos.mask)).mean()
    assert same == 1.0 if updates == 0 else same > 0.8, (name, same)
    first = json.loads((tmp_path / name / "log.jsonl").read_text().splitlines()[0])
    assert first["pretrain"]["init_sha256"] == hashlib.sha256(snapshot.read_bytes()).hexdigest()


def test_a_ppo_student_clones_label_files_and_a_teacher_spec(tmp_path):
    """--demos FILE and --teacher SPEC (labels written into the run, read back on resume) start PPO from the
    clone; the soft targets of a teacher with probabilities are fitted; --init keeps the clone as it is (0 updates:
    the slow tier clones it further)."""
    from bridgerl.agents import PPOAgent
    from bridgerl.training.demonstrations import PretrainConfig
    from bridgerl.training.run import train_competitive

    kwargs, demos, copied, start = _cloned_teacher(tmp_path)
    train_competitive(tmp_path / "demos", pretrain=PretrainConfig(deals=0, updates=1000, batch_size=64,
                                                                  demos=(str(copied),)), **kwargs)
    again = PPOAgent.load(tmp_path / "demos" / "snapshots" / "model-0000000000.msgpack")
    for x, y in zip(np.asarray(start.act_batch(demos.obs[:500], demos.mask[:500])),
                    np.asarray(again.act_batch(demos.obs[:500], demos.mask[:500]))):
        assert x == y  # the same labels and seed: the same clone
    _init_from_the_clone(tmp_path, kwargs, demos, copied, start, "kept", 0, None)  # the clone as it is


# the slow tier (CI runs it; docs/conventions.md): --init with no update (the clone kept as it is, its hash recorded)
# stays in the default tier, in the test above
@pytest.mark.slow
def test_init_clones_the_clone_further_with_a_decaying_rate(tmp_path):
    _init_from_the_clone(tmp_path, *_cloned_teacher(tmp_path), "further", 1000, 0.0)


# the slow tier (CI runs it; docs/conventions.md): the clone of a teacher spec and of label files stays in the default
@pytest.mark.slow
def test_the_rule_teacher_is_cloned_to_80_percent_of_its_calls(tmp_path):
    """`--teacher rules` (the default teacher) for 2,000 updates on 2,000 deals repeats at least 80% of the rules'
    calls on 200 valid deals bid by the rules at all four seats."""
    from test_ppo import TINY

    from bridgerl.agents import PPOAgent
    from bridgerl.training.demonstrations import PretrainConfig, rule_demonstrations
    from bridgerl.training.run import train_competitive

    from bridgerl.evaluation.bidding.competitive import rule_baseline_evaluator

    train_competitive(tmp_path / "run", steps=64, preset="small", data="train", eval_data="valid",
                      overrides={**TINY, "hidden": (256, 256)}, chunk=2, progress=False, command="pytest",
                      eval_deals=8, algo="ppo", pretrain=PretrainConfig(deals=2000, updates=2000, teacher="rules"),
                      evaluate_agent=rule_baseline_evaluator("valid", 8))
    clone = PPOAgent.load(tmp_path / "run" / "snapshots" / "model-0000000000.msgpack")
    valid = rule_demonstrations("valid", deals=200, random_share=0.0)
    agree = float((clone.act_batch(valid.obs, valid.mask) == valid.action).mean())
    assert agree >= 0.80, agree


def test_the_cross_entropy_to_the_teacher_decays_over_the_run(tmp_path):
    """--bc-weight W --bc-end E: the weight goes linearly from W at the first update to E at the run's last."""
    from test_ppo import TINY

    from bridgerl.envs import jaxenv
    from bridgerl.training.ppo import PPOConfig, PPOTrainer

    _label(tmp_path / "l.npz", 20)
    demos = load_labels(tmp_path / "l.npz")
    env = jaxenv.make("competitive_bidding", dataset="test")
    config = PPOConfig(**{**TINY, "bc_weight": 0.5, "bc_end": 0.1, "bc_batch": 16})
    trainer = PPOTrainer(env, config, total_steps=config.num_envs * config.rollout * 10, demonstrations=demos)
    total = 10 * trainer.updates_per_iteration
    assert [round(float(trainer.bc_weight_at(u)), 6) for u in (0, total // 2, total, 2 * total)] == [0.5, 0.3, 0.1, 0.1]
    assert PPOTrainer(env, config.replace(bc_end=None), demonstrations=demos).bc_weight_at(7) == 0.5
    ts, metrics = trainer.run_steps(env, trainer.init(env), 2)
    assert np.isfinite(np.asarray(metrics.bc_loss)).all() and float(np.asarray(metrics.bc_loss).mean()) > 0


def test_a_bidder_repeats_its_own_labels_and_not_anothers(tmp_path, capsys):
    _label(tmp_path / "rules.npz", 30)
    out = tmp_path / "a.json"
    assert main(["evaluate", "agreement", "--bidder", "rules", "--labels", str(tmp_path / "rules.npz"),
                 "--json", str(out)]) == 0
    assert "rules repeats 100.00%" in capsys.readouterr().out
    assert json.loads(out.read_text())["agreement"] == 1.0
    assert main(["evaluate", "agreement", "--bidder", "pass", "--labels", str(tmp_path / "rules.npz")]) == 0
    assert "pass repeats 100.00%" not in capsys.readouterr().out
    assert main(["evaluate", "agreement", "--bidder", "rules", "--labels", str(tmp_path / "none.npz")]) == 2
    assert "no such file" in capsys.readouterr().err
