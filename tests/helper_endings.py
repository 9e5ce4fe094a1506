"""Hand-made endings as real positions: a whole deal whose earlier tricks are filler rounds.

`ending(hands, contract, leader, trick)` takes the cards each seat still holds (PBN order S.H.D.C, e.g.
``"AJ4..2."``), deals the other cards out in filler rounds in which every seat follows suit (so no void is shown
and nothing is learned from them), and plays them: the first round is led by declarer's left-hand opponent, every
round is won by ``leader``, who then leads ``trick`` (the cards already played to the trick in progress). Each suit
must have 1, 5, 9 or 13 cards left (the filler rounds take four of a suit).
"""

from __future__ import annotations

import numpy as np

from bridgerl.core import Contract
from bridgerl.core.cards import SEATS, parse_card
from bridgerl.core.play import PlayState

_PBN_SUITS = "SHDC"


def parse_hand(text: str) -> list[int]:
    """Card indices of a PBN hand ``S.H.D.C`` (ranks as letters/digits, T for ten)."""
    parts = text.split(".")
    if len(parts) != 4:
        raise ValueError(f"a hand is S.H.D.C, got {text!r}")
    return [parse_card(suit + rank) for suit, ranks in zip(_PBN_SUITS, parts) for rank in ranks]


def ending(hands: dict[str, str], contract: str, leader: str, trick: tuple[str, ...] = ()) -> PlayState:
    """The position: ``hands`` by seat letter (cards still held, those of ``trick`` included), ``leader`` on lead to
    the trick in progress, ``trick`` its cards so far."""
    contract = Contract.parse(contract)
    owner = np.full(52, 255, dtype=np.uint8)
    for seat, text in hands.items():
        for card in parse_hand(text):
            if owner[card] != 255:
                raise ValueError(f"card {card} given twice")
            owner[card] = SEATS.index(seat)
    sizes = {len(parse_hand(text)) for text in hands.values()}
    if len(hands) != 4 or len(sizes) != 1:
        raise ValueError("give all four hands, each with the same number of cards")
    lead = SEATS.index(leader)
    rounds = []
    for suit in range(4):
        free = [c for c in range(suit * 13, suit * 13 + 13) if owner[c] == 255]
        if len(free) % 4:
            raise ValueError(f"suit {'CDHS'[suit]}: {13 - len(free)} cards left; filler rounds need 1, 5, 9 or 13")
        rounds += [free[i:i + 4] for i in range(0, len(free), 4)]
    played = []
    first = (contract.declarer + 1) % 4
    for cards in rounds:  # the highest card to `lead`, who wins the round and leads the next one
        seats = [(first + i) % 4 for i in range(4)]
        by_seat = {lead: cards[3]}
        for seat, card in zip([s for s in seats if s != lead], cards[:3]):
            by_seat[seat] = card
        for seat, card in by_seat.items():
            owner[card] = seat
        played += [by_seat[s] for s in seats]
        first = lead
    state = PlayState.start(owner, contract, played)
    for card in trick:
        state = state.play(parse_card(card))
    assert state.trick.leader == lead
    return state
