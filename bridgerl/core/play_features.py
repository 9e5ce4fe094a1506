"""The play features for networks: one definition of what a card-playing network reads, with two twins, this numpy
one over a `PlayerView` and a JAX one over the whole deal's JAX state (`bridgerl.envs.jaxenv.bridge.play_features`),
equal bit for bit (`tests/test_jax_bridge.py`).

The 571 play bits of the observation (`bridgerl.core.card_play.LAYOUT`) are seen from the *player* and lack what a
card player needs: the order of the cards in the trick in progress, who led each trick, the voids shown and the
unseen cards. These features add them, and are seen from the *hand to play* (dummy's when declarer plays from it):
relative seat 0 is the hand to play, 1 its left-hand opponent, 2 its partner, 3 its right-hand opponent. Declarer
choosing from dummy then reads the table as dummy would if dummy could see declarer's hand, which makes the two
hands one task for a network. Features in the style of the incomplete-state solver of the reweighing paper
(`004_...txt` section 4: remaining cards by seat with a visibility mask, the trick's cards in order, voids shown).

`LAYOUT` (int8 0/1, 759 values; 990 with the auction):

=================  =====  ===============================================================================
piece              size   meaning
=================  =====  ===============================================================================
``remaining``      4x52   the cards still held that the player sees, by relative seat (its own hand; dummy's
                          once shown after the opening lead; both when declarer plays from dummy)
``unseen``         52     cards neither played nor seen: those the two hidden hands hold between them
``played``         4x52   cards each relative seat has played (completed tricks and the trick in progress)
``led``            52     cards that were led to a trick (with ``played``: who led each trick)
``trick``          3x52   the trick in progress: the card of relative seat 1, 2 and 3 (with ``position``:
                          their order: the last card played is always seat 3's)
``position``       4      cards already in the trick (0: the hand to play leads)
``voids``          4x4    relative seat x suit (C, D, H, S): failed to follow to that suit
``strain``         5      C, D, H, S, NT
``level``          7      contract level 1-7
``penalty``        3      undoubled, doubled, redoubled
``declarer``       4      declarer's relative seat (2 with seat 0 dummy: declarer plays from dummy)
``our_tricks``     14     tricks won by the hand to play's side, one-hot 0-13
``their_tricks``   14     tricks won by the other side
``needed``         14     tricks the hand to play's side still needs (contract for declarer's side,
                          beating it for the defence), one-hot 0-13 (0 once reached)
``vulnerable``     2      the hand to play's side, the other side
``auction``        231    (``auction=True`` only) the player's competitive auction bits, bits 0-230 of the
                          whole deal's observation
=================  =====  ===============================================================================
"""

from __future__ import annotations

import numpy as np

from .board import is_vulnerable, parse_vul
from .competitive import OBSERVATION_SIZE as AUCTION_BITS
from .competitive import encode as encode_auction
from .competitive import encoded_calls

LAYOUT = (
    ("remaining", 4 * 52), ("unseen", 52), ("played", 4 * 52), ("led", 52), ("trick", 3 * 52), ("position", 4),
    ("voids", 16), ("strain", 5), ("level", 7), ("penalty", 3), ("declarer", 4), ("our_tricks", 14),
    ("their_tricks", 14), ("needed", 14), ("vulnerable", 2),
)
OFFSETS: dict[str, slice] = {}
_start = 0
for _name, _size in LAYOUT:
    OFFSETS[_name] = slice(_start, _start + _size)
    _start += _size
SIZE = _start  # 759
SIZE_WITH_AUCTION = SIZE + AUCTION_BITS  # 990
OFFSETS["auction"] = slice(SIZE, SIZE_WITH_AUCTION)


def feature_size(auction: bool = False) -> int:
    return SIZE_WITH_AUCTION if auction else SIZE


def play_features(view, auction: bool = False) -> np.ndarray:
    """int8[759] (``auction=True``: int8[990]) features of a `PlayerView` (the player choosing a card; see the
    module docstring). ``auction`` needs the view's auction (the whole deal's views carry it)."""
    if view.auction is None and auction:
        raise ValueError("auction=True needs a view with its auction (the whole deal's); this view has none")
    seat, player = view.seat, view.player
    out = np.zeros(feature_size(auction), np.int8)

    def put(name: str, rel: int, cards) -> None:
        start = OFFSETS[name].start + 52 * rel
        out[[start + int(c) for c in cards]] = 1

    put("remaining", 0, view.hand)
    if player != seat:
        put("remaining", 2, view.own_cards)
    elif view.dummy_cards is not None and view.dummy != player:
        put("remaining", (view.dummy - seat) % 4, view.dummy_cards)
    seen = np.zeros(52, bool)
    seen[list(view.hand) + list(view.own_cards) + list(view.dummy_cards or ())] = True
    trick = view.current_trick
    for t in view.all_tricks():
        for k, (s, c) in enumerate(zip(t.seats, t.cards)):
            seen[c] = True
            put("played", (s - seat) % 4, (c,))
            if k == 0:
                put("led", 0, (c,))
    out[OFFSETS["unseen"]] = ~seen
    for s, c in zip(trick.seats, trick.cards):
        put("trick", (s - seat) % 4 - 1, (c,))
    base = OFFSETS["position"].start
    out[base + len(trick.cards)] = 1
    voids = np.asarray(view.voids, bool)
    out[OFFSETS["voids"]] = voids[[(seat + r) % 4 for r in range(4)]].reshape(-1)
    contract = view.contract
    out[OFFSETS["strain"].start + contract.strain] = 1
    out[OFFSETS["level"].start + contract.level - 1] = 1
    out[OFFSETS["penalty"].start + contract.penalty] = 1
    out[OFFSETS["declarer"].start + (contract.declarer - seat) % 4] = 1
    declaring = seat % 2 == contract.declarer % 2
    ours = view.declarer_tricks if declaring else len(view.tricks) - view.declarer_tricks
    goal = contract.tricks_needed if declaring else 14 - contract.tricks_needed
    out[OFFSETS["our_tricks"].start + ours] = 1
    out[OFFSETS["their_tricks"].start + len(view.tricks) - ours] = 1
    out[OFFSETS["needed"].start + max(goal - ours, 0)] = 1
    vul = parse_vul(view.vul)
    out[OFFSETS["vulnerable"]] = (is_vulnerable(vul, seat), is_vulnerable(vul, seat + 1))
    if auction:
        hand = np.zeros(52, np.int8)  # the player's original 13 cards: held now or played
        hand[list(view.own_cards) + view.played_by(player)] = 1
        out[OFFSETS["auction"]] = encode_auction(encoded_calls(view.auction), is_vulnerable(vul, player),
                                                 is_vulnerable(vul, player + 1), hand)
    return out


def piece(features: np.ndarray, name: str) -> np.ndarray:
    """One named piece of a feature vector (or a batch of them, on the last axis)."""
    return features[..., OFFSETS[name]]


__all__ = ["LAYOUT", "OFFSETS", "SIZE", "SIZE_WITH_AUCTION", "feature_size", "play_features", "piece"]
