"""Combined-defender search and the information score (thesis 3.4.3)."""

from __future__ import annotations

import itertools
from functools import lru_cache

import numpy as np
import pytest
from helper_endings import ending

from bridgerl.agents import PIMCAgent
from bridgerl.agents.play.combined_defender import CombinedDefender, cd_vector, declarer_claim
from bridgerl.agents.play.pimc import solve_worlds
from bridgerl.core import Contract, load_dataset
from bridgerl.core.cards import parse_card
from bridgerl.core.play import SUIT_BITS, PlayState, cards_of, mask_of, trick_winner
from bridgerl.envs import sample_worlds, view_of


def cards(text: str) -> int:
    return mask_of(parse_card(c) for c in text.split())


def exhaustive_guarantee(hands, side, strain, leader, trick, voids) -> int:
    """The tricks ``side`` can guarantee, by brute force over the layouts: every split of the opponents' cards
    with their hand sizes and shown voids is listed; the claiming side maximises, and at an opponent's turn every
    card that opponent holds (and may legally play) in some layout still possible is tried, keeping only those
    layouts. Written without the search's counting of feasible splits."""
    x, y = (side + 1) % 4, (side + 3) % 4
    pool = cards_of(hands[x] | hands[y])
    layouts = []
    for sub in itertools.combinations(pool, hands[x].bit_count()):
        hx = mask_of(sub)
        hy = mask_of(pool) & ~hx
        if any(voids[0] >> s & 1 and hx & SUIT_BITS[s] or voids[1] >> s & 1 and hy & SUIT_BITS[s] for s in range(4)):
            continue
        layouts.append((hx, hy))

    @lru_cache(None)
    def value(a, b, lays, leader, trick):
        if not (a | b) and not trick:
            return 0
        seat = (leader + len(trick)) % 4
        led = trick[0] // 13 if trick else None

        def after(a, b, lays, card):
            done = trick + (card,)
            if len(done) < 4:
                return value(a, b, lays, leader, done)
            winner = trick_winner(leader, done, strain)
            return (winner % 2 == side) + value(a, b, lays, winner, ())

        def legal(hand):
            return hand & SUIT_BITS[led] if led is not None and hand & SUIT_BITS[led] else hand

        if seat % 2 == side:
            hand = a if seat == side else b
            return max(after(a & ~(1 << c), b, lays, c) if seat == side else after(a, b & ~(1 << c), lays, c)
                       for c in cards_of(legal(hand)))
        i = 0 if seat == x else 1
        by_card: dict[int, list] = {}
        for lay in lays:
            for c in cards_of(legal(lay[i])):
                rest = list(lay)
                rest[i] = lay[i] & ~(1 << c)
                by_card.setdefault(c, []).append(tuple(rest))
        return min(after(a, b, frozenset(v), c) for c, v in by_card.items())

    return value(hands[side], hands[(side + 2) % 4], frozenset(layouts), leader, tuple(trick))


def small_endings(count: int, seed: int = 5):
    """Positions with one to four tricks left, some in mid-trick, from held-out deals played at random; four
    contracts (notrump and suits, either side declaring)."""
    dataset = load_dataset("test")
    rng = np.random.default_rng(seed)
    for row in range(count):
        contract = Contract.parse(["3NT S", "4S S", "2H E", "5D W"][row % 4])
        state = PlayState.start(dataset.owner[row], contract)
        left, extra = int(rng.integers(1, 5)), int(rng.integers(0, 4))
        while not state.is_over and (len(state.tricks) < 13 - left or len(state.trick.cards) < extra):
            state = state.play(int(rng.choice(state.legal_cards())))
        if not state.is_over:
            yield state


# the slow tier (CI runs it; docs/conventions.md): 120 endings; the first 40 of them stay in the default tier
@pytest.mark.parametrize("endings", [40, pytest.param(120, marks=pytest.mark.slow)])
def test_matches_exhaustive_search_on_small_endings(endings):
    """The full search equals the brute force; the line alone (budget 0, the information score's default) and a
    search cut short by a tiny budget never claim more."""
    checked = lines_exact = 0
    for state in small_endings(endings):
        side = state.declarer % 2
        hands = [state.hands[s] for s in range(4)]
        shown = state.shown_voids()
        voids = tuple(int(sum(1 << s for s in range(4) if shown[seat, s])) for seat in ((side + 1) % 4, (side + 3) % 4))
        x, y = hands[(side + 1) % 4], hands[(side + 3) % 4]
        search = CombinedDefender(state.strain, side, budget=10 ** 7)
        got, exact = search.value((hands[side], hands[(side + 2) % 4]), x | y, (x.bit_count(), y.bit_count()),
                                  voids, state.trick.leader, tuple(state.trick.cards))
        assert exact
        truth = exhaustive_guarantee(hands, side, state.strain, state.trick.leader, state.trick.cards, voids)
        assert got == truth
        args = ((hands[side], hands[(side + 2) % 4]), x | y, (x.bit_count(), y.bit_count()), voids,
                state.trick.leader, tuple(state.trick.cards))
        line, line_exact = CombinedDefender(state.strain, side, budget=0).value(*args)
        assert line <= truth and (not line_exact or line == truth)
        lines_exact += line == truth
        assert CombinedDefender(state.strain, side, budget=3).value(*args)[0] <= truth
        checked += 1
    assert checked > endings * 5 // 6 and lines_exact > checked // 2


