"""Simulation reweighing (issue #20, seed 004): the ISSN's world weights by hand, the SSN's exact suit symmetry,
network-only PIMC without DDS, training and loading of both networks, the new play specs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from flax import nnx

from bridgerl.agents import PIMCAgent, PolicyAgent
from bridgerl.agents.learned.card_location import FEATURES
from bridgerl.agents.learned.checkpoint import save_weights
from bridgerl.agents.learned.simulation import (ISSN_FORMAT, SSN_FEATURES, SSN_FORMAT, PolicyModel, SolverModel,
                                                build_issn, build_ssn, positions_ssn_inputs)
from bridgerl.cli import main
from bridgerl.core.positions import load_positions
from helper_games import small_positions

FAST = "bid=rules,play=dd"


@pytest.fixture(scope="module")
def train_file(tmp_path_factory):
    return small_positions(tmp_path_factory, "train", 3, 60, FAST, 2)


@pytest.fixture(scope="module")
def valid_file(tmp_path_factory):
    return small_positions(tmp_path_factory, "valid", 2, 10, FAST, 2)


def _save(path, network, fmt, kind, features, hidden):
    save_weights(path, nnx.to_pure_dict(nnx.state(network)), {"kind": kind, "features": features,
                                                                "hidden": list(hidden)}, format=fmt)
    return path


@pytest.fixture(scope="module")
def random_ssn(tmp_path_factory):
    return _save(tmp_path_factory.mktemp("ssn") / "model.msgpack", build_ssn((16,), seed=3), SSN_FORMAT, "SSN",
                 SSN_FEATURES, (16,))


def _whole_deal_state(pbn: str, dealer: int, calls: list[str], cards: list[str]):
    from bridgerl.core.bridge import CARD_OFFSET, BridgeState
    from bridgerl.core.calls import parse_call
    from bridgerl.core.cards import parse_card
    from bridgerl.core.competitive import CompetitiveDeal
    from bridgerl.core.pbn import parse_deal_option

    owner = parse_deal_option(pbn)[0]
    state = BridgeState.start(CompetitiveDeal(owner, np.zeros((4, 5), np.uint8), dealer, "none", 1, None))
    for call in calls:
        state = state.apply(parse_call(call))
    for card in cards:
        state = state.apply(CARD_OFFSET + parse_card(card))
    return state


def test_reweighing_weights_equal_a_hand_computation(tmp_path):
    """South declares 1NT; West leads S8, dummy plays S2, East S10; South to play. With an ISSN whose logits are a
    fixed vector b (every weight but the output bias zero), a world's weight is, by hand, p(East plays S10 from its
    spades in that world) x p(West leads S8 from its 13 cards there), each a softmax of b over those cards; South's
    own choice from dummy is not counted. The agent's normalised weights equal that, for T = 2 and T = 9 (only two
    choices exist); with T = 1 only East's card counts."""
    from bridgerl.envs import sample_worlds

    state = _whole_deal_state("N:5432.5432.432.32 KQJT.KQJ.KQ.KQJT A9.A9876.A9876.A 876.T.JT5.987654", 2,
                              ["1N", "P", "P", "P"], ["S8", "S2", "ST"])
    view = state.view()
    assert view.player == 2 and view.seat == 2
    network = build_issn((4,), seed=0)
    bias = np.random.default_rng(7).normal(size=52).astype(np.float32)
    for variable in (*(v for layer in network.layers for v in (layer.kernel, layer.bias)), network.head.kernel):
        variable[...] = np.zeros(variable[...].shape, np.float32)
    network.head.bias[...] = bias
    path = _save(tmp_path / "issn.msgpack", network, ISSN_FORMAT, "ISSN", FEATURES, (4,))
    worlds = sample_worlds(view, 30, seed=1)
    s8, s10 = 13 * 3 + 6, 13 * 3 + 8  # spades are suit 3; ranks 2..A are 0..12

    def softmax_of(card, cards):
        return math.exp(bias[card]) / sum(math.exp(bias[c]) for c in cards)

    def by_hand(owner, use_west):
        east_spades = [c for c in range(39, 52) if owner[c] == 1]  # East (seat 1) had not played before
        west_cards = [c for c in range(52) if owner[c] == 3]
        assert s10 in east_spades and s8 in west_cards
        return softmax_of(s10, east_spades) * (softmax_of(s8, west_cards) if use_west else 1.0)

    for T, use_west in ((2, True), (9, True), (1, False)):
        agent = PIMCAgent(worlds=30, seed=0, reweigh="issn", T=T, issn=str(path))
        expected = np.array([by_hand(w, use_west) for w in worlds])
        assert np.allclose(agent.world_weights(view, worlds), expected / expected.sum(), rtol=1e-5)
    # a view where nobody else has chosen: every world alike
    lead = _whole_deal_state("N:5432.5432.432.32 KQJT.KQJ.KQ.KQJT A9.A9876.A9876.A 876.T.JT5.987654", 2,
                             ["1N", "P", "P", "P"], []).view()
    model = PolicyModel.load(path)
    assert (model.world_log_weights(lead, sample_worlds(lead, 5, seed=0), 3) == 0).all()


