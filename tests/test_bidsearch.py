"""Issue #65: `bidsearch:` (search at the table over a competitive bidder's candidate calls), the trick estimator it
scores with, and one round of expert iteration (`data bid-labels` with the search as teacher, `train distill`).

The searches here are small (8 worlds of at most 512 drawn) and score with an untrained trick estimator written by
the fixture: these tests check what the search does, not how well it bids (docs/results.md measures that)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgerl.agents.learned.bidsearch import BidSearch
from bridgerl.agents.learned.trick_estimator import TrickEstimator, build, deal_features, save
from bridgerl.arena.specs import load_agent, load_pair
from bridgerl.core import load_dataset
from bridgerl.core.board import VULS
from bridgerl.core.bridge import BridgeState
from bridgerl.core.auction import Auction
from bridgerl.core.competitive import HAND_OFFSET, CompetitiveDeal, decode_auction, encode
from bridgerl.core.dataset import save_dataset

BASE = "models/competitive-student"


@pytest.fixture(autouse=True)
def _repository_root(monkeypatch, request):
    monkeypatch.chdir(request.config.rootpath)  # models/...


@pytest.fixture(scope="module")
def estimator(tmp_path_factory):
    """An untrained trick estimator (small): the search's scoring path, without a trained model."""
    path = tmp_path_factory.mktemp("estimator") / "model.msgpack"
    save(path, build((16,), seed=0), {"hidden": [16], "kind": "trick-estimator"})
    return str(path)


def spec(estimator, extra: str = "", base: str = BASE) -> str:
    return f"bidsearch:worlds=8,draws=512,min_ess=2,{extra}estimator={estimator},base={base}"


def positions(rows=(0, 1, 2), dealer_of=lambda row: row % 4):
    """(observation, mask, state) of every call of valid rows bid by the student at all four seats."""
    base = load_agent(BASE, "competitive_bidding")
    data = load_dataset("valid")
    out = []
    for row in rows:
        state = BridgeState.start(CompetitiveDeal(data.owner[row], None, dealer_of(row), VULS[row % 4], row + 1, row))
        while state.phase == "auction":
            obs, mask = state.auction_observation(), state.auction.legal_mask()
            out.append((obs, mask, state))
            state = state.apply(int(base.act_fixed(obs[None], mask[None].astype(np.int8))[0]))
    return out


def test_the_same_seed_gives_the_same_calls_and_every_call_is_legal(estimator):
    found = []
    for _ in range(2):
        agent = load_agent(spec(estimator), "competitive_bidding", seed=5)
        calls = []
        for k, (obs, mask, _) in enumerate(positions()):
            agent.reseed(k)
            decision = agent.decide(obs, mask)
            assert mask[decision.call] and all(mask[c] for c, _, _ in decision.candidates)
            calls.append((decision.call, decision.worlds, decision.ess, [c for c, _, _ in decision.candidates]))
        found.append(calls)
        assert agent.stats.searched >= 3, agent.stats.summary()  # the student has several calls worth a look
        assert agent.stats.searched > agent.stats.fallbacks  # worlds were kept and the candidates scored
    assert found[0] == found[1]


@settings(max_examples=8, deadline=None)
@given(row=st.integers(0, 4999), cut=st.integers(1, 8), greedy=st.booleans())
def test_kept_worlds_give_every_hidden_call_at_least_p_and_greedy_ones_reproduce_it(estimator, row, cut, greedy):
    data = load_dataset("valid")
    base = load_agent(BASE, "competitive_bidding")
    state = BridgeState.start(CompetitiveDeal(data.owner[row], None, row % 4, VULS[row % 4], row + 1, row))
    for _ in range(cut):
        if state.phase != "auction":
            break
        obs, mask = state.auction_observation(), state.auction.legal_mask()
        state = state.apply(int(base.act_fixed(obs[None], mask[None].astype(np.int8))[0]))
    if state.phase != "auction":
        return
    agent = BidSearch(base, worlds=8, draws=512, min_prob=0.05, belief="greedy" if greedy else "weighted",
                      score="dd", seed=row)
    obs = state.auction_observation()
    calls = decode_auction(obs)
    hand = obs[HAND_OFFSET:].astype(bool)
    owners, weights, drawn = agent.sample_worlds(calls, bool(obs[0]), bool(obs[1]), hand)
    assert 0 < drawn <= 512 and len(owners) <= 8 and len(weights) == len(owners)
    for owner in owners:
        assert ((owner == 0) == hand).all() and (np.bincount(owner, minlength=4) == 13).all()
        # replay the auction in this world: each hidden seat's model gives its call at least P (greedy: makes it)
        auction = Auction(dealer=(-len(calls)) % 4)
        for seat, call in calls:
            if seat != 0:
                seat_obs = encode(list(auction.calls), bool(obs[0 if seat % 2 == 0 else 1]),
                                  bool(obs[1 if seat % 2 == 0 else 0]), (owner == seat).astype(np.int8))
                probs = base.numpy_probabilities(seat_obs[None], auction.legal_mask()[None])[0]
                if greedy:
                    assert probs.argmax() == call
                else:
                    assert probs[call] >= 0.05
            auction = auction.add(call)


