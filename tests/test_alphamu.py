"""αμ: Pareto fronts, non-locality, the thesis 2.3.2.1 discovery play, M=1 = PIMC, cuts keep the move."""

import numpy as np
import pytest

from bridgerl.agents import AlphaMuAgent, PIMCAgent
from bridgerl.agents.play import pareto
from bridgerl.core import Contract, pbn_to_owner
from bridgerl.core.cards import card_name, parse_card
from bridgerl.core.play import PlayState
from bridgerl.envs import sample_worlds, view_of
from bridgerl.arena.play import play_deal


def vec(bits: str) -> int:
    """'1101' -> bitmask with world 0 first."""
    return sum(1 << i for i, b in enumerate(bits) if b == "1")


# -- Pareto fronts (paper section 3) ---------------------------------------------------------------------------
def test_dominance():
    assert pareto.dominates(vec("110"), vec("100")) and pareto.dominates(vec("110"), vec("110"))
    assert not pareto.dominates(vec("110"), vec("011")) and not pareto.dominates(vec("100"), vec("110"))


def test_insertion():
    front = [vec("110"), vec("011")]
    assert pareto.insert(front, vec("010")) == front  # dominated: front unchanged
    assert sorted(pareto.insert(front, vec("111"))) == [vec("111")]  # dominates both: replaces them
    assert sorted(pareto.insert(front, vec("101"))) == sorted([vec("110"), vec("011"), vec("101")])
    assert sorted(pareto.insert([vec("100"), vec("011")], vec("110"))) == sorted([vec("110"), vec("011")])
    assert pareto.reduce([vec("100"), vec("110"), vec("110"), vec("001")]) in ([vec("110"), vec("001")],
                                                                               [vec("001"), vec("110")])


def test_min_product_and_front_order():
    # Min chooses per world: every pair of options combined by element-wise minimum, then reduced.
    left = [vec("110"), vec("011")]
    right = [vec("101"), vec("010")]
    product = pareto.min_product(left, right)
    assert sorted(product) == sorted([vec("100"), vec("010"), vec("001")])
    assert pareto.min_product([vec("111")], right) == pareto.reduce(right)  # all-ones is the identity
    assert pareto.front_leq([vec("100"), vec("010")], [vec("110")])
    assert not pareto.front_leq([vec("101")], [vec("110"), vec("011")])
    assert pareto.score([vec("110"), vec("001")], vec("111")) == pytest.approx(2 / 3)


def test_non_locality_tree():
    """Paper fig. 1 as described: backing up only the best-mean vector at a Max node (strategy fusion without
    fronts) misjudges the Min node above it; Pareto fronts keep the option that matters."""
    all5 = vec("11111")
    d_options = [vec("11100"), vec("00011")]   # Max node d: means 0.6 and 0.4
    e = [vec("00011")]                         # Max node e: one option
    c = [vec("10000")]                         # root alternative c: mean 0.2
    local_d = [max(d_options, key=int.bit_count)]
    local_b = pareto.min_product(local_d, e)   # Min node b over d and e
    pareto_b = pareto.min_product(pareto.reduce(d_options), e)
    assert pareto.score(local_b, all5) == 0.0 < pareto.score(c, all5)   # local backup prefers c
    assert pareto.score(pareto_b, all5) == pytest.approx(0.4)          # fronts see b is better
    assert pareto.score(pareto_b, all5) > pareto.score(c, all5)


# -- the discovery play (thesis 2.3.2.1, notrump: "guess the spade queen") --------------------------------------
# 7NT by South after nine tricks; East has shown out of diamonds, so West holds the diamond ace. Cashing the heart
# ace first reveals the spades and wins in every world; leading a spade at once wins in every world only double
# dummy.
DISCOVERY_DEAL = pbn_to_owner("N:AJ763..JT982.765 9854.JT987654..2 KT2.A.KQ.AKQJT98 Q.KQ32.A76543.43")
DISCOVERY_PLAY = ("D3 D8 H4 DK DQ D4 D9 H5 CA C3 C5 C2 CK C4 C6 S4 CQ D5 C7 S5 CJ D6 DT H6 CT D7 DJ H7 C9 H2 S6 H8 "
                  "C8 H3 S7 H9").split()


def discovery_view():
    state = PlayState.start(DISCOVERY_DEAL, Contract.parse("7NT S"), DISCOVERY_PLAY)
    assert state.declarer_tricks == 9 and state.to_play == 2
    return view_of(state)


def test_discovery_position_worlds_are_enumerated():
    view = discovery_view()
    worlds = sample_worlds(view, 100, seed=0)
    assert len(worlds) == 35  # West: the diamond ace + 3 of the 7 other unseen cards
    assert (worlds[:, parse_card("DA")] == 3).all()


@pytest.mark.parametrize("max_moves", [2, 3, 4])
def test_discovery_play_probabilities(max_moves):
    view = discovery_view()
    worlds = sample_worlds(view, 100, seed=0)
    exact = AlphaMuAgent(max_moves, 100, seed=0, early_cut=False, root_cut=False)
    values, pimc = exact.root_values(view, worlds)
    heart_ace, direct = parse_card("HA"), parse_card("S2")
    assert pimc[heart_ace] == 1.0 and pimc[direct] == 1.0  # double dummy both always win
    assert values[heart_ace] == 1.0 and values[direct] < 1.0  # only the discovery play does for real
    for seed in range(4):
        assert AlphaMuAgent(max_moves, 40, seed=seed).act(view) == heart_ace


