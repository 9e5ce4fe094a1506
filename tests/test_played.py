"""Played-tricks tables (issue #38): `bridgerl data played` equals a replay of the card player's games; with
``tricks="played"`` every bidding env (Gymnasium, OpenSpiel, PettingZoo, JAX) scores the contract and its par
from the table (JAX and Python alike); par and constructive par from a hand-made table; the errors, one line each."""

import json

import gymnasium as gym
import numpy as np
import pytest

import bridgerl  # noqa: F401
from bridgerl.agents.learned.card_player import CardPlayer, build, save
from bridgerl.cli import main
from bridgerl.core import load_dataset, make_dataset, save_dataset
from bridgerl.core.board import VULS, dealers_for_boards, vul_codes_for_boards
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.competitive import CompetitiveDealSource
from bridgerl.core.contract import Contract
from bridgerl.core.dataset import DatasetError
from bridgerl.core.imps import imps
from bridgerl.core.par import constructive_par, par_score
from bridgerl.core.play_features import feature_size
from bridgerl.core.scoring import score
from bridgerl.evaluation.datasets.played import contract_levels, write_played

ROWS = 12


@pytest.fixture(scope="module")
def player_path(tmp_path_factory):
    """A small untrained card player (a seeded random network): the tables are its games whatever its weights."""
    path = tmp_path_factory.mktemp("player") / "model.msgpack"
    save(path, build(feature_size(False), (32, 32), seed=5), {"auction": False, "hidden": [32, 32]})
    return path


@pytest.fixture(scope="module")
def played_file(tmp_path_factory, player_path):
    d = load_dataset("test")
    folder = tmp_path_factory.mktemp("played")
    source = folder / "deals.npz"
    save_dataset(source, d.subset(np.arange(40, 40 + ROWS)), seed=np.asarray(7))
    out = folder / "played.npz"
    write_played(source, out, str(player_path), chunk=5, progress=False)
    return out


def test_played_table_equals_a_replay_of_the_card_player(played_file, player_path):
    """Each entry is declarer's tricks when the card player (numpy path, one view at a time) plays all four seats
    from the canonical start of that declarer's contract in that strain at the DD level; the file keeps the
    dataset's arrays and records the player and its checkpoint hash."""
    import hashlib

    dataset = load_dataset(played_file)
    with np.load(played_file) as npz:
        assert int(npz["seed"]) == 7 and str(npz["played_level"]) == "dd"
    assert dataset.tables is not None and dataset.tricks == "dd"
    assert dataset.played_by == {"player": str(player_path), "level": "dd",
                                 "hash": hashlib.sha256(player_path.read_bytes()).hexdigest()}
    player = CardPlayer.load(player_path)
    source = CompetitiveDealSource(dataset)
    levels = contract_levels(dataset.dd, "dd")
    for row in (0, 7, ROWS - 1):
        deal = source.deal_at(row)
        for declarer in range(4):
            for strain in range(5):
                state = BridgeState.at_opening_lead(deal, Contract(int(levels[row, declarer, strain]), strain, 0,
                                                                   declarer))
                while state.phase == "play":
                    state = state.apply(CARD_OFFSET + player.act(state.view()))
                assert state.play.declarer_tricks == dataset.tables["played"][row, declarer, strain], (row, declarer,
                                                                                                      strain)