def test_the_calls_do_not_read_the_rows_tables(tmp_path, estimator):
    """No peeking: the dd and played tables of the rows scrambled, every call the same."""
    from bridgerl.arena.game import game_match

    data = load_dataset("valid").subset(np.arange(3))
    save_dataset(tmp_path / "real.npz", data)
    rng = np.random.default_rng(0)
    arrays = dict(np.load(tmp_path / "real.npz"))
    arrays["dd"] = rng.integers(0, 14, arrays["dd"].shape).astype(np.uint8)
    arrays["played"] = rng.integers(0, 14, arrays["played"].shape).astype(np.int8)
    np.savez(tmp_path / "scrambled.npz", **arrays)
    a = f"bid={spec(estimator)},play=models/card-player"
    results = [game_match(load_pair(a, seed=1), load_pair("bid=rules,play=models/card-player", seed=2),
                          str(tmp_path / name), deals=3, seed=1) for name in ("real.npz", "scrambled.npz")]
    auctions = [[t["auction"] for board in r for t in board["tables"]] for r in results]
    assert auctions[0] == auctions[1]


def test_with_one_candidate_it_bids_as_its_base(estimator):
    base = load_agent(BASE, "competitive_bidding")
    one = load_agent(spec(estimator, "candidates=1,"), "competitive_bidding")
    rules_search = load_agent(spec(estimator, base="rules"), "competitive_bidding")
    rules = load_agent("rules", "competitive_bidding")
    for obs, mask, _ in positions():
        expected = int(base.act_fixed(obs[None], mask[None].astype(np.int8))[0])
        assert one.act(obs, mask) == expected
        assert rules_search.act(obs, mask) == rules.act(obs, mask)  # rules has no probabilities: one candidate
    assert one.stats.searched == 0 and rules_search.stats.searched == 0


def test_specs_nest_and_are_refused_in_one_line(estimator):
    agent = load_agent(f"punisher:{spec(estimator)}", "competitive_bidding")
    assert isinstance(agent.base, BidSearch) and agent.base.worlds == 8
    for bad, words in (("bidsearch:worlds=8", "names no base"), ("bidsearch:base=", "names no bidder"),
                       (f"bidsearch:score=best,base={BASE}", "score must be one of"),
                       (f"bidsearch:seed=3,base={BASE}", "unknown key"),
                       ("bidsearch:base=sayc", None)):
        if words is None:
            continue
        with pytest.raises(ValueError, match=words):
            load_agent(bad, "competitive_bidding")
    with pytest.raises(ValueError, match="uncontested"):
        load_agent(f"bidsearch:base={BASE}", "uncontested_bidding")