def test_cd_vector_by_hand():
    """Opponents hold S Q85 H 642 between them, three cards each. No voids: spades H = Q, L = 3 (one may hold all
    three), M = 0 (the other none). East (the first opponent) shown void in hearts: West holds all three hearts and
    so no spade: East holds Q85, and spades are L = 3, M = 0; hearts L = 3, M = 0 (East none)."""
    pool = cards("SQ S8 S5 H6 H4 H2")
    free = cd_vector(pool, (3, 3), (0, 0))
    assert (free[3].high, free[3].max_len, free[3].min_len, free[3].count) == (parse_card("SQ"), 3, 0, 3)
    assert free[0].count == 0 and free[0].high == -1
    east_void = cd_vector(pool, (3, 3), (1 << 2, 0))
    assert (east_void[3].max_len, east_void[3].min_len) == (3, 0)
    assert (east_void[2].max_len, east_void[2].min_len) == (3, 0)
    # five spades among eight cards, four each: neither can hold all five, so each holds at least one (M = 1)
    five = cd_vector(cards("SQ S8 S5 S3 S2 H6 H4 D2"), (4, 4), (0, 0))
    assert (five[3].max_len, five[3].min_len, five[2].max_len, five[2].min_len) == (4, 1, 2, 0)


def test_claim_is_a_line_not_a_count_of_top_tricks():
    """3NT by South, three tricks left, South on lead with S 2 H 32 opposite dummy's S AKQ; the defenders hold
    S J H 654 D 2 C 2. South has no top card, but the line "spade to dummy, cash the rest" wins three tricks in every
    layout: the claim is 3. Give South the club two instead of the spade and dummy's three top tricks cannot be
    reached: the claim falls to what the exhaustive search finds, one."""
    reachable = view_of(ending({"N": "AKQ...", "E": ".54..2", "S": "2.32..", "W": "J.6.2."}, "3NT S", "S"))
    assert declarer_claim(reachable) == (3, True)
    state = ending({"N": "AKQ...", "E": "2.54..", "S": ".32..2", "W": "J.6.2."}, "3NT S", "S")
    hands = [state.hands[s] for s in range(4)]
    assert declarer_claim(view_of(state)) == (1, True)
    assert exhaustive_guarantee(hands, 0, state.strain, state.trick.leader, (), (0, 0)) == 1


def revealing_discard():
    """3NT by South, three tricks left; South leads the club ace and West, with S Q4 H J, must discard:

        North  S J    H A7             West sees dummy and its own hand; South's two other cards and East's
        West   S Q4   H J              three are among S 9 3, H 5 3, D K: ten worlds.
        East   S 9    H 53
        South  S 3    D K    C A (led)

    Double dummy the heart jack and the spade four give the defence the same tricks in every world (PIMC ties).
    But discarding the jack leaves dummy's H A7 above every heart the defenders can hold: declarer can then claim
    more (the combined-defender claim goes up in four worlds of the ten, by one trick), so the information score
    rejects it and West throws the spade."""
    return view_of(ending({"N": "J.A7..", "E": "9.53..", "S": "3..K.A", "W": "Q4.J.."}, "3NT S", "S", ("CA",)))


def test_information_score_rejects_the_card_that_gives_a_trick():
    view = revealing_discard()
    worlds = sample_worlds(view, 100, seed=0)
    assert len(worlds) == 10
    jack, four = parse_card("HJ"), parse_card("S4")
    dd = solve_worlds(view, worlds)
    assert (dd[:, jack] == dd[:, four]).all()  # a tie in every world, not only on average
    agent = PIMCAgent(worlds=100, seed=0, tiebreak="info", info_budget=10 ** 6)
    scores = agent.information.scores(view, worlds, [jack, four])
    assert (scores[:, 0] >= scores[:, 1]).all()
    assert int((scores[:, 0] - scores[:, 1] == 1).sum()) == 4 and np.isclose(scores.mean(0) @ [1, -1], 0.4)
    plays = {PIMCAgent(worlds=100, seed=s, tiebreak="info").act(view) for s in range(8)}
    assert plays == {four}
    drawn = {PIMCAgent(worlds=100, seed=s).act(view) for s in range(8)}
    assert drawn == {jack, four}  # the plain agent draws between them
    agent = PIMCAgent(worlds=100, seed=0, tiebreak="info")
    agent.act(view)
    assert (agent.ties.tied, agent.ties.info_decided, agent.ties.random_draws) == (1, 1, 0)


