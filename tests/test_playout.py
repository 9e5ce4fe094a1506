"""Play-outs batched in JAX (issue #66, `bridgerl.agents.play.playout`): card for card the Python whole deal's with
the same player, ties to the lowest card, and `cardsearch:values=playout` on them (seeded, legal, blind to the
hidden hands)."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from bridgerl.agents.learned.card_player import CardPlayer, build, save
from bridgerl.agents.play.card_search import CardSearch
from bridgerl.agents.play.pimc import draw_worlds, holdings_of
from bridgerl.agents.play.playout import JaxPlayouts, padded_rows
from bridgerl.arena.specs import load_play_agent
from bridgerl.core.card_play import view_of
from bridgerl.core.play import PlayState
from bridgerl.core.play_features import feature_size, play_features
from test_card_player import _play_states, _swap_hidden


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A seeded random card player (what these tests check holds for any weights)."""
    path = tmp_path_factory.mktemp("playout") / "model.msgpack"
    save(path, build(feature_size(False), (48, 48), seed=7), {"auction": False, "hidden": [48, 48]})
    return str(path)


@pytest.fixture(scope="module")
def auction_model(tmp_path_factory):
    """The same for a player that reads the auction's bits too."""
    path = tmp_path_factory.mktemp("playout") / "auction.msgpack"
    save(path, build(feature_size(True), (48, 48), seed=8), {"auction": True, "hidden": [48, 48]})
    return str(path)


def _positions(deals: int):
    """One whole-deal state a deal, from the opening lead to 35 cards into the play (`_play_states`' canonical
    starts, their auctions, and fixed cards)."""
    return [_play_states([row], cards_played=(row * 5 % 36,))[0] for row in range(deals)]


def _position_in(view, world) -> PlayState:
    """The Python whole deal's play at ``view``'s position, the hidden cards lying as in ``world``."""
    hands = holdings_of(view, world[None])[0]
    return PlayState(np.asarray(world, np.uint8), view.contract, tuple(int(h) for h in hands), view.tricks,
                     view.current_trick, view.declarer_tricks, tuple(c for t in view.all_tricks() for c in t.cards))


def _python_play(player, view, world, card):
    """(the cards played after ``card`` in ``world`` with ``player`` at every seat, the margin between the top two
    groups of equal cards at each, declarer's tricks): the Python whole deal, one view at a time."""
    state = _position_in(view, world).play(int(card))
    cards, margins = [], []
    while not state.is_over:
        seen = view_of(state, auction=view.auction, vul=view.vul)
        logits = player.outputs(play_features(seen, auction=player.auction))
        legal = np.flatnonzero(seen.legal_mask())
        groups = np.sort([logits[group].max() for group in seen.equivalent_groups()])[::-1]
        cards.append(int(legal[np.argmax(logits[legal])]))
        margins.append(groups[0] - groups[1] if len(groups) > 1 else np.inf)
        state = state.play(cards[-1])
    return cards, margins, state.declarer_tricks


def _replay(view, world, cards) -> int:
    """Declarer's tricks once ``cards`` are played from ``view``'s position in ``world`` (raises on an illegal
    card)."""
    state = _position_in(view, world)
    for card in cards:
        state = state.play(int(card))
    assert state.is_over
    return state.declarer_tricks


# the 200 deals in the slow tier (CI runs it; docs/conventions.md), 25 of them in the default tier, with a
# player that reads the auction too
@pytest.mark.parametrize("deals,which", [(25, "model"), (25, "auction_model"),
                                         pytest.param(200, "model", marks=pytest.mark.slow)])
def test_batched_play_outs_are_the_python_whole_deal(request, deals, which):
    """``deals`` deals x 16 worlds: every card the same as the Python whole deal's wherever the player's top two
    groups of equal cards differ by more than 1e-4, every card legal, and whole play-outs identical in at least
    99.9% of them."""
    player = CardPlayer.load(request.getfixturevalue(which))
    playouts = JaxPlayouts(player)
    rng = np.random.default_rng(0)
    same = rows = 0
    for state in _positions(deals):
        view = state.view()
        worlds = draw_worlds(view, 16, rng)
        worlds = worlds[np.arange(16) % len(worlds)]  # late in a deal fewer layouts may exist: some repeat
        card = view.legal[int(rng.integers(len(view.legal)))]
        tricks, played = playouts.play(view, worlds, [card])
        assert played.shape == (16, 52 - 4 * len(view.tricks) - len(view.current_trick.cards) - 1)
        for w, world in enumerate(worlds):
            rows += 1
            assert _replay(view, world, [card] + played[w].tolist()) == tricks[w]  # legal, and counted right
            cards, margins, declarer = _python_play(player, view, world, card)
            differ = [i for i, (a, b) in enumerate(zip(cards, played[w])) if a != b]
            if differ:
                assert margins[differ[0]] <= 1e-4, (cards, played[w].tolist())
            same += not differ
    assert rows == 16 * deals and rows - same <= max(1, int(0.001 * rows)), (same, rows)


