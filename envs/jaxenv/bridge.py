"""The whole deal in pure JAX (thesis 2.1): the auction (38 calls), then the play of 13 tricks (declarer chooses
dummy's cards), then the duplicate score: the twin of `bridgerl/Bridge-v0` with all four seats acting, pgx-style
(immutable `State`, pure `init`/`step` of `lax` control flow, `vmap` left to the caller).

Actions are `Bridge-v0`'s 90 (0..37 calls, 38 + card the cards, card = suit * 13 + rank); the observation is its
802 bits (`bridgerl.core.bridge`): bits 0-230 the competitive auction encoding of the player choosing, 231-801 the
play encoding (`bridgerl.core.card_play.LAYOUT`), worked out from the state on every step. The auction's rules are
the competitive env's (`bridgerl.envs.jaxenv.competitive`: one copy). ``play="double_dummy"`` scores the contract
with the deal's DD tricks at the end of the auction, as OpenSpiel's ``use_double_dummy_result``.

`play_features` is the JAX twin of `bridgerl.core.play_features.play_features`; `opening_lead` starts a row at the
opening lead of a given contract by the canonical auction (`bridgerl.core.bridge.opening_lead_calls`).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from flax import struct

from bridgerl.core.bridge import NUM_ACTIONS, OBSERVATION_SIZE, opening_lead_calls
from bridgerl.core.calls import BID_OFFSET, NUM_CALLS
from bridgerl.core.competitive import OBSERVATION_SIZE as AUCTION_BITS
from bridgerl.core.contract import Contract
from bridgerl.core.play_features import OFFSETS as FEATURE_OFFSETS
from bridgerl.core.play_features import feature_size
from bridgerl.core.illegal import illegal_penalty
from bridgerl.envs.jaxenv.api import PgxEnv, pick_row, step_like_pgx
from bridgerl.envs.jaxenv.competitive import (advance_auction, auction_bits, auction_fields, call_mask, declarer_of,
                                              score_ns)
from bridgerl.envs.jaxenv.rules import imps

AUCTION, PLAY, OVER = 0, 1, 2
"""The values of `State.phase`."""
MAX_LEAD_CALLS = 9  # the longest canonical auction: 3 passes, the bid, X, XX, 3 passes
_SEATS4 = jnp.arange(4)
_RANK = jnp.arange(52) % 13
_SUIT = jnp.arange(52) // 13


@struct.dataclass
class State:
    current_player: jnp.ndarray      # the seat choosing (declarer for dummy's cards)
    observation: jnp.ndarray         # int8[802], Bridge-v0's for the current player
    legal_action_mask: jnp.ndarray   # bool[90] (all True once the game has ended, as in pgx)
    rewards: jnp.ndarray             # float32[4]: N, E, S, W, set on the step that ends the deal
    terminated: jnp.ndarray
    truncated: jnp.ndarray           # always False (every deal ends)
    index: jnp.ndarray               # dataset row
    dealer: jnp.ndarray
    vulnerable: jnp.ndarray          # vulnerability code: bit 0 NS, bit 1 EW
    phase: jnp.ndarray               # AUCTION 0, PLAY 1, OVER 2
    contract: jnp.ndarray            # the final bid 0..34 ((level - 1) * 5 + strain) once the auction is over, else -1
    penalty: jnp.ndarray             # 0, 1 (X), 2 (XX) on the contract
    declarer: jnp.ndarray            # seat, -1 before the end of the auction and for a pass-out
    tricks: jnp.ndarray              # declarer's tricks so far (at the end: as played, or DD with play="double_dummy")
    seat: jnp.ndarray                # the seat whose call or card is due (dummy's for dummy's cards)
    _owner: jnp.ndarray              # int8[52]
    _dd: jnp.ndarray                 # int8[4, 5]
    _par: jnp.ndarray                # standard par, NS view
    # the auction (`bridgerl.envs.jaxenv.competitive`)
    _values: jnp.ndarray
    _leading: jnp.ndarray
    _last_bid: jnp.ndarray
    _last_bidder: jnp.ndarray
    _penalty: jnp.ndarray
    _trailing: jnp.ndarray
    _first_namer: jnp.ndarray
    # the play
    _order: jnp.ndarray              # int8[52]: 4 * trick + position of each card played, -1 while held
    _trick: jnp.ndarray              # int32[4]: the trick in progress, in order of play (-1: none yet)
    _trick_len: jnp.ndarray
    _leader: jnp.ndarray
    _done: jnp.ndarray               # completed tricks
    _voids: jnp.ndarray              # bool[4 seats, 4 suits] shown


@struct.dataclass
class Bridge(PgxEnv):
    """Tables per dataset row (`bridgerl.envs.jaxenv.tables.competitive_tables`); pgx's attributes and calling
    convention (`bridgerl.envs.jaxenv.api`)."""

    name = "bridge"

    owner: jnp.ndarray
    dd: jnp.ndarray
    dealer: jnp.ndarray
    vul: jnp.ndarray
    par: jnp.ndarray
    double_dummy: bool = struct.field(pytree_node=False, default=False)
    reward_points: bool = struct.field(pytree_node=False, default=True)  # "score"; False: "par_imps"
    illegal_penalty: float | None = struct.field(pytree_node=False, default=None)  # None: the unit's default

    num_actions: int = struct.field(pytree_node=False, default=NUM_ACTIONS)
    observation_size: int = struct.field(pytree_node=False, default=OBSERVATION_SIZE)

    def init(self, key: jax.Array, index=None) -> State:
        """The deal of row ``index`` (sampled with ``key`` when None) before the first call."""
        index = pick_row(key, index, self.owner.shape[0])
        return start(self.owner[index], self.dd[index], self.dealer[index], self.vul[index], self.par[index], index)

    def step(self, state: State, action, key=None) -> State:
        """The state after the seat choosing takes ``action`` (``key``: pgx's argument, unused: the deal is fixed
        once dealt). A terminated state only has its rewards zeroed; an illegal action ends the game (``phase``
        OVER; the observation, contract and tricks stay as they were) with the chooser's side at
        ``-ILLEGAL_PENALTY`` (7,600 points for "score", 24 IMPs for "par_imps") and the other side at
        ``+ILLEGAL_PENALTY``."""
        penalty = illegal_penalty("points" if self.reward_points else "imps", self.illegal_penalty)
        state = step_like_pgx(state, action, self._step,
                              lambda s: jnp.where(_SEATS4 % 2 == s.current_player % 2, -penalty,
                                                  penalty).astype(jnp.float32))
        return state.replace(phase=jnp.where(state.terminated, OVER, state.phase))  # an illegal action ends it too

    def opening_lead(self, index, contract, penalty, declarer) -> State:
        """Row ``index`` at the opening lead of ``contract`` (bid 0..34) with ``penalty`` (0, 1 X, 2 XX) by
        ``declarer``, reached by the canonical auction of `bridgerl.core.bridge.opening_lead_calls` (the calls
        `BridgeState.at_opening_lead` makes, read from a table that function builds). Values out of range raise
        ValueError when given as Python or numpy numbers; inside ``jit`` they are the caller's to check."""
        if self.double_dummy:
            raise ValueError("opening_lead starts the play: make the env with play='agents' (a double_dummy deal "
                             "ends with its auction)")
        for name, value, top in (("contract", contract, 34), ("penalty", penalty, 2), ("declarer", declarer, 3)):
            if not isinstance(value, jax.core.Tracer) and not (0 <= np.min(value) and np.max(value) <= top):
                raise ValueError(f"opening_lead: {name} must be in 0..{top}, got {value}")
        state = self.init(jax.random.key(0), index)
        contract = jnp.asarray(contract, jnp.int32)
        calls = _LEAD_CALLS[state.dealer, jnp.asarray(declarer, jnp.int32), jnp.asarray(penalty, jnp.int32)]
        calls = jnp.where(calls == _BID, 3 + contract, calls)

        def body(i, s):
            call = calls[i]
            stepped = self._step(s, jnp.maximum(call, 0))
            return jax.tree.map(lambda new, old: jnp.where(call >= 0, new, old), stepped, s)

        return jax.lax.fori_loop(0, MAX_LEAD_CALLS, body, state)

    def after_auction(self, index, fields: dict, next_seat) -> State:
        """Row ``index`` just after an auction that has ended, given by its auction fields (``fields``: the
        `bridgerl.envs.jaxenv.competitive.auction_fields` of a terminated competitive-bidding state of the same row,
        the real auction as every player sees it) and ``next_seat`` (the seat after the auction's last call, that
        state's ``current_player``): at the opening lead of the contract reached, or over for a pass-out. The same
        state as stepping the auction's calls one by one (a test checks it); inside ``jit``, that the auction
        ended is the caller's to ensure."""
        state = self.init(jax.random.key(0), index)
        state = state.replace(**fields, current_player=next_seat, seat=next_seat)
        return _refresh(self._auction_end(state, jnp.bool_(True)))

    def observation_of(self, state: State, player) -> jnp.ndarray:
        """int8[802]: ``player``'s observation of ``state``, `BridgeState.observation(player)`: the state's
        ``observation`` for the player choosing (declarer reading dummy's hand to play on dummy's turn), any other
        player's view of the table with its own hand as the hand to play."""
        choosing = (player == state.current_player) & (state.phase == PLAY)
        return observation_of(state, player, jnp.where(choosing, state.seat, player))

    def play_features(self, state: State, auction: bool = False) -> jnp.ndarray:
        return play_features(state, auction)

    # -- the rules ---------------------------------------------------------------------------------------------
    def _step(self, state: State, action) -> State:
        action = jnp.asarray(action, jnp.int32)
        state = jax.lax.cond(state.phase == AUCTION, self._call, self._card, state, action)
        return _refresh(state)

    def _card(self, state: State, action) -> State:
        state = _card(state, action)
        return state.replace(rewards=jnp.where(state.terminated, self._rewards(state), 0.0))

    def _call(self, state: State, action) -> State:
        seat = state.current_player
        fields, ends = advance_auction(auction_fields(state), seat, action)
        state = state.replace(**fields, current_player=(seat + 1) % 4, seat=(seat + 1) % 4)
        return self._auction_end(state, ends)

    def _auction_end(self, state: State, ends) -> State:
        """``state`` (its auction fields just advanced, the next seat to call in ``current_player``) once
        ``ends`` says whether that call ended the auction: the play starts at the opening lead, or the deal ends
        (a pass-out, or any contract with ``play="double_dummy"``)."""
        bid = state._last_bid
        declarer = declarer_of(state._first_namer, bid, state._last_bidder)
        played = ends & (bid >= 0) & (not self.double_dummy)
        over = ends & ~played
        tricks = jnp.where(over & (bid >= 0), state._dd[declarer, jnp.maximum(bid, 0) % 5].astype(jnp.int32), 0)
        leader = (declarer + 1) % 4
        state = state.replace(
            phase=jnp.where(played, PLAY, jnp.where(over, OVER, AUCTION)),
            contract=jnp.where(ends, bid, -1), penalty=jnp.where(ends & (bid >= 0), state._penalty, 0),
            declarer=jnp.where(ends & (bid >= 0), declarer, -1), tricks=tricks, terminated=over,
            current_player=jnp.where(played, leader, state.current_player), seat=jnp.where(played, leader, state.seat),
            _leader=jnp.where(played, leader, state._leader))
        return state.replace(rewards=jnp.where(over, self._rewards(state), 0.0))

    def _rewards(self, state: State) -> jnp.ndarray:
        ns = score_ns(state.contract, state.penalty, state.declarer, state.tricks, state.vulnerable)
        ns = (ns if self.reward_points else imps(ns - state._par)).astype(jnp.float32)
        return jnp.array([1.0, -1.0, 1.0, -1.0]) * ns


