"""Pure-JAX uncontested bidding (thesis 4.4), the twin of `bridgerl/UncontestedBidding-v0`.

pgx-style: an immutable `State`, pure `init`/`step` with `lax` control flow; vmap is left to the caller. The env is
a pytree holding the dataset tables (built by `bridgerl.core`), so pass it as an argument to jitted functions to
keep the dataset on the device once: ``jax.jit(lambda env, s, a: jax.vmap(env.step)(s, a))``. `step` reads only the
state, so ``jax.jit(jax.vmap(env.step))`` is cheap too.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from flax import struct

from bridgerl.core.calls import NUM_UNCONTESTED_ACTIONS as NUM_ACTIONS
from bridgerl.core.uncontested import BIDS_OFFSET, HAND_OFFSET, INITIAL_PASS_BIT, OBSERVATION_SIZE
from bridgerl.core.illegal import illegal_penalty
from bridgerl.envs.jaxenv.api import PgxEnv, step_like_pgx
from bridgerl.envs.jaxenv.rules import imps, score
from bridgerl.envs.jaxenv.tables import OPENING_ACTIONS, PASS_BIT

_OPENING_ACTIONS = jnp.asarray(OPENING_ACTIONS)


@struct.dataclass
class State:
    current_player: jnp.ndarray          # seat 0-3 of the partner to act
    observation: jnp.ndarray             # int8[89], thesis fig. 4.4
    legal_action_mask: jnp.ndarray       # bool[36] (all True once the game has ended, as in pgx)
    rewards: jnp.ndarray                 # float32[4], one per seat, set on the terminating step
    terminated: jnp.ndarray              # bool
    truncated: jnp.ndarray               # bool, always False (pgx's field: every auction ends)
    index: jnp.ndarray                   # dataset row
    side: jnp.ndarray                    # 0 NS, 1 EW
    vulnerable: jnp.ndarray              # bidding side vulnerable
    _owner: jnp.ndarray                  # uint8[52]
    _dd: jnp.ndarray                     # uint8[4, 5]
    _par: jnp.ndarray                    # constructive par
    _opening: jnp.ndarray                # uint8[2] packed opening masks: first bidder, partner
    _bids: jnp.ndarray                   # bool[35]
    _last_bid: jnp.ndarray               # -1 before any bid
    _first_namer: jnp.ndarray            # int32[5]: seat that first named each strain, -1 if none
    _calls: jnp.ndarray                  # calls made by the partners so far
    _initial_pass: jnp.ndarray


@struct.dataclass
class UncontestedBidding(PgxEnv):
    """Tables per dataset row; see `bridgerl.envs.jaxenv.tables.uncontested_tables`. pgx's attributes and calling
    convention: `bridgerl.envs.jaxenv.api`."""

    name = "uncontested_bidding"

    owner: jnp.ndarray
    dd: jnp.ndarray
    side: jnp.ndarray
    vulnerable: jnp.ndarray
    par: jnp.ndarray
    opening: jnp.ndarray
    eligible: jnp.ndarray
    reward_points: bool = struct.field(pytree_node=False, default=False)
    illegal_penalty: float | None = struct.field(pytree_node=False, default=None)  # None: the unit's default

    num_actions: int = struct.field(pytree_node=False, default=NUM_ACTIONS)
    observation_size: int = struct.field(pytree_node=False, default=OBSERVATION_SIZE)

    def init(self, key: jax.Array, index=None) -> State:
        """A new episode on a sampled row (deals the side rule skips are never drawn), or on row ``index``."""
        if index is None:
            index = self.eligible[jax.random.randint(key, (), 0, self.eligible.shape[0])]
        index = jnp.asarray(index, jnp.int32)
        return start(self.owner[index], self.dd[index], self.par[index], self.side[index], self.vulnerable[index],
                     self.opening[index], index)

    def step(self, state: State, action, key=None) -> State:
        """The state after the partner to act takes ``action`` (``key``: pgx's argument, unused); a terminated state
        only has its rewards zeroed; an illegal action ends the game with both bidders at ``-ILLEGAL_PENALTY``."""
        penalty = illegal_penalty("points" if self.reward_points else "imps", self.illegal_penalty)
        return step_like_pgx(state, action, lambda s, a: _step(s, a, self.final_rewards),
                             lambda s: jnp.where(jnp.arange(4) % 2 == s.side, -penalty, 0.0).astype(jnp.float32))

    def final_rewards(self, state: State) -> jnp.ndarray:
        """float32[4]: each seat's reward for the auction that has just ended in ``state`` (thesis 4.4.3 with the
        row's table; the silent side's seats 0)."""
        return _rewards(state, self.reward_points)

    def call_outcomes(self, state: State) -> "CallOutcomes":
        """What the DD table says about every call of the partner to act (a state before the end): the exact reward
        if the partner passes right after it, and whether a pass by the player ends the auction now. The opponents
        always pass, so these are the values of "the auction ends here" for all 36 calls at once."""
        seat = state.current_player
        bids = jnp.arange(35)
        strains = bids % 5
        # the declarer of each bid if the auction ended on it: the partner who first named its strain, else this seat
        declarers = jnp.where(state._first_namer[strains] >= 0, state._first_namer[strains], seat)
        bid_values = jax.vmap(lambda b, d: _contract_value(state, b, d, self.reward_points))(bids, declarers)
        passed_out = _contract_value(state, jnp.int32(-1), jnp.int32(0), self.reward_points)
        pass_ends = (state._last_bid >= 0) | (state._calls >= 1)
        last = jnp.maximum(state._last_bid, 0)
        end_value = jnp.where(state._last_bid >= 0,
                              _contract_value(state, last, jnp.maximum(state._first_namer[last % 5], 0),
                                              self.reward_points), passed_out)
        # the partner's legal calls after an initial pass: its opening-rule mask
        partner_index = jnp.where(seat == jnp.where(state.side == 0, 0, 3), 1, 0)
        return CallOutcomes(after_pass=jnp.concatenate([passed_out[None], bid_values]),
                            pass_ends=pass_ends, end_value=end_value,
                            pass_next_mask=_opening_mask(state._opening[partner_index]),
                            partner_hand=(state._owner == (seat + 2) % 4).astype(jnp.int8),
                            side_tricks=jnp.maximum(state._dd[seat], state._dd[(seat + 2) % 4]).astype(jnp.float32))


@struct.dataclass
class CallOutcomes:
    """`UncontestedBidding.call_outcomes` of one state (the per-call targets of all-call training)."""

    after_pass: jnp.ndarray      # float32[36]: reward if the partner passes after call a (a = 0: our initial pass,
                                 # so the deal is passed out; a >= 1: bid a - 1 is the contract)
    pass_ends: jnp.ndarray       # bool: a pass by this player ends the auction
    end_value: jnp.ndarray       # float32: the reward of that pass (the contract so far, or passed out)
    pass_next_mask: jnp.ndarray  # bool[36]: the partner's legal calls after an initial pass (its opening rules)
    partner_hand: jnp.ndarray    # int8[52]: the partner's cards (for training targets and critics, never the actor)
    side_tricks: jnp.ndarray     # float32[5]: DD tricks of the better declarer of the side in C, D, H, S, NT


def partner_observations(observation, partner_hand):
    """int8[..., 36, 89]: the partner's observation after each call ``a`` of the player whose observation is
    ``observation`` ([..., 89]); ``partner_hand`` [..., 52]. For a = 0 it is the view after an initial pass."""
    base = jnp.concatenate([observation[..., :HAND_OFFSET], partner_hand.astype(observation.dtype)], -1)
    bits = jnp.zeros((NUM_ACTIONS, OBSERVATION_SIZE), observation.dtype)
    bits = bits.at[0, INITIAL_PASS_BIT].set(1).at[jnp.arange(1, NUM_ACTIONS), BIDS_OFFSET + jnp.arange(35)].set(1)
    return base[..., None, :] | bits


def partner_masks(pass_next_mask):
    """bool[..., 36, 36]: the partner's legal calls after each call ``a``: after bid ``a - 1``, pass or any higher
    bid; after an initial pass (a = 0), ``pass_next_mask``."""
    after_bid = jax.vmap(calls_after_bid)(jnp.arange(NUM_ACTIONS) - 1)
    shape = pass_next_mask.shape[:-1] + (NUM_ACTIONS, NUM_ACTIONS)
    return jnp.broadcast_to(after_bid, shape).at[..., 0, :].set(pass_next_mask)


def calls_after_bid(last_bid) -> jnp.ndarray:
    """bool[36]: the legal calls once bid ``last_bid`` (0-34) has been made: pass or any higher bid (the JAX twin
    of `bridgerl.core.uncontested.calls_after_bid`)."""
    return (jnp.arange(NUM_ACTIONS) > last_bid + 1).at[0].set(True)


def _opening_mask(code) -> jnp.ndarray:
    """Unpack a code of `tables.opening_codes`; bit 7 (no opening rules) allows every action."""
    code = code.astype(jnp.int32)
    mask = jnp.zeros(NUM_ACTIONS, bool).at[0].set((code >> PASS_BIT) & 1 == 1)
    mask = mask.at[_OPENING_ACTIONS].set((code >> jnp.arange(6)) & 1 == 1)
    return mask | ((code >> 7) & 1 == 1)


def start(owner, dd, par, side, vulnerable, opening, index) -> State:
    """The state before the first call of a deal (``owner`` [52], ``dd`` [4, 5], zeros when unknown; ``par`` the
    constructive par) bid by ``side`` (0 NS, 1 EW; its first bidder starts), ``vulnerable`` that side's
    vulnerability, ``opening`` uint8[2] the packed opening masks (`tables.opening_codes`) of the first bidder and
    partner; ``index`` the dataset row (-1: a fresh deal)."""
    side = jnp.asarray(side, jnp.int32)
    first = jnp.where(side == 0, 0, 3).astype(jnp.int32)
    state = State(
        current_player=first, observation=jnp.zeros(OBSERVATION_SIZE, jnp.int8),
        legal_action_mask=jnp.zeros(NUM_ACTIONS, bool), rewards=jnp.zeros(4, jnp.float32),
        terminated=jnp.bool_(False), truncated=jnp.bool_(False), index=jnp.asarray(index, jnp.int32), side=side,
        vulnerable=jnp.asarray(vulnerable, bool),
        _owner=owner, _dd=dd, _par=jnp.asarray(par, jnp.int32), _opening=opening,
        _bids=jnp.zeros(35, bool), _last_bid=jnp.int32(-1), _first_namer=jnp.full(5, -1, jnp.int32),
        _calls=jnp.int32(0), _initial_pass=jnp.bool_(False))
    return _refresh(state)


def _refresh(state: State) -> State:
    """Observation and legal mask for the current player (the observation also after the end, as the Python env
    does; the mask is then all True, as in pgx)."""
    seat = state.current_player
    partner_index = jnp.where(seat == jnp.where(state.side == 0, 0, 3), 0, 1)
    opening = _opening_mask(state._opening[partner_index])
    mask = jnp.where(state._last_bid < 0, opening, calls_after_bid(state._last_bid)) | state.terminated
    obs = jnp.concatenate([state.vulnerable[None].astype(jnp.int8), state._initial_pass[None].astype(jnp.int8),
                           state._bids.astype(jnp.int8), (state._owner == seat).astype(jnp.int8)])
    return state.replace(observation=obs, legal_action_mask=mask)


def _step(state: State, action, final_rewards) -> State:
    seat = state.current_player
    is_pass = action == 0
    bid = action - 1
    ends = is_pass & ((state._last_bid >= 0) | (state._calls >= 1))
    strain = jnp.where(is_pass, 0, bid % 5)
    namer = jnp.where(~is_pass & (state._first_namer[strain] < 0),
                      state._first_namer.at[strain].set(seat), state._first_namer)
    state = state.replace(
        _bids=jnp.where(is_pass, state._bids, state._bids.at[jnp.maximum(bid, 0)].set(True)),
        _last_bid=jnp.where(is_pass, state._last_bid, bid), _first_namer=namer, _calls=state._calls + 1,
        _initial_pass=state._initial_pass | (is_pass & (state._calls == 0)),
        current_player=(seat + 2) % 4, terminated=ends)
    rewards = jax.lax.cond(ends, final_rewards, lambda s: jnp.zeros(4, jnp.float32), state)
    return _refresh(state.replace(rewards=rewards))


def thesis_points(bid, tricks, vulnerable):
    """Thesis 4.4.3's score of contract ``bid`` (-1: passed out, 0) with declarer taking ``tricks``: doubled when
    down two or more (the one copy of that rule in JAX; the fresh envs score their played tricks with it)."""
    last = jnp.maximum(bid, 0)
    penalty = (tricks <= last // 5 + 1 + 4).astype(jnp.int32)
    return jnp.where(bid < 0, 0, score(last, penalty, vulnerable, tricks))


def _contract_value(state: State, bid, declarer, reward_points: bool):
    """Thesis 4.4.3: ``bid`` (-1: passed out) played by ``declarer`` with its DD tricks, doubled when down two or
    more; IMPs (or points) vs constructive par."""
    last = jnp.maximum(bid, 0)
    diff = thesis_points(bid, state._dd[declarer, last % 5].astype(jnp.int32), state.vulnerable) - state._par
    return (diff if reward_points else imps(diff)).astype(jnp.float32)


def _rewards(state: State, reward_points: bool) -> jnp.ndarray:
    last = jnp.maximum(state._last_bid, 0)
    declarer = jnp.maximum(state._first_namer[last % 5], 0)
    value = _contract_value(state, state._last_bid, declarer, reward_points)
    seats = jnp.arange(4)
    return jnp.where(seats % 2 == state.side, value, 0.0)
