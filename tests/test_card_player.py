"""The learned card player (issue #37): it reads its own view only (numpy and JAX paths), never plays an illegal card,
trains seeded and resumably from positions files, relabels suits exactly, loads by path and by spec, and refuses a
checkpoint of another kind or shape in one line."""

from __future__ import annotations

import itertools
import shutil

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridgerl.agents.learned.card_player import CardPlayer, build, save
from bridgerl.cli import main
from bridgerl.core import load_dataset
from bridgerl.core.bridge import CARD_OFFSET, BridgeState
from bridgerl.core.competitive import CompetitiveDeal, CompetitiveDealSource
from bridgerl.core.contract import Contract
from bridgerl.core.play_features import feature_size, play_features
from bridgerl.core.positions import load_positions
from bridgerl.envs import jaxenv
from bridgerl.arena.specs import load_play_agent
from bridgerl.training.card_player import card_player_task, positions_examples, relabel_suits
from bridgerl.training.supervised import SupervisedConfig, train_supervised
from helper_games import small_positions

FAST = "bid=rules,play=issn"


@pytest.fixture(scope="module")
def positions_file(tmp_path_factory):
    return small_positions(tmp_path_factory, "train", 6, 100, FAST, 1)


@pytest.fixture(scope="module")
def valid_file(tmp_path_factory):
    return small_positions(tmp_path_factory, "valid", 3, 0, FAST, 1)


@pytest.fixture(scope="module")
def player(tmp_path_factory):
    """An untrained card player (a seeded random network): what these tests check holds for any weights."""
    path = tmp_path_factory.mktemp("card-player") / "model.msgpack"
    save(path, build(feature_size(False), (64, 64), seed=3), {"auction": False, "hidden": [64, 64]})
    return CardPlayer.load(path)


def _play_states(rows, cards_played=(0, 1, 5, 14, 27, 40)):
    """Whole-deal states at a few points of the play: rule-free auctions (the canonical start), cards by a
    fixed policy."""
    source = CompetitiveDealSource(load_dataset("valid"))
    states = []
    for row in rows:
        contract = Contract(1 + row % 7, row % 5, row % 3, row % 4)
        state = BridgeState.at_opening_lead(source.deal_at(row), contract)
        for n in range(52):
            if n in cards_played:
                states.append(state)
            legal = state.legal_actions()
            state = state.apply(legal[(n * 7 + row) % len(legal)])
    return states


