"""The whole-deal rules module (`bridgerl.core.bridge`): action ids, a lockstep check against OpenSpiel's C++
``bridge`` on random full games (both play modes), and hand-built deals with hand-computed scores."""

import re

import numpy as np
import pyspiel
import pytest

from bridgerl.core import load_dataset, parse_call, pbn_to_owner
from bridgerl.core.board import is_vulnerable
from bridgerl.core.bridge import (CARD_OFFSET, NUM_ACTIONS, OBSERVATION_SIZE, BridgeState, from_openspiel_action,
                                  to_openspiel_action)
from bridgerl.core.cards import parse_card
from bridgerl.core.competitive import CompetitiveDeal, CompetitiveDealSource, encode
from bridgerl.core.dd import solve_dd_table
from bridgerl.core.play import IllegalPlayError


def test_openspiel_action_ids():
    assert to_openspiel_action(0) == 52 and to_openspiel_action(1) == 53 and to_openspiel_action(2) == 54
    assert to_openspiel_action(parse_call("1C")) == 55 and to_openspiel_action(parse_call("7NT")) == 89
    assert to_openspiel_action(CARD_OFFSET + parse_card("C2")) == 0    # clubs deuce: rank 0, suit 0
    assert to_openspiel_action(CARD_OFFSET + parse_card("SA")) == 51   # spade ace: rank 12 * 4 + suit 3
    assert to_openspiel_action(CARD_OFFSET + parse_card("D3")) == 5    # rank 1 * 4 + suit 1
    assert sorted(to_openspiel_action(a) for a in range(NUM_ACTIONS)) == list(range(NUM_ACTIONS))
    assert all(from_openspiel_action(to_openspiel_action(a)) == a for a in range(NUM_ACTIONS))
    with pytest.raises(ValueError, match="outside"):
        to_openspiel_action(90)


def _openspiel_game(deal: CompetitiveDeal, double_dummy: bool):
    """OpenSpiel's bridge with North dealing and ``deal``'s vulnerability, dealt ``deal``'s cards."""
    game = pyspiel.load_game("bridge", {"use_double_dummy_result": double_dummy,
                                        "dealer_vul": is_vulnerable(deal.vul, 0),
                                        "non_dealer_vul": is_vulnerable(deal.vul, 1)})
    state = game.new_initial_state()
    hands = [np.flatnonzero(deal.owner == seat) for seat in range(4)]
    for k in range(13):  # OpenSpiel deals card after card to N, E, S, W in turn
        for seat in range(4):
            state.apply_action(to_openspiel_action(CARD_OFFSET + int(hands[seat][k])))
    return state


@pytest.mark.parametrize("play, games", [("agents", 25), ("double_dummy", 16),
                                         pytest.param("double_dummy", 40, marks=pytest.mark.slow)])
def test_lockstep_with_openspiel_bridge_on_random_full_games(play, games):
    """Legal actions at every step, the player to act, the end and the returns agree with OpenSpiel's C++ game on
    held-out deals (North deals there, so the deals are given North as dealer and their board's vulnerability).
    OpenSpiel solves each double-dummy deal's table as its last card is dealt (about 0.5 s): 16 games in the default
    tier, 40 in the slow one."""
    source = CompetitiveDealSource(load_dataset("test"))
    rng = np.random.default_rng(7)
    contracts = 0
    for row in range(games):
        deal = source.deal_at(row, dealer=0)
        ours, theirs = BridgeState.start(deal, play), _openspiel_game(deal, play == "double_dummy")
        while not ours.is_over:
            assert not theirs.is_terminal()
            legal = ours.legal_actions()
            assert sorted(from_openspiel_action(a) for a in theirs.legal_actions()) == legal
            assert theirs.current_player() == ours.player
            # mostly passes in the auction, so that many auctions end in a contract that is then played
            calls = [a for a in legal if a < CARD_OFFSET]
            action = int(rng.choice(legal)) if not calls or rng.random() < 0.25 else calls[0]
            ours, _ = ours.apply(action), theirs.apply_action(to_openspiel_action(action))
        assert theirs.is_terminal() and not ours.legal_mask().any()
        result = ours.result()
        contracts += result.contract is not None
        assert theirs.returns() == result.returns("score"), str(ours)
        if result.contract is not None:  # declarer's tricks, played or double dummy, as OpenSpiel counts them
            tricks = re.search(r"Declarer tricks(?: won)?: (\d+)", theirs.to_string())
            assert int(tricks.group(1)) == result.tricks, str(ours)
            if play == "double_dummy":  # contract and declarer: OpenSpiel's DD score of the contract it reached
                assert theirs.score_by_contract()[theirs.contract_index()] == result.score_ns, str(ours)
    assert contracts >= games // 3