def test_the_table_in_use(played_file, tmp_path):
    """``tricks="played"`` makes the played table the one every reader of ``dd`` sees; subsets and saving keep
    both tables; the errors are one line each."""
    dd = load_dataset(played_file)
    played = load_dataset(played_file, tricks="played")
    assert played.tricks == "played"
    np.testing.assert_array_equal(played.dd, dd.tables["played"])
    np.testing.assert_array_equal(played.with_tricks("dd").dd, dd.dd)
    part = played.subset([2, 3])
    np.testing.assert_array_equal(part.dd, dd.tables["played"][[2, 3]])
    np.testing.assert_array_equal(part.with_tricks("dd").dd, dd.dd[[2, 3]])
    save_dataset(tmp_path / "copy.npz", played)
    again = load_dataset(tmp_path / "copy.npz")
    np.testing.assert_array_equal(again.dd, dd.dd)
    np.testing.assert_array_equal(again.tables["played"], dd.tables["played"])
    plain = {"owner": dd.owner, "dd": dd.dd}  # a dataset without a played table
    with pytest.raises(DatasetError, match="no played-tricks table .*bridgerl data played"):
        load_dataset(plain, tricks="played")
    with pytest.raises(DatasetError, match="tricks must be one of dd, played"):
        load_dataset("test", tricks="single")
    with np.load(played_file) as npz:
        arrays = {k: npz[k] for k in npz.files}
    np.savez(tmp_path / "shape.npz", **{**arrays, "played": arrays["played"][:, :, :4]})
    with pytest.raises(DatasetError, match=r"'played' has shape \(12, 4, 4\), expected \(12, 4, 5\)"):
        load_dataset(tmp_path / "shape.npz")
    np.savez(tmp_path / "anon.npz", **{k: v for k, v in arrays.items() if k != "played_hash"})
    with pytest.raises(DatasetError, match="without played_hash"):
        load_dataset(tmp_path / "anon.npz")
    other = tmp_path / "other.msgpack"
    save(other, build(feature_size(False), (16,), seed=1), {"auction": False, "hidden": [16]})
    with pytest.raises(DatasetError, match="made by .* not by"):
        load_dataset(played_file, tricks="played", player=other)


def test_data_played_cli(played_file, player_path, tmp_path, capsys):
    """`bridgerl data played` writes the same table, refuses to overwrite, resumes from its chunks, and refuses
    a player that is not a learned card player or a bad level in one line."""
    out = tmp_path / "p.npz"
    assert main(["data", "played", "--data", str(played_file), "--player", str(player_path), "--out", str(out),
                 "--quiet"]) == 0
    assert "mean DD - played" in capsys.readouterr().out
    np.testing.assert_array_equal(load_dataset(out).tables["played"], load_dataset(played_file).tables["played"])
    assert main(["data", "played", "--data", str(played_file), "--player", str(player_path), "--out", str(out),
                 "--quiet"]) == 2
    assert "--force" in capsys.readouterr().err
    # an interrupted job: the chunks already written are kept, the rest is played
    parts = tmp_path / "q.npz.partial"
    write_played(played_file, tmp_path / "q.npz", str(player_path), chunk=5, progress=False)
    full = load_dataset(tmp_path / "q.npz").tables["played"]
    parts.mkdir()
    from bridgerl.core.dataset import dataset_hash

    stamp = {"command": "data played", "data": str(played_file), "data_sha256": dataset_hash(load_dataset(played_file)),
             "rows": ROWS, "player": str(player_path), "player_checkpoint": load_dataset(played_file).played_by["hash"],
             "level": "dd", "chunk": 5}
    (parts / "job.json").write_text(json.dumps(stamp))
    marked = full[:5].copy()
    marked[0, 0, 0] = 13 - marked[0, 0, 0]  # a chunk the rerun must take as done
    np.save(parts / "rows_0000000.npy", marked)
    (tmp_path / "q.npz").unlink()
    write_played(played_file, tmp_path / "q.npz", str(player_path), chunk=5, progress=False)
    resumed = load_dataset(tmp_path / "q.npz").tables["played"]
    np.testing.assert_array_equal(resumed[5:], full[5:])
    assert resumed[0, 0, 0] == marked[0, 0, 0] and not parts.exists()
    for args, message in ((["--player", "pimc:worlds=2"], "need a learned card player"),
                          (["--player", str(player_path), "--level", "9"], "--level must be 'dd' or a level 1..7")):
        assert main(["data", "played", "--data", str(played_file), "--out", str(tmp_path / "x.npz"), *args]) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err


