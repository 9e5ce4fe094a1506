"""PPO with a value head for competitive bidding (issue #22), fully jitted over the vmapped JAX competitive env in
the purejaxrl style: one compiled iteration collects ``rollout`` calls from each of ``num_envs`` auctions, computes
per-seat GAE, and runs ``epochs`` x ``minibatches`` clipped-PPO updates, all inside `jax.lax.scan`.

- **Seats.** One actor-critic (`agents.networks.ActorCritic`) calls for every seat from that seat's 231-bit
  observation only. In an auction against the pool, the learner plays one side (drawn at random) and a frozen past
  network the other; the snapshot's calls are sampled from its policy and are not trained on. Without a pool (or
  in the other share of auctions) it is plain self-play and every call is experience.
- **Per-seat GAE.** A seat's call leads to that seat's next call (the partners and the opponents call in between);
  the auction's end pays each seat its side's IMPs against par (scaled by ``reward_scale``). `gae` walks the rollout
  backwards keeping one chain per seat; at the rollout's end each chain is bootstrapped with the value of what that
  seat sees of the current auction (`envs.jaxenv.competitive.observation_of`).
- **Pool (fictitious self-play, as brl).** Every ``pool_every`` iterations the current network is frozen into a
  ring of ``pool_size`` snapshots (``pool_anchor`` keeps the starting, e.g. cloned, network in slot 0). A finished
  auction's successor plays a snapshot with probability ``pool_prob``: uniformly, or with ``pool_priority`` > 0
  preferring the snapshots the learner scores worst against (weights exp(-priority x its running mean IMPs)).
- **Rewards read or played.** By default the contract an auction reaches is scored from the env's table (DD, or
  a played-tricks table with ``tricks="played"``). With ``playout`` the trainer is given the learned card player
  (`agents.learned.card_player.CardPlayer`) and plays every contract of the rollout out online instead: after the
  rollout, all its finished auctions (a fixed-size batch, the most a rollout can finish) are set in the JAX whole
  deal at the opening lead of the real auction (`envs.jaxenv.bridge.Bridge.after_auction`: the real calls, level
  and doubles, in every player's view) and played to the end by the card player at all four seats (greedy), and
  their IMPs against the env's par replace the table's before the advantages are computed. The pool's running
  scores (``pool_priority``) and the logged IMPs against the pool still read the table.
- **Fresh deals.** On ``jaxenv.make("competitive_bidding", dataset="fresh", play_in_step=False)`` every auction
  is a new deal drawn inside jit (no deal is ever seen twice) and has no table. After the rollout each finished
  auction's deal is bid again at a second table by a reference (``fresh_reference``: "self", the network as it
  stands, greedy; or "anchor", the pool's starting network) at all four seats, both tables' contracts are played
  out by the card player (greedy, every seat; the real auctions in every player's view), and each seat's reward is
  its side's duplicate IMPs of table 1 against table 2. Only the auctions that finished are worked on, and only
  the games whose result is unknown are played (none for a pass-out, none for two tables that reached the same
  contract by the same declarer with a player that does not read the auction: the swing is 0), in batches of
  ``fresh_chunk`` (`lax.while_loop`s over as many batches as needed), so the cost follows the auctions, not the
  most a rollout could finish (`training.played_rewards`, with the fixed table's play-out).
- **Teacher.** The run may start from a policy cloned from a rule system's auctions (`pretrain_policy`, the rule
  demonstrations of `training.demonstrations`), and keep ``bc_weight`` x the cross-entropy on them in every update
  so that the policy does not drift from what it was taught while self-play finds better calls.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx, struct

from bridgerl.agents.learned.networks import ActorCritic, masked_log_softmax
from bridgerl.training.demonstrations import behaviour_cloning_loss
from bridgerl.training.dqn import starting_point
from bridgerl.training.played_rewards import REFERENCE_CALLS, fresh_rewards, played_rewards
from bridgerl.training.sharding import check_divisible, constrain_rows, place, split_rows


@dataclass(frozen=True)
class PPOConfig:
    hidden: tuple[int, ...] = (256, 256)
    learning_rate: float = 3e-4
    lr_end: float | None = None        # linear decay to this value over the run, when set
    num_envs: int = 64
    rollout: int = 32                  # calls per auction slot per iteration
    epochs: int = 4
    minibatches: int = 4
    discount: float = 1.0
    gae_lambda: float = 0.95
    clip: float = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    max_grad_norm: float = 0.5
    reward_scale: float = 0.1          # IMPs x this are the rewards the value head learns
    bc_weight: float = 0.0             # cross-entropy on the teacher's demonstrations in every update
    bc_end: float | None = None        # linear decay of bc_weight to this value over the run, when set
    bc_batch: int = 256
    pool_size: int = 0                 # frozen past networks kept as opponents (0: plain self-play)
    pool_every: int = 10               # iterations between snapshots
    pool_prob: float = 0.5             # share of auctions played against a snapshot
    pool_anchor: bool = False          # keep the starting network in slot 0 for good
    pool_priority: float = 0.0         # 0: snapshots drawn uniformly; > 0: the harder ones more often
    playout: bool = False              # score contracts by playing them out with the card player (not the table)
    fresh_reference: str = "self"      # fresh deals: the second table's bidder, "self" (the network as it stands,
                                       # greedy) or "anchor" (the pool's slot 0, the starting network)
    fresh_chunk: int = 128             # fresh deals: second-table auctions, and games played out, per batch

    def replace(self, **changes) -> "PPOConfig":
        return dataclasses.replace(self, **changes)


PRESETS = {
    # a 2-core CPU: 2 x 256, 64 auctions x 32 calls per iteration, a pool of 8 past networks
    "small": PPOConfig(pool_size=8, pool_every=10, pool_prob=0.5),
    # a GPU: brl-sized network (4 x 1024) and many more auctions per iteration
    "gpu": PPOConfig(hidden=(1024, 1024, 1024, 1024), learning_rate=1e-4, num_envs=1024, rollout=32, minibatches=16,
                     pool_size=16, pool_every=10, pool_prob=0.5),
}
DEFAULT_STEPS = {"small": 3_000_000, "gpu": 200_000_000}


@struct.dataclass
class PPOState:
    params: nnx.State
    opt_state: optax.OptState
    env_state: object
    pool: nnx.State | None         # [K, ...] frozen past parameters (None without a pool)
    pool_count: jnp.ndarray        # snapshots taken so far
    pool_score: jnp.ndarray        # [K] running mean of the learner's IMPs against each snapshot
    opponent: jnp.ndarray          # [B] pool slot of this auction's opponents, -1 for self-play
    learner_side: jnp.ndarray      # [B] the side (0 NS, 1 EW) the learner plays against the pool
    key: jnp.ndarray               # raw uint32[2] PRNG key (serializable)
    env_steps: jnp.ndarray
    updates: jnp.ndarray           # gradient updates
    iterations: jnp.ndarray


ROW_FIELDS = ("env_state", "opponent", "learner_side")
"""`PPOState` fields with one row per parallel auction: split over the devices of a multi-device run."""


@struct.dataclass
class Rollout:
    obs: jnp.ndarray       # int8[T, B, 231]
    mask: jnp.ndarray      # bool[T, B, 38]
    action: jnp.ndarray    # int32[T, B]
    logp: jnp.ndarray      # float32[T, B]: the learner's log-probability of the call (old policy)
    value: jnp.ndarray     # float32[T, B]
    seat: jnp.ndarray      # int32[T, B]: the seat that called
    learner: jnp.ndarray   # bool[T, B]: the learner made the call (not a pool snapshot)
    done: jnp.ndarray      # bool[T, B]: the call ended the auction
    rewards: jnp.ndarray   # float32[T, B, 4]: each seat's reward on the call that ends the auction
    ended: dict | None = None  # with playout: the auction fields, row and next seat of each state after the call


@struct.dataclass
class PPOMetrics:
    episodes: jnp.ndarray
    return_sum: jnp.ndarray        # North-South IMPs of the finished auctions
    loss: jnp.ndarray
    policy_loss: jnp.ndarray
    value_loss: jnp.ndarray
    entropy: jnp.ndarray
    approx_kl: jnp.ndarray
    clip_fraction: jnp.ndarray
    bc_loss: jnp.ndarray
    pool_episodes: jnp.ndarray
    pool_return_sum: jnp.ndarray   # the learner's IMPs in its auctions against the pool


def gae(values, seats, dones, rewards, bootstrap, discount: float, lam: float):
    """Per-seat generalised advantage estimates of a rollout: ``values`` [T, B] (of the seat that called), ``seats``
    [T, B], ``dones`` [T, B], ``rewards`` [T, B, 4] (paid to every seat on the call that ends an auction),
    ``bootstrap`` [B, 4] (each seat's value after the last step). A seat's call is followed by that seat's next call
    in the same auction; the auction's last call of each seat is followed by the end (value 0, the seat's reward).
    Returns (advantages, returns = advantages + values), both [T, B]."""
    batch = jnp.arange(seats.shape[1])

    def body(carry, x):
        next_value, next_gae, pending = carry
        value, seat, done, reward = x
        value_after = jnp.where(done, 0.0, next_value[batch, seat])
        gae_after = jnp.where(done, 0.0, next_gae[batch, seat])
        paid = jnp.where(done, reward[batch, seat], pending[batch, seat])
        advantage = paid + discount * value_after - value + discount * lam * gae_after
        ended = done[:, None]
        next_value = jnp.where(ended, 0.0, next_value).at[batch, seat].set(value)
        next_gae = jnp.where(ended, 0.0, next_gae).at[batch, seat].set(advantage)
        pending = jnp.where(ended, reward, pending).at[batch, seat].set(0.0)
        return (next_value, next_gae, pending), advantage

    zeros = jnp.zeros_like(bootstrap)
    _, advantages = jax.lax.scan(body, (bootstrap, zeros, zeros), (values, seats, dones, rewards), reverse=True)
    return advantages, advantages + values


def ppo_loss(logits, values, mask, action, old_logp, advantages, returns, weight, clip: float, value_coef: float,
             entropy_coef: float):
    """(loss, parts) of the clipped PPO objective on one minibatch: rows weighted by ``weight`` (1 for the learner's
    calls, 0 for the pool's), advantages normalised over the weighted rows, the squared value error, an entropy
    bonus over the legal calls."""
    logp_all = masked_log_softmax(logits, mask)
    logp = jnp.take_along_axis(logp_all, action[:, None], 1)[:, 0]
    count = jnp.maximum(weight.sum(), 1.0)
    mean = (advantages * weight).sum() / count
    std = jnp.sqrt((((advantages - mean) ** 2) * weight).sum() / count)
    normalised = (advantages - mean) / (std + 1e-8)
    log_ratio = logp - old_logp
    ratio = jnp.exp(log_ratio)
    surrogate = jnp.minimum(ratio * normalised, jnp.clip(ratio, 1 - clip, 1 + clip) * normalised)
    policy = -(surrogate * weight).sum() / count
    value = (0.5 * (values - returns) ** 2 * weight).sum() / count
    entropy = -(jnp.where(mask, jnp.exp(logp_all) * logp_all, 0.0).sum(-1) * weight).sum() / count
    parts = {"policy": policy, "value": value, "entropy": entropy,
             "approx_kl": (((ratio - 1) - log_ratio) * weight).sum() / count,
             "clip_fraction": ((jnp.abs(ratio - 1) > clip) * weight).sum() / count}
    return policy + value_coef * value - entropy_coef * entropy, parts


def update_pool_score(pool_score, opponent, finished, learner_return, rate: float = 0.05):
    """Each snapshot's running mean of the learner's IMPs against it: a slot whose auctions ended now (``finished``
    [B], ``opponent`` [B] its slot, -1 for self-play, which counts nowhere) moves ``rate`` of the way to the mean of
    their ``learner_return``."""
    finished = finished & (opponent >= 0)
    slots = jnp.maximum(opponent, 0)
    size = pool_score.shape[0]
    totals = jax.ops.segment_sum(jnp.where(finished, learner_return, 0.0), slots, size)
    counts = jax.ops.segment_sum(finished.astype(jnp.float32), slots, size)
    return jnp.where(counts > 0, (1 - rate) * pool_score + rate * totals / jnp.maximum(counts, 1), pool_score)


def draw_opponents(key, finished, opponent, learner_side, pool_count, pool_size: int, pool_prob: float,
                   pool_score, priority: float):
    """Opponents of the auctions that start now (``finished`` [B]): a snapshot slot with probability ``pool_prob``
    once the pool holds one (uniform over the filled slots, or weighted exp(-``priority`` x ``pool_score``)), else
    -1 (self-play); the learner's side at random. Other auctions keep theirs."""
    key_use, key_slot, key_side = jax.random.split(key, 3)
    filled = jnp.minimum(pool_count, pool_size)
    use = (jax.random.uniform(key_use, finished.shape) < pool_prob) & (filled > 0)
    logits = jnp.where(jnp.arange(pool_size) < filled, -priority * pool_score, -jnp.inf)
    slot = jax.random.categorical(key_slot, logits, shape=finished.shape)
    side = jax.random.randint(key_side, finished.shape, 0, 2)
    return (jnp.where(finished, jnp.where(use, slot, -1), opponent).astype(jnp.int32),
            jnp.where(finished, side, learner_side).astype(jnp.int32))


class PPOTrainer:
    """Builds the actor-critic, optimizer and compiled iteration for one env and config (the interface
    `training.run.train` drives: ``init``, ``run_steps``, ``graphdef``, ``steps_per_iteration``)."""

    def __init__(self, env, config: PPOConfig, seed: int = 0, total_steps: int | None = None, demonstrations=None,
                 mesh=None, card_player=None):
        """``mesh`` (`training.sharding.data_mesh`): data parallel over its devices (auctions, minibatches and
        the teacher's batch split over them; the sizes are global); None: one device, as before. ``card_player``
        (a learned card player with ``jax_cards``) plays the contracts out when ``config.playout``."""
        if getattr(env, "name", "") != "competitive_bidding":
            raise ValueError("PPO trains on the competitive env (self-play over all four seats)")
        self.fresh = getattr(env, "play_in_step", None) is not None  # `bridgerl.envs.jaxenv.fresh`
        if (config.playout or self.fresh) and not callable(getattr(card_player, "jax_cards", None)):
            raise ValueError("playout and fresh deals play every contract out in JAX: they need a learned card "
                             "player (card_player=CardPlayer.load(...))")
        if card_player is not None and not (config.playout or self.fresh):
            raise ValueError("a card player is only used with playout=True or on fresh deals")
        if self.fresh:
            if env.play_in_step:
                raise ValueError("on fresh deals the trainer plays the finished auctions out itself: make the env "
                                 "with play_in_step=False")
            if config.playout:
                raise ValueError("playout replays a table's deals; fresh deals are always played out (leave it off)")
            if config.pool_priority:
                raise ValueError("pool_priority reads the table's rewards during the rollout; fresh deals are "
                                 "scored after it (use 0)")
            if config.fresh_reference not in ("self", "anchor"):
                raise ValueError(f"fresh_reference must be 'self' or 'anchor', got {config.fresh_reference!r}")
            if config.fresh_reference == "anchor" and not (config.pool_anchor and config.pool_size):
                raise ValueError("fresh_reference 'anchor' bids the second table with the pool's anchored starting "
                                 "network: it needs pool_anchor and a pool")
            if config.fresh_chunk < 1:
                raise ValueError(f"fresh_chunk must be at least 1, got {config.fresh_chunk}")
        self.card_player = card_player
        rows = config.num_envs * config.rollout
        if rows % config.minibatches:
            raise ValueError(f"num_envs x rollout ({rows}) must divide into {config.minibatches} minibatches")
        if config.pool_anchor and config.pool_size < 2:
            raise ValueError("pool_anchor keeps one slot for the starting network: it needs pool_size >= 2")
        check_divisible(mesh, num_envs=config.num_envs, minibatch=rows // config.minibatches,
                        **({"bc_batch": config.bc_batch} if config.bc_weight else {}))
        self.mesh = mesh
        if config.bc_weight and demonstrations is None:
            raise ValueError("bc_weight > 0 needs the teacher's demonstrations (--pretrain-deals)")
        self.env, self.config, self.seed = env, config, seed
        self.steps_per_iteration = rows
        self.updates_per_iteration = config.epochs * config.minibatches
        network = ActorCritic(env.observation_size, config.hidden, env.num_actions, seed=seed)
        self.graphdef, self._initial_params = nnx.split(network)
        self._total_steps = total_steps
        self._updates_total = max(1, -(-(total_steps or 0) // rows) * self.updates_per_iteration)
        if config.lr_end is not None and total_steps:
            total = self._updates_total
            learning_rate = optax.linear_schedule(config.learning_rate, config.lr_end, total)
        else:
            learning_rate = config.learning_rate
        self.optimizer = optax.chain(optax.clip_by_global_norm(config.max_grad_norm),
                                     optax.adam(learning_rate, eps=1e-5))
        self._demos = None if not config.bc_weight else jax.tree.map(
            jnp.asarray, (demonstrations.obs, demonstrations.mask, demonstrations.action, demonstrations.expert,
                          demonstrations.target))
        self._run_steps_jit = jax.jit(self._run, static_argnums=2)

    def run_steps(self, env, ts: PPOState, iterations: int):
        """``iterations`` compiled iterations (each ``steps_per_iteration`` calls); returns (state, metrics)."""
        return self._run_steps_jit(env, ts, iterations, self._demos)

    def place(self, ts: PPOState) -> PPOState:
        """``ts`` laid out on the trainer's devices (a no-op on one device): call it on a new or restored state."""
        return place(self.mesh, ts, ROW_FIELDS)

    def init(self, env, params: nnx.State | None = None) -> PPOState:
        config = self.config
        params, key, env_state = starting_point(env, self.seed, config.num_envs, params, self._initial_params)
        pool = None
        if config.pool_size:
            pool = jax.tree.map(lambda p: jnp.zeros((config.pool_size,) + p.shape, p.dtype).at[0].set(p), params)
        return PPOState(params=params, opt_state=self.optimizer.init(params), env_state=env_state, pool=pool,
                        pool_count=jnp.int32(1 if config.pool_size else 0),
                        pool_score=jnp.zeros(max(config.pool_size, 1), jnp.float32),
                        opponent=jnp.full(config.num_envs, -1, jnp.int32),
                        learner_side=jnp.zeros(config.num_envs, jnp.int32), key=key, env_steps=jnp.int32(0),
                        updates=jnp.int32(0), iterations=jnp.int32(0))

    def policy_value(self, params, observations):
        return nnx.merge(self.graphdef, params).policy_value(observations)

    # -- one compiled iteration -----------------------------------------------------------------------------------
    def _call(self, ts: PPOState, env, key):
        """One call in every auction: (state, rollout row, NS returns, learner-vs-pool returns, pool auctions)."""
        config = self.config
        state = ts.env_state
        key_act, key_reset, key_draw = jax.random.split(key, 3)
        batch = jnp.arange(config.num_envs)
        logits, value = self.policy_value(ts.params, state.observation)
        acting = logits
        pool_turn = jnp.zeros(config.num_envs, bool)
        if config.pool_size:
            pool_logits = jax.vmap(lambda p: self.policy_value(p, state.observation)[0])(ts.pool)
            pool_turn = (ts.opponent >= 0) & (state.current_player % 2 != ts.learner_side)
            acting = jnp.where(pool_turn[:, None], pool_logits[jnp.maximum(ts.opponent, 0), batch], logits)
        action = jax.random.categorical(key_act, jnp.where(state.legal_action_mask, acting, -jnp.inf))
        logp = jnp.take_along_axis(masked_log_softmax(logits, state.legal_action_mask), action[:, None], 1)[:, 0]
        new_state = jax.vmap(env.step)(state, action)
        done = new_state.terminated
        ended = None
        if config.playout or self.fresh:
            from bridgerl.envs.jaxenv.competitive import auction_fields

            ended = {"fields": auction_fields(new_state), "index": new_state.index,
                     "next_seat": new_state.current_player}
            if self.fresh:  # no row to read the deal back from; who played whom, for the pool's statistics
                ended.update(owner=new_state._owner, dealer=new_state.dealer, vulnerable=new_state.vulnerable,
                             opponent=ts.opponent, learner_side=ts.learner_side)
        row = Rollout(state.observation, state.legal_action_mask, action.astype(jnp.int32), logp, value,
                      state.current_player.astype(jnp.int32), ~pool_turn, done, new_state.rewards, ended)
        fresh = jax.vmap(env.init)(jax.random.split(key_reset, config.num_envs))
        env_state = jax.tree.map(lambda a, b: jnp.where(done.reshape((-1,) + (1,) * (a.ndim - 1)), b, a),
                                 new_state, fresh)
        against_pool = done & (ts.opponent >= 0)
        learner_return = jnp.where(against_pool, new_state.rewards[batch, ts.learner_side], 0.0)
        pool_score = ts.pool_score
        if config.pool_size:
            pool_score = update_pool_score(pool_score, ts.opponent, against_pool, learner_return)
        opponent, side = ts.opponent, ts.learner_side
        if config.pool_size:
            opponent, side = draw_opponents(key_draw, done, ts.opponent, ts.learner_side, ts.pool_count,
                                            config.pool_size, config.pool_prob, pool_score, config.pool_priority)
        ts = ts.replace(env_state=env_state, opponent=opponent, learner_side=side, pool_score=pool_score,
                        env_steps=ts.env_steps + config.num_envs)
        ts = constrain_rows(self.mesh, ts, ROW_FIELDS)
        ns_return = jnp.where(done, new_state.rewards[:, 0], 0.0)
        return ts, row, (done.sum(), ns_return.sum(), against_pool.sum(), learner_return.sum())

    def _played_rewards(self, env, rollout: Rollout) -> jnp.ndarray:
        """`training.played_rewards.played_rewards` with this trainer's card player (``playout``)."""
        return played_rewards(env, rollout, self.card_player)

    def _fresh_rewards(self, env, rollout: Rollout, ts: PPOState) -> jnp.ndarray:
        """`training.played_rewards.fresh_rewards` of a fresh-deal rollout: the second table bid by the network as
        it stands or the pool's anchor (``fresh_reference``)."""
        reference = ts.params if self.config.fresh_reference == "self" else jax.tree.map(lambda p: p[0], ts.pool)
        return fresh_rewards(env, rollout, lambda obs: self.policy_value(reference, obs)[0], self.card_player,
                             self.config.fresh_chunk)

    def _bootstrap(self, params, state):
        """[B, 4]: each seat's value of what it sees of the current auctions."""
        def seat_value(seat):
            observations = jax.vmap(self.env.observation_of, in_axes=(0, None))(state, seat)
            return self.policy_value(params, observations)[1]
        return jnp.stack([seat_value(seat) for seat in range(4)], 1)

    def bc_weight_at(self, updates):
        """The weight of the cross-entropy to the demonstrations after ``updates`` updates (``bc_end``: linear)."""
        config = self.config
        if config.bc_end is None or not self._total_steps:  # as lr_end: a decay needs the run's length
            return config.bc_weight
        return config.bc_weight + (config.bc_end - config.bc_weight) * jnp.minimum(updates / self._updates_total, 1.0)

    def _loss(self, params, batch, demos_batch, bc_weight=None):
        logits, values = self.policy_value(params, batch["obs"])
        loss, parts = ppo_loss(logits, values, batch["mask"], batch["action"], batch["logp"], batch["advantage"],
                               batch["return"], batch["weight"], self.config.clip, self.config.value_coef,
                               self.config.entropy_coef)
        bc = jnp.float32(0)
        if demos_batch is not None:
            obs, mask, action, expert, target = demos_batch
            bc = behaviour_cloning_loss(nnx.merge(self.graphdef, params)(obs), mask, action, expert, target)
            loss = loss + (self.config.bc_weight if bc_weight is None else bc_weight) * bc
        return loss, {**parts, "bc": bc}

    def _iteration(self, env, ts: PPOState, demos):
        config = self.config
        key, rollout_key, epoch_key = jax.random.split(ts.key, 3)

        def call(ts, key):
            ts, row, stats = self._call(ts, env, key)
            return ts, (row, stats)

        ts, (rollout, stats) = jax.lax.scan(call, ts, jax.random.split(rollout_key, config.rollout))
        if config.playout or self.fresh:
            rewards = self._fresh_rewards(env, rollout, ts) if self.fresh else self._played_rewards(env, rollout)
            stats = (stats[0], jnp.where(rollout.done, rewards[..., 0], 0.0).sum(1), *stats[2:])
            if self.fresh:  # the learner's IMPs against the pool, from the played rewards (the env paid none)
                against = rollout.done & (rollout.ended["opponent"] >= 0)
                mine = jnp.take_along_axis(rewards, rollout.ended["learner_side"][..., None], -1)[..., 0]
                stats = (*stats[:3], jnp.where(against, mine, 0.0).sum(1))
            rollout = rollout.replace(rewards=rewards, ended=None)
        bootstrap = self._bootstrap(ts.params, ts.env_state)
        scale = config.reward_scale
        advantages, returns = gae(rollout.value, rollout.seat, rollout.done, rollout.rewards * scale,
                                  bootstrap, config.discount, config.gae_lambda)
        flat = {"obs": rollout.obs, "mask": rollout.mask, "action": rollout.action, "logp": rollout.logp,
                "advantage": advantages, "return": returns, "weight": rollout.learner.astype(jnp.float32)}
        rows = self.steps_per_iteration
        flat = jax.tree.map(lambda a: a.reshape((rows,) + a.shape[2:]), flat)

        bc_weight = self.bc_weight_at(ts.updates)

        def minibatch(carry, xs):
            params, opt_state = carry
            batch, bc_key = xs
            batch = split_rows(self.mesh, batch)
            demos_batch = None
            if demos is not None:
                index = jax.random.randint(bc_key, (config.bc_batch,), 0, demos[2].shape[0])
                demos_batch = split_rows(self.mesh, jax.tree.map(lambda a: a[index], demos))
            (loss, parts), grads = jax.value_and_grad(self._loss, has_aux=True)(params, batch, demos_batch, bc_weight)
            updates, opt_state = self.optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), (loss, parts)

        def epoch(carry, key):
            key_perm, key_bc = jax.random.split(key)
            order = jax.random.permutation(key_perm, rows)
            batches = jax.tree.map(lambda a: a[order].reshape((config.minibatches, -1) + a.shape[1:]), flat)
            return jax.lax.scan(minibatch, carry, (batches, jax.random.split(key_bc, config.minibatches)))

        (params, opt_state), (losses, parts) = jax.lax.scan(epoch, (ts.params, ts.opt_state),
                                                            jax.random.split(epoch_key, config.epochs))
        iterations = ts.iterations + 1
        ts = ts.replace(params=params, opt_state=opt_state, key=key, iterations=iterations,
                        updates=ts.updates + self.updates_per_iteration)
        if config.pool_size:
            ts = jax.lax.cond(iterations % config.pool_every == 0, self._snapshot, lambda ts: ts, ts)
        episodes, ns_returns, pool_episodes, pool_returns = (s.sum() for s in stats)
        metrics = PPOMetrics(episodes, ns_returns, losses.mean(), parts["policy"].mean(), parts["value"].mean(),
                             parts["entropy"].mean(), parts["approx_kl"].mean(), parts["clip_fraction"].mean(),
                             parts["bc"].mean(), pool_episodes, pool_returns)
        return ts, metrics

    def _snapshot(self, ts: PPOState) -> PPOState:
        """Freeze the current network into the pool (the oldest snapshot makes room; with ``pool_anchor`` slot 0
        keeps the starting network); the slot's running score starts again."""
        size = self.config.pool_size
        slot = 1 + (ts.pool_count - 1) % (size - 1) if self.config.pool_anchor else ts.pool_count % size
        pool = jax.tree.map(lambda stack, p: stack.at[slot].set(p), ts.pool, ts.params)
        return ts.replace(pool=pool, pool_count=ts.pool_count + 1, pool_score=ts.pool_score.at[slot].set(0.0))

    def _run(self, env, ts: PPOState, iterations: int, demos=None):
        return jax.lax.scan(lambda ts, _: self._iteration(env, ts, demos), ts, None, length=iterations)


def metrics_record(metrics: PPOMetrics) -> dict:
    """The log fields of a chunk of iterations beyond those every trainer reports."""
    return {name: float(np.asarray(getattr(metrics, name)).mean())
            for name in ("policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction", "bc_loss")}


__all__ = ["DEFAULT_STEPS", "REFERENCE_CALLS", "PPOConfig", "PPOMetrics", "PPOState", "PPOTrainer", "PRESETS",
           "Rollout", "behaviour_cloning_loss", "draw_opponents", "gae", "masked_log_softmax", "metrics_record",
           "ppo_loss", "update_pool_score"]
