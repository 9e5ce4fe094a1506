"""DQN for the bidding envs (thesis 4.3-4.4.4), fully jitted over the vmapped JAX env.

One compiled step collects one call from each of ``num_envs`` parallel auctions (epsilon-greedy over legal calls),
stores transitions in a pure-JAX replay buffer, runs ``updates_per_step`` gradient updates (Huber loss on the TD
error from rlax, Adam from optax) and syncs the target network every ``target_every`` updates. ``lax.scan`` runs
many such steps per Python call; the Python loop around it shows progress, evaluates and checkpoints.

Transitions: ``"seat"`` (OpenSpiel's DQN for multi-player games, the thesis' set-up): the next state of a call is
the same seat's next turn, or the end; ``"team"`` (uncontested only): the next state is the next call of the
auction, the partner's, whose greedy value is the team's (both share the reward and the network).

All-call targets (``targets="all"``, uncontested only): the opponents always pass, so the DD table gives the exact
value of "the auction ends here" for every call (`envs.jaxenv.UncontestedBidding.call_outcomes`). Every stored call
regresses all its legal calls at once: a pass that ends the auction to its exact value; any other call ``a`` to the
exact value of the contract if the partner's greedy policy (the online network on the partner's observation after
``a``) passes next, else to the bootstrapped value of the partner's greedy call. That bootstrap comes from the target
network, or with ``critic=True`` from a centralised critic: a second network that sees both partners' hands (the
player's observation plus the partner's 52 cards), trained on the same targets, used only for targets (centralised
training, decentralised acting: the acting network never receives the partner's cards). Yeh, Hsieh & Lin 2018 used
per-call targets of this kind.

Competitive self-play (issue #10) adds two stabilisers, both off by default: an opponent pool of frozen past
networks that play one side of a share of the auctions (their calls are not stored), and DQfD's large-margin loss
on rule-bidder demonstrations (`training.demonstrations`) added to every update (Hester et al. 2018).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import optax
import rlax
from flax import nnx, struct

from bridgerl.agents.learned.networks import NEG as _NEG, QNetwork, masked_argmax
from bridgerl.training.demonstrations import large_margin_loss
from bridgerl.training.replay import (Replay, Transitions, replay_add, replay_init, replay_init_like, replay_sample)
from bridgerl.training.sharding import check_divisible, constrain_rows, place, split_rows


@dataclass(frozen=True)
class DQNConfig:
    hidden: tuple[int, ...] = (1024, 1024, 1024, 1024)
    learning_rate: float = 1e-4
    batch_size: int = 128
    replay_size: int = 100_000
    min_replay: int = 1_000
    num_envs: int = 32
    updates_per_step: int = 1          # gradient updates per vectorized env step (num_envs calls)
    target_every: int = 200            # updates between target-network syncs (thesis 4.4.4: "every 200 steps")
    eps_start: float = 0.1
    eps_end: float = 0.05
    eps_decay_steps: int = 1_000_000   # env steps (calls) over which epsilon decays linearly
    discount: float = 1.0
    huber_delta: float = 1.0
    double_q: bool = False
    dueling: bool = False
    transitions: str = "seat"
    lr_end: float | None = None        # linear learning-rate decay to this value over the run, when set
    # opponent pool (competitive self-play, fictitious-self-play style): frozen copies of past networks
    pool_size: int = 0                 # snapshots kept (0: plain self-play)
    pool_every: int = 2_000            # updates between snapshots
    pool_prob: float = 0.5             # share of auctions whose opponents are a random snapshot
    pool_anchor: bool = False          # keep the starting network (e.g. pretrained) in the pool for good
    # DQfD (Hester et al. 2018): keep the large-margin loss on demonstrations during RL (needs demonstrations)
    demo_weight: float = 0.0           # weight of that loss (0: plain DQN)
    demo_margin: float = 1.0           # margin of non-demonstrated calls, in IMPs
    # all-call targets (uncontested): regress every legal call of each stored state (see the module docstring)
    targets: str = "sampled"           # "sampled": the TD target of the call taken; "all": every legal call
    critic: bool = False               # bootstrap all-call targets from a critic that sees both hands
    collect_targets: bool = False      # all-call: compute each call's targets once, when it is stored (the networks
                                       # of that moment), instead of at every replay (4x fewer network calls)
    aux_weight: float = 0.0            # all-call: weight of auxiliary heads on the acting network's torso that
                                       # predict the partner's HCP and suit lengths and the side's DD tricks

    def replace(self, **changes) -> "DQNConfig":
        return dataclasses.replace(self, **changes)


PRESETS = {
    # thesis 4.4.4: 4 x 1024 ReLU, Huber, Adam, target every 200, epsilon 0.1 -> 0.05, discount 1, uniform replay
    "thesis": DQNConfig(),
    # a few minutes on a CPU: the README's main job and the tests
    "small": DQNConfig(hidden=(256, 256), learning_rate=3e-4, batch_size=128, replay_size=50_000, min_replay=1_000,
                       num_envs=32, eps_decay_steps=200_000),
    # issue #21: the small network with all-call targets bootstrapped by a centralised critic, squared loss
    # (Huber delta 24), dueling head and a linear learning-rate decay: the README's main job (300k calls, about two
    # CPU minutes) and, on more data and calls, the released models/uncontested-critic
    "critic": DQNConfig(hidden=(256, 256), learning_rate=3e-4, batch_size=128, replay_size=50_000, min_replay=1_000,
                        num_envs=32, eps_decay_steps=200_000, huber_delta=24.0, dueling=True, lr_end=3e-5,
                        targets="all", critic=True),
}


@struct.dataclass
class TrainState:
    params: nnx.State
    target_params: nnx.State
    opt_state: optax.OptState
    env_state: object
    pending_obs: jnp.ndarray       # [B, 4, O] last call of each seat awaiting its next state ("seat" mode)
    pending_action: jnp.ndarray    # [B, 4]
    pending_valid: jnp.ndarray     # [B, 4]
    replay: Replay
    pool: nnx.State | None         # [K, ...] frozen past parameters (None without a pool)
    pool_count: jnp.ndarray        # snapshots taken so far
    opponent: jnp.ndarray          # [B] pool slot of this auction's opponents, -1 for self-play
    learner_side: jnp.ndarray      # [B] the side (0 NS, 1 EW) the learning network plays against the pool
    key: jnp.ndarray               # raw uint32[2] PRNG key (serializable)
    env_steps: jnp.ndarray
    updates: jnp.ndarray
    critic: nnx.State | None = None            # the centralised critic (all-call targets with critic=True)
    critic_target: nnx.State | None = None
    critic_opt_state: optax.OptState | None = None


ROW_FIELDS = ("env_state", "pending_obs", "pending_action", "pending_valid", "opponent", "learner_side")
"""`TrainState` fields with one row per parallel auction: split over the devices of a multi-device run."""


@struct.dataclass
class CallTargets:
    """One stored call of all-call training: the player's view and what the DD table says about each call."""

    obs: jnp.ndarray             # int8[O]
    mask: jnp.ndarray            # bool[A]: legal calls
    after_pass: jnp.ndarray      # float32[A] (`envs.jaxenv.uncontested.CallOutcomes`)
    pass_ends: jnp.ndarray       # bool
    end_value: jnp.ndarray       # float32
    pass_next_mask: jnp.ndarray  # bool[A]
    partner_hand: jnp.ndarray    # int8[52]
    auxiliary: jnp.ndarray       # float32[10]: the auxiliary heads' targets (`auxiliary_targets`)
    target: jnp.ndarray          # float32[A]: the regression targets when computed at collection, else zeros