def test_par_and_constructive_par_follow_the_table():
    """A hand-made deal whose DD table lets North-South make 4S while the played table leaves them 3NT (9 tricks in
    notrump, 9 in spades): par and constructive par are computed from the table in use."""
    d = load_dataset("test").subset([0])
    dd = np.full((1, 4, 5), 6, np.uint8)
    dd[0, [0, 2], 3] = 10       # NS: 10 tricks in spades double dummy
    dd[0, [0, 2], 4] = 8
    played = dd.copy()
    played[0, [0, 2], 3] = 9    # one fewer in spades when played
    played[0, [0, 2], 4] = 9    # one more in notrump
    arrays = {"owner": d.owner, "dd": dd, "board": np.array([1], np.int32), "played": played,
              "played_player": np.asarray("hand"), "played_hash": np.asarray("0" * 64),
              "played_level": np.asarray("dd")}
    both = load_dataset(arrays)
    vul, dealer = VULS[int(vul_codes_for_boards(np.array([1]))[0])], int(dealers_for_boards(np.array([1]))[0])
    assert vul == "none" and dealer == 0
    # double dummy: 4S by NS, 420; played: 3NT, 400 (hand computation: 100 + 300 game bonus)
    assert par_score(both.dd[0], vul, dealer) == 420
    assert par_score(both.with_tricks("played").dd[0], vul, dealer) == 400
    assert constructive_par(both.dd, [0], [False])[0] == 420
    assert constructive_par(both.with_tricks("played").dd, [0], [False])[0] == 400
    # and the competitive env scores 3NT by North, made with the played table's 9 tricks, at par: 0 IMPs
    env = gym.make("bridgerl/CompetitiveBidding-v0", dataset=both, tricks="played").unwrapped
    env.reset(options={"index": 0})
    for call in (3 + 14, 0, 0, 0):  # 3NT by North (bid index (3 - 1) * 5 + 4 = 14), then three passes
        _, reward, terminated, _, info = env.step(call)
    assert terminated and info["returns"][0] == imps(score(3, 4, 0, False, 9) - 400) == 0
    env = gym.make("bridgerl/CompetitiveBidding-v0", dataset=both, tricks="dd").unwrapped
    env.reset(options={"index": 0})
    for call in (3 + 14, 0, 0, 0):  # DD: 3NT goes one down (8 tricks) against a par of 420
        _, reward, terminated, _, info = env.step(call)
    assert info["returns"][0] == imps(score(3, 4, 0, False, 8) - 420)


