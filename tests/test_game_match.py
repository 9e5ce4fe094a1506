"""Whole-deal matches (`bridgerl evaluate game`), `bridgerl show`, and the --json/--report of `evaluate
competitive`."""

import json

import numpy as np
import pytest

from bridgerl.agents import DoubleDummyAgent, PIMCAgent, RuleBidder
from bridgerl.cli import main
from bridgerl.core.dataset import load_dataset
from bridgerl.arena.game import GameError, Pair, game_match, summarize_game
from bridgerl.arena.specs import load_pair, split_game_spec
from helper_games import untimed


def test_game_specs_split_at_play():
    assert split_game_spec("bid=rules,play=pimc:worlds=20,objective=make") == ("rules", "pimc:worlds=20,objective=make")
    assert split_game_spec("rules") == ("rules", "pimc:worlds=20")
    assert split_game_spec("play=dd") == ("rules", "dd")
    assert split_game_spec("bid=dqn:models/competitive-dqn") == ("dqn:models/competitive-dqn", "pimc:worlds=20")
    assert split_game_spec("rules,play=dd") == ("rules", "dd")
    for bad in ("bid=,play=dd", "bid=rules,play="):
        with pytest.raises(ValueError, match="game spec"):
            split_game_spec(bad)
    pair = load_pair("bid=models/competitive-dqn,play=dd")  # a bare model path loads as dqn: would
    assert type(pair.bidder).__name__ == "DQNAgent" and isinstance(pair.player, DoubleDummyAgent)


def pairs():
    return (Pair("pimc", RuleBidder(competitive=True), PIMCAgent(worlds=4)),
            Pair("dd", RuleBidder(competitive=True), DoubleDummyAgent()))