AUXILIARY_OUTPUTS = 10


def auxiliary_targets(partner_hand, side_tricks):
    """float32[..., 10], scaled to about unit size: the partner's HCP / 10, its four suit lengths / 4 (clubs to
    spades), the side's DD tricks in C, D, H, S, NT / 7."""
    from bridgerl.core.hand import HCP_PER_CARD

    hand = partner_hand.astype(jnp.float32)
    points = hand @ jnp.asarray(HCP_PER_CARD, jnp.float32)
    lengths = hand.reshape(hand.shape[:-1] + (4, 13)).sum(-1)
    return jnp.concatenate([points[..., None] / 10, lengths / 4, side_tricks / 7], -1)


@struct.dataclass
class StepMetrics:
    episodes: jnp.ndarray          # auctions finished
    return_sum: jnp.ndarray        # sum of their returns (uncontested: the bidders' IMPs; competitive: NS)
    loss: jnp.ndarray
    epsilon: jnp.ndarray
    pool_episodes: jnp.ndarray     # auctions against a pool snapshot finished
    pool_return_sum: jnp.ndarray   # the learner side's returns in them


def starting_point(env, seed: int, num_envs: int, params, initial_params):
    """(params, PRNG key, env states) a trainer starts from: ``params`` (e.g. pretrained; they must fit the
    network) or the network's initial ones, and ``num_envs`` auctions dealt from the seed. Shared by `DQNTrainer`
    and `training.ppo.PPOTrainer`."""
    if params is None:
        params = initial_params
    elif jax.tree.structure(params) != jax.tree.structure(initial_params):
        raise ValueError("the given parameters do not match this network's architecture")
    key = jax.random.PRNGKey(seed)
    key, env_key = jax.random.split(key)
    return params, key, jax.vmap(env.init)(jax.random.split(env_key, num_envs))