def test_rows_are_world_by_candidate(model):
    """Several worlds and candidates at once: row (w, c) of ``totals`` is world w after candidate c (the Python
    whole deal's count for the searcher's side)."""
    player = CardPlayer.load(model)
    rng = np.random.default_rng(3)
    for state in _positions(4)[1:]:
        view = state.view()
        worlds = draw_worlds(view, 3, rng)
        candidates = list(view.legal[:3])
        totals = JaxPlayouts(player).totals(view, candidates, worlds)
        assert totals.shape == (len(worlds), len(candidates))
        for w, world in enumerate(worlds):
            for c, card in enumerate(candidates):
                declarer = _python_play(player, view, world, card)[2]
                assert totals[w, c] == (declarer if view.is_declaring_side else 13 - declarer)


def test_equal_outputs_resolve_to_the_lowest_card(model):
    """A player whose outputs are all equal plays the lowest legal card at every step, on both paths."""
    player = CardPlayer.load(model)
    player._params = jax.tree.map(jnp.zeros_like, player._params)
    player._weights = [(np.zeros_like(k), np.zeros_like(b)) for k, b in player._weights]
    player._head = (np.zeros_like(player._head[0]), np.zeros_like(player._head[1]))
    for state in _positions(4):
        view = state.view()
        world = np.asarray(state.deal.owner, np.uint8)
        _, played = JaxPlayouts(player).play(view, world[None], [min(view.legal)])
        cards, _, _ = _python_play(player, view, world, min(view.legal))
        assert played[0].tolist() == cards
        replay = _position_in(view, world)
        for card in [min(view.legal)] + cards:
            assert card == min(replay.legal_cards())
            replay = replay.play(card)


def test_padded_rows_and_bad_input(model, auction_model):
    assert [padded_rows(n) for n in (1, 16, 17, 200, 1024, 1025)] == [16, 16, 32, 256, 1024, 2048]
    playouts = JaxPlayouts(CardPlayer.load(model))
    state = _positions(2)[1]
    view, world = state.view(), np.asarray(state.deal.owner)
    illegal = next(c for c in range(52) if c not in view.legal)
    own = next(iter(view.hand))
    moved = world.copy()
    moved[own] = (moved[own] + 1) % 4  # one of the player's own cards dealt to another seat
    for worlds, candidates, message in ((world[None], [illegal], "not legal here"),
                                        (np.zeros((2, 51)), view.legal[:1], "shape"),
                                        (np.zeros((0, 52)), view.legal[:1], "W >= 1"),
                                        (world[None], [], "no candidate"),
                                        (np.stack([world, moved]), view.legal[:1], "world 1 does not agree")):
        with pytest.raises(ValueError, match=message):
            playouts.totals(view, candidates, worlds)
    with pytest.raises(ValueError, match="not a learned card player"):
        JaxPlayouts(object())
    with pytest.raises(ValueError, match="reads the auction, and the view carries none"):
        JaxPlayouts(CardPlayer.load(auction_model)).totals(dataclasses.replace(view, auction=None), view.legal[:1],
                                                           world[None])