def test_punished_scoring_doubles_our_failing_contracts_only():
    """``punished=true``: each of our undoubled contracts scores doubled where it fails (the exploitability's
    punisher), as bid where it makes; doubled contracts and theirs score as before (score=dd: exact tricks)."""
    from bridgerl.core.contract import Contract
    from bridgerl.core.dd import solve_dd_table
    from bridgerl.core.scoring import SCORE_TABLE

    owner = load_dataset("valid").owner[3]
    dd = solve_dd_table(owner)
    plain, punished = (load_agent(f"bidsearch:score=dd,{flag}base=rules", "competitive_bidding")
                       for flag in ("", "punished=true,"))
    assert "punished" in repr(punished) and "punished" not in repr(plain)
    contracts = [[Contract(level, strain, penalty, declarer)] for level in (1, 4, 7) for strain in (0, 4)
                 for penalty in (0, 1) for declarer in (0, 1)]
    a = plain.our_scores(owner[None], contracts, False, True)[:, 0]
    b = punished.our_scores(owner[None], contracts, False, True)[:, 0]
    failed = 0
    for (contract,), x, y in zip(contracts, a, b):
        tricks = int(dd[contract.declarer, contract.strain])
        fails = tricks < contract.level + 6
        if contract.declarer % 2 == 0 and contract.penalty == 0 and fails:
            assert y == SCORE_TABLE[contract.bid, 1, 0, tricks] < x
            failed += 1
        else:
            assert y == x
    assert failed >= 2


def test_a_search_over_sayc_is_refused_as_a_teacher():
    from bridgerl.training.bid_labels import LabelError, load_teacher

    with pytest.raises(LabelError, match="held out"):
        load_teacher("bidsearch:score=dd,base=sayc")


def test_the_trick_estimator_trains_seeded_and_resumes(tmp_path):
    from bridgerl.training.supervised import SupervisedConfig, train_supervised
    from bridgerl.evaluation.datasets.trick_estimator import estimator_mae
    from bridgerl.training.trick_estimator import examples, trick_estimator_task

    train = load_dataset("train")
    save_dataset(tmp_path / "small.npz", train.subset(np.arange(600)))
    save_dataset(tmp_path / "small_valid.npz", load_dataset("valid").subset(np.arange(200)))
    x, y = examples(str(tmp_path / "small.npz"))
    assert x.shape == (2400, 208) and y.shape == (2400, 5)
    owner, played = train.owner[1], np.asarray(train.tables["played"][1])
    assert (y[4 + 2] == played[2]).all()  # deal 1 from South
    assert (x[4 + 2].reshape(4, 52)[0] == (owner == 2)).all()  # seat 0 of the features: declarer
    config = SupervisedConfig(hidden=(32,), epochs=2, batch_size=128, learning_rate=1e-3)
    task = trick_estimator_task()
    args = (str(tmp_path / "small.npz"), str(tmp_path / "small_valid.npz"))
    train_supervised(task, tmp_path / "whole", *args, config, seed=3, progress=False)
    train_supervised(task, tmp_path / "cut", *args, SupervisedConfig(hidden=(32,), epochs=1, batch_size=128,
                                                                     learning_rate=1e-3), seed=3, progress=False)
    train_supervised(task, tmp_path / "cut", *args, config, seed=3, progress=False, resume=True)
    logs = [[json.loads(line) for line in (tmp_path / run / "log.jsonl").read_text().splitlines()]
            for run in ("whole", "cut")]
    assert [r["valid_mae"] for r in logs[0]] == [r["valid_mae"] for r in logs[1]]
    assert (tmp_path / "whole" / "model.msgpack").read_bytes() == (tmp_path / "cut" / "model.msgpack").read_bytes()
    model = TrickEstimator.load(tmp_path / "whole")
    dist = model.distribution(owner[None], [0])
    assert dist.shape == (1, 5, 14) and np.allclose(dist.sum(-1), 1, atol=1e-5)
    assert model.table(owner[None]).shape == (1, 4, 5)
    result = estimator_mae(model, str(tmp_path / "small_valid.npz"))
    assert 0 <= result["mae"] < 3.5 and result["deals"] == 200
    for bad, words in (("valid", "never trained on"), ("test", "never trained on")):
        with pytest.raises(ValueError, match=words):
            train_supervised(task, tmp_path / "bad", bad, args[1], config, progress=False)
    save_dataset(tmp_path / "test_copy.npz", load_dataset("test"))
    with pytest.raises(ValueError, match="test split"):
        train_supervised(task, tmp_path / "bad", str(tmp_path / "test_copy.npz"), args[1], config, progress=False)
    assert deal_features(owner[None], [3]).reshape(4, 52)[1].tolist() == (owner == 0).tolist()