def test_played_rewards_in_every_framework(played_file):
    """With ``tricks="played"`` the Gymnasium, OpenSpiel, PettingZoo and JAX bidding envs score the final contract
    with the played table and par from it; the JAX envs equal the Python envs step by step."""
    import pyspiel
    from test_jax_parity import _parity

    import bridgerl.envs.openspiel_competitive  # noqa: F401  (importing a game's module registers it)
    import bridgerl.envs.openspiel_uncontested  # noqa: F401

    from bridgerl.envs.pettingzoo import competitive_bidding_v0

    dataset = load_dataset(played_file, tricks="played")
    table = dataset.dd
    for row in range(4):
        env = gym.make("bridgerl/CompetitiveBidding-v0", dataset=str(played_file), tricks="played").unwrapped
        env.reset(options={"index": row})
        for call in (3 + 9, 0, 0, 0):  # 2NT by the dealer
            _, _, _, _, info = env.step(call)
        dealer = int(dealers_for_boards(dataset.boards[[row]])[0])
        vul = VULS[int(vul_codes_for_boards(dataset.boards[[row]])[0])]
        vulnerable = vul in ("both", ("NS", "EW")[dealer % 2])
        ns = score(2, 4, 0, vulnerable, int(table[row, dealer, 4])) * (1 if dealer % 2 == 0 else -1)
        expected = imps(ns - par_score(table[row], vul, dealer))
        assert info["returns"][0] == expected
        game = pyspiel.load_game("bridgerl_competitive_bidding", {"dataset": str(played_file), "tricks": "played"})
        state = game.new_initial_state()
        for action in game.deal_actions(row):
            state.apply_action(action)
        for call in (3 + 9, 0, 0, 0):
            state.apply_action(call)
        assert state.returns()[0] == expected
        pz = competitive_bidding_v0.raw_env(dataset=str(played_file), tricks="played")
        pz.reset(options={"index": row})
        for call in (3 + 9, 0, 0, 0):
            pz.step(call)
        assert pz.rewards["north"] == expected == -pz.rewards["east"]
    # uncontested: the bidding side's constructive par and the contract's tricks from the played table
    for row in range(ROWS):
        env = gym.make("bridgerl/UncontestedBidding-v0", dataset=str(played_file), tricks="played", side="EW",
                       opening_rules=False).unwrapped
        env.reset(options={"index": row})
        vulnerable = VULS[int(vul_codes_for_boards(dataset.boards[[row]])[0])] in ("EW", "both")
        par = int(constructive_par(table[[row]], [1], [vulnerable])[0])
        assert env.deal.par == par
        _, reward, terminated, _, _ = env.step(0)  # the opener passes
        _, reward, terminated, _, _ = env.step(0)  # and so does responder: passed out, 0 against par
        assert terminated and reward == -imps(par)
    game = pyspiel.load_game("bridgerl_uncontested_bidding", {"dataset": str(played_file), "tricks": "played"})
    np.testing.assert_array_equal(game.source.dataset.dd, table)
    for env_id, gym_id in (("uncontested_bidding", "bridgerl/UncontestedBidding-v0"),
                           ("competitive_bidding", "bridgerl/CompetitiveBidding-v0")):
        assert _parity(env_id, gym_id, {"tricks": "played"}, {"tricks": "played"}, 0, 60,
                       dataset=str(played_file)) > 0


def test_cross_table_with_the_cards_played(player_path, tmp_path, capsys):
    """`evaluate cross --play`: every pair of bidders in whole-deal duplicate with the card player at all four
    seats; each cell is that pair's `evaluate game` match; --boards-dir keeps the boards and a rerun reads them back."""
    from bridgerl.arena.game import Pair, game_match, summarize_game
    from bridgerl.arena.specs import load_agent, load_play_agent

    args = ["evaluate", "cross", "pass", "rules", "--play", str(player_path), "--deals", "4", "--quiet",
            "--boards-dir", str(tmp_path / "cross"), "--json", str(tmp_path / "cross.json")]
    assert main(args) == 0
    first = json.loads((tmp_path / "cross.json").read_text())
    assert first["play"] == str(player_path) and len(first["matches"]) == 1
    assert (tmp_path / "cross" / "MATCH_0_1.jsonl").exists()
    player = load_play_agent(str(player_path))
    boards = game_match(Pair("pass", load_agent("pass", "competitive_bidding"), player),
                        Pair("rules", load_agent("rules", "competitive_bidding", seed=1), player), "test", deals=4)
    direct = summarize_game(boards, "pass", "rules")
    assert first["matches"][0]["imps_per_board"] == direct["imps_per_board"]
    (tmp_path / "cross.json").unlink()
    assert main(args) == 0  # resumed from the kept boards: the same table
    assert json.loads((tmp_path / "cross.json").read_text())["matches"] == first["matches"]
    assert main(["evaluate", "cross", "pass", "rules", "--play", str(player_path), "--tricks", "played"]) == 2
    assert "leave out --tricks" in capsys.readouterr().err


