"""Issue #48: a results file records the whole job and resumes only that job; specs and files of the wrong kind,
output paths that cannot be written and closed pipes are one line (or none); the played table's card player is
checked; `evaluate game --workers`."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from bridgerl.cli import main
from bridgerl.core.dataset import bundled_path, load_dataset, save_dataset
from bridgerl.core.identity import check_same_job, first_difference, shorten
from bridgerl.arena.game import game_match, match_job
from bridgerl.arena.jsonlines import header_line, read_done
from bridgerl.arena.specs import load_pair
from helper_games import untimed

ROOT = Path(__file__).resolve().parents[1]
NS, EW = "bid=rules,play=dd", "bid=sayc,play=dd"


def run(argv, capsys):
    """(exit code, stdout, stderr) of the command line."""
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line_error(err: str, limit: int | None = None) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bridgerl: error: "), err
    assert "Traceback" not in err
    if limit is not None:
        assert len(lines[0]) - len("bridgerl: error: ") <= limit, lines[0]
    return lines[0]


def game(out, ns=NS, ew=EW, deals=2, extra=()):
    return ["evaluate", "game", "--ns", ns, "--ew", ew, "--deals", deals, "--out", out, "--quiet", *extra]


# ---------------------------------------------------------------- the identity itself

def test_the_first_field_that_differs_is_named_with_both_values_shortened(tmp_path):
    saved = {"command": "evaluate game", "a": "x", "seed": 1, "data": "test"}
    assert first_difference(saved, dict(saved)) is None
    assert first_difference(saved, {**saved, "seed": 2, "data": "valid"}) == ("seed", 1, 2)
    assert first_difference(saved, {k: v for k, v in saved.items() if k != "a"}) == ("a", "x", None)
    long = "pimc:" + ",".join(f"k{i}=v{i}" for i in range(40))
    assert len(shorten(long)) == 36 and shorten(long).startswith("pimc:") and "..." in shorten(long)
    with pytest.raises(ValueError, match=r"f holds another match: seed is 1 there, 2 now; pick another file with --o"):
        check_same_job("f", saved, {**saved, "seed": 2}, "--out")
    with pytest.raises(ValueError, match="older bridgerl"):
        check_same_job("f", None, saved, "--out")


GAME_FIELDS = ["command", "a", "a_bidder", "a_bidder_checkpoints", "a_player", "a_player_checkpoints", "a_seed",
               "b", "b_bidder", "b_bidder_checkpoints", "b_player", "b_player_checkpoints", "b_seed", "data",
               "data_sha256", "start", "tricks", "tricks_player", "seed"]


def _every_job() -> dict:
    from bridgerl.core.contract import Contract
    from bridgerl.arena.play import play_job
    from bridgerl.evaluation.cardplay.play_study import study_job
    from bridgerl.evaluation.datasets.played import played_job
    from bridgerl.evaluation.datasets.positions import positions_job
    from bridgerl.arena.specs import load_identified

    dataset = load_dataset("test")
    a, b = load_pair(NS), load_pair("bid=rules,play=models/card-player", seed=1)
    player, identity = load_identified("models/card-player", "player")
    return {
        "evaluate game": match_job("evaluate game", a, b, dataset, "test", 0, 0),
        "evaluate cross": match_job("evaluate cross", a, b, dataset, "test", 0, 0),
        "evaluate play": play_job(("models/card-player", "dd"), (identity, {"resolved": "dd:objective=tricks",
                                                                            "checkpoints": []}),
                                  "test", dataset, 0, Contract.parse("3NT", 2), None, 0),
        "evaluate play-study": study_job("test", dataset, 0, 20, 0, 0, ["base"]),
        "data positions": positions_job("test", dataset, {"ns": a, "ew": b}, 0, 0, 0, 4),
        "data played": played_job("test", dataset, "models/card-player", identity["checkpoints"][0], "dd", 256),
    }


JOBS = None


def every_job() -> dict:
    global JOBS
    if JOBS is None:
        JOBS = _every_job()
    return JOBS


def test_a_game_job_records_every_field_in_order():
    assert list(every_job()["evaluate game"]) == GAME_FIELDS
    job = every_job()["evaluate game"]
    assert job["b_player"] == "cardnet:model=models/card-player" and len(job["b_player_checkpoints"]) == 1
    assert job["a_player"] == "dd:objective=tricks" and job["a_player_checkpoints"] == [] and job["b_seed"] == 1
    assert list(every_job()["data positions"])[:3] == ["command", "format", "data"]
    assert every_job()["evaluate play-study"]["pimc_defaults"]["worlds"] == 100


PAIR = ["{0}", "{0}_bidder", "{0}_bidder_checkpoints", "{0}_player", "{0}_player_checkpoints", "{0}_seed"]
COMMAND_FIELDS = {
    "evaluate game": GAME_FIELDS,
    "evaluate cross": GAME_FIELDS,
    "evaluate play": ["command", "declarer", "declarer_resolved", "declarer_checkpoints", "defenders",
                      "defenders_resolved", "defenders_checkpoints", "data", "data_sha256", "start", "contract",
                      "constraints", "seed"],
    "evaluate play-study": ["command", "data", "data_sha256", "start", "worlds", "seed", "info_budget", "runs",
                            "pimc_defaults"],
    "data positions": ["command", "format", "data", "data_sha256", *(f.format("ns") for f in PAIR),
                       *(f.format("ew") for f in PAIR), "start", "seed", "label_worlds", "chunk"],
    "data played": ["command", "data", "data_sha256", "rows", "player", "player_checkpoint", "level", "chunk"],
}
FIELDS = [(command, field) for command, fields in COMMAND_FIELDS.items() for field in fields]


def test_each_job_records_the_fields_listed_here():
    for command, fields in COMMAND_FIELDS.items():
        assert list(every_job()[command]) == fields, command


@pytest.mark.parametrize("command, field", FIELDS)
def test_every_recorded_field_of_every_resumable_job_refuses_a_resume(command, field, tmp_path):
    from bridgerl.core.files import claim_job_folder

    job = every_job()[command]
    other = dict(job)
    value = job[field]
    other[field] = (["0" * 64] if isinstance(value, list) else {"x": 1} if isinstance(value, dict)
                    else not value if isinstance(value, bool) else -1 if isinstance(value, int) and value != -1
                    else None if value is not None and not isinstance(value, str) else f"{value}-other")
    if command.startswith("data "):  # OUT.partial/job.json
        folder = tmp_path / "out.npz.partial"
        claim_job_folder(folder, job)
        claim_job_folder(folder, job)  # the same job resumes
        check = lambda: claim_job_folder(folder, other)  # noqa: E731
        what = "job"
    else:
        out = tmp_path / "m.jsonl"
        read_done(out, job)
        assert read_done(out, job) == []  # the same job resumes
        check = lambda: read_done(out, other)  # noqa: E731
        what = "match"
    with pytest.raises(ValueError) as refused:
        check()
    message = str(refused.value)
    assert "\n" not in message and "--out" in message
    if field == "command" and not command.startswith("data "):
        assert f"holds the results of `{command}`" in message
    else:
        assert f"holds another {what}: {field} is " in message
    if not command.startswith("data "):
        assert out.read_text() == header_line(job)  # nothing written


# ---------------------------------------------------------------- evaluate game, end to end

@pytest.fixture(scope="module")
def played_match(tmp_path_factory):
    folder = tmp_path_factory.mktemp("game")
    out = folder / "m.jsonl"
    assert main([str(a) for a in game(out)]) == 0
    return out


def _copy_player(folder: Path) -> Path:
    """A copy of the released card player (same weights, other bytes available by editing its metadata)."""
    target = folder / "player"
    target.mkdir()
    shutil.copy(ROOT / "models" / "card-player" / "model.msgpack", target / "model.msgpack")
    return target


@pytest.mark.parametrize("change, field", [
    ({"ns": "bid=rules,play=random"}, "a"),
    ({"ew": "bid=rules,play=dd"}, "b"),
    ({"extra": ["--data", "valid"]}, "data"),
    ({"extra": ["--start", "1"]}, "start"),
    ({"extra": ["--seed", "4"]}, "a_seed"),  # the pairs' seeds come from --seed: the first field it changes
])
def test_a_game_resume_that_differs_is_refused_and_the_same_command_resumes(played_match, tmp_path, capsys,
                                                                           change, field):
    out = tmp_path / "m.jsonl"
    shutil.copy(played_match, out)
    before = out.read_text()
    code, printed, err = run(game(out, **change), capsys)
    assert code == 2 and printed == ""
    line = one_line_error(err)
    assert f"holds another match: {field} is " in line and "--out" in line
    assert out.read_text() == before
    code, printed, err = run(game(out, deals=3), capsys)  # the same match: resumed and extended
    assert code == 0 and "over 3 boards" in printed
    assert len(out.read_text().splitlines()) == 1 + 3
    code, printed, _ = run(game(out, deals=1), capsys)  # fewer boards read the first ones
    assert code == 0 and "over 1 boards" in printed and "nan" not in printed and "no CI" in printed


def test_a_changed_data_file_or_checkpoint_under_the_same_name_is_refused(tmp_path, capsys):
    data = tmp_path / "d.npz"
    shutil.copy(bundled_path("valid"), data)
    player = _copy_player(tmp_path)
    argv = game(tmp_path / "m.jsonl", ns=f"bid=rules,play={player}", deals=1, extra=["--data", data])
    assert run(argv, capsys)[0] == 0
    dataset = load_dataset(data)
    save_dataset(data, dataset.subset(np.arange(1, len(dataset))))  # the same name, other deals
    code, _, err = run(argv, capsys)
    assert code == 2 and ": data_sha256 is " in one_line_error(err)
    shutil.copy(bundled_path("valid"), data)
    assert run(argv, capsys)[0] == 0
    import msgpack  # the same path, a checkpoint of other bytes (its metadata edited)

    payload = msgpack.unpackb((player / "model.msgpack").read_bytes(), raw=False, strict_map_key=False)
    payload["metadata"] = json.dumps({**json.loads(payload["metadata"]), "note": "edited"})
    (player / "model.msgpack").write_bytes(msgpack.packb(payload, use_bin_type=True))
    from bridgerl.agents.learned import checkpoint

    code, _, err = run(argv, capsys)  # this process plays the weights it loaded first: the same match
    assert code == 0
    checkpoint._LOADED.clear()  # as a new process would: the file's new bytes are loaded and recorded
    code, _, err = run(argv, capsys)
    assert code == 2 and ": a_player_checkpoints is " in one_line_error(err)


def test_the_summary_and_json_name_the_play_at_each_table(tmp_path, capsys):
    code, printed, _ = run(game(tmp_path / "m.jsonl", ns="bid=rules,play=models/card-player",
                                extra=["--json", tmp_path / "s.json"]), capsys)
    assert code == 0
    assert "IMPs/board for bid=rules,play=models/card-player (95% CI +/- " in printed
    assert "cards played by cardnet:model=models/card-player for bid=rules,play=models/card-player and " \
           "dd:objective=tricks for bid=sayc,play=dd" in printed
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["play"] == {"a": "cardnet:model=models/card-player", "b": "dd:objective=tricks", "tricks": "dd",
                               "tricks_player": None}
    header = json.loads((tmp_path / "m.jsonl").read_text().splitlines()[0])
    assert len(header["job"]["a_player_checkpoints"]) == 1 and len(header["job"]["a_player_checkpoints"][0]) == 64
    assert header["job"]["a_bidder_checkpoints"] == []


def test_cross_and_game_files_cannot_be_mixed(played_match, tmp_path, capsys):
    boards = tmp_path / "boards"
    cross = ["evaluate", "cross", "rules", "sayc", "--play", "dd", "--deals", 1, "--boards-dir", boards, "--quiet"]
    code, printed, _ = run(cross, capsys)
    assert code == 0 and "whole deals with dd at every seat (dd:objective=tricks)" in printed
    before = (boards / "MATCH_0_1.jsonl").read_text()
    code, again, _ = run(cross, capsys)  # the same command resumes: nothing played again
    assert code == 0 and again == printed and (boards / "MATCH_0_1.jsonl").read_text() == before
    code, more, _ = run([*cross[:7], 2, *cross[8:]], capsys)  # more boards extend it
    assert code == 0 and len((boards / "MATCH_0_1.jsonl").read_text().splitlines()) == 1 + 2
    code, _, err = run(game(boards / "MATCH_0_1.jsonl", ns="rules", ew="sayc"), capsys)
    assert code == 2 and "holds the results of `evaluate cross`, not of `evaluate game`" in one_line_error(err)
    # a cross resumed with another player is refused before any board, naming --boards-dir
    code, _, err = run([*cross[:5], "random", *cross[6:]], capsys)
    line = one_line_error(err)
    assert code == 2 and ": a_player is dd:objective=tricks there, random now" in line and "--boards-dir" in line
    shutil.copy(played_match, boards / "MATCH_0_1.jsonl")
    code, _, err = run(cross, capsys)
    assert code == 2 and "holds the results of `evaluate game`, not of `evaluate cross`" in one_line_error(err)


def test_a_file_written_before_identities_is_refused_with_advice(tmp_path, capsys):
    out = tmp_path / "old.jsonl"
    out.write_text(json.dumps({"match": {"a": NS, "b": EW, "data": "test", "seed": 0}}) + "\n")
    code, _, err = run(game(out), capsys)
    line = one_line_error(err)
    assert code == 2 and "older bridgerl" in line and "start anew" in line


@pytest.mark.parametrize("argv, field", [
    (["--seed", "1"], "seed"),
    (["--contract", "4S"], "contract"),
    (["--defenders", "random"], "defenders"),
])
def test_play_matches_refuse_another_match(tmp_path, capsys, argv, field):
    base = ["evaluate", "play", "--declarer", "dd", "--defenders", "dd", "--deals", 1, "--quiet",
            "--out", tmp_path / "p.jsonl"]
    assert run(base, capsys)[0] == 0
    code, _, err = run([*base, *argv], capsys)
    assert code == 2 and f": {field} is " in one_line_error(err)
    assert run([*base, "--deals", 2], capsys)[0] == 0


@pytest.mark.parametrize("argv, field", [(["--seed", "1"], "ns_seed"), (["--ew", "bid=sayc,play=dd"], "ew"),
                                         (["--start", "3"], "start")])
def test_positions_jobs_refuse_another_job(tmp_path, capsys, monkeypatch, argv, field):
    import bridgerl.evaluation.datasets.positions as positions

    out = tmp_path / "p.npz"
    base = ["data", "positions", "--data", "test", "--deals", 2, "--ns", NS, "--ew", NS, "--quiet", "--out", out]
    calls = []

    def interrupted(job):  # the first chunk is played, then the job stops
        if calls:
            raise KeyboardInterrupt
        calls.append(job)
        return original(job)

    original = positions._chunk_job
    monkeypatch.setattr(positions, "CHUNK", 1)
    monkeypatch.setattr(positions, "_chunk_job", interrupted)
    with pytest.raises(KeyboardInterrupt):
        positions.generate_positions(out, data="test", deals=2, ns=NS, ew=NS, chunk=1, progress=False)
    monkeypatch.setattr(positions, "_chunk_job", original)
    code, _, err = run([*base, *argv], capsys)
    assert code == 2 and f"holds another job: {field} is " in one_line_error(err)
    assert run(["data", "positions", "--data", "test", "--deals", 3, "--ns", NS, "--ew", NS, "--quiet", "--out", out],
               capsys)[0] == 2  # the chunk size is part of the job too (CHUNK by default)
    positions.generate_positions(out, data="test", deals=3, ns=NS, ew=NS, chunk=1, progress=False)  # more deals
    from bridgerl.core.positions import load_positions

    loaded = load_positions(out)
    assert loaded.deals["row"].tolist() == [0, 1, 2]
    assert loaded.meta["identity"]["ns_player"] == "dd:objective=tricks"


def test_played_table_jobs_of_another_format_are_refused(tmp_path, capsys):
    out = tmp_path / "t.npz"
    parts = Path(str(out) + ".partial")
    parts.mkdir()
    (parts / "job.json").write_text(json.dumps({"data": "test", "rows": 5000}))
    code, _, err = run(["data", "played", "--data", "test", "--out", out, "--quiet"], capsys)
    assert code == 2 and "older bridgerl" in one_line_error(err)


# ---------------------------------------------------------------- specs and files of the wrong kind

@pytest.mark.parametrize("argv, found", [
    (["evaluate", "cross", "rules", "sayc", "--play", "dqn:models/uncontested-dqn"], "is a bidder"),
    (["evaluate", "cross", "rules", "sayc", "--play", "rules"], "is a bidder"),
    (["evaluate", "cross", "rules", "pimc:worlds=20"], "is a card player"),
    (["evaluate", "competitive", "--ns", "bid=rules,play=dd", "--ew", "rules"], "is a game spec"),
    (["evaluate", "game", "--ns", "bid=models/card-player,play=dd", "--ew", "rules"], "card-player model plays"),
    (["evaluate", "game", "--ns", "bid=rules,play=models/competitive-dqn", "--ew", "rules"], "a DQN model bids"),
    (["evaluate", "game", "--ns", "bid=dqn:models/card-player,play=dd", "--ew", "rules"],
     "a card-player model, not a DQN one"),
    (["evaluate", "play", "--declarer", "cardnet:model=models/competitive-dqn", "--defenders", "dd"],
     "a DQN model, not a card-player one"),
    (["evaluate", "play", "--declarer", "sayc", "--defenders", "dd"], "is a bidder"),
    (["evaluate", "uncontested", "--agent", "nonsense"], "a bidder is expected"),
    (["evaluate", "play", "--declarer", "nonsense", "--defenders", "dd"], "a card player is expected"),
])
def test_specs_of_the_wrong_kind_are_one_short_line(argv, found, capsys):
    code, printed, err = run(argv, capsys)
    assert code == 2 and printed == ""
    assert found in one_line_error(err, limit=200)


@pytest.fixture(scope="module")
def odd_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("files")
    from bridgerl.evaluation.datasets.positions import generate_positions

    generate_positions(folder / "pos.npz", data="test", deals=1, ns=NS, ew=NS, progress=False)
    (folder / "binary.bin").write_bytes(bytes(range(256)) * 4)
    (folder / "text.txt").write_text("some notes\n")
    (folder / "m.jsonl").write_text(header_line({"command": "evaluate game"}))
    return folder


@pytest.mark.parametrize("argv, found", [
    (["evaluate", "competitive", "--ns", "rules", "--ew", "rules", "--data", "{pos.npz}"],
     "a positions file (`bridgerl data positions`), not a dataset"),
    (["evaluate", "competitive", "--ns", "rules", "--ew", "rules", "--data", "{m.jsonl}"],
     "a results file of `evaluate game`, not a .npz dataset"),
    (["data", "info", "{card-player}"], "a card-player model, not a .npz dataset"),
    (["evaluate", "trick-loss", "--agents", "dd", "--positions", "{test}"],
     "a dataset with a played-tricks table, not a positions file"),
    (["evaluate", "inference", "--model", "{card-player}", "--positions", "{pos.npz}"],
     "a card-player model, not a card-location one"),
    (["evaluate", "inference", "--model", "{card-location}", "--positions", "{text.txt}"],
     "a text file, not a .npz positions"),
    (["evaluate", "game", "--ns", "rules", "--ew", "rules", "--out", "{binary.bin}"],
     "a binary file, not a results file of `evaluate game`"),
    (["evaluate", "game", "--ns", "rules", "--ew", "rules", "--out", "{text.txt}"],
     "a text file, not a results file of `evaluate game`"),
    (["evaluate", "game", "--ns", "rules", "--ew", "rules", "--out", "{pos.npz}"],
     "a positions file (`bridgerl data positions`), not a results file"),
    (["evaluate", "play", "--declarer", "{card-player}", "--defenders", "dd", "--out", "{text.txt}"],
     "a text file, not a results file of `evaluate play`"),
    (["evaluate", "play", "--declarer", "dd", "--defenders", "dd", "--out", "{m.jsonl}"],
     "holds the results of `evaluate game`, not of `evaluate play`"),
])
def test_files_of_the_wrong_kind_are_one_line(odd_files, argv, found, capsys):
    names = {"{test}": str(bundled_path("test")), "{card-player}": str(ROOT / "models" / "card-player" / "model.msgpack"),
             "{card-location}": str(ROOT / "models" / "card-location")}
    argv = [names.get(a, str(odd_files / a[1:-1]) if a.startswith("{") else a) for a in argv]
    before = {p.name: p.read_bytes() for p in odd_files.iterdir() if p.is_file()}
    code, printed, err = run(argv, capsys)
    assert code == 2 and printed == ""
    assert found in one_line_error(err)
    assert {p.name: p.read_bytes() for p in odd_files.iterdir() if p.is_file()} == before


def test_output_paths_are_checked_before_any_board(tmp_path, capsys, monkeypatch):
    import bridgerl.arena.game as game_module

    def never(*args, **kwargs):
        raise AssertionError("a board was played")

    monkeypatch.setattr(game_module, "play_boards", never)
    out = tmp_path / "m.jsonl"
    for extra, words in ((["--json", tmp_path], "--json"), (["--pbn", tmp_path], "--pbn"),
                         (["--report", tmp_path / "file.txt"], "--report"),
                         (["--json", tmp_path / "file.txt" / "s.json"], "is a file, not a folder")):
        (tmp_path / "file.txt").write_text("x")
        code, _, err = run(game(out, extra=extra), capsys)
        assert code == 2 and words in one_line_error(err)
        assert not out.exists()
    code, printed, err = run(["data", "info", "test", "--json", tmp_path], capsys)
    assert code == 2 and printed == "" and "--json" in one_line_error(err)


@pytest.mark.parametrize("command", ["data info test", "evaluate --help", "models"])
def test_a_closed_pipe_ends_without_a_message(command):
    """The reader has gone before the command writes (`| head` that stopped reading): nothing on standard error."""
    process = subprocess.Popen([sys.executable, "-m", "bridgerl.cli", *command.split()], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, cwd=ROOT)
    process.stdout.close()
    err = process.stderr.read().decode()
    assert process.wait() in (0, 141) and err == "", err  # argparse itself ignores a closed pipe for --help
    result = subprocess.run(f"{sys.executable} -m bridgerl.cli {command} | head -c 10", shell=True,
                            capture_output=True, text=True, cwd=ROOT, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert result.stderr == "" and len(result.stdout) == 10


# ---------------------------------------------------------------- played tables of another card player

def test_a_played_table_of_another_player_is_named_and_can_be_refused(tmp_path, capsys):
    arrays = dict(np.load(bundled_path("test")))
    arrays["played_hash"] = np.asarray("f" * 64)
    arrays["played_player"] = np.asarray("elsewhere/card-player")
    data = tmp_path / "other.npz"
    np.savez(data, **arrays)
    argv = ["evaluate", "competitive", "--ns", "models/competitive-played", "--ew", "rules", "--deals", 5,
            "--tricks", "played", "--data", data]
    code, printed, err = run(argv, capsys)
    assert code == 0 and "played tricks of elsewhere/card-player, checkpoint ffffffffffff" in printed
    note = err.strip().splitlines()
    assert len(note) == 1 and note[0].startswith("bridgerl: note: models/competitive-played was trained on the "
                                                 "played table of")
    assert "ffffffffffff" in note[0]
    code, printed, err = run([*argv, "--same-player"], capsys)
    assert code == 2 and "--same-player refuses it" in one_line_error(err)
    # the bundled tables are issue #50's player's; competitive-played was trained on the first release's
    code, printed, err = run([*argv[:-2], "--data", "test"], capsys)
    assert code == 0 and "played tricks of models/card-player, checkpoint " in printed
    assert "bridgerl: note: models/competitive-played was trained on the played table of" in err
    import hashlib

    first = hashlib.sha256((ROOT / "models" / "card-player-1" / "model.msgpack").read_bytes()).hexdigest()
    arrays["played_hash"], arrays["played_player"] = np.asarray(first), np.asarray("models/card-player")
    np.savez(tmp_path / "first.npz", **arrays)  # the table it was trained on: no note
    code, printed, err = run([*argv[:-2], "--data", tmp_path / "first.npz"], capsys)
    assert code == 0 and err == "" and "played tricks of models/card-player, checkpoint d0a82375cd2c" in printed


# ---------------------------------------------------------------- workers

def test_workers_play_the_boards_of_one_worker(tmp_path):
    """Disjoint pieces in two processes give the boards of one, a random bidder and a random player included."""
    one = game_match(load_pair("bid=random,play=dd"), load_pair("bid=sayc,play=random", seed=1), "test", deals=5,
                     start=7, seed=3)
    out = tmp_path / "m.jsonl"
    two = game_match(load_pair("bid=random,play=dd"), load_pair("bid=sayc,play=random", seed=1), "test", deals=5,
                     start=7, seed=3, workers=2, out=out)

    assert untimed(two) == untimed(one)
    assert [json.loads(line)["row"] for line in out.read_text().splitlines()[1:]] == [7, 8, 9, 10, 11]
