"""What one player may see during the play (thesis 2.1.5): the `PlayerView` every play agent acts on.

The decision belongs to the seat to play, except dummy's cards, which declarer chooses: then ``seat`` is dummy's
seat, ``player`` is declarer, ``hand`` is dummy's remaining cards and ``own_cards`` declarer's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

import numpy as np

from bridgerl.core.cards import SEATS, card_name, partner
from bridgerl.core.constraints import HandConstraint
from bridgerl.core.contract import Contract
from bridgerl.core.play import PlayState, Trick, cards_of, equivalent_groups, mask_of


@dataclass(frozen=True)
class PlayerView:
    """The information available to the player choosing the next card."""

    seat: int
    player: int
    hand: tuple[int, ...]
    own_cards: tuple[int, ...]
    dummy_cards: tuple[int, ...] | None
    contract: Contract
    tricks: tuple[Trick, ...]
    current_trick: Trick
    voids: np.ndarray = field(compare=False, repr=False)
    legal: tuple[int, ...] = ()
    declarer_tricks: int = 0
    constraints: Mapping[int, HandConstraint] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def declarer(self) -> int:
        return self.contract.declarer

    @property
    def dummy(self) -> int:
        return partner(self.contract.declarer)

    @property
    def defence_tricks(self) -> int:
        return len(self.tricks) - self.declarer_tricks

    @property
    def is_declaring_side(self) -> bool:
        return self.player % 2 == self.declarer % 2

    @property
    def tricks_needed(self) -> int:
        """Tricks the player's side needs in all: the contract for declarer, enough to beat it for the defence."""
        return self.contract.tricks_needed if self.is_declaring_side else 14 - self.contract.tricks_needed

    @property
    def tricks_won(self) -> int:
        """Tricks the player's side has won so far."""
        return self.declarer_tricks if self.is_declaring_side else self.defence_tricks

    def all_tricks(self) -> tuple[Trick, ...]:
        return self.tricks + ((self.current_trick,) if self.current_trick.cards else ())

    def played_by(self, seat: int) -> list[int]:
        """Cards ``seat`` has played so far."""
        return [c for t in self.all_tricks() for s, c in zip(t.seats, t.cards) if s == seat]

    def known_hands(self) -> dict[int, tuple[int, ...]]:
        """Remaining cards of the seats this player can see: its own, and dummy's once visible."""
        known = {self.player: self.own_cards}
        if self.dummy_cards is not None:
            known[self.dummy] = self.dummy_cards
        return known

    def unseen_cards(self) -> list[int]:
        """Cards neither played nor in a visible hand, lowest first."""
        seen = mask_of(c for t in self.all_tricks() for c in t.cards)
        for cards in self.known_hands().values():
            seen |= mask_of(cards)
        return cards_of(((1 << 52) - 1) & ~seen)

    def equivalent_groups(self) -> list[list[int]]:
        """Legal cards in groups of equals: the same suit, with only cards of completed tricks between them (a card
        in the trick in progress still separates: it may beat one and not the other). Lowest first."""
        return equivalent_groups(self.legal, mask_of(c for t in self.tricks for c in t.cards))

    def __str__(self) -> str:
        hand = " ".join(card_name(c) for c in sorted(self.hand, reverse=True))
        trick = str(self.current_trick) if self.current_trick.cards else "(new trick)"
        return (f"{SEATS[self.seat]} to play ({SEATS[self.player]} chooses) in {self.contract}: {hand} | {trick} | "
                f"tricks {self.declarer_tricks}-{self.defence_tricks}")


def view_of(state: PlayState, constraints: Mapping[int, HandConstraint] | None = None,
            player: int | None = None) -> PlayerView:
    """The view of the player choosing the next card in ``state``.

    With ``player`` given and not the one to choose (an observer, as OpenSpiel's observation tensors need), the
    view is that player's with its own hand as ``hand`` and no legal cards."""
    if state.is_over and player is None:
        raise ValueError("the hand is over: no card to choose")
    acting = player is None or (not state.is_over and player == state.controller)
    seat = state.to_play if acting else player
    player = state.controller if acting else player
    dummy_cards = tuple(cards_of(state.hands[state.dummy])) if state.dummy_visible else None
    return PlayerView(
        seat=seat, player=player, hand=tuple(cards_of(state.hands[seat])),
        own_cards=tuple(cards_of(state.hands[player])), dummy_cards=dummy_cards, contract=state.contract,
        tricks=state.tricks, current_trick=state.trick, voids=state.shown_voids(),
        legal=tuple(state.legal_cards()) if acting else (), declarer_tricks=state.declarer_tricks,
        constraints=MappingProxyType(dict(constraints or {})))
