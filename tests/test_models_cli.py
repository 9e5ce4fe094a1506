"""The released models (issue #48): `released_models`, `bridgerl models` and the one resolver of ``models/NAME``
paths (the working directory's copy first, else the released one, else the path as given)."""

import hashlib
import json
from pathlib import Path

import pytest

from bridgerl.cli import main
from bridgerl.core.models import released_folder, released_models, resolve_model_path

ROOT = Path(__file__).resolve().parent.parent
KINDS = {"card-location": "card-location", "card-player": "card-player", "card-player-1": "card-player",
         "card-player-3": "card-player",
         "competitive-dqn": "DQN",
         "competitive-distilled": "PPO", "competitive-distilled-2": "PPO", "competitive-played": "PPO",
         "competitive-ppo": "PPO",
         "competitive-student": "PPO", "issn": "ISSN", "ssn": "SSN",
         "trick-estimator": "trick-estimator", "uncontested-critic": "DQN", "uncontested-dqn": "DQN"}


def test_released_models_lists_the_fifteen_with_their_kinds():
    models = released_models()
    assert {m["name"]: m["kind"] for m in models} == KINDS
    for m in models:
        folder = Path(m["path"])
        assert m["sha256"] == hashlib.sha256((folder / "model.msgpack").read_bytes()).hexdigest()
        assert m["bytes"] == sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        assert m["command"].startswith("bridgerl train "), m  # the training command, from the metadata
    by_name = {m["name"]: m for m in models}
    assert by_name["competitive-dqn"]["bytes"] > (ROOT / "models/competitive-dqn/start/model.msgpack").stat().st_size
    assert by_name["card-player"]["command"].startswith("bridgerl train card-player ")
    assert "--algo ppo" in by_name["competitive-played"]["command"]


def test_bridgerl_models_prints_one_line_each_and_writes_json(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    out = tmp_path / "models.json"
    assert main(["models", "--json", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in printed) <= 100  # long commands wrap at words (the JSON keeps them whole)
    lines = [line for line in printed if not line.startswith(" ")]
    blocks = " ".join(line.strip() if line.startswith(" ") else "\n" for line in printed).split("\n")[1:]
    assert len(lines) == len(KINDS) == len(blocks)
    by_name = {m["name"]: m for m in released_models()}
    for line, block, (name, kind) in zip(lines, blocks, sorted(KINDS.items())):
        words = line.split()
        assert words[:2] == [name, kind] and words[3] == "MB" and len(words[4]) == 12, line
        made, _, note = block.strip().partition(" (it read ")
        assert made == f"made by: {by_name[name]['command']}"  # the whole command, wrapped between words
        assert not note or "README.md says how they were made)" in note
    assert any("runs/cp2/pos_pimc3_0.npz: models/card-player/README.md" in block for block in blocks)
    written = json.loads(out.read_text())
    assert [m["name"] for m in written] == sorted(KINDS)
    assert set(written[0]) == {"name", "path", "kind", "bytes", "sha256", "command"}


def test_the_resolver_prefers_a_local_path_then_the_released_copy(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a working directory without models/
    released = released_folder()
    assert released is not None
    for given in ("models/issn", "./models/issn", "models/issn/"):
        assert resolve_model_path(given) == released / "issn"
    assert resolve_model_path("models/competitive-dqn/start") == released / "competitive-dqn" / "start"
    assert resolve_model_path("models/card-player/model.msgpack") == released / "card-player" / "model.msgpack"
    for nowhere in ("models/nothere", "models/issn/nothere.msgpack", "runs/issn", "models", "models/../models/issn"):
        assert resolve_model_path(nowhere) == Path(nowhere)  # reported missing by its reader
    (tmp_path / "models" / "issn").mkdir(parents=True)  # a local models/issn comes first
    assert resolve_model_path("models/issn") == Path("models/issn")
    assert resolve_model_path("models/ssn") == released / "ssn"


def test_loaders_find_the_released_models_from_another_directory(tmp_path, monkeypatch):
    from bridgerl.agents.learned.checkpoint import checkpoint_file, checkpoint_kind
    from bridgerl.core.dataset import file_hash
    from bridgerl.arena.specs import load_play_agent

    monkeypatch.chdir(tmp_path)
    assert checkpoint_file("models/card-player") == released_folder() / "card-player" / "model.msgpack"
    assert checkpoint_kind("models/issn") == "ISSN"
    sha = {m["name"]: m["sha256"] for m in released_models()}
    assert file_hash("models/ssn") == sha["ssn"]
    from bridgerl.agents import CardPlayer

    assert isinstance(load_play_agent("models/card-player"), CardPlayer)
    with pytest.raises(ValueError, match="no such model file or directory"):
        load_play_agent("models/nothere")
