"""Pure-JAX competitive bidding (thesis 2.1.3, 4.5.2), the twin of `bridgerl/CompetitiveBidding-v0` with all four
seats acting (self-play). Same conventions as `bridgerl.envs.jaxenv.uncontested`.

The 231-bit observation is updated call by call: each bid's 5-bit value is code + 8 x passes_after (codes of
`bridgerl.envs.competitive_encoding`); the final pass is not written, as in the Python env.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from bridgerl.core.calls import NUM_CALLS as NUM_ACTIONS
from bridgerl.core.competitive import OBSERVATION_SIZE
from bridgerl.core.illegal import illegal_penalty
from bridgerl.envs.jaxenv.api import PgxEnv, pick_row, step_like_pgx
from bridgerl.envs.jaxenv.rules import imps, score

_SHIFTS = jnp.array([4, 3, 2, 1, 0])


@struct.dataclass
class State:
    current_player: jnp.ndarray      # seat 0-3 to call
    observation: jnp.ndarray         # int8[231] for the current player
    legal_action_mask: jnp.ndarray   # bool[38] (all True once the game has ended, as in pgx)
    rewards: jnp.ndarray             # float32[4]: N, E, S, W, set on the terminating step
    terminated: jnp.ndarray
    truncated: jnp.ndarray           # always False (pgx's field: every auction ends)
    index: jnp.ndarray
    dealer: jnp.ndarray
    vulnerable: jnp.ndarray          # int32 vulnerability code: bit 0 NS, bit 1 EW
    _owner: jnp.ndarray
    _dd: jnp.ndarray
    _par: jnp.ndarray                # standard par, NS view
    _values: jnp.ndarray             # int32[35] bid fields
    _leading: jnp.ndarray            # passes before the first bid
    _last_bid: jnp.ndarray
    _last_bidder: jnp.ndarray
    _penalty: jnp.ndarray            # 0, 1 (X), 2 (XX) on the last bid
    _trailing: jnp.ndarray           # consecutive passes at the end
    _first_namer: jnp.ndarray        # int32[2, 5]: per side and strain


@struct.dataclass
class CompetitiveBidding(PgxEnv):
    """Tables per dataset row; see `bridgerl.envs.jaxenv.tables.competitive_tables`. pgx's attributes and calling
    convention: `bridgerl.envs.jaxenv.api`."""

    name = "competitive_bidding"

    owner: jnp.ndarray
    dd: jnp.ndarray
    dealer: jnp.ndarray
    vul: jnp.ndarray
    par: jnp.ndarray
    reward_points: bool = struct.field(pytree_node=False, default=False)
    illegal_penalty: float | None = struct.field(pytree_node=False, default=None)  # None: the unit's default

    num_actions: int = struct.field(pytree_node=False, default=NUM_ACTIONS)
    observation_size: int = struct.field(pytree_node=False, default=OBSERVATION_SIZE)

    def init(self, key: jax.Array, index=None) -> State:
        index = pick_row(key, index, self.owner.shape[0])
        return start(self.owner[index], self.dd[index], self.par[index], self.dealer[index], self.vul[index], index)

    def observation_of(self, state: State, seat) -> jnp.ndarray:
        """int8[231]: ``seat``'s observation of ``state``'s auction (module function `observation_of`)."""
        return observation_of(state, seat)

    def step(self, state: State, action, key=None) -> State:
        """The state after the seat to act calls ``action`` (``key``: pgx's argument, unused); a terminated state
        only has its rewards zeroed; an illegal call ends the game with the caller's side at ``-ILLEGAL_PENALTY``
        and the other side at ``+ILLEGAL_PENALTY``."""
        penalty = illegal_penalty("points" if self.reward_points else "imps", self.illegal_penalty)
        return step_like_pgx(state, action, lambda s, a: _step(s, a, self.final_rewards),
                             lambda s: jnp.where(jnp.arange(4) % 2 == s.current_player % 2, -penalty,
                                                 penalty).astype(jnp.float32))

    def final_rewards(self, state: State) -> jnp.ndarray:
        """float32[4]: each seat's reward for the auction that has just ended in ``state`` (its contract scored
        with the row's table: IMPs against par, or points)."""
        return _rewards(state, self.reward_points)


def start(owner, dd, par, dealer, vulnerable, index) -> State:
    """The state before the first call of a deal (``owner`` [52], ``dd`` [4, 5], zeros when unknown; ``par`` NS's
    standard par) with ``dealer`` and the vulnerability code; ``index`` its dataset row (-1: a fresh deal)."""
    dealer = jnp.asarray(dealer, jnp.int32)
    state = State(
        current_player=dealer, observation=jnp.zeros(OBSERVATION_SIZE, jnp.int8),
        legal_action_mask=jnp.zeros(NUM_ACTIONS, bool), rewards=jnp.zeros(4, jnp.float32),
        terminated=jnp.bool_(False), truncated=jnp.bool_(False), index=jnp.asarray(index, jnp.int32), dealer=dealer,
        vulnerable=jnp.asarray(vulnerable, jnp.int32),
        _owner=owner, _dd=dd, _par=jnp.asarray(par, jnp.int32), _values=jnp.zeros(35, jnp.int32),
        _leading=jnp.int32(0), _last_bid=jnp.int32(-1), _last_bidder=jnp.int32(-1), _penalty=jnp.int32(0),
        _trailing=jnp.int32(0), _first_namer=jnp.full((2, 5), -1, jnp.int32))
    return _refresh(state)


def observation_of(state: State, seat) -> jnp.ndarray:
    """int8[231]: what ``seat`` sees of the auction so far (its own hand, the calls, the vulnerability): its
    observation if it were to call now. The state's ``observation`` is this for the player to act."""
    return auction_bits(state._values, state._leading, state.vulnerable, state._owner, seat)


# -- the auction's rules on its fields, shared with the whole deal (`bridgerl.envs.jaxenv.bridge`) -----------------
def auction_bits(values, leading, vulnerable, owner, seat) -> jnp.ndarray:
    """int8[231]: ``seat``'s competitive auction encoding from the auction fields (``values`` int32[35] bid fields,
    ``leading`` passes before the first bid), the vulnerability code and the deal's owner array."""
    leading = jnp.minimum(leading, 3)
    auction = jnp.concatenate([jnp.stack([(leading >> 1) & 1, leading & 1]),
                               ((values[:, None] >> _SHIFTS) & 1).reshape(-1)])
    vul = jnp.stack([(vulnerable >> (seat % 2)) & 1, (vulnerable >> ((seat + 1) % 2)) & 1])
    return jnp.concatenate([vul, auction, (owner == seat).astype(jnp.int32)]).astype(jnp.int8)


def call_mask(seat, last_bid, last_bidder, penalty) -> jnp.ndarray:
    """bool[38]: the calls ``seat`` may make after the last bid (``-1``: none yet) by ``last_bidder`` with
    ``penalty`` (0, X 1, XX 2) on it."""
    opponents_bid = (last_bidder - seat) % 2 == 1
    can_double = (last_bid >= 0) & (penalty == 0) & opponents_bid
    can_redouble = (last_bid >= 0) & (penalty == 1) & ~opponents_bid
    mask = jnp.arange(NUM_ACTIONS) - 3 > last_bid
    return mask.at[0].set(True).at[1].set(can_double).at[2].set(can_redouble)


def advance_auction(fields: dict, seat, action) -> tuple[dict, jnp.ndarray]:
    """The auction fields (``_values``, ``_leading``, ``_trailing``, ``_first_namer``, ``_last_bid``,
    ``_last_bidder``, ``_penalty``) after ``seat`` calls ``action`` (legal), and whether that call ends the
    auction. The one copy of the auction's rules in JAX."""
    is_pass, is_double, is_redouble = action == 0, action == 1, action == 2
    is_bid = action >= 3
    bid = action - 3
    last_bid = fields["_last_bid"]
    trailing = jnp.where(is_pass, fields["_trailing"] + 1, 0)
    ends = is_pass & jnp.where(last_bid < 0, trailing >= 4, trailing >= 3)

    last = jnp.maximum(last_bid, 0)
    value = fields["_values"][last]
    code, passes = value % 8, value // 8
    # pass: one more leading pass, or one more pass after the last bid's doubling part (not written at the end)
    pass_value = jnp.where(ends, value, value + 8)
    # X: code 2 straight after the bid, 5 after two passes; XX: from 2 to 3 or 4, from 5 to 6 or 7
    double_value = jnp.where(passes == 0, 2, 5)
    redouble_value = jnp.where(code == 2, jnp.where(passes == 0, 3, 4), jnp.where(passes == 0, 6, 7))
    new_value = jnp.where(is_pass, pass_value, jnp.where(is_double, double_value, redouble_value))
    values = fields["_values"]
    values = jnp.where(is_bid | (last_bid < 0), values, values.at[last].set(new_value))
    values = jnp.where(is_bid, values.at[jnp.maximum(bid, 0)].set(1), values)
    leading = fields["_leading"] + (is_pass & (last_bid < 0) & ~ends).astype(jnp.int32)

    side, strain = seat % 2, jnp.maximum(bid, 0) % 5
    first_namer = fields["_first_namer"]
    namer = jnp.where(is_bid & (first_namer[side, strain] < 0), first_namer.at[side, strain].set(seat), first_namer)
    penalty = fields["_penalty"]
    return {"_values": values, "_leading": leading, "_trailing": trailing, "_first_namer": namer,
            "_last_bid": jnp.where(is_bid, bid, last_bid),
            "_last_bidder": jnp.where(is_bid, seat, fields["_last_bidder"]),
            "_penalty": jnp.where(is_bid, 0, jnp.where(is_double, 1, jnp.where(is_redouble, 2, penalty)))}, ends


def declarer_of(first_namer, last_bid, last_bidder) -> jnp.ndarray:
    """The declarer of the auction's last bid: the first of its side to name the strain (0 when no bid)."""
    return jnp.maximum(first_namer[last_bidder % 2, jnp.maximum(last_bid, 0) % 5], 0)


def score_ns(bid, penalty, declarer, tricks, vulnerable) -> jnp.ndarray:
    """NS's duplicate score of contract ``bid`` (``-1``: passed out, 0) with ``penalty`` by ``declarer`` taking
    ``tricks``, under the vulnerability code."""
    points = score(jnp.maximum(bid, 0), penalty, (vulnerable >> (declarer % 2)) & 1, tricks)
    return jnp.where(bid < 0, 0, jnp.where(declarer % 2 == 0, points, -points))


_AUCTION_FIELDS = ("_values", "_leading", "_trailing", "_first_namer", "_last_bid", "_last_bidder", "_penalty")


def auction_fields(state) -> dict:
    return {name: getattr(state, name) for name in _AUCTION_FIELDS}


def _refresh(state: State) -> State:
    mask = call_mask(state.current_player, state._last_bid, state._last_bidder, state._penalty) | state.terminated
    return state.replace(observation=observation_of(state, state.current_player), legal_action_mask=mask)


def _step(state: State, action, final_rewards) -> State:
    seat = state.current_player
    fields, ends = advance_auction(auction_fields(state), seat, action)
    state = state.replace(**fields, current_player=(seat + 1) % 4, terminated=ends)
    rewards = jax.lax.cond(ends, final_rewards, lambda s: jnp.zeros(4, jnp.float32), state)
    return _refresh(state.replace(rewards=rewards))


def _rewards(state: State, reward_points: bool) -> jnp.ndarray:
    declarer = declarer_of(state._first_namer, state._last_bid, state._last_bidder)
    tricks = state._dd[declarer, jnp.maximum(state._last_bid, 0) % 5].astype(jnp.int32)
    ns = score_ns(state._last_bid, state._penalty, declarer, tricks, state.vulnerable)
    ns = (ns if reward_points else imps(ns - state._par)).astype(jnp.float32)
    return jnp.array([1.0, -1.0, 1.0, -1.0]) * ns