def test_budget_gives_a_lower_bound_and_flags_it():
    dataset = load_dataset("test")
    state = PlayState.start(dataset.owner[3], Contract.parse("3NT S"))
    state = state.play(state.legal_cards()[0])
    full = declarer_claim(view_of(state), budget=10)
    assert full[1] is False and 0 <= full[0] <= 13
    with pytest.raises(ValueError, match="budget"):
        CombinedDefender(4, 0, budget=-1)
    with pytest.raises(ValueError, match="defends"):
        declarer_claim(view_of(PlayState.start(dataset.owner[3], Contract.parse("3NT S"))))
    with pytest.raises(ValueError, match="tiebreak"):
        PIMCAgent(tiebreak="coin")


def pinned_positions(count: int = 40):
    """Views of the player to act in held-out deals played at random into tricks 3-11 (four contracts, some in
    mid-trick), with twelve sampled worlds each and one card of each group of equal cards."""
    dataset = load_dataset("test")
    rng = np.random.default_rng(17)
    for row in range(count):
        state = PlayState.start(dataset.owner[100 + row], Contract.parse(["3NT S", "4H N", "2S E", "5C W"][row % 4]))
        for _ in range(int(rng.integers(8, 41))):
            state = state.play(int(rng.choice(state.legal_cards())))
        view = view_of(state)
        yield view, sample_worlds(view, 12, seed=row), [group[0] for group in view.equivalent_groups()]


def information_digest(make_score) -> str:
    """sha256 of every score and the search's counters over `pinned_positions`, one ``make_score(budget)`` (an
    `InformationScore`) per budget for all the positions in turn (its memory carried from one to the next)."""
    import hashlib

    digest = hashlib.sha256()
    positions = list(pinned_positions())
    for budget in (0, 25, 400):
        score = make_score(budget)
        for view, worlds, cards in positions:
            values = score.scores(view, worlds, cards)
            search = score.search
            digest.update(repr((values.astype(int).tolist(), search.calls, search.inexact, search.nodes)).encode())
    return digest.hexdigest()


PINNED_INFORMATION = "26a449682b809f7162ef972392029a4e90f4c44c55cee380ef9264869046c85e"


def test_information_scores_pinned():
    """The information scores (lines only, and with 25- and 400-node searches) and the search's counters on 40
    positions (1,432 candidate-worlds per budget, one score object per budget carrying its memory from position to
    position), pinned by hash. The hash was recorded from the pure-Python search (commit ef80b80) that the compiled
    one (`_cd_search`) replaced: the port changed no score and no counter. (It also depends on `sample_worlds` and
    the bundled test split: a change there changes it too.)"""
    from bridgerl.agents.play.combined_defender import InformationScore

    assert information_digest(InformationScore) == PINNED_INFORMATION


def test_search_copies_pickles_and_refuses_impossible_positions():
    """A used search pickles and copies with its memories (numba's typed dicts do not pickle by themselves); a
    position that cannot occur is refused in one line before the compiled code (which trusts its input) sees it;
    no worlds give an empty score table."""
    import copy
    import pickle

    from bridgerl.agents.play.combined_defender import InformationScore

    view = revealing_discard()
    worlds = sample_worlds(view, 100, seed=0)
    jack, four = parse_card("HJ"), parse_card("S4")
    score = InformationScore(budget=50)
    first = score.scores(view, worlds, [jack, four])
    for clone in (pickle.loads(pickle.dumps(score)), copy.deepcopy(score)):
        assert len(clone.search.values) == len(score.search.values) > 0
        assert dict(clone.search.bounds) == dict(score.search.bounds)
        assert (clone.scores(view, worlds, [jack, four]) == first).all()
    agent = PIMCAgent(worlds=20, seed=0, tiebreak="info")
    agent.act(view)
    assert pickle.loads(pickle.dumps(agent)).act(view) == agent.act(view)
    assert score.scores(view, np.zeros((0, 52), np.uint8), [jack]).shape == (0, 1)
    assert score.scores(view, [], [jack]).shape == (0, 1)
    search = CombinedDefender(4, 0)
    spades = cards("SA SK")
    bad = {"disjoint": ((spades, spades), cards("SQ SJ"), (1, 1), (0, 0), 0),
           "counts": ((cards("SA"), cards("SK")), cards("SQ SJ"), (3, 1), (0, 0), 0),
           "4-bit": ((cards("SA"), cards("SK")), cards("SQ SJ"), (1, 1), (16, 0), 0),
           "whole tricks": ((cards("SA SK"), cards("SQ")), cards("SJ ST"), (1, 1), (0, 0), 0)}
    for problem, args in bad.items():
        with pytest.raises(ValueError, match=problem):
            search.value(*args)
    with pytest.raises(ValueError, match="at most 3 cards"):
        search.value((cards("SA"), cards("SK")), cards("SQ SJ"), (1, 1), (0, 0), 0, (1, 2, 3, 4))
