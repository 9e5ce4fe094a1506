"""Card-play rules (thesis 2.1.5): follow suit, trick winners, dummy, replay; batched DDS against endplay."""

import numpy as np
import pytest
from endplay.dds import solve_board
from endplay.types import Card, Denom, Player

from bridgerl.core import Contract, load_dataset, pbn_to_owner
from bridgerl.core.cards import card_name, parse_card
from bridgerl.core.dd import owner_to_deal, solve_positions, strain_to_endplay
from bridgerl.core.play import IllegalPlayError, PlayState, legal_mask, mask_of, trick_winner
from bridgerl.envs import view_of

R = "AKQJT98765432"
# North all spades, East all diamonds, South all hearts, West all clubs.
SUIT_HANDS = pbn_to_owner(f"N:{R}... ..{R}. .{R}.. ...{R}")


def cards(*names):
    return [parse_card(n) for n in names]


def test_trick_winner_without_trumps():
    # Highest card of the suit led wins; discards never win in notrump.
    assert trick_winner(0, cards("H5", "HK", "SA", "H7"), 4) == 1
    assert trick_winner(2, cards("D2", "CA", "SA", "HA"), 4) == 2
    assert trick_winner(3, cards("C9", "CT", "C2", "CA"), 4) == 2


def test_trick_winner_with_trumps():
    spades, hearts = 3, 2
    assert trick_winner(0, cards("H5", "HK", "S2", "HA"), spades) == 2  # a ruff beats the ace led suit
    assert trick_winner(0, cards("H5", "S3", "S2", "HA"), spades) == 1  # higher of two ruffs
    assert trick_winner(1, cards("SA", "SK", "H2", "S3"), hearts) == 3  # ruffing a spade with a heart
    assert trick_winner(1, cards("D4", "C2", "DA", "C3"), spades) == 3  # no trump played: ace of suit led


def test_follow_suit_mask():
    hand = mask_of(cards("S2", "SK", "H3", "D4"))
    assert legal_mask(hand, None) == hand
    assert legal_mask(hand, 3) == mask_of(cards("S2", "SK"))  # must follow spades
    assert legal_mask(hand, 0) == hand  # void in clubs: any card


