"""Card-location inference (issue #20): features, hard constraints, the exact uniform prior, training, evaluation."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgerl.agents.learned.card_location import (FEATURES, LocationModel, encode, positions_inputs, uniform_prior,
                                                   view_inputs)
from bridgerl.cli import main
from bridgerl.core.positions import load_positions
from helper_games import small_positions

FAST = "bid=rules,play=pimc:worlds=4"


@pytest.fixture(scope="module")
def positions_file(tmp_path_factory):
    """Positions of three training-split deals (what a model may learn from)."""
    return small_positions(tmp_path_factory, "train", 3, 40, FAST, 1)


@pytest.fixture(scope="module")
def valid_file(tmp_path_factory):
    """Positions of two validation-split deals (what a model is selected on)."""
    return small_positions(tmp_path_factory, "valid", 2, 0, FAST, 1)


def test_features_from_a_view_equal_those_from_the_file_and_the_truth_is_allowed(positions_file):
    """The chooser's view at play time (`view_inputs`) and the positions file (`positions_inputs`) give the same
    features and constraints; every unseen card's true seat is allowed, every seen card has none; the uniform prior
    is a distribution per card whose column sums are the hidden seats' card counts."""
    pos = load_positions(positions_file)
    inputs, target = positions_inputs(pos)
    x, allowed, counts = encode(**inputs)
    assert x.shape == (len(pos), FEATURES) and x.dtype == np.int8
    unseen = target >= 0
    assert (allowed.any(-1) == unseen).all()
    r, c = np.nonzero(unseen)
    assert allowed[r, c, target[r, c]].all()
    prior = uniform_prior(allowed, counts)
    assert np.allclose(prior.sum(-1)[unseen], 1) and np.allclose(prior.sum(1), counts)
    for i in range(0, len(pos), 7):
        xv, av, cv = encode(**view_inputs(pos.state(i).view()))
        assert (xv[0] == x[i]).all() and (av[0] == allowed[i]).all() and (cv[0] == counts[i]).all()