def test_cardsearch_plays_on_the_jax_engine(model):
    """``values=playout`` plays out to the end in JAX by default: the same card for the same seed, always legal,
    blind to how the hidden cards lie, and each candidate's value the play-out's tricks (one world, the true
    deal: the Python whole deal's count)."""
    agent = load_play_agent(f"cardsearch:model={model},values=playout,worlds=4", seed=3)
    assert agent.engine == "jax" and "engine='jax'" in repr(agent)
    states = [s for s in _play_states(range(3), cards_played=(0, 9, 30)) if len(s.view().equivalent_groups()) > 1]
    first = [agent.act(s.view()) for s in states]
    assert all(card in s.view().legal for card, s in zip(first, states))
    agent.reseed(3)
    assert [agent.act(s.view()) for s in states] == first
    rng = np.random.default_rng(1)
    for state in states[:4]:
        agent.reseed(5)
        card = agent.act(state.view())
        agent.reseed(5)
        assert agent.act(_swap_hidden(state, rng).view()) == card
    one = CardSearch(model, values="playout", worlds=1, seed=0)
    for state in states[:3]:
        view, world = state.view(), np.asarray(state.deal.owner, np.uint8)
        candidates = [group[0] for group in view.equivalent_groups()]
        values = one.candidate_values(view, candidates, world[None])
        counted = [_python_play(one.player, view, world, c)[2] for c in candidates]
        side = [t if view.is_declaring_side else 13 - t for t in counted]
        assert values.tolist() == side  # no near-tie in these few: the play-outs are the Python ones


def test_engine_settings(model, tmp_path):
    valued = tmp_path / "valued.msgpack"
    save(valued, build(feature_size(False), (16,), seed=1, card_values=True),
         {"auction": False, "hidden": [16], "card_values": True})
    for spec, message in ((f"model={model},values=playout,engine=torch", "engine must be one of"),
                          (f"model={model},engine=jax", "engine set but not used by values=dds"),
                          (f"model={model},values=playout,engine=jax,depth=3", "has no card values"),
                          (f"model={valued},values=playout,engine=jax,depth=3", "engine=jax plays to the end")):
        with pytest.raises(ValueError, match=message):
            load_play_agent(f"cardsearch:{spec}")
    assert load_play_agent(f"cardsearch:model={model},values=playout,engine=numpy").engine == "numpy"
    assert load_play_agent(f"cardsearch:model={valued},values=playout,depth=3").engine == "numpy"


def test_play_outs_after_a_failed_check_and_the_top_groups(model, monkeypatch):
    """``after=playout``: a decision whose DDS check fails is settled by play-outs of the player's group and the
    groups DDS found best in a first world (legal, seeded); ``top=T``: at most T groups played out, the player's
    own among them."""
    states = [s for s in _play_states(range(3), cards_played=(1, 14, 27)) if len(s.view().equivalent_groups()) > 1]
    agent = CardSearch(model, after="playout", worlds=3, seed=2)  # the default first (3, the worlds)
    seen = []
    original = agent.candidate_values
    monkeypatch.setattr(agent, "candidate_values", lambda view, candidates, worlds: (
        seen.append(candidates), original(view, candidates, worlds))[1])
    first = [agent.act(s.view()) for s in states]
    assert all(card in s.view().legal for card, s in zip(first, states))
    assert agent.searched == len(seen) > 0 and all(len(c) >= 2 for c in seen)
    agent.reseed(2)
    assert [agent.act(s.view()) for s in states] == first
    capped = CardSearch(model, values="playout", worlds=2, top=2, seed=0)
    calls = []
    monkeypatch.setattr(capped, "candidate_values", lambda view, candidates, worlds: (
        calls.append((view, candidates)), np.zeros(len(candidates)))[1])
    for state in states:
        view = state.view()
        assert capped.act(view) == capped.player.act(view)  # all tied: the player's own card
    assert calls and all(len(c) == 2 for _, c in calls)
    for view, candidates in calls:
        own = capped.player.act(view)
        assert any(own in group and group[0] in candidates for group in view.equivalent_groups())


def test_worlds_from_the_card_location_model(model):
    """``sampler=network``: the worlds are drawn from the released card-location model, each a layout the view
    allows; the same seed gives the same card; a location without the sampler is refused."""
    from bridgerl.envs import known_owner

    agent = load_play_agent(f"cardsearch:model={model},sampler=network,worlds=3", seed=4)
    assert agent.location == "models/card-location" and "sampler='network'" in repr(agent)
    states = [s for s in _play_states(range(2), cards_played=(1, 14)) if len(s.view().equivalent_groups()) > 1]
    for state in states:
        view = state.view()
        known = known_owner(view)
        worlds = agent.sample(view)
        assert len(worlds) and (worlds[:, known >= 0] == known[known >= 0]).all()
    agent.reseed(4)  # the draws above moved the generator
    first = [agent.act(s.view()) for s in states]
    agent.reseed(4)
    assert [agent.act(s.view()) for s in states] == first and all(c in s.view().legal for c, s in zip(first, states))
    with pytest.raises(ValueError, match="give sampler=network too"):
        load_play_agent(f"cardsearch:model={model},location=models/card-location")
