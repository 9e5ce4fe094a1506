"""Play positions of whole-deal games (`bridgerl data positions`, `bridgerl.core.positions`)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bridgerl.cli import main
from bridgerl.core.bridge import CARD_OFFSET
from bridgerl.core.play import trick_winner
from bridgerl.core.positions import PositionsError, load_positions
from bridgerl.evaluation.datasets import positions as positions_module
from bridgerl.evaluation.datasets.positions import generate_positions

FAST = "bid=rules,play=pimc:worlds=4"


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """Four held-out deals bid by the rule bidders and played by PIMC (4 worlds), one chunk per deal."""
    out = tmp_path_factory.mktemp("positions") / "pos.npz"
    generate_positions(out, data="test", deals=4, start=10, ns=FAST, ew=FAST, seed=3, chunk=1, progress=False)
    return out, load_positions(out)


def test_positions_replay_and_their_dd_values_chain(played):
    """Every stored position replays (its auction and the cards before it) to a state whose chooser, hand and
    legal cards are the stored ones, and the played card is legal. Each DD value is checked against the next
    position's: the value of the card played at position i (tricks of its side from i on) is the trick it may
    complete plus its side's share of what the next position's best card is worth, so the whole play's DD values
    chain to the last trick; a solver bug or a misaligned row breaks the chain."""
    _, pos = played
    p = pos.positions
    assert len(pos.deals["row"]) == 4 and (pos.deals["row"] == [10, 11, 12, 13]).all()
    identity = pos.meta.pop("identity")
    assert pos.meta == {"format": 1, "source": "test", "ns": FAST, "ew": FAST, "seed": 3, "label_worlds": 0}
    assert identity["command"] == "data positions" and identity["ns"] == FAST and identity["start"] == 10
    assert identity["ns_player"].startswith(FAST.split("play=")[1].split(":")[0])
    checked = 0
    for i in range(len(pos)):
        state = pos.state(i)
        assert state.phase == "play"
        assert (state.player, state.seat) == (p["player"][i], p["seat"][i])
        legal = state.legal_mask()[CARD_OFFSET:CARD_OFFSET + 52].astype(bool)
        assert (legal == p["legal"][i]).all() and ((p["dd"][i] >= 0) == legal).all() and legal[p["card"][i]]
        assert p["choices"][i] == len(state.view().equivalent_groups())
        after = state.play.play(int(p["card"][i]))
        side = state.play.to_play % 2
        won = 0
        if len(after.trick.cards) == 0 and after.tricks:  # the card completed a trick
            last = after.tricks[-1]
            won = int(trick_winner(last.leader, last.cards, state.play.strain) % 2 == side)
        value = int(p["dd"][i][p["card"][i]])
        if after.is_over:
            assert value == won
        else:
            nxt = i + 1
            assert p["deal"][nxt] == p["deal"][i] and p["step"][nxt] == p["step"][i] + 1
            best = int(p["dd"][nxt].max())
            left = 13 - len(after.tricks)
            assert value == won + (best if after.to_play % 2 == side else left - best)
        checked += 1
    assert checked == len(pos) and len(pos) == 52 * int((pos.deals["contract"][:, 0] > 0).sum())


def test_positions_do_not_depend_on_chunks_or_interruption(played, tmp_path, monkeypatch):
    """A run cut by an error after its first chunk resumes from `OUT.partial/` (with two worker processes) to the
    same file as the uninterrupted single-process run; the same seed gives the same play as table 1 of
    `evaluate game`."""
    out, pos = played
    calls = {"n": 0}
    real = positions_module._chunk_job

    def flaky(job):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(job)

    monkeypatch.setattr(positions_module, "_chunk_job", flaky)
    cut = tmp_path / "cut.npz"
    with pytest.raises(KeyboardInterrupt):
        generate_positions(cut, data="test", deals=4, start=10, ns=FAST, ew=FAST, seed=3, chunk=1, progress=False)
    assert not cut.exists() and len(list((tmp_path / "cut.npz.partial").glob("rows_*.npz"))) == 1
    monkeypatch.setattr(positions_module, "_chunk_job", real)
    generate_positions(cut, data="test", deals=4, start=10, ns=FAST, ew=FAST, seed=3, chunk=1, progress=False,
                       workers=2)
    assert not (tmp_path / "cut.npz.partial").exists()
    with pytest.raises(ValueError, match="older bridgerl"):  # a job stamped before identities were recorded
        partial = tmp_path / "rows.npz.partial"
        partial.mkdir()
        (partial / "job.json").write_text(json.dumps({"format": 1, "source": "test", "ns": FAST, "ew": FAST,
                                                      "seed": 3, "chunk": 1, "start": 10, "stop": 12}))
        generate_positions(tmp_path / "rows.npz", data="test", deals=4, start=10, ns=FAST, ew=FAST, seed=3, chunk=1,
                           progress=False)
    with pytest.raises(ValueError, match="holds another job"):  # a partial folder is only resumed by the same job
        (tmp_path / "other.npz.partial").mkdir()
        stamp = json.loads((tmp_path / "rows.npz.partial" / "job.json").read_text())
        (tmp_path / "other.npz.partial" / "job.json").write_text(json.dumps({"command": "data positions", **stamp,
                                                                             "seed": 9}))
        generate_positions(tmp_path / "other.npz", data="test", deals=4, start=10, ns=FAST, ew=FAST, seed=3,
                           progress=False)
    again = load_positions(cut)
    for table in ("deals", "positions"):
        for key, value in getattr(pos, table).items():
            assert np.array_equal(getattr(again, table)[key], value), (table, key)
    from bridgerl.arena.game import game_match
    from bridgerl.arena.specs import load_pair

    boards = game_match(load_pair(FAST, seed=3), load_pair(FAST, seed=3), data="test", deals=1, start=10, seed=3)
    d = 0
    play = pos.deals["play"][d]
    assert [int(c) for c in play[play >= 0]] == [_card(name) for name in boards[0]["tables"][0]["play"]]


def _card(name: str) -> int:
    from bridgerl.core.cards import parse_card

    return parse_card(name)


def test_positions_cli_and_bad_input(played, tmp_path, capsys):
    out, _ = played
    target = tmp_path / "p.npz"
    target.write_text("keep me")
    argv = ["data", "positions", "--data", "test", "--deals", "1", "--ns", FAST, "--ew", FAST, "--quiet",
            "--out", str(target)]
    assert main(argv) == 2 and "pass --force" in capsys.readouterr().err and target.read_text() == "keep me"
    assert main(argv + ["--force"]) == 0
    assert "positions of 1 deals" in capsys.readouterr().out and len(load_positions(target)) % 52 == 0
    assert main(["data", "positions", "--ns", "nonsense:x=1", "--out", str(tmp_path / "q.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nonsense" in err and not (tmp_path / "q.npz.partial").exists()
    with pytest.raises(PositionsError, match="not a positions file"):
        from bridgerl.core.dataset import bundled_path

        load_positions(bundled_path("test"))
    with pytest.raises(PositionsError, match="no such positions file"):
        load_positions(tmp_path / "missing.npz")
    arrays = dict(np.load(out))
    arrays["pos_dd"] = arrays["pos_dd"][:, :51]
    np.savez(tmp_path / "short.npz", **arrays)
    with pytest.raises(PositionsError, match="'dd' has shape"):
        load_positions(tmp_path / "short.npz")


def test_trick_loss_of_play_agents_on_positions(played, tmp_path, capsys):
    """The double-dummy oracle loses nothing; a random player loses tricks; the CLI prints the table and writes the
    JSON with the paired difference."""
    out, pos = played
    result_path = tmp_path / "loss.json"
    assert main(["evaluate", "trick-loss", "--positions", str(out), "--agents", "dd", "random", "--limit", "40",
                 "--quiet", "--json", str(result_path)]) == 0
    result = json.loads(result_path.read_text())
    assert result["positions"] == 40
    assert result["agents"]["dd"]["trick_loss"] == 0 and result["agents"]["random"]["trick_loss"] > 0
    assert result["paired"]["random - dd"]["mean"] == result["agents"]["random"]["trick_loss"]
    assert result["agents"]["dd"]["dds_positions_per_decision"] == 1  # the oracle solves the real deal once
    assert result["agents"]["random"]["dds_positions_per_decision"] == 0
    for name in ("dd", "random"):  # declaring and defending split the positions
        row = result["agents"][name]
        d, f = row["declaring"], row["defending"]
        assert d["positions"] + f["positions"] == 40 and min(d["positions"], f["positions"]) > 0
        assert d["trick_loss"] * d["positions"] + f["trick_loss"] * f["positions"] == pytest.approx(
            row["trick_loss"] * 40)
    assert result["agents"]["dd"]["declaring"]["trick_loss"] == 0
    assert "40 positions with a choice" in capsys.readouterr().out
    # the measures people compare with: opening leads giving up no DD trick, cards of tricks 1-12 losing one
    positions = load_positions(out)
    p = positions.positions
    chosen = np.flatnonzero(p["choices"] > 1)[:40]
    notrump = positions.deals["contract"][p["deal"], 1] == 4
    for name in ("dd", "random"):
        row = result["agents"][name]
        leads = row["opening_leads"]
        assert leads["suit"]["leads"] + leads["notrump"]["leads"] == int((p["step"][chosen] == 0).sum()) > 0
        assert all(part["no_loss"] in (None, 1.0) for part in leads.values()) if name == "dd" else True
        cards = sum(row["cards_losing"][role][kind]["cards"] for role in ("declaring", "defending")
                    for kind in ("suit", "notrump"))
        assert cards == int(((np.arange(len(p["deal"])) <= chosen[-1]) & (p["step"] < 48)).sum())
        assert row["cards_losing"]["declaring"]["suit" if not notrump[chosen[0]] else "notrump"]["cards"] > 0
    assert all(part["losing"] in (None, 0.0) for role in result["agents"]["dd"]["cards_losing"].values()
               for part in role.values())
    random_losing = [part["losing"] for role in result["agents"]["random"]["cards_losing"].values()
                     for part in role.values() if part["losing"] is not None]
    assert random_losing and max(random_losing) > 0


# the slow tier (CI runs it; docs/conventions.md): the four deals of the unlabelled file; its first two stay in the
# default tier
@pytest.mark.parametrize("deals", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_sampled_world_labels(played, tmp_path, capsys, deals):
    """``--label-worlds K`` adds, at each position with a choice, the number of K worlds (drawn from the chooser's
    view, seeded by (seed, row)) in which each legal card is DD-best: the same play as without labels, counts on
    legal cards only, at least one best card a world, none at the forced positions; a file of the same rows split
    otherwise holds the same labels; the count is checked in one line."""
    from bridgerl.core.bridge import CARD_OFFSET
    from bridgerl.agents.play.pimc import draw_worlds, solve_worlds
    from bridgerl.evaluation.datasets.positions import worlds_best

    _, plain = played
    out = tmp_path / "labelled.npz"
    generate_positions(out, data="test", deals=deals, start=10, ns=FAST, ew=FAST, seed=3, chunk=2, progress=False,
                       label_worlds=5)
    labelled = load_positions(out)
    assert labelled.meta["label_worlds"] == 5 and plain.meta["label_worlds"] == 0 and "worlds" not in plain.positions
    first = plain.positions["deal"] < deals  # the unlabelled file's first deals: the same rows
    for k in plain.positions:
        np.testing.assert_array_equal(labelled.positions[k], plain.positions[k][first])
    pos = labelled.positions
    worlds, choice = pos["worlds"].astype(int), pos["choices"] > 1
    assert choice.any() and (worlds[~choice] == 0).all()
    assert (worlds[~pos["legal"]] == 0).all() and (worlds <= 5).all()
    assert (worlds[choice].sum(1) >= 1).all()  # every world has a best card
    assert (worlds[choice].max(1) <= 5).all()
    # the labels of the first deal, drawn again in the documented order
    d0 = np.flatnonzero(pos["deal"] == 0)
    rng = np.random.default_rng([3, int(labelled.deals["row"][0]), 4])
    for i in d0:
        if choice[i]:
            view = labelled.state(int(i)).view()
            np.testing.assert_array_equal(worlds_best(view, 5, rng), worlds[i])
            drawn = draw_worlds(view, 5, np.random.default_rng(int(i)))
            # the best cards DDS lists (solutions 2) are those of the full per-card scores (solutions 3)
            full = solve_worlds(view, drawn)
            best = solve_worlds(view, drawn, best=True)
            np.testing.assert_array_equal((full == full.max(1, keepdims=True)) & (full >= 0), best >= 0)
            assert (best[best >= 0] == np.broadcast_to(full.max(1, keepdims=True), full.shape)[best >= 0]).all()
    # the worlds are the view's: every world gives the chooser's known cards to their holders
    state = labelled.state(int(np.flatnonzero(choice)[3]))
    assert CARD_OFFSET + int(pos["card"][np.flatnonzero(choice)[3]]) in state.legal_actions()
    with pytest.raises(ValueError, match="--label-worlds must be in 0..255"):
        generate_positions(tmp_path / "x.npz", data="test", deals=1, ns=FAST, ew=FAST, label_worlds=300,
                           progress=False)