def _deal(pbn: str, dealer: int = 0, vul: str = "none") -> CompetitiveDeal:
    owner = pbn_to_owner(pbn)
    return CompetitiveDeal(owner, solve_dd_table(owner), dealer, vul, 1, None)


# North holds all the spades, East the hearts, South the diamonds, West the clubs
FOUR_SUITS = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"


def _play_out(state: BridgeState, choose=min) -> BridgeState:
    while not state.is_over:
        state = state.apply(choose(state.legal_actions()))
    return state


def _bid(state: BridgeState, auction: str) -> BridgeState:
    for call in auction.split():
        state = state.apply(parse_call(call))
    return state


def test_hand_built_scores():
    # passed out: 0, and no play
    state = _bid(BridgeState.start(_deal(FOUR_SUITS)), "P P P P")
    assert state.is_over and state.play is None and state.result().score_ns == 0 and state.result().contract is None
    # 7S by North, vulnerable: every trick: trick score 210, game 500, grand slam 1500
    state = _play_out(_bid(BridgeState.start(_deal(FOUR_SUITS, vul="both")), "7S P P P"))
    result = state.result()
    assert (result.contract.declarer, result.tricks, result.score_ns) == (0, 13, 2210)
    assert result.returns() == [2210, -2210, 2210, -2210]
    # 7H doubled by East, not vulnerable: East's hearts are trumps and win every trick: 13 tricks, doubled trick
    # score 2 * 7 * 30 = 420, insult 50, game 300, grand slam 1000
    state = _play_out(_bid(BridgeState.start(_deal(FOUR_SUITS)), "P 7H X P P P"))
    assert state.result().contract.penalty == 1 and state.result().tricks == 13
    assert state.result().score_ns == -(2 * 210 + 50 + 300 + 1000)
    # a doubled sacrifice gone wrong: 7NTX by East, not vulnerable; South leads diamonds and takes all 13 tricks:
    # down 13 = 100 + 2 * 200 + 10 * 300
    state = _play_out(_bid(BridgeState.start(_deal(FOUR_SUITS)), "P 7NT X P P P"))
    assert (state.result().tricks, state.result().score_ns) == (0, 100 + 2 * 200 + 10 * 300)
    # redoubled overtricks: 1SXX by North making 13 tricks, not vulnerable: trick score 4 * 30 = 120 (a game: 300),
    # six overtricks at 200, insult 100
    state = _play_out(_bid(BridgeState.start(_deal(FOUR_SUITS)), "1S X XX P P P"))
    assert state.result().tricks == 13 and state.result().score_ns == 4 * 30 + 300 + 6 * 200 + 100
    # play="double_dummy": the auction ends the game, scored with the DD tricks
    dd = _bid(BridgeState.start(_deal(FOUR_SUITS), "double_dummy"), "P 1NT P P P")  # East declares 1NT
    assert dd.is_over and dd.play is None and dd.result().tricks == int(dd.deal.dd[1, 4])


def test_turns_observation_and_errors():
    deal = _deal(FOUR_SUITS)
    state = _bid(BridgeState.start(deal), "1C P")
    assert state.phase == "auction" and state.seat == state.player == 2
    obs = state.observation()
    assert obs.shape == (OBSERVATION_SIZE,) and not obs[231:].any()
    assert (obs[:231] == encode(state.auction.calls, False, False, deal.hands()[2])).all()
    with pytest.raises(ValueError, match="not a call"):
        state.apply(CARD_OFFSET)
    state = _bid(state, "P P")  # 1C by North, East leads
    assert state.phase == "play" and state.seat == 1 and state.view().player == 1
    assert (state.observation()[:231] == encode(state.auction.calls[:-1], False, False, deal.hands()[1])).all()
    assert state.observation()[231:].any()
    state = state.apply(CARD_OFFSET + parse_card("HA"))
    assert state.seat == 2 and state.player == 0  # South is dummy: North chooses its card
    with pytest.raises(IllegalPlayError):
        state.apply(CARD_OFFSET + parse_card("SA"))  # North's card when dummy's is due
    with pytest.raises(ValueError, match="not a card"):
        state.apply(0)