def test_table_gap_and_data_info(played_file, tmp_path, capsys):
    """`table_gap` (and `bridgerl data info`) give DD - played over every entry, by strain, DD level and the
    contract at that level, each a plain mean of the entries it names."""
    from bridgerl.evaluation.datasets.played import table_gap

    dataset = load_dataset(played_file)
    gap = table_gap(dataset)
    diff = dataset.tables["dd"].astype(int) - dataset.tables["played"].astype(int)
    assert gap["all"]["entries"] == ROWS * 20 and gap["all"]["dd_minus_played"] == pytest.approx(diff.mean())
    assert gap["by_strain"]["NT"]["dd_minus_played"] == pytest.approx(diff[:, :, 4].mean())
    game = dataset.tables["dd"][:, :, 4] - 6 == 3  # 3NT is the game of notrump at the DD level 3
    if game.any():
        assert gap["by_dd_level"]["3"]["entries"] >= game.sum()
    assert sum(v["entries"] for v in gap["by_dd_level"].values()) == ROWS * 20
    assert sum(v["entries"] for v in gap["by_contract"].values()) == ROWS * 20
    shares = gap["all"]
    assert shares["played_below_dd"] + shares["played_equal_dd"] + shares["played_above_dd"] == pytest.approx(1)
    assert main(["data", "info", str(played_file), "--json", str(tmp_path / "gap.json")]) == 0
    out = capsys.readouterr().out
    assert "DD - played" in out and "by strain" in out
    assert json.loads((tmp_path / "gap.json").read_text())["all"] == gap["all"]
    with pytest.raises(ValueError, match="no played-tricks table"):
        table_gap({"owner": dataset.owner, "dd": dataset.dd})


def test_the_demonstrations_of_played_tricks_are_scored_with_them(played_file):
    """The teacher's demonstrations on a played table: the same calls as on the DD table, their returns those of the
    played-tricks env (the training run that reads them: the slow tier, below)."""
    from bridgerl.training.demonstrations import rule_demonstrations

    played = load_dataset(played_file, tricks="played")
    demos = rule_demonstrations(played, deals=ROWS)
    dd_demos = rule_demonstrations(str(played_file), deals=ROWS)
    np.testing.assert_array_equal(demos.action, dd_demos.action)  # the same calls, scored otherwise
    assert not np.array_equal(played.dd, played.tables["dd"])  # an untrained player: far from double dummy
    assert not np.array_equal(demos.ret, dd_demos.ret)


# the slow tier (CI runs it; docs/conventions.md): the played rewards in every framework, the demonstrations above
# and the play-out rewards below stay in the default tier
@pytest.mark.slow
def test_ppo_trains_on_played_tricks(played_file, tmp_path):
    """`train competitive --tricks played`: the env rewards, the demonstrations and the evaluations read the played
    table; the option is saved with the run and the model records the table's player."""
    from test_ppo import TINY, TINY_PRETRAIN

    from bridgerl.agents.learned.checkpoint import PPO_FORMAT, load_weights
    from bridgerl.evaluation.bidding.competitive import rule_baseline_evaluator
    from bridgerl.training.run import train_competitive

    played = load_dataset(played_file, tricks="played")
    out = tmp_path / "ppo"
    result = train_competitive(out, steps=128, preset="small", data=str(played_file), eval_data=str(played_file),
                               overrides={**TINY, "bc_weight": 0.1}, chunk=2, progress=False, command="pytest",
                               eval_deals=ROWS, eval_every_steps=128, pretrain=TINY_PRETRAIN,
                               evaluate_agent=rule_baseline_evaluator(str(played_file), ROWS, tricks="played"),
                               algo="ppo", env_options={"tricks": "played"})
    assert np.isfinite(result["vs_rules_imps_per_board"])
    metadata, _ = load_weights(out, format=PPO_FORMAT, what="PPO")
    assert metadata["env_options"] == {"tricks": "played"} and metadata["data"] == str(played_file)
    assert metadata["played_by"] == played.played_by
    with pytest.raises(ValueError, match="env_options"):
        train_competitive(out, steps=256, preset="small", data=str(played_file), eval_data=str(played_file),
                          overrides={**TINY, "bc_weight": 0.1}, chunk=2, progress=False, command="pytest",
                          eval_deals=ROWS, eval_every_steps=128, pretrain=TINY_PRETRAIN, resume=True,
                          evaluate_agent=rule_baseline_evaluator(str(played_file), ROWS), algo="ppo")