def start(owner, dd, dealer, vulnerable, par, index) -> State:
    """The state of a deal (``owner`` [52] seat of each card, ``dd`` [4, 5] its DD table, zeros when unknown) with
    ``dealer``, vulnerability code and ``par`` (NS) before the first call; ``index`` its dataset row (-1: a fresh
    deal)."""
    i32 = jnp.int32
    dealer = jnp.asarray(dealer, i32)
    state = State(
        current_player=dealer, observation=jnp.zeros(OBSERVATION_SIZE, jnp.int8),
        legal_action_mask=jnp.zeros(NUM_ACTIONS, bool), rewards=jnp.zeros(4, jnp.float32),
        terminated=jnp.bool_(False), truncated=jnp.bool_(False), index=jnp.asarray(index, i32), dealer=dealer,
        vulnerable=jnp.asarray(vulnerable, i32), phase=i32(AUCTION), contract=i32(-1), penalty=i32(0),
        declarer=i32(-1), tricks=i32(0), seat=dealer,
        _owner=jnp.asarray(owner).astype(jnp.int8), _dd=jnp.asarray(dd).astype(jnp.int8),
        _par=jnp.asarray(par, i32), _values=jnp.zeros(35, i32), _leading=i32(0), _last_bid=i32(-1),
        _last_bidder=i32(-1), _penalty=i32(0), _trailing=i32(0), _first_namer=jnp.full((2, 5), -1, i32),
        _order=jnp.full(52, -1, jnp.int8), _trick=jnp.full(4, -1, i32), _trick_len=i32(0), _leader=i32(0),
        _done=i32(0), _voids=jnp.zeros((4, 4), bool))
    # `_refresh` of a deal before its first call, written out: no play bits, no cards (cheap, as init runs for
    # every finished game of a batch at each step of an auto-reset loop)
    calls = call_mask(dealer, state._last_bid, state._last_bidder, state._penalty)
    return state.replace(
        observation=jnp.concatenate([auction_bits(state._values, state._leading, state.vulnerable, state._owner,
                                                  dealer), jnp.zeros(OBSERVATION_SIZE - AUCTION_BITS, jnp.int8)]),
        legal_action_mask=jnp.concatenate([calls, jnp.zeros(NUM_ACTIONS - NUM_CALLS, bool)]))


