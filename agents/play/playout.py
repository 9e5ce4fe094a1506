"""Play-outs of a decision's candidate cards in sampled worlds, batched in JAX (issue #66): the engine of
``cardsearch:values=playout`` (``engine=jax``, the default for play-outs to the end of the deal).

Every (world, candidate) pair is one row of the JAX whole deal (`bridgerl.envs.jaxenv.bridge`): the world's deal at
the view's position (the play's fields built from the view, `base_fields`; the auction's replayed by the JAX auction
rules when the player reads the auction), then the candidate. From there the card player plays every seat's card
from that seat's own view of the world (`jax_play_features`: its own hand, dummy's once shown, the cards played; no
seat sees another's hand) until the deal ends. All rows are at the same point of the deal, so they end together: one
``fori_loop`` of card player passes, each one matrix product per layer for all rows. The rows' count is rounded up
to a few fixed sizes so that a process compiles the program at most a handful of times.

The card is the same as the Python whole deal's (`bridgerl.core.play.PlayState` with `CardPlayer.act` at every
seat) wherever the card player's top two groups of equal cards differ by more than rounding (the float32 products
of a batch round differently from one row's); a test checks it card by card. Worlds that do not agree with the view
and illegal candidates are refused in one line (`check_play_outs`).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from bridgerl.core.board import VULS, parse_vul

ROW_SIZES = (16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)
"""The batch sizes the play-outs are compiled for (rows are padded up to the next; more rows: multiples of 1024)."""


def padded_rows(rows: int) -> int:
    """The compiled batch size for ``rows`` rows."""
    for size in ROW_SIZES:
        if rows <= size:
            return size
    return -(-rows // ROW_SIZES[-1]) * ROW_SIZES[-1]


def base_fields(view) -> dict:
    """The whole deal's `State` fields at ``view``'s position that every world shares (numpy; the deal itself, the
    ``_owner``, is the world's): the contract, the cards played in order, the trick in progress, the voids shown,
    the tricks won and whose card it is. The auction's fields stay at their start unless the card player reads the
    auction (`auction_fields`)."""
    history = [int(card) for trick in view.all_tricks() for card in trick.cards]
    order = np.full(52, -1, np.int8)
    order[history] = np.arange(len(history))  # 4 x trick + position: the k-th card played
    trick = np.full(4, -1, np.int32)
    trick[:len(view.current_trick.cards)] = view.current_trick.cards
    contract = view.contract
    return {"_order": order, "_trick": trick, "_trick_len": np.int32(len(view.current_trick.cards)),
            "_leader": np.int32(view.current_trick.leader), "_done": np.int32(len(view.tricks)),
            "_voids": np.asarray(view.voids, bool), "tricks": np.int32(view.declarer_tricks),
            "contract": np.int32(contract.bid), "penalty": np.int32(contract.penalty),
            "declarer": np.int32(contract.declarer), "seat": np.int32(view.seat),
            "current_player": np.int32(view.player), "vulnerable": np.int32(VULS.index(parse_vul(view.vul)))}


class JaxPlayouts:
    """``totals(view, candidates, worlds)``: the searcher's side's tricks in the whole deal after each candidate in
    each world, the card player (a loaded `bridgerl.agents.learned.card_player.CardPlayer`) playing every seat."""

    def __init__(self, player):
        if not all(hasattr(player, name) for name in ("jax_cards", "_graphdef", "_params", "auction")):
            raise ValueError(f"{player!r} is not a learned card player (bridgerl.agents.CardPlayer: no JAX network)")
        self.player = player
        self.rows = 0  # network rows evaluated (the play-outs' own; not the padding)

    def totals(self, view, candidates, worlds: np.ndarray) -> np.ndarray:
        """float64[W, C]: ``view``'s player's side's total tricks (those won so far included) once each candidate
        (cards of ``view.legal``) has been played in each world (uint8[W, 52] layouts consistent with ``view``) and
        the card player has played the deal to its end."""
        w, c = len(worlds), len(candidates)
        tricks, _ = self.play(view, worlds, candidates)
        tricks = tricks.reshape(w, c).astype(np.float64)  # declarer's
        declaring = view.player % 2 == view.declarer % 2
        return tricks if declaring else 13.0 - tricks

    def play(self, view, worlds: np.ndarray, candidates) -> tuple[np.ndarray, np.ndarray]:
        """(declarer's tricks int[W x C], cards int[W x C, L]): the play-outs themselves, row ``w * C + c`` world
        ``w`` after candidate ``c``, with the ``L`` cards played after the candidate in order (L = the cards left
        after it)."""
        worlds, candidates = check_play_outs(view, worlds, candidates)
        if self.player.auction and view.auction is None:
            raise ValueError("this card player reads the auction, and the view carries none")
        w, c = len(worlds), len(candidates)
        rows = w * c
        size = padded_rows(rows)
        owners = np.zeros((size, 52), np.int8)
        owners[:rows] = np.repeat(worlds, c, axis=0)
        owners[rows:] = owners[0]
        cards = np.full(size, candidates[0], np.int32)
        cards[:rows] = np.tile(candidates, w)
        fields = base_fields(view)
        if self.player.auction:
            fields.update(auction_fields(view))
        left = 52 - len(view.tricks) * 4 - len(view.current_trick.cards) - 1
        tricks, played = _play_outs(self.player._graphdef, bool(self.player.auction))(
            self.player._params, fields, jnp.asarray(owners), jnp.asarray(cards), left)
        self.rows += rows * left
        return np.asarray(tricks)[:rows], np.asarray(played)[:rows, :left]


def check_play_outs(view, worlds, candidates) -> tuple[np.ndarray, np.ndarray]:
    """(worlds int8[W, 52], candidates int32[C]) once checked against ``view``: at least one of each, the candidates
    legal, and every world a layout the view allows (each card the view knows, held or played, at its seat); a
    one-line ValueError otherwise."""
    from bridgerl.envs import known_owner

    worlds = np.asarray(worlds)
    candidates = np.asarray(candidates, np.int64).reshape(-1)
    if worlds.ndim != 2 or worlds.shape[1] != 52 or len(worlds) == 0:
        raise ValueError(f"worlds must have shape (W, 52) with W >= 1, got {worlds.shape}")
    if len(candidates) == 0:
        raise ValueError("no candidate card to play out")
    if not set(candidates.tolist()) <= set(view.legal):
        raise ValueError(f"candidates {sorted(set(candidates.tolist()) - set(view.legal))} are not legal here")
    known = known_owner(view)
    seen = known >= 0
    wrong = np.flatnonzero((worlds[:, seen] != known[seen]).any(1) | (worlds.min(1) < 0) | (worlds.max(1) > 3))
    if len(wrong):
        raise ValueError(f"world {int(wrong[0])} does not agree with the view (a known card at another seat)")
    return worlds.astype(np.int8), candidates.astype(np.int32)


def auction_fields(view) -> dict:
    """The whole deal's auction fields (what the auction's bits are read from) after ``view``'s auction."""
    from bridgerl.envs import jax_auction_fields

    return jax_auction_fields(int(view.auction.dealer), [int(c) for c in view.auction.calls])


@functools.cache
def _play_outs(graphdef, auction: bool):
    """The jitted play-out for one card player's network shape (``graphdef``) and feature set."""
    from flax import nnx

    from bridgerl.agents.learned.card_player import masked_choice
    from bridgerl.envs import jax_play_card, jax_play_features, jax_play_position

    def run(params, fields, owners, candidates, left):
        states = jax.vmap(lambda owner: jax_play_position(owner, fields))(owners)
        play = jax.vmap(jax_play_card)
        states = play(states, candidates)
        network = nnx.merge(graphdef, params)

        def card(i, carry):
            states, played = carry
            features = jax.vmap(lambda s: jax_play_features(s, auction))(states).astype(jnp.float32)
            chosen = masked_choice(network(features), states.legal_action_mask[..., -52:])
            return play(states, chosen), played.at[:, i].set(chosen)

        states, played = jax.lax.fori_loop(0, left, card, (states, jnp.full((owners.shape[0], 52), -1, jnp.int32)))
        return states.tricks, played

    return jax.jit(run)


__all__ = ["JaxPlayouts", "auction_fields", "base_fields", "check_play_outs", "padded_rows", "ROW_SIZES"]