def test_bundled_played_tables_are_the_released_players():
    """The three bundled splits carry played tables made by `models/card-player` (its checkpoint hash), so
    `--tricks played` works on them out of the box and a retrained player cannot silently keep old tables."""
    from pathlib import Path

    model = Path(bridgerl.__file__).resolve().parent.parent / "models" / "card-player"
    for split in ("train", "valid", "test"):
        dataset = load_dataset(split, tricks="played", player=model)
        assert dataset.played_by["player"] == "models/card-player" and dataset.played_by["level"] == "dd"
        assert dataset.dd.shape == (len(dataset), 4, 5) and not np.array_equal(dataset.dd, dataset.tables["dd"])


def test_the_released_played_bidder_loads_as_a_bare_path():
    """`models/competitive-played` loads as a competitive bidder from its bare path and records the played table
    it was trained on (the first released card player's, now `models/card-player-1`)."""
    from pathlib import Path

    from bridgerl.agents import PPOAgent
    from bridgerl.arena.specs import load_agent

    root = Path(bridgerl.__file__).resolve().parent.parent
    agent = load_agent(str(root / "models" / "competitive-played"), "competitive_bidding")
    assert isinstance(agent, PPOAgent)
    assert agent.metadata["env_options"] == {"tricks": "played"}
    import hashlib

    first = root / "models" / "card-player-1" / "model.msgpack"  # the player of its tables, released as card-player
    assert agent.metadata["played_by"]["hash"] == hashlib.sha256(first.read_bytes()).hexdigest()


def test_played_envs_pickle(played_file):
    """Envs scoring with the played table pickle and deep-copy like the others, and keep scoring with it."""
    import copy
    import pickle

    from bridgerl.envs.pettingzoo import competitive_bidding_v0

    env = gym.make("bridgerl/CompetitiveBidding-v0",
                   dataset=str(played_file), tricks="played")
    env.reset(seed=3, options={"index": 2})
    for clone in (pickle.loads(pickle.dumps(env)), copy.deepcopy(env)):
        np.testing.assert_array_equal(clone.unwrapped.source.dataset.dd,
                                      load_dataset(played_file, tricks="played").dd)
    pz = competitive_bidding_v0.env(dataset=str(played_file), tricks="played")
    pz.reset(options={"index": 1})
    again = pickle.loads(pickle.dumps(pz))
    assert again.unwrapped.source.dataset.tricks == "played"


def test_played_tricks_refusals_and_the_uncontested_evaluation(played_file, tmp_path, capsys):
    """A PBN deal has no played table: refused in one line by an env scoring with played tricks; training on
    played tables of two different card players is refused; `evaluate uncontested --tricks played` scores with the
    table and replays its behaviour on the same sides; a split without a table is one line from the command."""
    pbn = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
    for env_id in ("bridgerl/CompetitiveBidding-v0", "bridgerl/UncontestedBidding-v0"):
        env = gym.make(env_id, dataset=str(played_file), tricks="played").unwrapped
        with pytest.raises(ValueError, match="a PBN deal has no played-tricks table"):
            env.reset(options={"deal": pbn})
    assert main(["evaluate", "uncontested", "--agent", "rules", "--data", str(played_file), "--tricks", "played",
                 "--json", str(tmp_path / "u.json")]) == 0
    summary = json.loads((tmp_path / "u.json").read_text())
    assert summary["tricks"] == "played" and "behaviour" in summary
    capsys.readouterr()
    plain = tmp_path / "plain.npz"
    save_dataset(plain, make_dataset(load_dataset("test").owner[:5], load_dataset("test").dd[:5]))
    assert main(["evaluate", "competitive", "--ns", "rules", "--ew", "pass", "--data", str(plain),
                 "--tricks", "played"]) == 2
    err = capsys.readouterr().err
    assert "no played-tricks table" in err and "bridgerl data played" in err and "Traceback" not in err
    from bridgerl.training.run import train_uncontested

    other = tmp_path / "other.npz"
    with np.load(played_file) as npz:
        np.savez(other, **{**{k: npz[k] for k in npz.files}, "played_hash": np.asarray("f" * 64)})
    with pytest.raises(ValueError, match="made by different card players"):
        train_uncontested(tmp_path / "run", steps=64, data=str(played_file), eval_data=str(other), progress=False,
                          env_options={"tricks": "played"})


