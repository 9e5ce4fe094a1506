"""`cardsearch` (issue #50): a search on top of the card player that reads its own view only, never plays an illegal
card, plays the same card for the same seed, and values candidates by DDS in a few sampled worlds with the card
player as the prior (the default), or by the card player's own play in them (card values after the trick, or
play-outs to the end)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bridgerl.agents.learned.card_player import build, save
from bridgerl.agents.play.card_search import CardSearch
from bridgerl.core.play_features import feature_size, play_features
from bridgerl.arena.specs import load_play_agent
from test_card_player import _play_states, _swap_hidden


@pytest.fixture(scope="module")
def valued(tmp_path_factory):
    """A seeded random card player with card values (what these tests check holds for any weights)."""
    path = tmp_path_factory.mktemp("valued") / "model.msgpack"
    network = build(feature_size(False), (48, 48), seed=5, card_values=True)
    save(path, network, {"auction": False, "hidden": [48, 48], "card_values": True})
    return str(path)


def _choices(states):
    return [s for s in states if s.phase == "play" and len(s.view().equivalent_groups()) > 1]


# the released defaults' searches on four deals in the slow tier (CI runs it; docs/conventions.md): on two they stay
@pytest.mark.parametrize("how,deals", [("values=playout,worlds=4,depth=-1", 4),
                                       ("worlds=4,first=2,prior=0.5,gate=0.5,auction=none", 4),
                                       ("worlds=4", 2),  # the released defaults otherwise (values=dds, auction=rules)
                                       pytest.param("worlds=4", 4, marks=pytest.mark.slow)])
def test_the_spec_and_the_same_card_for_the_same_seed(valued, how, deals):
    agent = load_play_agent(f"cardsearch:model={valued},{how}", seed=3)
    assert isinstance(agent, CardSearch) and agent.worlds == 4
    states = _choices(_play_states(range(deals)))
    first = [agent.act(s.view()) for s in states]
    agent.reseed(3)
    assert [agent.act(s.view()) for s in states] == first
    again = load_play_agent(f"cardsearch:model={valued},{how}", seed=3)
    assert [again.act(s.view()) for s in states] == first


def test_the_spec_defaults_and_bad_settings(valued):
    agent = load_play_agent("cardsearch")  # the released recipe (issue #66: three checking worlds)
    assert (agent.values, agent.worlds, agent.first, agent.prior, agent.gate, agent.auction) == (
        "dds", 6, 3, 0.3, 0.0, "rules")
    assert load_play_agent(f"cardsearch:model={valued},worlds=2").first == 2  # no more than the worlds
    assert load_play_agent(f"cardsearch:model={valued},first=1").first == 1
    from bridgerl.arena.specs import resolved_play_spec  # what results files record: the worlds checked

    assert ",first=3," in resolved_play_spec("cardsearch") and ",first=2," in resolved_play_spec("cardsearch:worlds=2")
    assert load_play_agent(f"cardsearch:model={valued},values=playout,depth=-1").depth == 0  # values: after the trick
    assert load_play_agent(f"cardsearch:model={valued},values=playout").depth == 13  # play-outs to the end
    with pytest.raises(ValueError, match="has no card values"):
        load_play_agent("cardsearch:values=playout,depth=0")  # the released player has none
    for spec, message in (("worlds=0", "worlds must be at least 1"), ("values=mcts", "values must be one of"),
                          ("first=-1", "first must be 1 .. worlds \\(6\\), or 0 for the default"),
                          ("values=playout,first=2", "first set but not used by values=playout"),
                          ("worlds=2,first=3", "first must be 1 .. worlds \\(2\\), or 0 for the default, got 3"),
                          ("values=playout,gate=0.5", "gate set but not used by values=playout"),
                          ("depth=3", "depth set but not used by values=dds"), ("prior=-1", "prior must be a finite"),
                          ("gate=-0.5", "gate must be a finite"), ("auction=bayes", "auction must be one of"),
                          ("keep=all", "keep must be one of any, sole")):
        with pytest.raises(ValueError, match=message):
            load_play_agent(f"cardsearch:model={valued},{spec}")


def test_dds_keeps_the_players_card_when_the_worlds_agree_and_overrules_it_when_it_loses(valued):
    """With the true deal as every world: the player's card is kept when it is DD-best there, and otherwise the
    search plays a DD-best card (a prior of 0 leaves only the DD tricks), searching exactly those decisions."""
    from bridgerl.agents.play.pimc import solve_worlds

    agent = CardSearch(valued, worlds=2, first=1, prior=0.0, seed=0)
    kept = overruled = 0
    for state in _choices(_play_states(range(6)))[:30]:
        view = state.view()
        owner = np.asarray(state.deal.owner, np.uint8)
        agent.sample = lambda view, n=None: np.repeat(owner[None], n or 2, 0)
        dd = solve_worlds(view, owner[None])[0]
        own, searched = agent.player.act(view), agent.searched
        card = agent.act(view)
        assert dd[card] == dd.max()
        if dd[own] == dd.max():
            assert card == own and agent.searched == searched
            kept += 1
        else:
            assert agent.searched == searched + 1
            overruled += 1
    assert kept and overruled  # a random player: both cases occur
    sole = CardSearch(valued, worlds=2, first=1, prior=0.0, keep="sole", seed=0)  # keeps a card only if no other
    alone = tied = 0  # group is DD-best in the worlds too
    for state in _choices(_play_states(range(6)))[:30]:
        view = state.view()
        owner = np.asarray(state.deal.owner, np.uint8)
        sole.sample = lambda view, n=None: np.repeat(owner[None], n or 2, 0)
        dd = solve_worlds(view, owner[None])[0]
        best = [group for group in view.equivalent_groups() if dd[group[0]] == dd.max()]
        own, searched = sole.player.act(view), sole.searched
        assert dd[sole.act(view)] == dd.max()
        if dd[own] == dd.max() and len(best) == 1:
            assert sole.searched == searched
            alone += 1
        else:
            assert sole.searched == searched + 1
            tied += dd[own] == dd.max()
    assert alone and tied  # both kinds of best card occur
    some = CardSearch(valued, worlds=2, first=1, gate=_median_entropy(valued), seed=0)  # searches about half
    states = _choices(_play_states(range(6)))[:30]
    for state in states:
        assert some.act(state.view()) in state.view().legal
    assert 0 < some.solved < some.decisions == len(states)
    sure = CardSearch(valued, worlds=2, first=1, gate=1e6, seed=0)  # every decision below the gate: no DDS at all
    for state in _choices(_play_states(range(2)))[:10]:
        assert sure.act(state.view()) == sure.player.act(state.view())
    assert sure.solved == 0 and sure.decisions == 10


@pytest.mark.parametrize("values", ["dds", "playout"])
def test_it_reads_its_own_view_only(valued, values):
    """The hidden cards dealt again between the hidden hands: the same worlds are drawn, the same card played."""
    agent = CardSearch(valued, values=values, worlds=3, seed=0)
    rng = np.random.default_rng(1)
    states = _choices(_play_states(range(3)))[:8]
    changed = 0
    for state in states:
        swapped = _swap_hidden(state, rng)
        changed += not (swapped.deal.owner == state.deal.owner).all()
        agent.reseed(7)
        card = agent.act(state.view())
        agent.reseed(7)
        assert agent.act(swapped.view()) == card
    assert changed > len(states) // 2  # the swaps did move hidden cards


@pytest.mark.parametrize("examples", [2, pytest.param(12, marks=pytest.mark.slow)])  # the slow tier: as before
def test_never_an_illegal_card(valued, examples):
    @settings(max_examples=examples, deadline=None)
    @given(st.integers(0, 400), st.integers(0, 2**16))
    @example(92, 0)  # worlds under the auction: a seat's range met once, then not again (the table's draws fell back)
    def check(row, seed):
        for agent in (CardSearch(valued, values="playout", worlds=2, depth=1, seed=seed),
                      CardSearch(valued, worlds=3, first=1, seed=seed)):
            for state in _play_states([row], cards_played=(0, 9, 30, 49)):
                view = state.view()
                assert agent.act(view) in view.legal

    check()


def test_candidate_values_are_the_searchers_tricks(valued):
    """With one world, the true deal, and play-outs to the end, each candidate's value is a whole number of tricks
    for the searcher's side: those won so far and to come, 0..13."""
    agent = CardSearch(valued, values="playout", worlds=1, depth=13, seed=0)
    for state in _choices(_play_states(range(2)))[:4]:
        view = state.view()
        candidates = [group[0] for group in view.equivalent_groups()]
        values = agent.candidate_values(view, candidates, np.asarray(state.deal.owner, np.uint8)[None])
        won = view.declarer_tricks if view.is_declaring_side else len(view.tricks) - view.declarer_tricks
        assert values.shape == (len(candidates),) and (values == np.round(values)).all()
        assert (values >= won).all() and (values <= won + 13 - len(view.tricks)).all()


