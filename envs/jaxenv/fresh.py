"""Fresh deals drawn inside jit (issue #51): ``jaxenv.make(name, dataset="fresh", ...)`` for the three JAX envs.

``init(key)`` deals a uniformly random deal from the key (`deal`: a uniform permutation of the 52 cards, 13 to
each seat) and a board number drawn uniformly from the 16-board cycle (its dealer and vulnerability, as a dataset
row's board gives them); ``index`` is -1 (no row). The same key deals the same deal in every env. A key never
repeats a deal of the bundled splits except by chance (about 1 in 5e28 a deal).

No DD table exists for such a deal (nothing is solved: dealing costs nothing). The bidding envs score the
contract the auction reaches by playing it out inside the same jitted step with a learned card player (``player``:
an object with ``jax_cards``, e.g. the agents' ``CardPlayer``, or a model path, default ``models/card-player``),
greedy at all four seats in the JAX whole deal (`bridgerl.envs.jaxenv.bridge`), and pay points (the only reward
that needs no other contract's result; par needs the whole table):

- competitive bidding: the real auction (its level, doubles and every call, as each player sees them) to the
  opening lead, then the play; each seat gets its side's duplicate score.
- uncontested bidding: the contract by its declarer (the partner who first named the strain), reached by the
  canonical auction of `bridgerl.core.bridge.opening_lead_calls` (the auction is uncontested: the opponents
  pass); scored by thesis 4.4.3 (doubled when down two or more); ``side`` "NS" or "EW" (the thesis's side rule
  reads the DD table). Opening rules hold as on a dataset (the rules core's mask, read from `opening_code_table`).
- the whole deal plays itself (``play="agents"``): its score needs no table.

Cost: a contract is played out once, when its auction ends, under ``jax.vmap`` too (`played_where_ended`: a
custom batching rule plays only the batch's ended auctions, `PLAY_CHUNK` at a time), so a user's vmapped
``step`` pays about one play-out per finished auction (`benchmarks/fresh_deals.py`, `docs/jax_envs.md`). A
trainer may also make the env with ``play_in_step=False`` (the final rewards are then 0) and play the finished
auctions out in one batch itself (`bridgerl.training.ppo`).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from bridgerl.core.board import dealers_for_boards, vul_codes_for_boards
from bridgerl.core.bridge import CARD_OFFSET
from bridgerl.core.hand import HCP_PER_CARD
from bridgerl.envs.jaxenv import competitive, uncontested
from bridgerl.envs.jaxenv.api import is_legal
from bridgerl.envs.jaxenv.bridge import Bridge, start
from bridgerl.envs.jaxenv.competitive import CompetitiveBidding, auction_fields, declarer_of, score_ns
from bridgerl.envs.jaxenv.tables import opening_code_table
from bridgerl.envs.jaxenv.uncontested import UncontestedBidding

FRESH = "fresh"
"""The ``dataset`` of `bridgerl.envs.jaxenv.make` that deals fresh deals."""

_BOARDS = np.arange(1, 17)
_DEALERS = jnp.asarray(dealers_for_boards(_BOARDS), jnp.int32)
_VULS = jnp.asarray(vul_codes_for_boards(_BOARDS), jnp.int32)
_HCP = jnp.asarray(HCP_PER_CARD, jnp.int32)
_OPENING = jnp.asarray(opening_code_table())
_SEATS = jnp.arange(4)


def deal(key: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """(owner uint8[52], board, dealer, vulnerability code) of the fresh deal of ``key``: the cards in a uniformly
    random order, 13 to each seat N, E, S, W; the board uniform over 1..16 (`bridgerl.core.board`'s dealer and
    vulnerability)."""
    cards_key, board_key = jax.random.split(key)
    order = jax.random.permutation(cards_key, 52)
    owner = jnp.zeros(52, jnp.uint8).at[order].set((jnp.arange(52) // 13).astype(jnp.uint8))
    cycle = jax.random.randint(board_key, (), 0, 16)
    return owner, cycle + 1, _DEALERS[cycle], _VULS[cycle]


def opening_code(owner, seat) -> jax.Array:
    """uint8: the packed opening mask of ``seat``'s hand (`bridgerl.envs.jaxenv.tables.opening_codes`), read from
    the rules core's table by suit lengths and HCP."""
    held = owner == seat
    lengths = held.reshape(4, 13).sum(-1)
    points = (held * _HCP).sum()
    return _OPENING[lengths[0], lengths[1], lengths[2], points]


def load_player(player):
    """A learned card player: ``player`` itself when it has ``jax_cards``, else the model at that path
    (`bridgerl.core.loaders`: ``import bridgerl`` registers the card player's loader)."""
    if callable(getattr(player, "jax_cards", None)):
        return player
    from bridgerl.core import loaders

    loaded = loaders.load("card_player", str(player))
    if not callable(getattr(loaded, "jax_cards", None)):
        raise ValueError(f"player {player!r} is not a learned card player (it has no jax_cards)")
    return loaded