@pytest.mark.slow  # the slow tier (docs/conventions.md): the card player's games and the played rewards stay
def test_ppo_playout_rewards_are_the_card_players_games(played_file, player_path):
    """PPO's ``playout``: the reward of every auction a rollout finishes is the card player's game of the contract
    reached after the real auction (Python whole deal, numpy card player, one view at a time), IMPs against the
    env's par (from the played table); `Bridge.after_auction` is where that game starts."""
    import jax

    from helper_games import collect_rollout, ended_auctions
    from test_ppo import TINY

    from bridgerl.envs import jaxenv
    from bridgerl.training.ppo import PPOConfig, PPOTrainer

    played = load_dataset(played_file, tricks="played")
    env = jaxenv.make("competitive_bidding", dataset=played, tricks="played")
    player = CardPlayer.load(player_path)
    config = PPOConfig(**{**TINY, "pool_size": 0, "rollout": 20}, playout=True)
    trainer = PPOTrainer(env, config, seed=3, card_player=player)
    rollout, _ = collect_rollout(trainer, env, trainer.init(env), jax.random.key(1), config.rollout)
    rewards = np.asarray(jax.jit(trainer._played_rewards)(env, rollout))
    source = CompetitiveDealSource(played)
    checked, contracts = 0, 0
    for t, b, calls in ended_auctions(rollout, rewards):
        index = int(rollout.ended["index"][t, b])
        state = BridgeState.start(source.deal_at(index))
        for call in calls:
            state = state.apply(call)
        while state.phase == "play":
            state = state.apply(CARD_OFFSET + player.act(state.view()))
        expected = imps(state.result().score_ns - int(env.par[index]))
        np.testing.assert_array_equal(rewards[t, b], [expected, -expected, expected, -expected])
        contracts += state.contract is not None
        checked += 1
    assert checked >= config.num_envs and contracts >= config.num_envs // 2
    with pytest.raises(ValueError, match="learned card player"):
        PPOTrainer(env, config, seed=3)
    with pytest.raises(ValueError, match="only used with playout"):
        PPOTrainer(env, config.replace(playout=False), card_player=player)


# the slow tier (CI runs it; docs/conventions.md): the play-out rewards themselves are checked in the default tier
@pytest.mark.slow
def test_train_competitive_reward_playout(played_file, tmp_path, capsys):
    """`train competitive --reward playout`: a short run records the option in its config; it needs --algo ppo
    and --tricks played (one line)."""
    from bridgerl.agents.learned.checkpoint import PPO_FORMAT, load_weights

    out = tmp_path / "run"
    common = ["train", "competitive", "--data", str(played_file), "--eval-data", str(played_file), "--eval-deals",
              str(ROWS), "--steps", "128", "--num-envs", "8", "--rollout", "8", "--minibatches", "2",
              "--epochs", "1", "--hidden", "16", "--quiet", "--out", str(out)]
    assert main(common + ["--algo", "ppo", "--tricks", "played", "--reward", "playout"]) == 0
    metadata, _ = load_weights(out, format=PPO_FORMAT, what="PPO")
    assert metadata["config"]["playout"] is True and metadata["env_options"] == {"tricks": "played"}
    for extra in (["--algo", "ppo"], ["--tricks", "played"]):
        assert main(common + ["--force", "--reward", "playout", *extra]) != 0
        assert "--reward playout is for --algo ppo --tricks played" in capsys.readouterr().err