def _median_entropy(model) -> float:
    from bridgerl.agents.play.card_search import _entropy

    agent = CardSearch(model, seed=0)
    values = []
    for state in _choices(_play_states(range(6)))[:30]:
        view = state.view()
        features = play_features(view, auction=False)[None].astype(np.float32)
        values.append(_entropy(agent.player.outputs(features)[0], view.legal_mask(), view.equivalent_groups()))
    return float(np.median(values))


@pytest.mark.parametrize("prior, kept", [(0.0, False), (0.3, True)])
def test_the_prior_keeps_the_players_card_on_a_near_tie(valued, monkeypatch, prior, kept):
    """Solved worlds where another card is half a trick better on average: with no prior the search plays it; with
    the prior, the player's strong preference (its group's probability 90 times the other's) keeps its own card."""
    import bridgerl.agents.play.card_search as module

    agent = CardSearch(valued, worlds=2, first=1, prior=prior, seed=0)
    state = _choices(_play_states(range(2)))[0]
    view = state.view()
    groups = view.equivalent_groups()
    own, other = groups[0][0], groups[1][0]
    logits = np.full(52, -30.0, np.float32)
    logits[list(view.legal)] = -10.0
    logits[own], logits[other] = np.log(0.9), np.log(0.01)
    scores = np.where(np.isin(np.arange(52), list(view.legal)), 3, -1).astype(np.int8)
    calls = []

    def solve(view, worlds, best=False):  # first world: the other card 1 trick better; second: both equal
        calls.append((len(worlds), best))
        rows = np.repeat(scores[None], len(worlds), 0)
        rows[0, other] = 4
        if best:  # DDS's best cards only: -1 for the others
            rows = np.where(rows == rows.max(1, keepdims=True), rows, -1).astype(np.int8)
        return rows

    monkeypatch.setattr(module, "solve_worlds", solve)
    card = agent._dds_choice(view, groups, own, logits, view.legal_mask(), np.zeros((2, 52), np.uint8))
    assert calls == [(1, True), (2, False)] and agent.searched == 1
    assert card == (own if kept else other)