def test_ssn_suit_relabelling_is_exact_double_dummy(train_file):
    """Every relabelled training example (side suits permuted, trumps kept) is a real position whose DDS values
    are the relabelled targets: the augmentation never teaches a wrong value."""
    import jax

    from bridgerl.core.dd import solve_positions
    from bridgerl.training.simulation import relabel_suits

    x, legal, left, dd = positions_ssn_inputs(load_positions(train_file))
    x, legal, left, dd = (np.asarray(a) for a in relabel_suits(jax.random.PRNGKey(5), (x, legal,
                                                                                       left.astype(np.float32), dd)))
    blocks = x[:, :-5].reshape(len(x), 8, 52).astype(bool)
    strain = x[:, -5:].argmax(1)
    assert (legal == (dd >= 0)).all()
    assert (blocks[:, 7] == ((np.arange(52) // 13)[None, :] == strain[:, None])).all()  # trumps stay trumps
    for s in np.unique(strain):
        rows = np.flatnonzero(strain == s)
        holdings = np.zeros((len(rows), 4), np.uint64)
        for k, r in enumerate(rows):
            for seat in range(4):  # relative seats: 0 to play, then LHO, partner, RHO (as absolute N, E, S, W)
                holdings[k, seat] = sum(np.uint64(1) << np.uint64(c) for c in np.flatnonzero(blocks[r, seat]))
        trick = np.full((len(rows), 3), -1)
        leader = np.zeros(len(rows), np.int64)
        for k, r in enumerate(rows):
            played = [(rel, int(np.flatnonzero(blocks[r, 4 + rel])[0])) for rel in range(3)
                      if blocks[r, 4 + rel].any()]
            # LHO (rel 0 here) played first when three cards are down, partner when two, RHO when one
            leader[k] = [0, 3, 2, 1][len(played)]
            for j, (_, card) in enumerate(played):
                trick[k, j] = card
        solved = solve_positions(holdings, int(s), leader, trick)
        assert (solved == dd[rows]).all()


def test_network_only_pimc_makes_no_dds_call(random_ssn, monkeypatch):
    """`pimc:solver=ssn` plays a whole deal (every seat, defence included) with DDS made unreachable and the
    counter of positions solved unchanged; its values are in range and illegal cards get -1."""
    import bridgerl.agents.play.pimc as play
    import bridgerl.core.dd as dd
    from bridgerl.core.card_play import view_of
    from bridgerl.core.contract import Contract
    from bridgerl.core.play import PlayState
    from bridgerl.arena.specs import load_play_agent

    def forbidden(*args, **kwargs):
        raise AssertionError("DDS called")

    monkeypatch.setattr(dd, "solve_positions", forbidden)
    monkeypatch.setattr(play, "solve_positions", forbidden)
    before = dd.positions_solved()
    agent = load_play_agent(f"pimc:worlds=8,solver=ssn,ssn={random_ssn}", seed=0)
    owner = np.repeat(np.arange(4), 13)[np.random.default_rng(3).permutation(52)]
    state = PlayState.start(owner, Contract(3, 4, 0, 2))
    while not state.is_over:
        view = view_of(state)
        values = agent.card_values(view)
        assert ((values >= 0) == np.isin(np.arange(52), view.legal)).all()
        assert values.max() <= 13 - len(view.tricks) + 1e-4
        state = state.play(agent.act(view))
    assert len(state.tricks) == 13 and dd.positions_solved() == before


def test_issn_and_ssn_train_seeded_resume_and_load_checked(train_file, valid_file, tmp_path, capsys):
    """Same seed, same model; two epochs then a resume to three equal three straight; the CLI trains both; a
    checkpoint of the other kind, for other features or of another shape is refused in one line."""
    from bridgerl.agents.learned.checkpoint import load_weights
    from bridgerl.training.simulation import train_issn, train_ssn
    from bridgerl.training.supervised import SupervisedConfig

    three, two = SupervisedConfig(hidden=(16,), epochs=3, batch_size=16), SupervisedConfig(hidden=(16,), epochs=2,
                                                                                           batch_size=16)
    for train, fmt in ((train_issn, ISSN_FORMAT), (train_ssn, SSN_FORMAT)):
        name = train.__name__
        train(tmp_path / f"{name}_a", train_file, valid_file, three, seed=1, progress=False)
        train(tmp_path / f"{name}_b", train_file, valid_file, three, seed=1, progress=False)
        assert ((tmp_path / f"{name}_a" / "model.msgpack").read_bytes() ==
                (tmp_path / f"{name}_b" / "model.msgpack").read_bytes())
        train(tmp_path / f"{name}_c", train_file, valid_file, two, seed=1, progress=False)
        train(tmp_path / f"{name}_c", train_file, valid_file, three, seed=1, resume=True, progress=False)
        assert ((tmp_path / f"{name}_a" / "log.jsonl").read_text() ==
                (tmp_path / f"{name}_c" / "log.jsonl").read_text())
        assert load_weights(tmp_path / f"{name}_c", format=fmt)[0]["kind"] in ("ISSN", "SSN")
    assert main(["train", "ssn", "--train", str(train_file), "--valid", str(valid_file), "--out",
                 str(tmp_path / "cli"), "--epochs", "1", "--hidden", "8", "--batch-size", "16", "--quiet"]) == 0
    assert "valid" in capsys.readouterr().out
    assert main(["train", "issn", "--train", str(valid_file), "--valid", str(valid_file), "--out",
                 str(tmp_path / "bad"), "--quiet"]) == 2
    assert "valid split" in capsys.readouterr().err
    with pytest.raises(ValueError, match="an? SSN model, not an? ISSN one"):
        PolicyModel.load(tmp_path / "train_ssn_a")
    with pytest.raises(ValueError, match="an? ISSN model, not an? SSN one"):
        SolverModel.load(tmp_path / "train_issn_a")
    metadata, params = load_weights(tmp_path / "train_ssn_a", format=SSN_FORMAT)
    save_weights(tmp_path / "wide.msgpack", params, {**metadata, "hidden": [32]}, format=SSN_FORMAT)
    with pytest.raises(ValueError, match="do not fit"):
        SolverModel.load(tmp_path / "wide.msgpack")
    save_weights(tmp_path / "features.msgpack", params, {**metadata, "features": 12}, format=SSN_FORMAT)
    with pytest.raises(ValueError, match="reads 12 features"):
        SolverModel.load(tmp_path / "features.msgpack")
    assert main(["evaluate", "trick-loss", "--positions", str(valid_file), "--limit", "4", "--quiet", "--agents",
                 f"pimc:worlds=4,solver=ssn,ssn={tmp_path / 'wide.msgpack'}"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_play_specs_of_issue_20(train_file, valid_file, random_ssn, tmp_path):
    """sampler=auction is the rule agreements' worlds; the nn-baseline (`issn:model=PATH`) and every combination
    of sampler, reweighing and solver choose legal cards on held-out positions, with their network use counted."""
    from bridgerl.arena.specs import load_play_agent
    from bridgerl.evaluation.cardplay.trick_loss import trick_loss_study
    from bridgerl.training.simulation import train_issn
    from bridgerl.training.supervised import SupervisedConfig

    assert load_play_agent("pimc:sampler=auction").auction == "rules"
    with pytest.raises(ValueError, match="reweigh"):
        load_play_agent("pimc:reweigh=dds")
    with pytest.raises(ValueError, match="T"):
        load_play_agent(f"pimc:reweigh=issn,T=0,issn={random_ssn}")
    train_issn(tmp_path / "issn", train_file, valid_file, SupervisedConfig(hidden=(8,), epochs=1, batch_size=16),
               progress=False)
    issn = tmp_path / "issn"
    agents = {"issn": load_play_agent(f"issn:model={issn}"),
              "auction+issn+ssn": load_play_agent(f"pimc:worlds=4,sampler=auction,reweigh=issn,issn={issn},"
                                                  f"solver=ssn,ssn={random_ssn}"),
              "uniform+issn": load_play_agent(f"pimc:worlds=4,reweigh=issn,T=2,issn={issn}")}
    assert isinstance(agents["issn"], PolicyAgent)
    result = trick_loss_study(agents, valid_file, limit=6)
    rows = result["agents"]
    assert rows["issn"]["network_positions_per_decision"] == 1 and rows["issn"]["dds_positions_per_decision"] == 0
    assert rows["auction+issn+ssn"]["dds_positions_per_decision"] == 0
    assert rows["auction+issn+ssn"]["network_positions_per_decision"] > 0
    assert rows["uniform+issn"]["dds_positions_per_decision"] > 0


def test_alphamu_samples_worlds_from_the_location_model(tmp_path):
    """`alphamu:sampler=network,model=PATH` draws its worlds from the card-location model (the hard constraints
    kept) and chooses a legal card as declarer; `alphamu:sampler=auction` follows the rule agreements."""
    from bridgerl.agents.learned.card_location import FORMAT, build_network
    from bridgerl.arena.specs import load_play_agent

    path = _save(tmp_path / "loc.msgpack", build_network((8,), seed=1), FORMAT, "card-location", FEATURES, (8,))
    state = _whole_deal_state("N:5432.5432.432.32 KQJT.KQJ.KQ.KQJT A9.A9876.A9876.A 876.T.JT5.987654", 2,
                              ["1N", "P", "P", "P"], ["S8"])
    view = state.view()
    assert view.player == 2 and view.seat == 0  # declarer plays from dummy
    agent = load_play_agent(f"alphamu:worlds=6,max_moves=2,sampler=network,model={path}", seed=0)
    worlds = agent.sample(view)
    assert len(worlds) == 6 and all((w[list(view.own_cards)] == 2).all() for w in worlds)
    assert agent.act(view) in view.legal
    assert load_play_agent("alphamu:sampler=auction").auction == "rules"


def test_rebuilt_past_views_in_the_true_deal_are_the_views_those_players_had(train_file):
    """In the true deal, every past choice `history_inputs` rebuilds (another player's card: its hand then, dummy
    shown or not, the play so far, the auction with its own hand, its legal cards) equals the view that player had
    when it chose, as the positions file recorded it."""
    from bridgerl.agents.learned.card_location import encode, view_inputs
    from bridgerl.agents.learned.simulation import history_inputs

    pos = load_positions(train_file)
    p = pos.positions
    checked = 0
    for i in range(5, len(pos), 9):
        view = pos.state(i).view()
        d, step = int(p["deal"][i]), int(p["step"][i])
        owner = pos.deals["owner"][d]
        found = history_inputs(view, owner[None], 52)
        if found is None:
            continue
        x, legal, chosen = found
        for row, card in enumerate(chosen):
            j = int(np.flatnonzero(pos.deals["play"][d] == card)[0])
            assert j < step
            past = int(np.flatnonzero((p["deal"] == d) & (p["step"] == j))[0])
            assert p["player"][past] != view.player and p["card"][past] == card
            expected, _, _ = encode(**view_inputs(pos.state(past).view()))
            assert (x[row] == expected[0]).all() and (legal[row] == p["legal"][past]).all()
            checked += 1
    assert checked > 50


def test_make_objective_rounds_network_values_and_unused_settings_are_refused():
    """With objective=make a network's float tricks count to the nearest trick (8.6 of 9 needed makes, 8.4 does
    not; DDS's whole tricks unchanged); settings that would be ignored are refused in one line."""
    from bridgerl.agents.play.pimc import world_values
    from bridgerl.arena.specs import load_play_agent

    view = _whole_deal_state("N:5432.5432.432.32 KQJT.KQJ.KQ.KQJT A9.A9876.A9876.A 876.T.JT5.987654", 2,
                             ["3N", "P", "P", "P"], ["S8"]).view()
    assert view.tricks_needed == 9 and view.tricks_won == 0
    assert world_values(view, np.array([[8.6, 8.4, 9.0, 8.0, -1.0]]), "make").tolist() == [[1, 0, 1, 0, 0]]
    assert world_values(view, np.array([[9, 8]], np.int8), "make").tolist() == [[1, 0]]
    for spec, problem in (("pimc:T=5", "T set but not used"), ("pimc:ssn=x", "ssn set but not used"),
                          ("pimc:model=models/card-location", "sampler=network")):
        with pytest.raises(ValueError, match=problem):
            load_play_agent(spec)


def test_released_inference_models_load_and_play():
    """models/card-location, models/issn and models/ssn load by their default paths and play together with no DDS
    call: worlds from the location model, weighed by the ISSN, valued by the SSN."""
    from bridgerl.core.dd import positions_solved

    state = _whole_deal_state("N:5432.5432.432.32 KQJT.KQJ.KQ.KQJT A9.A9876.A9876.A 876.T.JT5.987654", 2,
                              ["1N", "P", "P", "P"], ["S8", "S2", "ST"])
    view = state.view()
    agent = PIMCAgent(worlds=8, seed=0, sampler="network", model="models/card-location", reweigh="issn",
                      solver="ssn")
    before = positions_solved()
    assert agent.act(view) in view.legal and positions_solved() == before
    assert 0 < agent.last["ess"] <= 8
    assert PolicyAgent().act(view) in view.legal


def test_the_old_module_name_still_imports():
    """`bridgerl.agents.play.simulation` re-exports the agents' names for one release (issue #52); the losses moved to
    `bridgerl.training.simulation`."""
    import bridgerl.agents.learned.simulation as learned
    import bridgerl.agents.play.simulation as alias
    from bridgerl.training.simulation import policy_loss, ssn_loss

    assert alias.PolicyModel is learned.PolicyModel and alias.PolicyAgent is learned.PolicyAgent
    assert callable(policy_loss) and callable(ssn_loss) and not hasattr(alias, "policy_loss")
