"""World sampling and the play agents: consistency, uniformity, DD oracle, PIMC (thesis Algorithm 1)."""

import itertools
import math

import numpy as np
import pytest

from bridgerl.agents import DoubleDummyAgent, PIMCAgent, RandomAgent
from bridgerl.core import Contract, load_dataset, pbn_to_owner
from bridgerl.core.cards import parse_card
from bridgerl.core.constraints import HandConstraint
from bridgerl.core.hand import hcp, is_balanced
from bridgerl.core.play import PlayState
from bridgerl.envs import WorldSamplingError, sample_worlds, view_of
from bridgerl.arena.play import play_deal

# 7NT by South: after West's spade void shows, the spade queen is marked with East and only the jack wins.
FINESSE_DEAL = pbn_to_owner("N:K3.5432.5432.432 QT987654.T9.T9.J AJ2.AKQJ.AKQJ.AK .876.876.QT98765")
FINESSE_PLAY = ["C5", "C2", "CJ", "CA", "S2", "C6", "SK", "S4", "S3", "S5"]


def random_state(row: int, cards_played: int, seed: int, contract: Contract | None = None) -> PlayState:
    rng = np.random.default_rng(seed)
    contract = contract or Contract(int(rng.integers(1, 8)), int(rng.integers(5)), 0, int(rng.integers(4)))
    state = PlayState.start(load_dataset("test").owner[row], contract)
    for _ in range(cards_played):
        state = state.play(int(rng.choice(state.legal_cards())))
    return state


def assert_consistent(view, worlds: np.ndarray) -> None:
    assert worlds.dtype == np.uint8 and worlds.shape[1] == 52
    assert all((np.bincount(w, minlength=4) == 13).all() for w in worlds)
    for seat, held in view.known_hands().items():
        assert (worlds[:, list(held)] == seat).all()
    for trick in view.all_tricks():
        for seat, card in zip(trick.seats, trick.cards):
            assert (worlds[:, card] == seat).all()
    played = {c for t in view.all_tricks() for c in t.cards}
    for seat, suit in zip(*np.nonzero(view.voids)):
        remaining = [c for c in range(suit * 13, suit * 13 + 13) if c not in played]
        assert not (worlds[:, remaining] == seat).any()