def test_follow_suit_in_state_and_errors():
    state = PlayState.start(load_dataset("test").owner[0], Contract.parse("4H N"))
    assert state.to_play == 1  # declarer's left-hand opponent leads
    lead = state.legal_cards()[0]
    state = state.play(lead)
    south = np.flatnonzero(state.owner == 2)
    same_suit = [c for c in south if c // 13 == lead // 13]
    assert state.legal_cards() == (same_suit or list(south))
    off_suit = [c for c in south if c // 13 != lead // 13]
    if same_suit and off_suit:
        with pytest.raises(IllegalPlayError, match="must follow suit"):
            state.play(off_suit[0])
    with pytest.raises(IllegalPlayError, match="not in S's hand"):
        state.play(int(np.flatnonzero(state.owner == 0)[0]))


def test_dummy_exposure_and_control():
    state = PlayState.start(SUIT_HANDS, Contract.parse("4H S"))
    assert state.dummy == 0 and not state.dummy_visible
    view = view_of(state)
    assert view.seat == 3 and view.player == 3 and view.dummy_cards is None  # opening lead: dummy unseen
    state = state.play("C2")
    view = view_of(state)
    assert state.to_play == 0 and state.controller == 2  # dummy's card, chosen by declarer
    assert view.seat == 0 and view.player == 2
    assert set(view.hand) == set(np.flatnonzero(SUIT_HANDS == 0))  # plays from dummy's hand
    assert set(view.own_cards) == set(np.flatnonzero(SUIT_HANDS == 2))
    assert view.dummy_cards == view.hand  # exposed after the opening lead
    state = state.play("S2").play("D2")
    assert view_of(state).seat == 2 and view_of(state).player == 2
    defender_view = view_of(state.play("H2").play("HA"), player=1)  # an observer's view after trick 1
    assert defender_view.dummy_cards is not None and defender_view.legal == ()


def test_trump_ruff_wins_and_tricks_are_counted():
    state = PlayState.start(SUIT_HANDS, Contract.parse("4H S"), cards("C2", "S2", "D2", "H2"))
    assert state.declarer_tricks == 1 and state.trick.leader == 2  # South ruffed the club lead
    assert state.winner_of(0) == 2
    voids = state.shown_voids()
    assert voids[0, 0] and voids[1, 0] and voids[2, 0] and not voids[3, 0]


def test_replay_mid_trick_equals_step_by_step():
    dataset = load_dataset("test")
    rng = np.random.default_rng(5)
    for row in range(10):
        contract = Contract(int(rng.integers(1, 8)), int(rng.integers(5)), 0, int(rng.integers(4)))
        state = PlayState.start(dataset.owner[row], contract)
        for _ in range(int(rng.integers(1, 50))):
            state = state.play(int(rng.choice(state.legal_cards())))
        names = [card_name(c) for c in state.history]
        replayed = PlayState.start(dataset.owner[row], contract, names)
        assert replayed == state
        assert replayed.to_play == state.to_play and replayed.trick == state.trick


def test_replay_errors_name_the_card():
    with pytest.raises(IllegalPlayError, match="played card 2: H2 is not in N's hand"):
        PlayState.start(SUIT_HANDS, Contract.parse("4H S"), ["C2", "H2"])
    with pytest.raises(ValueError, match="not a card"):
        PlayState.start(SUIT_HANDS, Contract.parse("4H S"), ["Z9"])


def test_full_hand_ends_after_13_tricks():
    state = PlayState.start(load_dataset("test").owner[1], Contract.parse("2D W"))
    rng = np.random.default_rng(0)
    while not state.is_over:
        state = state.play(int(rng.choice(state.legal_cards())))
    assert len(state.history) == 52 and state.declarer_tricks + state.defence_tricks == 13
    with pytest.raises(IllegalPlayError, match="all 13 tricks"):
        state.play(0)


def _endplay_scores(state: PlayState) -> np.ndarray:
    deal = owner_to_deal(state.owner)
    deal.trump = Denom(strain_to_endplay(state.strain))
    deal.first = Player((state.declarer + 1) % 4)
    for card in state.history:
        deal.play(Card(card_name(card)))
    scores = np.full(52, -1)
    for card, tricks in solve_board(deal):
        scores[(3 - int(card.suit)) * 13 + "23456789TJQKA".index(card.rank.abbr)] = tricks
    return scores


def test_batched_dds_matches_endplay_solve_board():
    dataset = load_dataset("test")
    rng = np.random.default_rng(11)
    states = []
    for row in range(24):
        contract = Contract(int(rng.integers(1, 8)), int(rng.integers(5)), 0, int(rng.integers(4)))
        state = PlayState.start(dataset.owner[row], contract)
        for _ in range(int(rng.integers(0, 48))):
            state = state.play(int(rng.choice(state.legal_cards())))
        states.append(state)
    for state in states:
        trick = list(state.trick.cards) + [-1] * (3 - len(state.trick.cards))
        ours = solve_positions(np.array([state.hands], np.uint64), state.strain, state.trick.leader, [trick])[0]
        assert (ours == _endplay_scores(state)).all()
        assert set(np.flatnonzero(ours >= 0)) == set(state.legal_cards())


def test_batched_dds_splits_batches_over_200():
    state = PlayState.start(load_dataset("test").owner[2], Contract.parse("3NT S"))
    holdings = np.repeat(np.array([state.hands], np.uint64), 205, axis=0)
    scores = solve_positions(holdings, 4, state.trick.leader)
    assert scores.shape == (205, 52) and (scores == scores[0]).all()
    with pytest.raises(ValueError, match="shape"):
        solve_positions(holdings[:, :3], 4, 0)