def _card(state: State, action) -> State:
    """The play of one card (the legal ``action``) and, with the fourth, the trick's winner."""
    card = action - NUM_CALLS
    position = state._trick_len
    seat = (state._leader + position) % 4
    trick = state._trick.at[position].set(card)
    led = trick[0] // 13
    suit = card // 13
    voids = state._voids.at[seat, led].set(state._voids[seat, led] | (suit != led))
    order = state._order.at[card].set((4 * state._done + position).astype(jnp.int8))
    complete = position == 3
    strain = state.contract % 5
    suits = trick // 13
    key = jnp.where(suits == strain, 26, jnp.where(suits == led, 13, 0)) + trick % 13  # strain 4 (NT): no trump
    winner = (state._leader + jnp.argmax(key)) % 4
    won = complete & (winner % 2 == state.declarer % 2)
    done = state._done + complete.astype(jnp.int32)
    leader = jnp.where(complete, winner, state._leader)
    length = jnp.where(complete, 0, position + 1)
    next_seat = (leader + length) % 4
    over = done == 13
    dummy = (state.declarer + 2) % 4
    state = state.replace(
        _order=order, _trick=jnp.where(complete, -1, trick), _trick_len=length, _leader=leader, _done=done,
        _voids=voids, tricks=state.tricks + won.astype(jnp.int32), seat=next_seat,
        current_player=jnp.where((next_seat == dummy) & ~over, state.declarer, next_seat), terminated=over,
        phase=jnp.where(over, OVER, PLAY))
    return state