def play_to_end(table: Bridge, state, player) -> jax.Array:
    """Declarer's tricks once ``player`` (greedy, every seat) has played ``state`` (one state of ``table`` at the
    opening lead, or over) to the end."""
    states = jax.tree.map(lambda a: a[None], state)

    def card(states, _):
        return jax.vmap(table.step)(states, CARD_OFFSET + player.jax_cards(states)), None

    states, _ = jax.lax.scan(card, states, None, length=52)
    return states.tricks[0]


def _one_deal(owner, dealer, vulnerable) -> Bridge:
    """The whole deal over one deal's tables (row 0; no DD table, par 0)."""
    return Bridge(owner=owner.astype(jnp.int8)[None], dd=jnp.zeros((1, 4, 5), jnp.int8),
                  dealer=jnp.asarray(dealer, jnp.int32)[None], vul=jnp.asarray(vulnerable, jnp.int32)[None],
                  par=jnp.zeros(1, jnp.int32))


PLAY_CHUNK = 32
"""Ended auctions played out together under ``vmap`` (`played_where_ended`): the batch's ended auctions are taken
this many at a time, as many times as needed."""


def played_where_ended(env, state, ended) -> jax.Array:
    """float32[4]: ``env.played_rewards(state)`` where ``ended``, else zeros, paid for only where an auction ended.

    One state: a ``lax.cond`` (the play-out runs only when the auction ended). Under ``jax.vmap`` (a user's batched
    ``step``) a cond would run both branches, so the whole batch would be played out at every call: a custom batching
    rule (`jax.custom_batching.custom_vmap`) instead gathers the rows whose auction ended and plays them out
    `PLAY_CHUNK` at a time in a ``lax.while_loop`` that stops when none is left (about one chunk a call for 256
    auctions), the results scattered back to their rows; the other rows get zeros. The rewards are those of playing
    every row out, row by row (a test checks it)."""

    def zero(state):
        return jnp.zeros(4, jnp.float32)

    @jax.custom_batching.custom_vmap
    def score(state, ended):
        return jax.lax.cond(ended, env.played_rewards, zero, state)

    @score.def_vmap
    def score_batch(axis_size, in_batched, state, ended):
        state_batched, ended_batched = in_batched
        state = jax.tree.map(lambda a, b: a if b else jnp.broadcast_to(a, (axis_size,) + jnp.shape(a)), state,
                             state_batched)
        if not ended_batched:
            ended = jnp.broadcast_to(ended, (axis_size,))
        chunk = min(PLAY_CHUNK, axis_size)
        chunks = -(-axis_size // chunk)
        count = ended.sum()
        rows = jnp.nonzero(ended, size=chunks * chunk, fill_value=axis_size)[0]  # ended rows first, then padding

        def body(carry):
            i, out = carry
            index = jax.lax.dynamic_slice(rows, (i * chunk,), (chunk,))
            some = jax.tree.map(lambda a: a[jnp.minimum(index, axis_size - 1)], state)
            return i + 1, out.at[index].set(jax.vmap(env.played_rewards)(some), mode="drop")

        first = jnp.zeros((axis_size, 4), jnp.float32)
        _, out = jax.lax.while_loop(lambda carry: carry[0] * chunk < count, body, (jnp.int32(0), first))
        return out, True

    return score(state, ended)


def _with_played_rewards(env, before, after, action):
    """``after`` (the rules' step from ``before`` by ``action``, final rewards 0) with the played result of an
    auction that this legal call ended (with ``play_in_step``; `played_where_ended`: played out only where an
    auction ended, under ``vmap`` too)."""
    if not env.play_in_step:
        return after
    ended = after.terminated & ~before.terminated & is_legal(before, action)
    return after.replace(rewards=jnp.where(ended, played_where_ended(env, after, ended), after.rewards))


def _refuse_row(index) -> None:
    if index is not None:
        raise ValueError("a fresh-deal env has no rows: init(key) deals from the key (index must be None)")


@struct.dataclass
class FreshCompetitiveBidding(CompetitiveBidding):
    """Competitive bidding on fresh deals; the contract reached is played out (module docstring). The tables of
    the parent are empty."""

    player: object = struct.field(pytree_node=False, default=None)
    play_in_step: bool = struct.field(pytree_node=False, default=True)

    def init(self, key: jax.Array, index=None) -> competitive.State:
        _refuse_row(index)
        owner, _, dealer, vulnerable = deal(key)
        return competitive.start(owner, jnp.zeros((4, 5), jnp.uint8), 0, dealer, vulnerable, -1)

    def played_tricks(self, state: competitive.State) -> jax.Array:
        """Declarer's tricks when ``player`` plays the contract of the ended auction of ``state`` (0: passed out)."""
        table = _one_deal(state._owner, state.dealer, state.vulnerable)
        return play_to_end(table, table.after_auction(0, auction_fields(state), state.current_player), self.player)

    def final_rewards(self, state: competitive.State) -> jax.Array:
        return jnp.zeros(4, jnp.float32)  # the table-free rules step; `step` adds the played result

    def step(self, state: competitive.State, action, key=None) -> competitive.State:
        return _with_played_rewards(self, state, super().step(state, action, key), action)

    def played_rewards(self, state: competitive.State) -> jax.Array:
        """float32[4]: each seat's side's duplicate score of the ended auction of ``state``, played out."""
        declarer = declarer_of(state._first_namer, state._last_bid, state._last_bidder)
        ns = score_ns(state._last_bid, state._penalty, declarer, self.played_tricks(state), state.vulnerable)
        return jnp.array([1.0, -1.0, 1.0, -1.0]) * ns.astype(jnp.float32)


@struct.dataclass
class FreshUncontestedState(uncontested.State):
    """The uncontested state of a fresh deal: the board's dealer and vulnerability code (bit 0 NS, bit 1 EW) too,
    which the play of the contract reached reads (a dataset env's state keeps neither)."""

    _dealer: jnp.ndarray
    _vul: jnp.ndarray


@struct.dataclass
class FreshUncontestedBidding(UncontestedBidding):
    """Uncontested bidding on fresh deals by a fixed side; the contract reached is played out (module docstring)."""

    fixed_side: int = struct.field(pytree_node=False, default=0)
    opening_rules: bool = struct.field(pytree_node=False, default=True)
    player: object = struct.field(pytree_node=False, default=None)
    play_in_step: bool = struct.field(pytree_node=False, default=True)

    def init(self, key: jax.Array, index=None) -> uncontested.State:
        _refuse_row(index)
        owner, _, dealer, vulnerable = deal(key)
        side = self.fixed_side
        first = 0 if side == 0 else 3
        if self.opening_rules:
            opening = jnp.stack([opening_code(owner, first), opening_code(owner, (first + 2) % 4)])
        else:
            opening = jnp.full(2, 0xFF, jnp.uint8)  # bit 7: no opening rules
        state = uncontested.start(owner, jnp.zeros((4, 5), jnp.uint8), 0, side, ((vulnerable >> side) & 1) == 1,
                                  opening, -1)
        return FreshUncontestedState(**{f.name: getattr(state, f.name) for f in dataclasses.fields(state)},
                                     _dealer=dealer, _vul=vulnerable)

    def call_outcomes(self, state):
        raise ValueError("call_outcomes reads the deal's DD table and constructive par: a fresh deal has neither")

    def played_tricks(self, state: uncontested.State) -> jax.Array:
        """Declarer's tricks when ``player`` plays the contract of the ended auction (canonical auction; 0:
        passed out)."""
        last = jnp.maximum(state._last_bid, 0)
        declarer = jnp.maximum(state._first_namer[last % 5], 0)
        table = _one_deal(state._owner, state._dealer, state._vul)
        lead = table.opening_lead(0, last, 0, declarer)
        return jnp.where(state._last_bid >= 0, play_to_end(table, lead, self.player), 0)

    def final_rewards(self, state: uncontested.State) -> jax.Array:
        return jnp.zeros(4, jnp.float32)  # the table-free rules step; `step` adds the played result

    def step(self, state: uncontested.State, action, key=None) -> uncontested.State:
        return _with_played_rewards(self, state, super().step(state, action, key), action)

    def played_rewards(self, state: uncontested.State) -> jax.Array:
        """float32[4]: thesis 4.4.3's points of the ended auction of ``state``, played out (silent seats 0)."""
        points = uncontested.thesis_points(state._last_bid, self.played_tricks(state), state.vulnerable)
        return jnp.where(_SEATS % 2 == state.side, points.astype(jnp.float32), 0.0)


@struct.dataclass
class FreshBridge(Bridge):
    """The whole deal on fresh deals (its own agents play it; scored in points)."""

    def init(self, key: jax.Array, index=None):
        _refuse_row(index)
        owner, _, dealer, vulnerable = deal(key)
        return start(owner, jnp.zeros((4, 5), jnp.int8), dealer, vulnerable, 0, -1)

    def opening_lead(self, index, contract, penalty, declarer):
        raise ValueError("opening_lead starts a dataset row: a fresh-deal env has no rows")

    def after_auction(self, index, fields: dict, next_seat):
        raise ValueError("after_auction starts a dataset row: a fresh-deal env has no rows")


def empty_tables(**extra) -> dict:
    """The parent envs' per-row tables, empty (a fresh-deal env reads none)."""
    tables = {"owner": jnp.zeros((0, 52), jnp.uint8), "dd": jnp.zeros((0, 4, 5), jnp.uint8),
              "par": jnp.zeros(0, jnp.int32)}
    tables.update(extra)
    return tables


__all__ = ["FRESH", "PLAY_CHUNK", "FreshBridge", "FreshCompetitiveBidding", "FreshUncontestedBidding", "FreshUncontestedState", "deal",
           "empty_tables", "load_player", "opening_code", "play_to_end", "played_where_ended"]
