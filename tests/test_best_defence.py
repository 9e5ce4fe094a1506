"""The best-defence reference (Frank & Basin): exact values of small endings, checked against αμ at full depth
(an independent search of the same model) and on the discovery play; the size guard refuses cleanly."""

import pytest

from bridgerl.agents import AlphaMuAgent
from bridgerl.agents.play.best_defence import best_defence_values, random_endings
from bridgerl.core import Contract, load_dataset, pbn_to_owner
from bridgerl.core.cards import parse_card
from bridgerl.core.play import PlayState
from bridgerl.envs import sample_worlds, view_of


def endings(count: int):
    """Declaring-side decisions with two or three tricks left, from held-out deals played at random."""
    return random_endings("test", count, seed=1, rows=range(200))


def test_agrees_with_alphamu_at_full_depth():
    compared = 0
    for view in endings(25):
        worlds = sample_worlds(view, 1000, seed=0)
        values = best_defence_values(view)
        assert set(values) == set(view.legal) and all(0 <= v <= 1 for v in values.values())
        exact, _ = AlphaMuAgent(8, len(worlds), seed=0, early_cut=False, root_cut=False).root_values(view, worlds)
        for card, value in values.items():
            if exact[card] >= 0:  # αμ values one card of each group of equals (and marks bounds 1e-6 below)
                assert value == pytest.approx(exact[card], abs=2e-6), (str(view), card)
                compared += 1
    assert compared >= 30


DISCOVERY_DEAL = pbn_to_owner("N:AJ763..JT982.765 9854.JT987654..2 KT2.A.KQ.AKQJT98 Q.KQ32.A76543.43")
DISCOVERY_PLAY = ("D3 D8 H4 DK DQ D4 D9 H5 CA C3 C5 C2 CK C4 C6 S4 CQ D5 C7 S5 CJ D6 DT H6 CT D7 DJ H7 C9 H2 S6 H8 "
                  "C8 H3 S7 H9").split()


def test_discovery_play_and_strategy_fusion():
    """7NT by South, four tricks left, all needed (thesis 2.3.2.1, the αμ paper's discovery position): cashing the
    heart ace first shows where the spades are and wins in every world; a spade at once must guess. Double dummy
    (PIMC) both lines win everywhere: strategy fusion."""
    state = PlayState.start(DISCOVERY_DEAL, Contract.parse("7NT S"), DISCOVERY_PLAY)
    view = view_of(state)
    values = best_defence_values(view)
    assert values[parse_card("HA")] == 1.0
    assert values[parse_card("S2")] < 1.0
    from bridgerl.agents.play.pimc import solve_worlds, world_values

    worlds = sample_worlds(view, 1000, seed=0)
    pimc = world_values(view, solve_worlds(view, worlds), "make").mean(0)
    assert pimc[parse_card("S2")] == 1.0  # what PIMC believes


def test_the_size_guard_refuses_cleanly():
    dataset = load_dataset("test")
    opening = view_of(PlayState.start(dataset.owner[0], Contract.parse("3NT S")))  # West leads: a defender
    with pytest.raises(ValueError, match="defends"):
        best_defence_values(opening)
    state = PlayState.start(dataset.owner[0], Contract.parse("3NT S"))
    while state.controller % 2 != 0:
        state = state.play(state.legal_cards()[0])
    with pytest.raises(ValueError, match="tricks left"):
        best_defence_values(view_of(state))
    view = next(endings(1))
    with pytest.raises(ValueError, match="worlds"):
        best_defence_values(view, max_worlds=1)