def brute_force_layouts(view) -> set[tuple]:
    """All consistent worlds by listing every split of the unseen cards between the two hidden seats."""
    unseen = view.unseen_cards()
    hidden = [s for s in range(4) if s not in view.known_hands()]
    base = np.full(52, 255, np.uint8)
    for seat, held in view.known_hands().items():
        base[list(held)] = seat
    for trick in view.all_tricks():
        for seat, card in zip(trick.seats, trick.cards):
            base[card] = seat
    need = 13 - int((base == hidden[0]).sum())
    layouts = set()
    for first in itertools.combinations(unseen, need):
        world = base.copy()
        world[unseen] = hidden[1]
        world[list(first)] = hidden[0]
        if all(not view.voids[s, c // 13] for c in unseen for s in [world[c]]):
            layouts.add(tuple(world))
    return layouts


@pytest.mark.parametrize("cards_played", [0, 1, 9, 22, 37, 46])
def test_worlds_are_consistent_with_the_view(cards_played):
    for seed in range(4):
        state = random_state(seed, cards_played, seed)
        view = view_of(state)
        worlds = sample_worlds(view, 50, seed=seed)
        assert 1 <= len(worlds) <= 50
        assert_consistent(view, worlds)
        assert (sample_worlds(view, 50, seed=seed) == worlds).all()  # reproducible


def test_small_case_returns_every_layout_exactly_once():
    checked = 0
    for seed in range(40):
        view = view_of(random_state(seed % 10, 40, seed))
        exact = brute_force_layouts(view)
        worlds = sample_worlds(view, 10_000, seed=seed)
        assert {tuple(w) for w in worlds} == exact and len(worlds) == len(exact)
        checked += len(exact) > 1
    assert checked >= 10


def test_draws_are_uniform_over_the_layouts():
    # Find a late position with 20 layouts (3 + 3 unseen cards, no voids in the way).
    for seed in range(200):
        view = view_of(random_state(seed % 10, 40, seed))
        exact = sorted(brute_force_layouts(view))
        if len(exact) == 20:
            break
    else:
        pytest.fail("no position with 20 layouts found")
    index = {w: i for i, w in enumerate(exact)}
    counts = np.zeros(len(exact))
    rng = np.random.default_rng(0)
    draws = 0
    for _ in range(1000):
        for world in sample_worlds(view, 8, seed=rng):
            counts[index[tuple(world)]] += 1
            draws += 1
    expected = draws / len(exact)
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 45  # 19 degrees of freedom: p < 0.001 beyond 43.8


def test_constraints_hold_at_the_opening_lead():
    view = view_of(random_state(3, 0, 0, Contract.parse("3NT S")))  # West on lead: three hidden seats
    worlds = sample_worlds(view, 60, {0: HandConstraint.notrump_opener()}, seed=1)
    assert_consistent(view, worlds)
    points = hcp(worlds, 0)
    assert ((points >= 15) & (points <= 17)).all() and is_balanced(worlds, 0).all()
    lengths = HandConstraint.with_lengths(hcp=(6, 37), H=(4, 13))
    worlds = sample_worlds(view, 30, {1: lengths}, seed=2)
    assert ((worlds[:, 26:39] == 1).sum(1) >= 4).all() and (hcp(worlds, 1) >= 6).all()


def test_constraints_after_cards_are_played_apply_to_the_original_hand():
    view = view_of(random_state(4, 14, 1, Contract.parse("3NT S")))
    constraint = {1: HandConstraint(hcp=(8, 37))}
    worlds = sample_worlds(view, 40, constraint, seed=3)
    assert_consistent(view, worlds)
    assert (hcp(worlds, 1) >= 8).all()


def test_impossible_constraint_names_what_failed():
    view = view_of(random_state(0, 1, 0, Contract.parse("3NT S")))
    with pytest.raises(WorldSamplingError, match="'E: 30-37 HCP' was met by 0"):
        sample_worlds(view, 10, {1: HandConstraint(hcp=(30, 37))}, seed=0, max_tries=3000)
    with pytest.raises(WorldSamplingError, match="known hand"):
        sample_worlds(view, 10, {view.player: HandConstraint(hcp=(37, 37))}, seed=0)
    with pytest.raises(ValueError, match="HCP range"):
        HandConstraint(hcp=(20, 10))


def test_finesse_ending_marks_the_queen():
    state = PlayState.start(FINESSE_DEAL, Contract.parse("7NT S"), FINESSE_PLAY)
    view = view_of(state)
    assert view.voids[3, 3] and sorted(view.legal) == [parse_card("SJ"), parse_card("SA")]
    worlds = sample_worlds(view, 200, seed=0)
    assert (worlds[:, parse_card("SQ")] == 1).all()


@pytest.mark.parametrize("objective", ["make", "tricks"])
def test_pimc_picks_the_only_winning_card(objective):
    state = PlayState.start(FINESSE_DEAL, Contract.parse("7NT S"), FINESSE_PLAY)
    for seed in range(5):
        assert PIMCAgent(worlds=20, objective=objective, seed=seed).act(view_of(state)) == parse_card("SJ")
    values = PIMCAgent(worlds=20, objective=objective, seed=0).card_values(view_of(state))
    if objective == "make":
        assert values[parse_card("SJ")] == 1.0 and values[parse_card("SA")] == 0.0
    else:
        assert values[parse_card("SJ")] == 11.0 and values[parse_card("SA")] == 10.0  # tricks from here


def test_equivalent_cards_are_one_choice_and_the_lowest_is_played():
    state = PlayState.start(FINESSE_DEAL, Contract.parse("7NT S"), FINESSE_PLAY + ["SJ", "C7"])  # South leads
    view = view_of(state)
    groups = view.equivalent_groups()
    names = [[parse_card(c) for c in cards] for cards in (["SA"], ["HJ", "HQ", "HK", "HA"], ["DJ", "DQ", "DK", "DA"],
                                                           ["CK"])]
    assert sorted(groups) == sorted(names)  # CK stands alone: CQ is unseen
    for seed in range(3):
        assert PIMCAgent(worlds=10, seed=seed).act(view) in [g[0] for g in groups]  # the lowest of its group


def test_double_dummy_play_reproduces_the_dd_table():
    dataset = load_dataset("test")
    for row, (contract, seed) in enumerate(itertools.product(["3NT S", "4S N", "2H E", "5C W", "1D S"], [0, 1, 2])):
        contract = Contract.parse(contract)
        oracle = DoubleDummyAgent(seed=seed)
        record = play_deal(dataset.owner[row], contract, oracle, oracle)
        assert record.declarer_tricks == dataset.dd[row][contract.declarer, contract.strain]


def test_double_dummy_agent_plays_a_dds_best_card():
    rng = np.random.default_rng(2)
    for seed in range(10):
        state = random_state(seed, int(rng.integers(0, 45)), seed)
        oracle = DoubleDummyAgent(seed=seed)
        oracle.see_deal(state.owner)
        view = view_of(state)
        values = oracle.card_values(view)
        assert values[oracle.act(view)] == values.max()
    with pytest.raises(ValueError, match="see_deal"):
        DoubleDummyAgent().act(view)
    other = DoubleDummyAgent()
    other.see_deal(load_dataset("test").owner[99])
    with pytest.raises(ValueError, match="does not match"):
        other.act(view)


def test_random_agent_plays_legal_cards_and_pimc_is_seeded():
    state = random_state(7, 0, 0, Contract.parse("3NT S"))
    agents = [RandomAgent(seed=1), PIMCAgent(worlds=6, seed=1)]
    while not state.is_over:
        view = view_of(state)
        card = agents[len(state.history) % 2].act(view)
        assert card in view.legal
        state = state.play(card)
    a, b = PIMCAgent(worlds=8, seed=3), PIMCAgent(worlds=8, seed=3)
    view = view_of(random_state(8, 5, 0, Contract.parse("4S N")))
    assert a.act(view) == b.act(view)
    with pytest.raises(ValueError, match="objective"):
        PIMCAgent(objective="imps")


def test_pimc_value_is_the_mean_over_its_worlds():
    view = view_of(random_state(9, 21, 4, Contract.parse("3NT S")))
    agent = PIMCAgent(worlds=16, objective="tricks", seed=0)
    worlds = agent.sample(view)
    values = agent.card_values(view, worlds)
    for card in view.legal:
        per_world = [DoubleDummyAgent(seed=0) for _ in worlds]
        for oracle, world in zip(per_world, worlds):
            oracle.see_deal(world)
        mean = np.mean([o.card_values(view)[card] for o in per_world])
        assert math.isclose(values[card], mean)


def test_sigma_goal_takes_the_safe_line_that_mean_tricks_does_not():
    """Thesis 3.4.4 on a position from the held-out deals: 4S by South, three tricks left, two needed; South holds
    HJ HA SQ (HK HQ gone: the hearts are one choice), dummy CT D2 ST, and six layouts of C9 CK D3 H7 S7 S8 remain.
    Drawing the last trump (SQ) takes 2.5 tricks on average but only 1 when East holds both small trumps; the
    hearts take 2.17 and never fewer than 2. Mean tricks leads the SQ; the sigma goal (both reach 2: SQ scores
    2.5 - 0.84, hearts 2.17 - 0.41) plays the hearts."""
    from bridgerl.agents.play.pimc import sigma_values, solve_worlds, world_values
    from bridgerl.core import Contract, load_dataset, parse_card
    from bridgerl.core.play import PlayState

    played = ("H5 H4 H3 H2 S9 S3 S2 SA C3 C6 C8 C4 D7 D9 DQ D5 H8 HK CA HT D6 DT D8 D4 DJ DK DA H9 SK SJ S4 S5 HQ "
              "H6 S6 CJ C5 C2 CQ C7").split()
    state = PlayState.start(load_dataset("test").owner[563], Contract.parse("4S", "S"), played)
    view = view_of(state)
    assert sorted(view.legal) == sorted(parse_card(c) for c in ("HJ", "HA", "SQ"))
    worlds = sample_worlds(view, 50, seed=0)
    assert len(worlds) == 6  # every layout, each once
    per_world = world_values(view, solve_worlds(view, worlds), "tricks")
    spade, heart = parse_card("SQ"), parse_card("HJ")
    assert per_world[:, heart].min() == 2 and per_world[:, spade].min() == 1
    assert per_world[:, spade].mean() > per_world[:, heart].mean()
    values = sigma_values(view, per_world, per_world[0] >= 0)
    assert values[heart] > values[spade]
    assert PIMCAgent(worlds=50, seed=0).act(view) == spade
    assert PIMCAgent(worlds=50, seed=0, goal="sigma").act(view) == heart
    with pytest.raises(ValueError, match="objective='tricks'"):
        PIMCAgent(goal="sigma", objective="make")


def test_ties_are_choices_within_a_hundredth_of_a_trick():
    from bridgerl.agents.play.pimc import choose

    state = PlayState.start(load_dataset("test").owner[0], Contract.parse("3NT", "S"))
    view = view_of(state)
    groups = view.equivalent_groups()
    first, second = groups[0][0], groups[1][0]
    values = np.full(52, -1.0)
    for group in groups:
        values[group] = 5.0
    values[first], values[second] = 9.0, 9.0 - 0.009  # a tie: drawn between the two
    picks = {choose(view, values, np.random.default_rng(seed)) for seed in range(40)}
    assert picks == {first, second}
    values[second] = 9.0 - 0.01  # a hundredth apart (the step of a mean over 100 worlds): no tie
    assert {choose(view, values, np.random.default_rng(seed)) for seed in range(40)} == {first}
