"""The card-play observation: a fixed 0/1 vector of what the player choosing sees (`docs/play.md`).

Seats are relative to ``view.player`` (0 = the player, 1 = left-hand opponent, 2 = partner, 3 = right-hand
opponent). When declarer plays dummy's card, ``hand`` is dummy's and ``visible`` declarer's own.
"""

from __future__ import annotations

import numpy as np

from bridgerl.envs.play_view import PlayerView

LAYOUT = (
    ("played", 4 * 52),  # cards each relative seat has played, including the current trick
    ("trick", 4 * 52),   # the current trick: the card each relative seat has played to it
    ("level", 7),        # contract level 1-7
    ("strain", 5),       # C, D, H, S, NT
    ("penalty", 3),      # undoubled, doubled, redoubled
    ("declarer", 4),     # declarer's relative seat
    ("hand_seat", 4),    # relative seat of the hand to play from (2 when declarer plays from dummy)
    ("declarer_tricks", 14),  # tricks won by the declaring side, one-hot 0-13
    ("defence_tricks", 14),   # tricks won by the defence, one-hot 0-13
    ("hand", 52),        # remaining cards of the hand to play from
    ("visible", 52),     # the other hand this player sees: dummy's (once exposed), or declarer's own when on dummy
)
"""Public pieces first, then the private ``hand`` and ``visible`` (the order of OpenSpiel's observer too)."""
OFFSETS = {}
_start = 0
for _name, _size in LAYOUT:
    OFFSETS[_name] = slice(_start, _start + _size)
    _start += _size
OBSERVATION_SIZE = _start


def encode_pieces(view: PlayerView) -> dict[str, np.ndarray]:
    """Each named piece of the observation as float32."""
    pieces = {name: np.zeros(size, np.float32) for name, size in LAYOUT}
    me = view.player
    pieces["hand"][list(view.hand)] = 1
    visible = [c for seat, cards in view.known_hands().items() if seat != view.seat for c in cards]
    pieces["visible"][visible] = 1
    for trick in view.all_tricks():
        for seat, card in zip(trick.seats, trick.cards):
            pieces["played"][((seat - me) % 4) * 52 + card] = 1
    trick = view.current_trick
    for seat, card in zip(trick.seats, trick.cards):
        pieces["trick"][((seat - me) % 4) * 52 + card] = 1
    contract = view.contract
    pieces["level"][contract.level - 1] = 1
    pieces["strain"][contract.strain] = 1
    pieces["penalty"][contract.penalty] = 1
    pieces["declarer"][(contract.declarer - me) % 4] = 1
    pieces["hand_seat"][(view.seat - me) % 4] = 1
    pieces["declarer_tricks"][view.declarer_tricks] = 1
    pieces["defence_tricks"][view.defence_tricks] = 1
    return pieces


def encode(view: PlayerView) -> np.ndarray:
    """int8[OBSERVATION_SIZE] observation vector."""
    return np.concatenate([encode_pieces(view)[name] for name, _ in LAYOUT]).astype(np.int8)