def _refresh(state: State) -> State:
    """The observation and legal mask of the state's chooser; at the end (Bridge-v0's convention) the seat that
    would act next: after the play the last trick's winner, who sees with its own eyes."""
    over = state.phase == OVER
    player = state.current_player
    seat = jnp.where(over, player, state.seat)
    calls = call_mask(player, state._last_bid, state._last_bidder, state._penalty) & (state.phase == AUCTION)
    mask = jnp.concatenate([calls, _legal_cards(state) & (state.phase == PLAY)]) | state.terminated
    return state.replace(observation=observation_of(state, player, seat), legal_action_mask=mask)


def _legal_cards(state: State) -> jnp.ndarray:
    seat = (state._leader + state._trick_len) % 4
    hand = (state._owner == seat) & (state._order < 0)
    led = state._trick[0] // 13
    follow = hand & (_SUIT == led) & (state._trick_len > 0)
    return jnp.where(follow.any(), follow, hand)


def observation_of(state: State, player, seat) -> jnp.ndarray:
    """int8[802]: ``player``'s observation when it chooses from ``seat``'s hand (``seat == player`` for anyone but
    declarer on dummy): `bridgerl.core.bridge.BridgeState.observation`. Zero play bits during the auction."""
    auction = auction_bits(state._values, state._leading, state.vulnerable, state._owner, player)
    has_play = (state.phase == PLAY) | (state._done == 13)  # not after an auction that ends the deal
    return jnp.concatenate([auction, _play_bits(state, player, seat) * has_play]).astype(jnp.int8)