def test_pimc_guesses_between_the_two_lines():
    view = discovery_view()
    choices = {AlphaMuAgent(1, 40, seed=seed).act(view) for seed in range(12)}
    assert choices == {parse_card("HA"), parse_card("S2")}  # tie broken at random, like PIMC


# -- M = 1 is PIMC with the make objective; cuts and the table do not change the choice --------------------------
def declarer_positions(count: int):
    rng = np.random.default_rng(0)
    from bridgerl.core import load_dataset

    owners = load_dataset("test").owner
    found = []
    for row in range(200):
        state = PlayState.start(owners[row], Contract.parse("3NT S"))
        target = int(rng.integers(4, 36))
        while not state.is_over and (len(state.history) < target or state.controller % 2 != state.declarer % 2):
            state = state.play(int(rng.choice(state.legal_cards())))
        if not state.is_over and len(view_of(state).equivalent_groups()) > 1:
            found.append(state)
        if len(found) == count:
            break
    return found


def test_m1_reproduces_pimc_make():
    for i, state in enumerate(declarer_positions(12)):
        view = view_of(state)
        assert AlphaMuAgent(1, 20, seed=i).act(view) == PIMCAgent(20, "make", seed=i).act(view)
        worlds = PIMCAgent(20, "make", seed=i).sample(view)
        values, _ = AlphaMuAgent(1, 20).root_values(view, worlds)
        expected = PIMCAgent(20, "make").card_values(view, worlds)
        assert np.allclose(values[list(view.legal)], expected[list(view.legal)])


def test_table_and_cuts_keep_an_exactly_best_move():
    for i, state in enumerate(declarer_positions(6)):
        view = view_of(state)
        worlds = PIMCAgent(8, seed=i).sample(view)
        exact, _ = AlphaMuAgent(2, 8, early_cut=False, root_cut=False, transposition=False).root_values(view, worlds)
        fast, _ = AlphaMuAgent(2, 8).root_values(view, worlds)
        chosen = max(view.legal, key=lambda c: fast[c])
        assert exact[chosen] == pytest.approx(max(exact[c] for c in view.legal))
        same, _ = AlphaMuAgent(2, 8, early_cut=False, root_cut=False).root_values(view, worlds)
        assert np.allclose(same, exact)  # the transposition table alone changes nothing


def test_alphamu_plays_a_whole_deal_and_defends_as_pimc():
    from bridgerl.core import load_dataset

    owner = load_dataset("test").owner[3]
    declarer = AlphaMuAgent(2, 8, seed=0)
    record = play_deal(owner, Contract.parse("3NT S"), declarer, AlphaMuAgent(2, 8, seed=1))
    assert len(record.play) == 52 and declarer.stats.searched > 0
    state = PlayState.start(owner, Contract.parse("3NT S"))  # West leads: a defender's choice
    view = view_of(state)
    assert AlphaMuAgent(3, 10, seed=4).act(view) == PIMCAgent(10, "make", seed=4).act(view)
    with pytest.raises(ValueError, match="at least 1"):
        AlphaMuAgent(max_moves=0)


# -- the experiment runner (small) -------------------------------------------------------------------------------
def test_experiment_deals_play_and_report(tmp_path, capsys):
    import json

    from bridgerl.cli import main
    from bridgerl.evaluation.cardplay import alphamu_experiment as exp

    def run(*argv):
        assert main(["evaluate", "alphamu", *argv]) == 0

    owners = exp.constrained_deals(seed=3, count=5)
    assert owners.shape == (5, 52)
    deals = tmp_path / "deals.jsonl"
    run("deals", "--out", str(deals), "--keep", "5", "--candidates", "2", "--worlds", "4", "--filter-runs", "2",
        "--quiet")
    first = [json.loads(line) for line in deals.read_text().splitlines()]
    assert [r["candidate"] for r in first] == [0, 1]
    run("deals", "--out", str(deals), "--keep", "5", "--candidates", "3", "--worlds", "4", "--filter-runs", "2",
        "--quiet", "--workers", "2")  # resumes: only candidate 2 is new
    assert [json.loads(line)["candidate"] for line in deals.read_text().splitlines()] == [0, 1, 2]

    played = exp.opening_play(owners[0], 16, 4, seed=0)
    kept = tmp_path / "kept.jsonl"
    kept.write_text(json.dumps({"candidate": 7, "owner": owners[0].tolist(), "played": [card_name(c) for c in played],
                                "kept": True}) + "\n")
    files = []
    for name, spec in (("pimc", "pimc:worlds=4,objective=make"), ("am2", "alphamu:max_moves=2,worlds=4")):
        out = tmp_path / f"{name}.jsonl"
        run("play", "--deals", str(kept), "--declarer", spec, "--out", str(out), "--runs", "2", "--worlds", "4",
            "--workers", "2", "--quiet")
        lines = [json.loads(line) for line in out.read_text().splitlines()]
        assert lines[0]["declarer"] == spec and sorted(r["run"] for r in lines[1:]) == [0, 1]
        files.append(str(out))
    capsys.readouterr()
    assert main(["evaluate", "alphamu", "play", "--deals", str(kept), "--declarer", "pimc:worlds=5", "--out",
                 files[0], "--quiet"]) == 2
    assert "another match" in capsys.readouterr().err
    run("report", *files)
    report = capsys.readouterr().out
    assert "alphamu:max_moves=2,worlds=4" in report and "pimc:worlds=4,objective=make" in report