@st.composite
def small_layouts(draw):
    """Up to 8 unseen cards among three hidden seats (some with no cards left), random shown voids."""
    cards = draw(st.lists(st.integers(0, 51), min_size=1, max_size=8, unique=True))
    first = draw(st.integers(0, len(cards)))
    second = draw(st.integers(0, len(cards) - first))
    counts = [first, second, len(cards) - first - second]
    voids = draw(st.lists(st.lists(st.booleans(), min_size=4, max_size=4), min_size=3, max_size=3))
    allowed = np.zeros((52, 3), bool)
    for card in cards:
        for seat in range(3):
            allowed[card, seat] = counts[seat] > 0 and not voids[seat][card // 13]
    return sorted(cards), counts, allowed


@settings(max_examples=60, deadline=None)
@given(small_layouts())
def test_uniform_prior_equals_enumeration(layout):
    """The prior counted over suit splits equals the share of explicitly listed layouts (every assignment of the
    unseen cards to seats with the right counts, each card only where allowed)."""
    cards, counts, allowed = layout
    hits = np.zeros((52, 3))
    total = 0
    for seats in itertools.product(range(3), repeat=len(cards)):
        if [seats.count(s) for s in range(3)] != counts:
            continue
        if not all(allowed[c, s] for c, s in zip(cards, seats)):
            continue
        total += 1
        for c, s in zip(cards, seats):
            hits[c, s] += 1
    if total == 0:
        with pytest.raises(ValueError, match="no layout"):
            uniform_prior(allowed[None], np.array([counts]))
        return
    assert np.allclose(uniform_prior(allowed[None], np.array([counts]))[0], hits / total)


def test_training_is_seeded_resumable_and_models_load_checked(positions_file, valid_file, tmp_path, capsys):
    """Two runs with one seed write the same model; three epochs straight equal two, then a resume to three; the
    splits are enforced (no learning from valid or test positions, no selecting on test or on the training file);
    --force never deletes another kind of model, nor anything before the inputs are read; the model loads by path in
    `evaluate inference` (JSON fields of the interface); a checkpoint of another kind or for other features is
    refused in one line."""
    import shutil

    import jax

    from bridgerl.training.card_location import LocationConfig, train_location

    config = LocationConfig(hidden=(32,), epochs=3, batch_size=32)
    train_location(tmp_path / "a", positions_file, valid_file, config, seed=4, progress=False)
    train_location(tmp_path / "b", positions_file, valid_file, config, seed=4, progress=False)
    assert (tmp_path / "a" / "model.msgpack").read_bytes() == (tmp_path / "b" / "model.msgpack").read_bytes()
    two = LocationConfig(hidden=(32,), epochs=2, batch_size=32)
    train_location(tmp_path / "c", positions_file, valid_file, two, seed=4, progress=False)
    with pytest.raises(FileExistsError, match="--resume"):
        train_location(tmp_path / "c", positions_file, valid_file, config, seed=4, progress=False)
    with pytest.raises(ValueError, match="differs from the saved run"):
        train_location(tmp_path / "c", positions_file, valid_file, LocationConfig(hidden=(16,), epochs=3,
                       batch_size=32), seed=4, resume=True, progress=False)
    train_location(tmp_path / "c", positions_file, valid_file, config, seed=4, resume=True, progress=False)
    a, c = (tmp_path / "a" / "log.jsonl").read_text(), (tmp_path / "c" / "log.jsonl").read_text()
    assert a == c and len(a.splitlines()) == 3
    from bridgerl.agents.learned.card_location import FORMAT
    from bridgerl.agents.learned.checkpoint import load_weights, save_weights

    (meta_a, weights_a), (meta_c, weights_c) = (load_weights(tmp_path / run, format=FORMAT) for run in "ac")
    assert meta_a["epoch"] == meta_c["epoch"] and meta_a["valid_log_loss"] == meta_c["valid_log_loss"]
    assert all((x == y).all() for x, y in zip(jax.tree.leaves(weights_a), jax.tree.leaves(weights_c)))
    for train, valid, problem in ((valid_file, valid_file, "valid split"), (positions_file, positions_file,
                                                                           "both --train and --valid")):
        with pytest.raises(ValueError, match=problem):
            train_location(tmp_path / "d", train, valid, config, progress=False)
    with pytest.raises(ValueError, match="no such positions file"):  # --force with a missing input: run kept
        train_location(tmp_path / "c", tmp_path / "typo.npz", valid_file, config, force=True, progress=False)
    assert (tmp_path / "c" / "model.msgpack").exists()
    shutil.copytree("models/uncontested-dqn", tmp_path / "dqn")
    with pytest.raises(FileExistsError, match="not a card-location model"):
        train_location(tmp_path / "dqn", positions_file, valid_file, config, force=True, progress=False)
    assert (tmp_path / "dqn" / "model.msgpack").exists()
    out = tmp_path / "inference.json"
    assert main(["evaluate", "inference", "--model", str(tmp_path / "a"), "--positions", str(valid_file),
                 "--json", str(out)]) == 0
    result = json.loads(out.read_text())
    assert {"positions", "model_log_loss", "uniform_log_loss", "model_accuracy", "uniform_accuracy"} <= set(result)
    assert result["positions"] == len(load_positions(valid_file)) and 0 < result["uniform_accuracy"] < 1
    assert "uniform" in capsys.readouterr().out
    from bridgerl.evaluation.cardplay.inference import evaluate_inference

    with pytest.warns(UserWarning, match="not a held-out score"):
        evaluate_inference(tmp_path / "a", valid_file)
    metadata, params = load_weights(tmp_path / "a", format=FORMAT)
    save_weights(tmp_path / "wrong.msgpack", params, {**metadata, "features": 10}, format=FORMAT)
    with pytest.raises(ValueError, match="reads 10 features"):
        LocationModel.load(tmp_path / "wrong.msgpack")
    save_weights(tmp_path / "shape.msgpack", params, {**metadata, "hidden": [64]}, format=FORMAT)
    with pytest.raises(ValueError, match="do not fit"):
        LocationModel.load(tmp_path / "shape.msgpack")
    with pytest.raises(ValueError, match="a DQN model, not a card-location one"):
        LocationModel.load("models/uncontested-dqn")
    assert main(["evaluate", "inference", "--model", "models/uncontested-dqn", "--positions",
                 str(positions_file)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.fixture(scope="module")
def untrained(tmp_path_factory):
    """A location model with random weights: any probabilities at all, the sampler must still keep the rules."""
    from bridgerl.agents.learned.card_location import FORMAT, build_network
    from bridgerl.agents.learned.checkpoint import save_weights
    from flax import nnx

    path = tmp_path_factory.mktemp("untrained") / "model.msgpack"
    save_weights(path, nnx.to_pure_dict(nnx.state(build_network((16,), seed=5))),
                 {"kind": "card-location", "features": FEATURES, "hidden": [16]}, format=FORMAT)
    return path


@settings(max_examples=40, deadline=None)
@given(index=st.integers(0, 10 ** 6), seed=st.integers(0, 2 ** 32 - 1))
def test_network_worlds_never_break_a_hard_constraint(positions_file, untrained, index, seed):
    """Worlds drawn from a model keep every card the chooser knows where it is, give each seat 13 cards, and never
    give a seat a card of a suit it has shown out of."""
    from bridgerl.agents.learned.card_location import sample_located_worlds

    pos = load_positions(positions_file)
    view = pos.state(index % len(pos)).view()
    model = LocationModel.load(untrained)
    worlds = sample_located_worlds(view, model, 12, np.random.default_rng(seed))
    assert worlds.shape == (12, 52)
    known = {c: s for s, cards in view.known_hands().items() for c in cards}
    known.update({c: s for t in view.all_tricks() for s, c in zip(t.seats, t.cards)})
    played = {c for t in view.all_tricks() for c in t.cards}
    for owner in worlds:
        assert all(owner[c] == s for c, s in known.items())
        assert (np.bincount(owner, minlength=4) == 13).all()
        for seat in range(4):
            for suit in np.flatnonzero(view.voids[seat]):
                held = [c for c in range(13 * suit, 13 * suit + 13) if owner[c] == seat and c not in played]
                assert not held, (seat, suit, held)


def test_pimc_with_network_worlds_plays_whole_deals(untrained):
    """`pimc:sampler=network,model=PATH` loads as a play spec and plays whole deals; bad settings are refused."""
    from bridgerl.agents import PIMCAgent
    from bridgerl.arena.game import game_match
    from bridgerl.arena.specs import load_pair

    spec = f"bid=rules,play=pimc:worlds=4,sampler=network,model={untrained}"
    boards = game_match(load_pair(spec), load_pair(FAST), data="test", deals=1, start=7, seed=0)
    assert all(len(t["play"]) in (0, 52) for t in boards[0]["tables"])
    with pytest.raises(ValueError, match="model=PATH"):
        PIMCAgent(sampler="network")
    with pytest.raises(ValueError, match="not 'policy'"):
        PIMCAgent(sampler="network", model=str(untrained), auction="policy")
    from bridgerl.envs import WorldSamplingError
    from bridgerl.core.constraints import HandConstraint
    from bridgerl.agents.learned.card_location import sample_located_worlds

    view = load_positions_view()
    agent = PIMCAgent(worlds=6, seed=0, sampler="network", model=str(untrained), auction="rules")
    assert len(agent.sample(view)) == 6 and agent.sampling.samples == 1
    hidden = [s for s in range(4) if s not in view.known_hands()]
    strong = {hidden[0]: HandConstraint(hcp=(10, 37))}
    worlds = sample_located_worlds(view, LocationModel.load(untrained), 20, np.random.default_rng(0), strong)
    assert len(worlds) == 20 and strong[hidden[0]].accepts(worlds, hidden[0]).all()
    with pytest.raises(WorldSamplingError, match="card-location model"):
        sample_located_worlds(view, LocationModel.load(untrained), 5, np.random.default_rng(0),
                              {hidden[0]: HandConstraint(hcp=(37, 37))}, max_tries=500)
    with pytest.raises(ValueError, match="sampler"):
        PIMCAgent(sampler="oracle")


def load_positions_view():
    """Dummy's first card on a held-out deal bid by the rule bidders (the opening lead made): a view with an auction."""
    from bridgerl.agents import RuleBidder
    from bridgerl.core import load_dataset
    from bridgerl.core.bridge import CARD_OFFSET, BridgeState
    from bridgerl.core.competitive import CompetitiveDealSource

    bidder = RuleBidder(competitive=True)
    state = BridgeState.start(CompetitiveDealSource(load_dataset("test")).deal_at(0))
    while state.phase == "auction":
        state = state.apply(bidder.act_view(state.view()))
    return state.apply(CARD_OFFSET + state.view().legal[0]).view()