def test_an_expert_iteration_round_is_seeded_resumable_and_moves_toward_the_search(tmp_path, estimator):
    from bridgerl.training.bid_labels import LabelJob, load_teacher, write_labels
    from bridgerl.training.expert_iteration import DistillConfig, distill, search_labels

    teacher_spec = spec(estimator, "margin=0,")  # margin 0: any gain changes the call, so labels differ from BASE
    files = []
    for name in ("a", "b"):
        teacher, identity = load_teacher(teacher_spec, seed=0)
        write_labels(LabelJob(teacher_spec, "fresh", 4, seed=2), tmp_path / f"{name}.npz", teacher, identity)
        files.append(tmp_path / f"{name}.npz")
    first, second = (dict(np.load(f)) for f in files)
    for key in ("obs_bits", "call", "searched"):
        assert (first[key] == second[key]).all()
    labels = search_labels(files[0])
    assert labels["searched"].sum() >= 3
    base = load_agent(BASE, "competitive_bidding")
    base_calls = base.act_fixed(labels["obs"], labels["mask"].astype(np.int8))
    changed = labels["searched"] & (base_calls != labels["call"])
    assert changed.any()  # the search made calls its base would not
    config = DistillConfig(updates=60, batch_size=32, learning_rate=3e-4, chunk=30)
    distill(tmp_path / "whole", BASE, files[0], config, seed=1, progress=False)
    # interrupted after the first chunk: the state saved then, resumed to the end, gives the same network
    from bridgerl.training import expert_iteration

    calls = {"n": 0}
    real = expert_iteration._DistillRecipe.step

    def stop_after_one(self, carry, n):
        if calls["n"] == 1:
            raise KeyboardInterrupt
        calls["n"] += 1
        return real(self, carry, n)

    expert_iteration._DistillRecipe.step = stop_after_one
    try:
        with pytest.raises(KeyboardInterrupt):
            distill(tmp_path / "resumed", BASE, files[0], config, seed=1, progress=False)
    finally:
        expert_iteration._DistillRecipe.step = real
    distill(tmp_path / "resumed", BASE, files[0], config, seed=1, progress=False, resume=True)
    assert (tmp_path / "whole" / "model.msgpack").read_bytes() == \
        (tmp_path / "resumed" / "model.msgpack").read_bytes()
    student = load_agent(f"ppo:{tmp_path / 'whole'}", "competitive_bidding")
    after = student.act_fixed(labels["obs"], labels["mask"].astype(np.int8))
    before_agree = (base_calls == labels["call"])[changed].mean()
    after_agree = (after == labels["call"])[changed].mean()
    assert after_agree > before_agree, (before_agree, after_agree)
    log = [json.loads(line) for line in (tmp_path / "whole" / "log.jsonl").read_text().splitlines()]
    assert [r["updates"] for r in log] == [30, 60] and log[-1]["searched_positions"] == labels["searched"].sum()
    assert log[-1]["search_changed_base"] == pytest.approx(changed.sum() / labels["searched"].sum())


def test_bidsearch_plays_a_board_as_a_table_seat(tmp_path, estimator):
    from test_table import outcome, session

    from bridgerl.arena.game import game_match

    a = f"bid={spec(estimator)},play=models/card-player"
    b = "bid=rules,play=models/card-player"
    results, errors, _ = session(tmp_path, rooms=2, deals=1, start=2, seed=4, specs=(a, b))
    assert results["failure"] is None and not errors
    expected = game_match(load_pair(a, seed=4), load_pair(b, seed=5), "test", deals=1, start=2, seed=4)
    for got, want in zip(results["board_results"], expected):
        assert [outcome(t) for t in got["tables"]] == [outcome(t) for t in want["tables"]]


def test_the_page_explains_a_searched_call(estimator):
    from bridgerl.arena.explain import considered

    agent = load_agent(spec(estimator), "competitive_bidding")
    shown = [considered(agent, state) for _, _, state in positions((0, 1))]
    assert all(s["kind"] == "search" for s in shown)
    searched = [s for s in shown if s["searched"] and not s["fallback"]]
    assert searched and all(len(s["candidates"]) >= 2 and s["worlds"] > 0 and s["ess"] >= 2 for s in searched)
    assert all(isinstance(c["imps"], float) and 0 < c["probability"] <= 1 for s in searched for c in s["candidates"])
    assert shown == [considered(agent, state) for _, _, state in positions((0, 1))]  # the same each time asked