# the slow tier (CI runs it; docs/conventions.md): four boards, cut after two; two, cut after one, stay in the default
@pytest.mark.parametrize("deals", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_a_seeded_match_repeats_and_resumes(tmp_path, deals):
    first = untimed(game_match(*pairs(), deals=deals, seed=5))
    again = untimed(game_match(*pairs(), deals=deals, seed=5))
    assert first == again
    out = tmp_path / "match.jsonl"
    game_match(*pairs(), deals=deals // 2, seed=5, out=out)  # interrupted after half the boards
    resumed = untimed(game_match(*pairs(), deals=deals, seed=5, out=out))
    assert resumed == first
    assert len(out.read_text().splitlines()) == 1 + deals  # header + every board
    with pytest.raises(ValueError, match="holds another match: seed is"):
        game_match(*pairs(), deals=deals, seed=6, out=out)


def test_boards_are_scored_in_duplicate():
    boards = game_match(*pairs(), deals=5, seed=0)
    dataset = load_dataset("test")
    from bridgerl.core import imps

    for item in boards:
        one, two = item["tables"]
        assert item["imps"] == int(imps(one["score_ns"] - two["score_ns"]))
        for record in (one, two):
            if record["declarer"] is None:
                assert record["score_ns"] == 0 and record["play"] == []
                continue
            assert len(record["play"]) == 52
            seat, strain = "NESW".index(record["declarer"]), "CDHSN".index(record["contract"][1])
            assert record["dd_tricks"] == dataset.dd[item["row"], seat, strain]
            assert record["differential"] == record["dd_tricks"] - record["tricks"]
    summary = summarize_game(boards, "pimc", "dd")
    assert summary["boards"] == 5 and np.isfinite(summary["imps_per_board"])
    assert summary["a_declaring"]["contracts"] + summary["b_declaring"]["contracts"] == sum(
        r["declarer"] is not None for item in boards for r in item["tables"])


def test_a_rule_breaking_player_is_named():
    class Revoke:
        def act(self, view):
            return next(c for c in range(52) if c not in view.legal)

    with pytest.raises(GameError, match="illegal card"):
        game_match(Pair("bad", RuleBidder(competitive=True), Revoke()), pairs()[1], deals=3)


def test_evaluate_game_cli_writes_json_report_and_resumes(tmp_path, capsys):
    args = ["evaluate", "game", "--ns", "bid=rules,play=pimc:worlds=4", "--ew", "bid=rules,play=dd", "--deals", "3",
            "--quiet", "--out", str(tmp_path / "m.jsonl"), "--json", str(tmp_path / "s.json"),
            "--report", str(tmp_path / "report"), "--pbn", str(tmp_path / "m.pbn")]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "bid=rules,play=pimc:worlds=4 vs bid=rules,play=dd:" in printed and "IMPs/board for" in printed
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["boards"] == 3 and len(summary["board_results"]) == 3
    assert (tmp_path / "report" / "report.md").exists() and (tmp_path / "report" / "imps.png").exists()
    from bridgerl.core.records import read_records

    records = read_records(tmp_path / "m.pbn")  # both tables of each board, auction and play
    assert len(records) == 6 and [len(r.cards) for r in records[:2]] == [len(t["play"]) for t in
                                                                          summary["board_results"][0]["tables"]]
    assert main(args) == 2  # the PBN file exists: refused without --force
    assert main(args + ["--force"]) == 0  # resumes: every board is in the --out file
    assert capsys.readouterr().out.splitlines()[0] == printed.splitlines()[0]


def test_show_prints_hands_auction_and_tricks(capsys):
    assert main(["show", "--ns", "bid=rules,play=dd", "--ew", "rules", "--index", "3"]) == 0
    text = capsys.readouterr().out
    assert "North-South: bid=rules,play=dd" in text and "trick 13:" in text and "Result:" in text


def test_evaluate_competitive_json_and_report(tmp_path, capsys):
    assert main(["evaluate", "competitive", "--ns", "rules", "--ew", "pass", "--deals", "20",
                 "--json", str(tmp_path / "c.json"), "--report", str(tmp_path / "rep")]) == 0
    assert "rules vs pass:" in capsys.readouterr().out
    summary = json.loads((tmp_path / "c.json").read_text())
    assert len(summary["board_results"]) == 20 and summary["contracts"]["passed_out"] >= 1
    assert "Biggest swings" in (tmp_path / "rep" / "report.md").read_text()


def test_resume_after_a_line_cut_short(tmp_path):
    out = tmp_path / "match.jsonl"
    game_match(*pairs(), deals=2, seed=1, out=out)
    text = out.read_text()
    out.write_text(text[:-40])  # killed while writing board 2
    resumed = untimed(game_match(*pairs(), deals=3, seed=1, out=out))
    assert [item["row"] for item in resumed] == [0, 1, 2]
    assert len(out.read_text().splitlines()) == 4  # header + 3 boards, none lost
    assert untimed(game_match(*pairs(), deals=3, seed=1, out=out)) == resumed
    with pytest.raises(ValueError, match="is a directory"):
        game_match(*pairs(), deals=1, out=tmp_path)


# the slow tier (CI runs it; docs/conventions.md): four boards; the first two stay in the default tier
@pytest.mark.parametrize("deals", [2, pytest.param(4, marks=pytest.mark.slow)])
def test_decisions_never_read_the_datasets_dd_table(tmp_path, deals):
    """Bidders and card players decide on what they see (PIMC solves its own sampled worlds): scrambling the dataset's
    DD table leaves every call and card of a match unchanged (only the DD comparisons move)."""
    from bridgerl.core.dataset import make_dataset, save_dataset

    dataset = load_dataset("test")
    rng = np.random.default_rng(0)
    scrambled = make_dataset(dataset.owner[:4], rng.permutation(dataset.dd[:4].reshape(-1)).reshape(4, 4, 5),
                             dataset.boards[:4])
    save_dataset(tmp_path / "scrambled.npz", scrambled)
    plain = game_match(*pairs()[:1], Pair("pimc-b", RuleBidder(competitive=True), PIMCAgent(worlds=4)), deals=deals)
    moved = game_match(*pairs()[:1], Pair("pimc-b", RuleBidder(competitive=True), PIMCAgent(worlds=4)),
                       data=tmp_path / "scrambled.npz", deals=deals)
    assert [[(t["auction"], t["play"]) for t in item["tables"]] for item in plain] == \
        [[(t["auction"], t["play"]) for t in item["tables"]] for item in moved]


def test_json_is_strict_when_a_mean_does_not_exist(tmp_path):
    assert main(["evaluate", "game", "--ns", "bid=rules,play=dd", "--ew", "bid=rules,play=dd", "--deals", "1",
                 "--quiet", "--json", str(tmp_path / "one.json")]) == 0
    text = (tmp_path / "one.json").read_text()
    assert "NaN" not in text and json.loads(text)["ci95"] is None


def test_outputs_of_the_wrong_kind_are_refused_before_the_match(tmp_path, capsys):
    (tmp_path / "afile").write_text("x")
    base = ["evaluate", "game", "--ns", "bid=rules,play=dd", "--ew", "bid=rules,play=dd", "--deals", "1", "--quiet"]
    for extra, message in ((["--json", str(tmp_path)], "--json"), (["--report", str(tmp_path / "afile")], "--report"),
                           (["--pbn", str(tmp_path), "--force"], "--pbn"), (["--out", str(tmp_path)], "--out")):
        assert main(base + extra) == 2
        err = capsys.readouterr().err
        assert err.startswith("bridgerl: error:") and message in err and err.count("\n") == 1
    assert main(["evaluate", "records", str(tmp_path / "missing.pbn")]) == 2
    assert "no such hand-record file" in capsys.readouterr().err


def _without_seconds(boards: list[dict]) -> list[dict]:
    return [{**board, "tables": [{k: v for k, v in t.items() if k != "seconds"} for t in board["tables"]]}
            for board in boards]


def test_batched_matches_give_the_boards_of_the_unbatched_run(tmp_path):
    """Network card players (`act_views`) play tables in lockstep; network bidders bid through one batch shape:
    the boards are those of one board at a time, for any batch, and a resumed batched match completes them."""
    from bridgerl.arena.game import batchable

    specs = [("bid=dqn:models/competitive-dqn,play=issn", "bid=sayc,play=issn"),  # both tables in lockstep
             ("bid=rules+dqn:models/uncontested-dqn,play=issn", "bid=rules,play=random")]  # a reseeded player:
    # its tables are played one at a time
    for ns, ew in specs:
        runs = {}
        for batch in (1, 5, 64):
            a, b = load_pair(ns, seed=0), load_pair(ew, seed=1)
            runs[batch] = _without_seconds(game_match(a, b, "valid", deals=12, start=3, seed=2, batch=batch))
        assert runs[1] == runs[5] == runs[64]
        assert all(len(t["play"]) == 52 for board in runs[1] for t in board["tables"] if t["contract"] != "Pass")
    a, b = load_pair(specs[0][0], seed=0), load_pair(specs[0][1], seed=1)
    assert batchable(a.player) and not batchable(load_pair(specs[1][1], seed=1).player)
    out = tmp_path / "game.jsonl"
    game_match(a, b, "valid", deals=5, start=3, seed=2, batch=3, out=out)  # boards 3-7, then the rest resumes
    resumed = _without_seconds(game_match(a, b, "valid", deals=12, start=3, seed=2, batch=4, out=out))
    assert resumed == _without_seconds(game_match(load_pair(specs[0][0], seed=0), load_pair(specs[0][1], seed=1),
                                                  "valid", deals=12, start=3, seed=2, batch=1))
    with pytest.raises(ValueError, match="batch must be at least 1"):
        game_match(a, b, "valid", deals=2, batch=0)


def test_boards_of_players_without_act_views_are_kept_as_they_finish(tmp_path):
    """A match whose card players cannot batch writes each board when it is played, whatever ``batch``: a player
    breaking the rules on a later board leaves the boards before it in the file."""
    from bridgerl.agents import RandomAgent

    class RevokeOnThird:
        def __init__(self):
            self.cards = 0

        def act(self, view):
            self.cards += 1
            if self.cards > 100:  # some 26 cards a table: during the second or third board
                return next(c for c in range(52) if c not in view.legal)
            return view.legal[0]

    out = tmp_path / "m.jsonl"
    with pytest.raises(GameError, match="illegal card"):
        game_match(Pair("bad", RuleBidder(competitive=True), RevokeOnThird()),
                   Pair("rules", RuleBidder(competitive=True), RandomAgent(seed=0)), "valid", deals=6, batch=64,
                   out=out)
    boards = len(out.read_text().splitlines()) - 1  # the first line names the match
    assert 1 <= boards < 6


def test_network_decisions_do_not_depend_on_their_batch():
    """`act_fixed` (bidders) and `act_views` (the ISSN card player) run their networks in one batch shape: a
    position's action is the same alone and among others."""
    from bridgerl.agents.learned.dqn import DQNAgent
    from bridgerl.agents.learned.simulation import PolicyAgent
    from bridgerl.core.bridge import BridgeState
    from bridgerl.core.competitive import CompetitiveDealSource

    agent = DQNAgent.load("models/competitive-dqn")
    source = CompetitiveDealSource(load_dataset("valid"))
    rng = np.random.default_rng(0)
    observations, masks = [], []
    for row in range(40):  # positions of random auctions
        state = BridgeState.start(source.deal_at(row))
        while state.phase == "auction":
            observations.append(state.auction_observation())
            masks.append(state.auction.legal_mask().astype(np.int8))
            calls = state.legal_actions()
            state = state.apply(calls[0] if rng.random() < 0.6 else int(rng.choice(calls)))
    observations, masks = np.stack(observations), np.stack(masks)
    together = agent.act_fixed(observations, masks)
    assert len(observations) > 100
    assert all(agent.act_fixed(observations[i:i + 1], masks[i:i + 1])[0] == together[i]
               for i in range(0, len(observations), 7))
    views = []
    for row in range(30):
        state = BridgeState.start(source.deal_at(row))
        while state.phase != "over":
            if state.phase == "play" and len(state.play.history) % 9 == 1:
                views.append(state.view())
            state = state.apply(state.legal_actions()[0] if state.phase == "play" else 0 if state.auction.calls
                                else 3 + 14)
    player = PolicyAgent()
    cards = player.act_views(views)
    assert len(views) > 64 and all(player.act(view) == card for view, card in zip(views[::5], cards[::5]))