class DQNTrainer:
    """Builds the network, optimizer and compiled training step for one env and config."""

    def __init__(self, env, config: DQNConfig, seed: int = 0, total_steps: int | None = None, demonstrations=None,
                 self_play: bool = False, mesh=None):
        """``self_play``: the env is a game between two sides (competitive bidding) and the network calls for all
        four seats: the training return is seat 0's (North-South) and an opponent pool may play one side. Otherwise
        (uncontested bidding: one side bids) the return is the reward of the seat the finished auction names.
        ``mesh`` (`training.sharding.data_mesh`): data parallel over its devices, the auctions and every update's
        batch split over them (``num_envs`` and ``batch_size`` are global); None: one device, as before."""
        check_divisible(mesh, num_envs=config.num_envs, batch_size=config.batch_size)
        self.mesh = mesh
        if config.transitions not in ("seat", "team"):
            raise ValueError(f"transitions must be 'seat' or 'team', got {config.transitions!r}")
        if config.pool_size and (config.transitions != "seat" or not self_play):
            raise ValueError("an opponent pool needs the competitive env (self_play=True) and per-seat transitions")
        if config.demo_weight and demonstrations is None:
            raise ValueError("demo_weight > 0 needs demonstrations (training.demonstrations.rule_demonstrations)")
        # only the fields the loss reads, as device arrays (an argument of the compiled step, not a constant)
        self._demos = None if not config.demo_weight else jax.tree.map(
            jnp.asarray, (demonstrations.obs, demonstrations.mask, demonstrations.action, demonstrations.expert))
        if config.targets not in ("sampled", "all"):
            raise ValueError(f"targets must be 'sampled' or 'all', got {config.targets!r}")
        if config.targets == "all" and (self_play or not hasattr(env, "call_outcomes")):
            raise ValueError("all-call targets need the uncontested env (the opponents always pass)")
        if config.targets == "all" and (config.pool_size or config.demo_weight or config.double_q):
            raise ValueError("all-call targets take no opponent pool, demonstrations or double-Q (the partner's "
                             "call is always chosen by the online network)")
        if (config.critic or config.aux_weight or config.collect_targets) and config.targets != "all":
            raise ValueError("the centralised critic, the auxiliary heads and collect_targets come with all-call "
                             "targets: they need targets='all'")
        if config.pool_anchor and config.pool_size < 2:
            raise ValueError("pool_anchor keeps one slot for the starting network: it needs pool_size >= 2")
        self.env, self.config, self.seed, self.self_play = env, config, seed, bool(self_play)
        self.steps_per_iteration = config.num_envs  # env steps (calls) of one compiled step
        network = QNetwork(env.observation_size, config.hidden, env.num_actions, config.dueling, seed=seed,
                           auxiliary=AUXILIARY_OUTPUTS if config.aux_weight else 0)
        self.graphdef, params = nnx.split(network)
        self._initial_params = params
        self.critic_graphdef, self._initial_critic = None, None
        if config.critic:  # the player's observation plus the partner's 52 cards
            critic = QNetwork(env.observation_size + 52, config.hidden, env.num_actions, config.dueling,
                              seed=seed + 1_000_003)
            self.critic_graphdef, self._initial_critic = nnx.split(critic)
        if config.lr_end is not None and total_steps:
            updates = max(1, total_steps // config.num_envs * config.updates_per_step)
            learning_rate = optax.linear_schedule(config.learning_rate, config.lr_end, updates)
        else:
            learning_rate = config.learning_rate
        self.optimizer = optax.adam(learning_rate)
        self.epsilon = optax.linear_schedule(config.eps_start, config.eps_end, config.eps_decay_steps)
        self._run_steps_jit = jax.jit(self._run_steps, static_argnums=2)

    def run_steps(self, env, ts: "TrainState", steps: int):
        """``steps`` compiled env steps (each ``num_envs`` calls); returns (state, per-step metrics)."""
        return self._run_steps_jit(env, ts, steps, self._demos)

    def place(self, ts: TrainState) -> TrainState:
        """``ts`` laid out on the trainer's devices (a no-op on one device): call it on a new or restored state."""
        return place(self.mesh, ts, ROW_FIELDS)

    # -- state ----------------------------------------------------------------------------------------------------
    def init(self, env, params: nnx.State | None = None) -> TrainState:
        """The starting state; ``params`` (e.g. pretrained) replace the random initial network. With a pool, the
        starting network is its first snapshot."""
        config = self.config
        params, key, env_state = starting_point(env, self.seed, config.num_envs, params, self._initial_params)
        size = env.observation_size
        if config.targets == "all":
            example = self._call_targets(jax.tree.map(lambda leaf: leaf[0], env_state))
            replay = replay_init_like(config.replay_size, example)
        else:
            replay = replay_init(config.replay_size, size, env.num_actions)
        critic = self._initial_critic
        return TrainState(
            params=params, target_params=params, opt_state=self.optimizer.init(params), env_state=env_state,
            pending_obs=jnp.zeros((config.num_envs, 4, size), jnp.int8),
            pending_action=jnp.zeros((config.num_envs, 4), jnp.int32),
            pending_valid=jnp.zeros((config.num_envs, 4), bool),
            replay=replay,
            pool=(jax.tree.map(lambda p: jnp.zeros((config.pool_size,) + p.shape, p.dtype).at[0].set(p),
                               params) if config.pool_size else None),
            pool_count=jnp.int32(1 if config.pool_size else 0), opponent=jnp.full(config.num_envs, -1, jnp.int32),
            learner_side=jnp.zeros(config.num_envs, jnp.int32), key=key,
            env_steps=jnp.int32(0), updates=jnp.int32(0), critic=critic, critic_target=critic,
            critic_opt_state=None if critic is None else self.optimizer.init(critic))

    def _call_targets(self, state) -> CallTargets:
        """The stored row of all-call training for a (batch of) state(s)."""
        outcomes = (jax.vmap(self.env.call_outcomes) if state.observation.ndim > 1 else self.env.call_outcomes)(state)
        return CallTargets(state.observation, state.legal_action_mask, outcomes.after_pass, outcomes.pass_ends,
                           outcomes.end_value, outcomes.pass_next_mask, outcomes.partner_hand,
                           auxiliary_targets(outcomes.partner_hand, outcomes.side_tricks),
                           jnp.zeros(state.legal_action_mask.shape, jnp.float32))

    def q_values(self, params, observations):
        return nnx.merge(self.graphdef, params)(observations)

    # -- one compiled step ----------------------------------------------------------------------------------------
    def _pool_turn(self, ts: TrainState, seats):
        """bool[B, ...]: ``seats`` ([B] or [B, k]) belong to this auction's pool opponents."""
        extra = (1,) * (seats.ndim - 1)
        opponent, learner = ts.opponent.reshape((-1,) + extra), ts.learner_side.reshape((-1,) + extra)
        return (opponent >= 0) & (seats % 2 != learner)

    def _act(self, ts: TrainState, state, key, epsilon):
        q = self.q_values(ts.params, state.observation)
        explore_ok = jnp.ones(q.shape[0], bool)
        if self.config.pool_size:
            # every snapshot's Q-values for the whole batch, then each auction takes its opponents' row
            pool_q = jax.vmap(self.q_values, in_axes=(0, None))(ts.pool, state.observation)
            rows = pool_q[jnp.maximum(ts.opponent, 0), jnp.arange(q.shape[0])]
            pool_turn = self._pool_turn(ts, state.current_player)
            q = jnp.where(pool_turn[:, None], rows, q)
            explore_ok = ~pool_turn  # frozen opponents play their greedy policy
        greedy = masked_argmax(q, state.legal_action_mask)
        key_random, key_explore = jax.random.split(key)
        random = jax.random.categorical(key_random, jnp.where(state.legal_action_mask, 0.0, -jnp.inf))
        explore = (jax.random.uniform(key_explore, greedy.shape) < epsilon) & explore_ok
        return jnp.where(explore, random, greedy).astype(jnp.int32)

    def _transitions(self, ts: TrainState, state, action, new_state):
        """Transitions finished by this call, as a flat batch with validity flags."""
        batch = jnp.arange(state.current_player.shape[0])
        player = state.current_player
        if self.config.targets == "all":  # every call of every auction, with what the DD table says about it
            items = self._call_targets(state)
            if self.config.collect_targets:
                bootstrap = ts.critic_target if self.config.critic else ts.target_params
                items = items.replace(target=self.all_call_targets(ts.params, bootstrap, items))
            return items, jnp.ones(batch.shape, bool), ts
        if self.config.transitions == "team":
            reward = new_state.rewards[batch, player]
            items = Transitions(state.observation, action, reward, new_state.observation,
                                new_state.legal_action_mask & ~new_state.terminated[:, None], new_state.terminated)
            return items, jnp.ones_like(new_state.terminated), ts
        # the caller's previous call now has its next state: this observation
        previous = Transitions(ts.pending_obs[batch, player], ts.pending_action[batch, player],
                               jnp.zeros(batch.shape, jnp.float32), state.observation, state.legal_action_mask,
                               jnp.zeros(batch.shape, bool))
        previous_valid = ts.pending_valid[batch, player]
        pending_obs = ts.pending_obs.at[batch, player].set(state.observation)
        pending_action = ts.pending_action.at[batch, player].set(action)
        pending_valid = ts.pending_valid.at[batch, player].set(True)
        # at the end every seat's last call gets its reward
        end = new_state.terminated
        final = Transitions(pending_obs, pending_action, new_state.rewards,
                            jnp.zeros_like(pending_obs),
                            jnp.zeros(pending_obs.shape[:2] + (self.env.num_actions,), bool),
                            jnp.ones(pending_valid.shape, bool))
        final_valid = pending_valid & end[:, None]
        items = jax.tree.map(lambda a, b: jnp.concatenate([a[:, None], b], 1).reshape((-1,) + a.shape[1:]),
                             previous, final)
        if self.config.pool_size:  # only the learning network's calls are its experience
            previous_valid &= ~self._pool_turn(ts, player)
            final_valid &= ~self._pool_turn(ts, jnp.broadcast_to(jnp.arange(4), final_valid.shape))
        valid = jnp.concatenate([previous_valid[:, None], final_valid], 1).reshape(-1)
        ts = ts.replace(pending_obs=pending_obs, pending_action=pending_action,
                        pending_valid=pending_valid & ~end[:, None])
        return items, valid, ts

    def _demo_margin_loss(self, params, demos, key):
        """DQfD's large-margin loss (`training.demonstrations.large_margin_loss`) on a batch of demonstrations."""
        obs, mask, action, expert = demos
        index = jax.random.randint(key, (self.config.batch_size,), 0, action.shape[0])
        obs, mask, action, expert = obs[index], mask[index], action[index], expert[index]
        return large_margin_loss(self.q_values(params, obs), mask, action, expert, self.config.demo_margin)

    def critic_values(self, critic, observations, partner_hands):
        """The centralised critic's values of every call from the player's observation and the partner's cards."""
        inputs = jnp.concatenate([observations, partner_hands.astype(observations.dtype)], -1)
        return nnx.merge(self.critic_graphdef, critic)(inputs)

    def all_call_targets(self, params, bootstrap, batch: CallTargets):
        """float32[B, A]: the target of every call of each stored state (module docstring). ``bootstrap`` is the
        target network's parameters, or the critic's with ``critic=True``."""
        from bridgerl.envs.jaxenv.uncontested import partner_masks, partner_observations

        size, actions = batch.obs.shape[-1], self.env.num_actions
        next_obs = partner_observations(batch.obs, batch.partner_hand).reshape(-1, size)
        next_mask = partner_masks(batch.pass_next_mask).reshape(-1, actions)
        greedy = masked_argmax(self.q_values(params, next_obs), next_mask)  # the partner's call after each call
        if self.config.critic:  # the critic of the partner's state sees the player's hand as the other one
            own_hand = batch.obs[:, size - 52:]
            hands = jnp.broadcast_to(own_hand[:, None], (own_hand.shape[0], actions, 52)).reshape(-1, 52)
            values = self.critic_values(bootstrap, next_obs, hands)
        else:
            values = self.q_values(bootstrap, next_obs)
        continued = jnp.take_along_axis(values, greedy[:, None], 1)[:, 0].reshape(-1, actions)
        target = jnp.where(greedy.reshape(-1, actions) == 0, batch.after_pass, continued)
        target = target.at[:, 0].set(jnp.where(batch.pass_ends, batch.end_value, target[:, 0]))
        return jax.lax.stop_gradient(target)

    def _masked_huber(self, q, target, mask):
        loss = optax.huber_loss(q, target, delta=self.config.huber_delta)
        return (loss * mask).sum() / jnp.maximum(mask.sum(), 1)

    def _all_call_loss(self, params, critic, target_params, critic_target, batch: CallTargets):
        """(total loss, (actor loss, critic loss)) of all-call regression."""
        if self.config.collect_targets:
            target = batch.target
        else:
            target = self.all_call_targets(params, critic_target if self.config.critic else target_params, batch)
        actor = self._masked_huber(self.q_values(params, batch.obs), target, batch.mask)
        total = actor
        if self.config.aux_weight:
            predicted = nnx.merge(self.graphdef, params).auxiliary_outputs(batch.obs)
            total += self.config.aux_weight * ((predicted - batch.auxiliary) ** 2).mean()
        if not self.config.critic:
            return total, (actor, jnp.float32(0))
        critic_loss = self._masked_huber(self.critic_values(critic, batch.obs, batch.partner_hand), target,
                                         batch.mask)
        return total + critic_loss, (actor, critic_loss)

    def _loss(self, params, target_params, batch: Transitions, demos=None, demo_key=None):
        td_loss = self._td_loss(params, target_params, batch)
        if demos is None:
            return td_loss
        return td_loss + self.config.demo_weight * self._demo_margin_loss(params, demos, demo_key)

    def _td_loss(self, params, target_params, batch: Transitions):
        q = self.q_values(params, batch.obs)
        q_next = jnp.where(batch.next_mask, self.q_values(target_params, batch.next_obs), _NEG)
        discount = jnp.where(batch.done, 0.0, self.config.discount)
        if self.config.double_q:
            selector = jnp.where(batch.next_mask, self.q_values(params, batch.next_obs), _NEG)
            td = jax.vmap(rlax.double_q_learning)(q, batch.action, batch.reward, discount, q_next, selector)
        else:
            td = jax.vmap(rlax.q_learning)(q, batch.action, batch.reward, discount, q_next)
        return optax.huber_loss(td, delta=self.config.huber_delta).mean()

    def _update(self, ts: TrainState, key, demos=None):
        if self.config.targets == "all":
            return self._update_all_calls(ts, key)
        batch = split_rows(self.mesh, replay_sample(ts.replay, key, self.config.batch_size))
        demo_key = jax.random.fold_in(key, 1)  # folded, so that runs without demonstrations keep their stream
        loss, grads = jax.value_and_grad(self._loss)(ts.params, ts.target_params, batch, demos, demo_key)
        updates, opt_state = self.optimizer.update(grads, ts.opt_state, ts.params)
        params = optax.apply_updates(ts.params, updates)
        count = ts.updates + 1
        target = optax.periodic_update(params, ts.target_params, count, self.config.target_every)
        return ts.replace(params=params, target_params=target, opt_state=opt_state, updates=count), loss

    def _update_all_calls(self, ts: TrainState, key):
        batch = split_rows(self.mesh, replay_sample(ts.replay, key, self.config.batch_size))
        (loss, _), (grads, critic_grads) = jax.value_and_grad(self._all_call_loss, argnums=(0, 1), has_aux=True)(
            ts.params, ts.critic, ts.target_params, ts.critic_target, batch)
        updates, opt_state = self.optimizer.update(grads, ts.opt_state, ts.params)
        params = optax.apply_updates(ts.params, updates)
        count = ts.updates + 1
        target = optax.periodic_update(params, ts.target_params, count, self.config.target_every)
        ts = ts.replace(params=params, target_params=target, opt_state=opt_state, updates=count)
        if self.config.critic:
            updates, critic_opt = self.optimizer.update(critic_grads, ts.critic_opt_state, ts.critic)
            critic = optax.apply_updates(ts.critic, updates)
            ts = ts.replace(critic=critic, critic_opt_state=critic_opt,
                            critic_target=optax.periodic_update(critic, ts.critic_target, count,
                                                                self.config.target_every))
        return ts, loss

    def _step(self, env, ts: TrainState, demos=None):
        key, act_key, reset_key, update_key = jax.random.split(ts.key, 4)
        epsilon = self.epsilon(ts.env_steps)
        state = ts.env_state
        action = self._act(ts, state, act_key, epsilon)
        new_state = jax.vmap(env.step)(state, action)
        items, valid, ts = self._transitions(ts, state, action, new_state)
        replay = replay_add(ts.replay, items, valid)
        batch = jnp.arange(new_state.terminated.shape[0])
        player = jnp.zeros_like(new_state.current_player) if self.self_play else new_state.current_player
        finished = new_state.terminated
        returns = jnp.where(finished, new_state.rewards[batch, player], 0.0)
        against_pool = finished & (ts.opponent >= 0)
        pool_returns = jnp.where(against_pool, new_state.rewards[batch, ts.learner_side], 0.0)
        fresh = jax.vmap(env.init)(jax.random.split(reset_key, finished.shape[0]))
        env_state = jax.tree.map(lambda a, b: jnp.where(finished.reshape((-1,) + (1,) * (a.ndim - 1)), b, a),
                                 new_state, fresh)
        ts = ts.replace(env_state=env_state, replay=replay, key=key,
                        env_steps=ts.env_steps + finished.shape[0])
        if self.config.pool_size:  # a key folded from another, so runs without a pool keep their random stream
            ts = self._draw_opponents(ts, finished, jax.random.fold_in(reset_key, 1))

        def updates(ts):
            def body(carry, update_key):
                ts, _ = carry
                ts, loss = self._update(ts, update_key, demos)
                return (ts, loss), None
            (ts, loss), _ = jax.lax.scan(body, (ts, jnp.float32(0)),
                                         jax.random.split(update_key, self.config.updates_per_step))
            return ts, loss

        updates_before = ts.updates
        ts, loss = jax.lax.cond(ts.replay.size >= self.config.min_replay, updates,
                                lambda ts: (ts, jnp.float32(0)), ts)
        if self.config.pool_size:
            every = self.config.pool_every
            ts = jax.lax.cond(ts.updates // every > updates_before // every, self._snapshot, lambda ts: ts, ts)
        ts = constrain_rows(self.mesh, ts, ROW_FIELDS)
        return ts, StepMetrics(finished.sum(), returns.sum(), loss, epsilon, against_pool.sum(), pool_returns.sum())

    def _draw_opponents(self, ts: TrainState, finished, key):
        """New auctions play a random snapshot with probability ``pool_prob`` (once one exists), else self-play."""
        key_use, key_slot, key_side = jax.random.split(key, 3)
        size = jnp.minimum(ts.pool_count, self.config.pool_size)
        use = (jax.random.uniform(key_use, finished.shape) < self.config.pool_prob) & (size > 0)
        slot = jax.random.randint(key_slot, finished.shape, 0, jnp.maximum(size, 1))
        side = jax.random.randint(key_side, finished.shape, 0, 2)
        return ts.replace(opponent=jnp.where(finished, jnp.where(use, slot, -1), ts.opponent),
                          learner_side=jnp.where(finished, side, ts.learner_side))

    def _snapshot(self, ts: TrainState) -> TrainState:
        """Freeze the current network into the pool (the oldest snapshot makes room; with ``pool_anchor`` the
        starting network in slot 0 stays)."""
        size = self.config.pool_size
        slot = 1 + (ts.pool_count - 1) % (size - 1) if self.config.pool_anchor else ts.pool_count % size
        pool = jax.tree.map(lambda stack, p: stack.at[slot].set(p), ts.pool, ts.params)
        return ts.replace(pool=pool, pool_count=ts.pool_count + 1)

    def _run_steps(self, env, ts: TrainState, steps: int, demos=None):
        return jax.lax.scan(lambda ts, _: self._step(env, ts, demos), ts, None, length=steps)