def _swap_hidden(state: BridgeState, rng) -> BridgeState:
    """The same position with the unseen cards dealt again at random between the hidden hands (each keeps its
    number of cards and its shown voids)."""
    view = state.view()
    hidden = [s for s in range(4) if s not in view.known_hands()]  # two, or three before dummy is shown
    unseen = view.unseen_cards()
    owner = state.deal.owner.copy()
    counts = [sum(1 for c in unseen if owner[c] == s) for s in hidden]
    for _ in range(1000):
        cards = list(rng.permutation(unseen))
        parts = np.split(np.array(cards, dtype=np.int64), np.cumsum(counts)[:-1])
        if all(not view.voids[s, c // 13] for s, part in zip(hidden, parts) for c in part):
            break
    for s, part in zip(hidden, parts):
        owner[part] = s
    deal = state.deal
    new = BridgeState.start(CompetitiveDeal(owner, deal.dd, deal.dealer, deal.vul, deal.board, deal.index))
    for call in state.auction.calls:
        new = new.apply(call)
    for card in state.play.history:
        new = new.apply(CARD_OFFSET + card)
    return new


def test_the_player_reads_its_own_view_only(player):
    """Unseen cards dealt again between the hidden hands, all the view shows kept: the same card, on the numpy path
    and on the JAX path (the whole deal in JAX, replayed to the same point)."""
    rng = np.random.default_rng(0)
    states = _play_states(range(6))
    env = jaxenv.make("bridge", dataset="valid")
    step = jax.jit(env.step)

    def jax_state(state: BridgeState):
        js = env.init(jax.random.key(0), state.deal.index)
        owner = jnp.asarray(state.deal.owner.astype(np.int8))
        js = js.replace(_owner=owner)  # the deal as dealt in this position (swapped hands included)
        for action in list(state.auction.calls) + [CARD_OFFSET + c for c in state.play.history]:
            js = step(js, action)
        return js

    changed = 0
    for state in states:
        swapped = _swap_hidden(state, rng)
        changed += not (swapped.deal.owner == state.deal.owner).all()
        assert swapped.view().legal == state.view().legal
        np.testing.assert_array_equal(play_features(swapped.view()), play_features(state.view()))
        assert player.act(swapped.view()) == player.act(state.view())
        one, two = jax_state(state), jax_state(swapped)
        cards = player.jax_cards(jax.tree.map(lambda a, b: jnp.stack([a, b]), one, two))
        assert int(cards[0]) == int(cards[1]) == player.act(state.view())
    assert changed > len(states) // 2


@settings(max_examples=25, deadline=None)
@given(row=st.integers(0, 4999), seed=st.integers(0, 2**31 - 1))
def test_the_player_never_plays_an_illegal_card(player, row, seed):
    rng = np.random.default_rng(seed)
    source = CompetitiveDealSource(load_dataset("valid"))
    contract = Contract(int(rng.integers(1, 8)), int(rng.integers(5)), int(rng.integers(3)), int(rng.integers(4)))
    state = BridgeState.at_opening_lead(source.deal_at(row), contract)
    while state.phase == "play":
        view = state.view()
        card = player.act(view)
        assert card in view.legal
        state = state.apply(CARD_OFFSET + card)
    assert state.is_over and len(state.play.history) == 52


def test_batches_give_the_cards_of_one_view_at_a_time(player):
    views = [s.view() for s in _play_states(range(20))]
    together = player.act_views(views)
    assert len(views) > 64
    assert [player.act(v) for v in views] == together.tolist()


def test_suit_relabelling_is_exact(positions_file):
    """Each relabelled example is the example of the deal with its suits permuted (the trump suit kept): the
    features of that deal's position, its legal cards and its DD-best cards."""
    positions = load_positions(positions_file)
    x, legal, target, index = positions_examples(positions)
    batch = tuple(jnp.asarray(a[:40]) for a in (x, legal, target))
    rx, rlegal, rtarget = (np.asarray(a) for a in relabel_suits(jax.random.key(1), batch))
    for k in range(40):
        state = positions.state(int(index[k]))
        contract = state.contract
        options = []
        for perm in itertools.permutations(range(4)):
            if contract.strain < 4 and perm[contract.strain] != contract.strain:
                continue
            moved = np.array([perm[c // 13] * 13 + c % 13 for c in range(52)])
            owner = np.empty(52, np.uint8)
            owner[moved] = state.deal.owner
            deal = CompetitiveDeal(owner, state.deal.dd, state.deal.dealer, state.deal.vul, state.deal.board, 0)
            relabelled = BridgeState.at_opening_lead(deal, contract)
            for card in state.play.history:
                relabelled = relabelled.apply(CARD_OFFSET + int(moved[card]))
            options.append((play_features(relabelled.view()), moved))
        matches = [moved for features, moved in options if (features == rx[k]).all()]
        assert matches, f"example {k}: no suit order gives the relabelled features"
        moved = matches[0]
        np.testing.assert_array_equal(rlegal[k][moved], legal[k])
        np.testing.assert_array_equal(rtarget[k][moved], target[k])


def test_training_is_seeded_resumable_and_loads_checked(positions_file, valid_file, tmp_path, capsys):
    task = card_player_task()
    config = SupervisedConfig(hidden=(32,), epochs=3, batch_size=32)
    train_supervised(task, tmp_path / "a", positions_file, valid_file, config, seed=4, progress=False)
    train_supervised(task, tmp_path / "b", positions_file, valid_file, config, seed=4, progress=False)
    assert (tmp_path / "a" / "model.msgpack").read_bytes() == (tmp_path / "b" / "model.msgpack").read_bytes()
    two = SupervisedConfig(hidden=(32,), epochs=2, batch_size=32)
    train_supervised(task, tmp_path / "c", positions_file, valid_file, two, seed=4, progress=False)
    train_supervised(task, tmp_path / "c", positions_file, valid_file, config, seed=4, resume=True, progress=False)
    assert (tmp_path / "a" / "log.jsonl").read_text() == (tmp_path / "c" / "log.jsonl").read_text()
    # the command line, the bare path and the explicit spec
    assert main(["train", "card-player", "--train", str(positions_file), "--valid", str(valid_file), "--out",
                 str(tmp_path / "cli"), "--hidden", "16", "--epochs", "1", "--batch-size", "32", "--quiet"]) == 0
    for spec in (str(tmp_path / "cli"), f"cardnet:model={tmp_path / 'cli'}"):
        agent = load_play_agent(spec)
        assert isinstance(agent, CardPlayer) and agent.metadata["features"] == feature_size(False)
    with pytest.raises(ValueError, match="relabelling is exact only without the auction"):
        card_player_task(auction=True, augment=True)
    # a checkpoint of another kind, or of another shape, is refused in one line
    with pytest.raises(ValueError, match="an ISSN model, not a card-player one"):
        CardPlayer.load("models/issn")
    from bridgerl.agents.learned.card_player import FORMAT
    from bridgerl.agents.learned.checkpoint import load_weights, save_weights

    metadata, params = load_weights(tmp_path / "cli", format=FORMAT)
    save_weights(tmp_path / "bad.msgpack", params, {**metadata, "hidden": [32]}, format=FORMAT)
    with pytest.raises(ValueError, match="do not fit"):
        CardPlayer.load(tmp_path / "bad.msgpack")
    with pytest.raises(ValueError, match="play agent spec"):
        load_play_agent(f"cardnet:model={tmp_path / 'missing'}")
    shutil.rmtree(tmp_path / "b")


def test_a_fine_tune_starts_from_the_given_weights(positions_file, valid_file, tmp_path):
    """``--init MODEL`` (issue #66's retrain): the run starts from MODEL's weights (a step too small to move them
    keeps them), is seeded, and a model of another shape or kind is refused in one line."""
    from bridgerl.agents.learned.card_player import FORMAT
    from bridgerl.agents.learned.checkpoint import load_weights

    task = card_player_task()
    train_supervised(task, tmp_path / "a", positions_file, valid_file, SupervisedConfig(hidden=(32,), epochs=2,
                                                                                         batch_size=32), seed=4,
                     progress=False)
    still = SupervisedConfig(hidden=(32,), epochs=1, batch_size=32, learning_rate=1e-12, weight_decay=0.0)
    for out, seed in (("b", 5), ("c", 5), ("d", 6)):
        train_supervised(task, tmp_path / out, positions_file, valid_file, still, seed=seed, progress=False,
                         init=str(tmp_path / "a"))
    started = load_weights(tmp_path / "a", format=FORMAT)[1]
    for out in "bd":
        tuned = load_weights(tmp_path / out, format=FORMAT)[1]
        assert jax.tree.all(jax.tree.map(lambda x, y: np.allclose(x, y, atol=1e-6), started, tuned))
    assert (tmp_path / "b" / "model.msgpack").read_bytes() == (tmp_path / "c" / "model.msgpack").read_bytes()
    train_supervised(task, tmp_path / "e", positions_file, valid_file, still, seed=5, progress=False)
    fresh = load_weights(tmp_path / "e", format=FORMAT)[1]
    assert not jax.tree.all(jax.tree.map(lambda x, y: np.allclose(x, y, atol=1e-3), started, fresh))
    with pytest.raises(ValueError, match=r"differs from this run in hidden \(32,\) \(this run: \(16,\)\)"):
        train_supervised(task, tmp_path / "f", positions_file, valid_file, SupervisedConfig(hidden=(16,), epochs=1,
                                                                                             batch_size=32),
                         progress=False, init=str(tmp_path / "a"))
    with pytest.raises(ValueError, match="differs from this run in card_values"):
        train_supervised(card_player_task(target="both"), tmp_path / "g", positions_file, valid_file, still,
                         progress=False, init=str(tmp_path / "a"))
    assert main(["train", "card-player", "--train", str(positions_file), "--valid", str(valid_file), "--out",
                 str(tmp_path / "h"), "--init", "models/issn", "--hidden", "32", "--quiet"]) != 0
    assert not (tmp_path / "h").exists()  # refused before --out was made
    assert main(["train", "card-player", "--train", str(positions_file), "--valid", str(valid_file), "--out",
                 str(tmp_path / "i"), "--init", str(tmp_path / "a"), "--epochs", "1", "--batch-size", "32",
                 "--quiet"]) == 0  # the hidden sizes of the model started from
    import hashlib

    metadata = load_weights(tmp_path / "i", format=FORMAT)[0]
    assert metadata["hidden"] == [32] and metadata["init"] == {
        "init": str(tmp_path / "a"),
        "init_sha256": hashlib.sha256((tmp_path / "a" / "model.msgpack").read_bytes()).hexdigest()}


def test_cosine_learning_rate_is_seeded_resumable_and_keeps_its_epochs(positions_file, valid_file, tmp_path,
                                                                        monkeypatch):
    """``--lr-decay cosine`` decays the rate over the run's steps: seeded, an interrupted run resumes to the same
    epochs as an uninterrupted one, and a resume that would stretch the schedule (other --epochs) is refused."""
    import bridgerl.training.supervised as supervised

    task = card_player_task()
    cosine = SupervisedConfig(hidden=(32,), epochs=3, batch_size=32, lr_decay="cosine")
    train_supervised(task, tmp_path / "a", positions_file, valid_file, cosine, seed=4, progress=False)
    constant = SupervisedConfig(hidden=(32,), epochs=3, batch_size=32)
    train_supervised(task, tmp_path / "k", positions_file, valid_file, constant, seed=4, progress=False)
    log = (tmp_path / "a" / "log.jsonl").read_text()
    assert log != (tmp_path / "k" / "log.jsonl").read_text()  # the decay changes the run
    make_epoch = supervised.make_epoch

    def interrupted(*args, **kwargs):  # the second epoch never ends
        run = make_epoch(*args, **kwargs)
        calls = []

        def epoch(*a):
            calls.append(1)
            if len(calls) == 2:
                raise KeyboardInterrupt
            return run(*a)
        return epoch

    monkeypatch.setattr(supervised, "make_epoch", interrupted)
    with pytest.raises(KeyboardInterrupt):
        train_supervised(task, tmp_path / "c", positions_file, valid_file, cosine, seed=4, progress=False)
    monkeypatch.setattr(supervised, "make_epoch", make_epoch)
    train_supervised(task, tmp_path / "c", positions_file, valid_file, cosine, seed=4, resume=True, progress=False)
    assert (tmp_path / "c" / "log.jsonl").read_text() == log
    assert (tmp_path / "c" / "model.msgpack").read_bytes() == (tmp_path / "a" / "model.msgpack").read_bytes()
    longer = SupervisedConfig(hidden=(32,), epochs=4, batch_size=32, lr_decay="cosine")
    with pytest.raises(ValueError, match="epochs"):
        train_supervised(task, tmp_path / "c", positions_file, valid_file, longer, seed=4, resume=True,
                         progress=False)
    with pytest.raises(ValueError, match="learning-rate decay must be one of constant, cosine"):
        SupervisedConfig(lr_decay="linear")


def test_tricks_target_and_the_kept_epoch_by_valid_trick_loss(positions_file, valid_file, tmp_path):
    """``--target tricks`` regresses each legal card's DD tricks less the best's; every run keeps the epoch of the
    lowest validation trick loss, the figure `evaluate trick-loss` gives for the saved model on those positions."""
    from bridgerl.evaluation.cardplay.trick_loss import trick_loss_study

    positions = load_positions(positions_file)
    x, legal, target, index = positions_examples(positions, target="tricks")
    dd = positions.positions["dd"][index].astype(np.float32)
    for k in range(len(index)):
        best = dd[k][legal[k]].max()
        np.testing.assert_array_equal(target[k][legal[k]], dd[k][legal[k]] - best)
        assert (target[k][~legal[k]] == 0).all() and (target[k] == 0).sum() >= 1
    with pytest.raises(ValueError, match="card-player target 'bogus'"):
        card_player_task(target="bogus")
    out = tmp_path / "tricks"
    assert main(["train", "card-player", "--train", str(positions_file), "--valid", str(valid_file), "--out",
                 str(out), "--hidden", "32", "--epochs", "3", "--batch-size", "32", "--target", "tricks",
                 "--quiet"]) == 0
    import json

    log = [json.loads(line) for line in (out / "log.jsonl").read_text().splitlines()]
    assert all("valid_mse" in r and "valid_trick_loss" in r for r in log)
    kept = min(log, key=lambda r: (r["valid_trick_loss"], r["epoch"]))
    player = CardPlayer.load(out)
    assert player.metadata["target"] == "tricks" and player.metadata["epoch"] == kept["epoch"]
    study = trick_loss_study({"net": player}, valid_file)
    assert study["agents"]["net"]["trick_loss"] == pytest.approx(kept["valid_trick_loss"], abs=1e-6)
    assert study["agents"]["net"]["batched_decisions_per_second"] > 0


def test_both_heads_are_seeded_resumable_and_value_every_card(positions_file, valid_file, tmp_path):
    """``--target both`` (issue #50): the policy on the best cards and a value for every card (its DD tricks)
    trained together, seeded and resumable; the loaded player acts on the policy as before and reads the card values
    on the numpy path; an older player without them says so in one line."""
    import json

    task = card_player_task(target="both", value_weight=0.5)
    three = SupervisedConfig(hidden=(32,), epochs=3, batch_size=32, learning_rate=1e-2)
    train_supervised(task, tmp_path / "a", positions_file, valid_file, three, seed=2, progress=False)
    two = SupervisedConfig(hidden=(32,), epochs=2, batch_size=32, learning_rate=1e-2)
    train_supervised(task, tmp_path / "c", positions_file, valid_file, two, seed=2, progress=False)
    train_supervised(task, tmp_path / "c", positions_file, valid_file, three, seed=2, resume=True, progress=False)
    assert (tmp_path / "a" / "log.jsonl").read_text() == (tmp_path / "c" / "log.jsonl").read_text()
    from bridgerl.agents.learned.card_player import FORMAT
    from bridgerl.agents.learned.checkpoint import load_weights

    straight, resumed = (load_weights(tmp_path / run, format=FORMAT)[1] for run in ("a", "c"))
    assert all(jax.tree.leaves(jax.tree.map(np.array_equal, straight, resumed)))  # the same weights
    log = [json.loads(line) for line in (tmp_path / "a" / "log.jsonl").read_text().splitlines()]
    assert all("valid_log_loss+value" in r and "valid_trick_loss" in r for r in log)
    player = CardPlayer.load(tmp_path / "a")
    assert player.has_card_values and player.metadata["card_values"] and player.metadata["value_weight"] == 0.5
    positions = load_positions(valid_file)
    x, legal, _, index = positions_examples(positions)
    logits, values = player.card_values_of(x[:5].astype(np.float32))
    assert logits.shape == values.shape == (5, 52)
    np.testing.assert_allclose(logits[0], player.outputs(x[0]), rtol=1e-5, atol=1e-5)  # the policy as it acts
    # the values learn the DD tricks: the loss falls, and the kept model's values beat a guess of none
    assert log[-1]["train_log_loss+value"] < log[0]["train_log_loss+value"] / 2
    train = load_positions(positions_file)
    tx, tlegal, _, tindex = positions_examples(train)
    dd = train.positions["dd"][tindex].astype(np.float32)
    _, predicted = player.card_values_of(tx.astype(np.float32))
    assert ((predicted - dd) ** 2)[tlegal].mean() < (dd[tlegal] ** 2).mean() / 2
    with pytest.raises(ValueError, match="has no card values"):
        CardPlayer.load("models/card-player").card_values_of(x[0])
    assert main(["train", "card-player", "--train", str(positions_file), "--valid", str(valid_file), "--out",
                 str(tmp_path / "cli"), "--hidden", "16", "--epochs", "1", "--batch-size", "32", "--target", "both",
                 "--quiet"]) == 0
    assert CardPlayer.load(tmp_path / "cli").has_card_values
    with pytest.raises(ValueError, match="value weight must be > 0"):
        card_player_task(target="both", value_weight=0)


def test_worlds_target(tmp_path_factory, positions_file, valid_file, tmp_path, capsys):
    """``--target worlds`` shares the target by the sampled worlds in which each card is best (files made with
    ``--label-worlds``), validated on the true deal of unlabelled positions; a file without labels is refused in
    one line."""
    from bridgerl.evaluation.datasets.positions import generate_positions

    labelled = tmp_path_factory.mktemp("labelled") / "train.npz"
    generate_positions(labelled, data="train", deals=3, start=200, ns=FAST, ew=FAST, seed=1, progress=False,
                       label_worlds=6)
    positions = load_positions(labelled)
    x, legal, target, index = positions_examples(positions, target="worlds")
    counts = positions.positions["worlds"][index].astype(np.float32)
    np.testing.assert_allclose(target, counts / counts.sum(1, keepdims=True), rtol=1e-6)
    assert (target[~legal] == 0).all()
    with pytest.raises(ValueError, match="no sampled-world labels for target 'worlds'"):
        positions_examples(load_positions(valid_file), target="worlds")
    out = tmp_path / "worlds"
    assert main(["train", "card-player", "--train", str(labelled), "--valid", str(valid_file), "--out", str(out),
                 "--hidden", "32", "--epochs", "2", "--batch-size", "16", "--target", "worlds", "--quiet"]) == 0
    player = CardPlayer.load(out)
    assert player.metadata["target"] == "worlds" and "valid_trick_loss" in player.metadata
    # mixed: the worlds' target from the labelled file, the true deal's from the other
    plain = load_positions(positions_file)
    for positions, like in ((positions, "worlds"), (plain, "best")):
        for got, want in zip(positions_examples(positions, target="mixed"), positions_examples(positions, target=like)):
            np.testing.assert_array_equal(got, want)
    out = tmp_path / "mixed"
    assert main(["train", "card-player", "--train", str(labelled), str(positions_file), "--valid",
                 str(valid_file), "--out", str(out), "--hidden", "32", "--epochs", "1", "--batch-size", "16",
                 "--target", "mixed", "--quiet"]) == 0
    assert CardPlayer.load(out).metadata["target"] == "mixed"
    assert main(["train", "card-player", "--train", str(positions_file), "--valid", str(valid_file), "--out",
                 str(tmp_path / "none"), "--hidden", "32", "--epochs", "1", "--target", "mixed", "--quiet"]) == 2
    assert "none of the training files has sampled-world labels" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()


def test_selfplay_fine_tuning_is_seeded_and_resumes(positions_file, valid_file, player, tmp_path):
    """`train card-player-selfplay`: PPO in the JAX whole deal from a card player, on the deals and contracts of
    training-split positions; update 0 is the starting network's validation; the run resumes to the same updates
    as one made straight through; test/valid deals, a player reading the auction and a bad config are refused."""
    import json

    from bridgerl.training.card_player_selfplay import SelfPlayConfig, contracts_of, train_selfplay

    source, rows, contracts = contracts_of([positions_file])
    positions = load_positions(positions_file)
    assert source == "train" and len(rows) == int((positions.deals["contract"][:, 0] > 0).sum())
    c = positions.deals["contract"][positions.deals["contract"][:, 0] > 0]
    np.testing.assert_array_equal(contracts[:, 0], (c[:, 0] - 1) * 5 + c[:, 1])
    args = ["train", "card-player-selfplay", "--init", player.model, "--deals", str(positions_file), "--valid",
            str(valid_file), "--tables", "4", "--minibatches", "2", "--eval-every", "1", "--warmup", "1",
            "--learning-rate", "1e-3", "--quiet"]
    assert main(args + ["--out", str(tmp_path / "straight"), "--updates", "3"]) == 0
    assert main(args + ["--out", str(tmp_path / "resumed"), "--updates", "2"]) == 0
    assert main(args + ["--out", str(tmp_path / "resumed"), "--updates", "3", "--resume"]) == 0
    logs = [[json.loads(line) for line in (tmp_path / run / "log.jsonl").read_text().splitlines()]
            for run in ("straight", "resumed")]
    assert [r["update"] for r in logs[0]] == [0, 1, 2, 3]
    assert logs[0] == logs[1]
    start = logs[0][0]["valid_trick_loss"]
    study_player = CardPlayer.load(tmp_path / "straight")
    kept = min(logs[0], key=lambda r: (r["valid_trick_loss"], r["update"]))
    assert study_player.metadata["selfplay"]["update"] == kept["update"] and kept["valid_trick_loss"] <= start
    with pytest.raises(ValueError, match="positions of the valid split"):
        train_selfplay(tmp_path / "v", player.model, [valid_file], valid_file, SelfPlayConfig(tables=4))
    with pytest.raises(ValueError, match="minibatches"):
        SelfPlayConfig(tables=3, minibatches=5)


def test_equal_outputs_go_to_the_lowest_card_on_both_paths(tmp_path):
    """The documented tie rule (`card_player.masked_choice`): among legal cards of exactly equal output, the lowest
    card, on the numpy path and the JAX path alike. Constructed ties: the head's weights zeroed, so the outputs are
    its bias exactly; first every card equal, then the honours (J, Q, K, A of every suit) equal above the rest."""
    network = build(feature_size(False), (16,), seed=1)
    network.head.kernel[...] = jnp.zeros_like(network.head.kernel[...])
    states = _play_states(range(6))[:40]
    env = jaxenv.make("bridge", dataset="valid")
    step = jax.jit(env.step)

    def jax_state(state: BridgeState):
        js = env.init(jax.random.key(0), state.deal.index)
        for action in list(state.auction.calls) + [CARD_OFFSET + c for c in state.play.history]:
            js = step(js, action)
        return js

    batch = jax.tree.map(lambda *leaves: jnp.stack(leaves), *[jax_state(state) for state in states])
    honours = np.arange(52) % 13 >= 9
    expected = {"all equal": [min(s.view().legal) for s in states],
                "honours": [min([c for c in s.view().legal if honours[c]] or s.view().legal) for s in states]}
    for case, bias in (("all equal", np.zeros(52)), ("honours", honours * 0.75)):
        network.head.bias[...] = jnp.asarray(bias, jnp.float32)
        save(tmp_path / f"{case}.msgpack", network, {"auction": False, "hidden": [16]})
        player = CardPlayer.load(tmp_path / f"{case}.msgpack")
        assert [player.act(s.view()) for s in states] == expected[case]
        assert np.asarray(player.jax_cards(batch)).tolist() == expected[case]
    assert len(set(expected["honours"])) > 8 and expected["honours"] != expected["all equal"]