def _one_hot(value, size) -> jnp.ndarray:
    return (jnp.arange(size) == value).astype(jnp.int8)


def _play_bits(state: State, me, seat) -> jnp.ndarray:
    """int8[571]: `bridgerl.core.card_play.LAYOUT` for player ``me`` playing from ``seat``'s hand."""
    owner, order = state._owner, state._order
    played = order >= 0
    in_trick = played & (order >= 4 * state._done)
    rel = (me + _SEATS4[:, None]) % 4 == owner[None, :]  # [relative seat, card]: the card is that seat's
    declarer = state.declarer
    dummy = (declarer + 2) % 4
    other = jnp.where(me != seat, me, jnp.where(jnp.any(played) & (dummy != me), dummy, -1))
    held = ~played
    defence = state._done - state.tricks
    return jnp.concatenate([
        (rel & played).reshape(-1), (rel & in_trick).reshape(-1),
        _one_hot(state.contract // 5, 7), _one_hot(state.contract % 5, 5), _one_hot(state.penalty, 3),
        _one_hot((declarer - me) % 4, 4), _one_hot((seat - me) % 4, 4),
        _one_hot(state.tricks, 14), _one_hot(defence, 14),
        held & (owner == seat), held & (owner == other)]).astype(jnp.int8)


def play_features(state: State, auction: bool = False) -> jnp.ndarray:
    """int8[759] (int8[990] with ``auction``): the play features of the player choosing a card in ``state``, the
    JAX twin of `bridgerl.core.play_features.play_features` (meaningful during the play)."""
    owner, order = state._owner, state._order
    seat, player = state.seat, state.current_player
    declarer = state.declarer
    dummy = (declarer + 2) % 4
    played = order >= 0
    held = ~played
    rel_seats = (seat + _SEATS4) % 4
    rel = rel_seats[:, None] == owner[None, :]
    # the hands the player sees: the hand to play, and its partner's when that is declarer's own (declarer on
    # dummy) or dummy's once shown
    partner = (seat + 2) % 4
    sees_partner = (player != seat) | ((partner == dummy) & jnp.any(played))
    sees_dummy = jnp.any(played) & (dummy != player)  # a defender sees dummy at relative seat 1 or 3
    visible = (_SEATS4 == 0) | ((_SEATS4 == 2) & sees_partner) | ((rel_seats == dummy) & sees_dummy)
    remaining = rel & held[None, :] & visible[:, None]
    unseen = held & ~remaining.any(0)
    first = played & (order % 4 == 0)
    in_trick = played & (order >= 4 * state._done)
    trick = (rel & in_trick[None, :])[1:]
    declaring = seat % 2 == declarer % 2
    defence = state._done - state.tricks
    ours = jnp.where(declaring, state.tricks, defence)
    goal = jnp.where(declaring, state.contract // 5 + 7, 7 - state.contract // 5)
    vul = state.vulnerable
    parts = [
        remaining.reshape(-1), unseen, (rel & played[None, :]).reshape(-1), first, trick.reshape(-1),
        _one_hot(state._trick_len, 4), state._voids[rel_seats].reshape(-1), _one_hot(state.contract % 5, 5),
        _one_hot(state.contract // 5, 7), _one_hot(state.penalty, 3), _one_hot((declarer - seat) % 4, 4),
        _one_hot(ours, 14), _one_hot(state._done - ours, 14), _one_hot(jnp.maximum(goal - ours, 0), 14),
        jnp.stack([(vul >> (seat % 2)) & 1, (vul >> ((seat + 1) % 2)) & 1])]
    if auction:
        parts.append(auction_bits(state._values, state._leading, vul, owner, player))
    out = jnp.concatenate([p.astype(jnp.int8) for p in parts])
    assert out.shape == (feature_size(auction),) and FEATURE_OFFSETS["vulnerable"].stop == feature_size(False)
    return out


def play_position(owner, fields: dict) -> State:
    """The state of the deal ``owner`` during the play, given by ``fields`` (`State` field name -> value: the play's
    fields as a search reads them from a player's view, and the auction's where the player reads them; every other
    field at its start), with the legal mask of the seat to play: what a search starts its play-outs in each world
    from. The ``observation`` is not computed (`play_features` reads the state's fields)."""
    state = start(owner, jnp.zeros((4, 5), jnp.int8), 0, 0, 0, -1)
    state = state.replace(phase=jnp.int32(PLAY),
                          **{name: jnp.asarray(value, getattr(state, name).dtype) for name, value in fields.items()})
    return _with_card_mask(state)


def play_card(state: State, card) -> State:
    """``state`` after the legal ``card`` (0..51) of the play: the trick, its winner, the tricks, whose turn and the
    legal mask (the observation is not computed)."""
    return _with_card_mask(_card(state, NUM_CALLS + card))


def _with_card_mask(state: State) -> State:
    mask = jnp.concatenate([jnp.zeros(NUM_CALLS, bool), _legal_cards(state) & ~state.terminated])
    return state.replace(legal_action_mask=mask | state.terminated)


def auction_fields_after(dealer: int, calls) -> dict:
    """The auction's fields (`bridgerl.envs.jaxenv.competitive.auction_fields`) after ``calls`` from ``dealer``, as
    numpy arrays: the JAX auction rules, call by call (an illegal call raises the rules core's error first)."""
    from bridgerl.core.auction import Auction

    calls = tuple(int(c) for c in calls)
    Auction.from_calls(int(dealer), calls)
    return {name: value.copy() for name, value in _auction_fields_after(int(dealer), calls).items()}  # cache kept


@functools.lru_cache(maxsize=4096)
def _auction_fields_after(dealer: int, calls: tuple) -> dict:
    state = start(np.zeros(52, np.int8), np.zeros((4, 5), np.int8), dealer, 0, 0, -1)
    fields = auction_fields(state)
    for i, call in enumerate(calls):
        fields, _ = advance_auction(fields, (dealer + i) % 4, call)
    return {name: np.asarray(value) for name, value in fields.items()}


def _lead_calls_table() -> np.ndarray:
    """int32[dealer, declarer, penalty, MAX_LEAD_CALLS]: `opening_lead_calls` for every case, the bid written as
    `_BID` (the contract's bid goes there) and -1 after the last call."""
    table = np.full((4, 4, 3, MAX_LEAD_CALLS), -1, np.int32)
    for dealer in range(4):
        for declarer in range(4):
            for penalty in range(3):
                calls = opening_lead_calls(dealer, Contract(7, 4, penalty, declarer))
                calls = [_BID if call >= BID_OFFSET else call for call in calls]
                table[dealer, declarer, penalty, :len(calls)] = calls
    return table


_BID = 99
_LEAD_CALLS = jnp.asarray(_lead_calls_table())
