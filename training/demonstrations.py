"""Pretraining a bidding Q-network from a rule bidder's auctions (DQfD-style, Hester et al. 2018), the
stabiliser of the competitive self-play DQN: open peers start self-play from a supervised policy, and
`RuleBidder(competitive=True)` is ours.

`rule_demonstrations` plays the rule bidder at all four seats on training deals (with a small share of random
legal calls, so the network also sees auctions the rules never produce) and keeps every call with its seat's
final return. `pretrain_q` fits the network: a Huber regression of Q(s, a) on that Monte-Carlo return, plus the
large-margin loss max_a [Q(s, a) + margin 1{a != a_rule}] - Q(s, a_rule) on the rule's own calls, so the greedy
policy starts as the rule bidder's and the values start at what its auctions earn.
"""

from __future__ import annotations

import dataclasses
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx, struct

from bridgerl.core import load_dataset


@dataclasses.dataclass(frozen=True)
class PretrainConfig:
    """How `bridgerl train competitive --pretrain-deals N` starts its network (defaults measured in docs/results.md)."""
    deals: int = 20_000            # training deals whose rule auctions are the demonstrations
    updates: int = 20_000          # gradient updates (batches of ``batch_size`` calls)
    learning_rate: float = 1e-3
    learning_rate_end: float | None = None  # None: constant; else linear decay to this over the updates (PPO clones)
    batch_size: int = 256
    margin: float = 1.0
    regression_weight: float = 0.1
    random_share: float = 0.05
    seed: int = 0
    teacher: str | None = None     # None: the rule bidder's auctions of ``deals`` rows of the training data (with
                                   # ``random_share``); a bidder spec (`rules` too): its labels of ``deals`` fresh
                                   # deals (`training.bid_labels`, the teacher's own auctions)
    demos: tuple[str, ...] = ()    # label files of `data bid-labels` to clone from instead (--demos)
    init: str | None = None        # a PPO checkpoint of the same size to start from (--init): its network replaces
                                   # the fresh one, and ``updates`` (0: none) go on cloning from it


@struct.dataclass
class Demonstrations:
    obs: np.ndarray        # int8[N, 231]
    mask: np.ndarray       # bool[N, 38]
    action: np.ndarray     # int32[N]
    ret: np.ndarray        # float32[N]: the caller's side's final return (par IMPs)
    expert: np.ndarray     # bool[N]: the rule bidder's own call (not a random one)
    target: np.ndarray | None = None  # float32[N, 38]: the teacher's distribution over the legal calls (soft
                                      # labels of `data bid-labels`; one-hot where it gave none); None: the calls


def behaviour_cloning_loss(logits, mask, action, expert, target=None):
    """Cross-entropy of the expert's calls, or of ``target`` [N, 38] (the teacher's distribution over the legal calls,
    soft labels) when given; rows with ``expert`` false count zero."""
    from bridgerl.agents.learned.networks import masked_log_softmax

    logps = masked_log_softmax(logits, mask)
    logp = (jnp.take_along_axis(logps, action[:, None], 1)[:, 0] if target is None
            else jnp.where(mask, target * logps, 0.0).sum(1))
    return -jnp.where(expert, logp, 0.0).sum() / jnp.maximum(expert.sum(), 1)


def large_margin_loss(q, mask, action, expert, margin: float, chosen=None):
    """DQfD's large-margin loss max_a [Q(s, a) + margin 1{a != a_E}] - Q(s, a_E) over legal a (``mask``), averaged
    over the rows whose call is the expert's (``expert``; the random calls count zero). The one copy used by
    pretraining (`pretrain_q`) and by the RL updates with ``demo_weight`` (`training.dqn`). ``chosen``: Q(s, a_E)
    when the caller has it already (one gather, so that its gradient sums as one)."""
    if chosen is None:
        chosen = jnp.take_along_axis(q, action[:, None], 1)[:, 0]
    others = jnp.where(mask, q + margin * (jnp.arange(q.shape[1]) != action[:, None]), -jnp.inf)
    return jnp.where(expert, others.max(1) - chosen, 0.0).sum() / jnp.maximum(expert.sum(), 1)


def rule_demonstrations(data="train", deals: int | None = None, random_share: float = 0.05, seed: int = 0,
                        progress: bool = False, teacher=None) -> Demonstrations:
    """Auctions of the competitive rule bidder (or ``teacher``, any competitive bidder) at all four seats on the
    first ``deals`` rows of ``data``."""
    from bridgerl.agents import RuleBidder
    from bridgerl.envs.competitive import CompetitiveBiddingEnv

    dataset = load_dataset(data)
    rows = range(len(dataset) if deals is None else min(deals, len(dataset)))
    rng = np.random.default_rng(seed)
    bidder = teacher if teacher is not None else RuleBidder(competitive=True)
    env = CompetitiveBiddingEnv(dataset=dataset, illegal="raise")
    obs, masks, actions, returns, expert = [], [], [], [], []
    if progress:
        from tqdm import tqdm

        rows = tqdm(rows, desc="rule demonstrations", unit="deal")
    for row in rows:
        observation, info = env.reset(options={"index": int(row)})
        seats, done = [], False
        while not done:
            mask = info["action_mask"].astype(bool)
            if rng.random() < random_share:
                action, by_rule = int(rng.choice(np.flatnonzero(mask))), False
            else:
                action, by_rule = bidder.act(observation, mask), True
            obs.append(observation)
            masks.append(mask)
            actions.append(action)
            expert.append(by_rule)
            seats.append(info["seat"])
            observation, _, done, _, info = env.step(action)
        returns.extend(info["returns"][seat] for seat in seats)
    return Demonstrations(np.asarray(obs, np.int8), np.asarray(masks, bool), np.asarray(actions, np.int32),
                          np.asarray(returns, np.float32), np.asarray(expert, bool))


def fit_demonstrations(loss_fn, params, demos: Demonstrations, steps: int, batch_size: int, learning_rate: float,
                       seed: int = 0, progress: bool = False, desc: str = "pretraining on demonstrations",
                       learning_rate_end: float | None = None):
    """Adam on ``loss_fn(params, batch) -> (loss, parts)`` over uniformly drawn batches of the demonstrations, 1000
    updates per compiled chunk (``steps`` rounded down to thousands, at least one chunk); returns (params, the parts
    averaged over the last chunk). ``learning_rate_end``: the rate falls linearly to it over the chunks. The one
    fitting loop of `pretrain_q` and PPO's `pretrain_policy`."""
    if len(demos.action) < batch_size:
        raise ValueError(f"{len(demos.action)} demonstration calls are fewer than one batch ({batch_size})")
    chunks = range(max(1, steps // 1000))
    rate = learning_rate
    if learning_rate_end is not None:
        rate = optax.linear_schedule(learning_rate, learning_rate_end, transition_steps=1000 * len(chunks))
    optimizer = optax.adam(rate)
    data = jax.tree.map(jnp.asarray, demos)

    @jax.jit
    def train(params, opt_state, key):
        def body(carry, key):
            params, opt_state = carry
            index = jax.random.randint(key, (batch_size,), 0, data.action.shape[0])
            batch = jax.tree.map(lambda a: a[index], data)
            (_, parts), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, batch)
            updates, opt_state = optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), parts

        (params, opt_state), parts = jax.lax.scan(body, (params, opt_state), jax.random.split(key, 1000))
        return params, opt_state, jax.tree.map(lambda a: a.mean(), parts)

    opt_state = optimizer.init(params)
    key = jax.random.PRNGKey(seed)
    if progress:
        from tqdm import tqdm

        chunks = tqdm(chunks, desc=desc, unit="k updates")
    for _ in chunks:
        key, chunk_key = jax.random.split(key)
        params, opt_state, parts = train(params, opt_state, chunk_key)
    return params, parts


def pretrain_q(graphdef, params, demos: Demonstrations, steps: int = 20_000, batch_size: int = 256,
               learning_rate: float = 3e-4, margin: float = 1.0, huber_delta: float = 24.0,
               regression_weight: float = 0.1, seed: int = 0, progress: bool = False):
    """Fit a Q-network's parameters to the demonstrations; returns (params, final losses dict)."""

    def loss_fn(params, batch):
        q = nnx.merge(graphdef, params)(batch.obs)
        chosen = jnp.take_along_axis(q, batch.action[:, None], 1)[:, 0]
        regression = optax.huber_loss(chosen - batch.ret, delta=huber_delta).mean()
        large_margin = large_margin_loss(q, batch.mask, batch.action, batch.expert, margin, chosen)
        return regression_weight * regression + large_margin, (regression, large_margin)

    params, parts = fit_demonstrations(loss_fn, params, demos, steps, batch_size, learning_rate, seed, progress)
    return params, {"regression": float(parts[0]), "large_margin": float(parts[1])}


def agreement(graphdef, params, demos: Demonstrations) -> float:
    """Share of the rule bidder's own calls that the network's greedy policy repeats."""
    q = np.asarray(nnx.merge(graphdef, params)(jnp.asarray(demos.obs[demos.expert])))
    greedy = np.where(demos.mask[demos.expert], q, -np.inf).argmax(1)
    return float((greedy == demos.action[demos.expert]).mean())


def pretrain_on(graphdef, params, demos: Demonstrations, config: PretrainConfig, huber_delta: float = 24.0,
                progress: bool = False):
    """`pretrain_q` with ``config``'s settings; returns (params, statistics dict)."""
    start = time.monotonic()
    params, losses = pretrain_q(graphdef, params, demos, config.updates, config.batch_size, config.learning_rate,
                                config.margin, huber_delta, config.regression_weight, config.seed, progress)
    return params, {"demonstration_calls": int(len(demos.action)), **losses,
                    "agreement": agreement(graphdef, params, demos), "seconds": time.monotonic() - start}


def pretrain_policy(graphdef, params, demos, updates: int = 20_000, batch_size: int = 256,
                    learning_rate: float = 1e-3, seed: int = 0, progress: bool = False, reward_scale: float = 0.1,
                    learning_rate_end: float | None = None):
    """Clone the teacher: the policy head's cross-entropy on the demonstrations' expert calls (the value head
    learns their Monte-Carlo returns x ``reward_scale`` beside it, the scale PPO's value head uses), from
    ``params``; ``updates`` 0 fits nothing (a network cloned already, kept as it is). Returns (params, statistics)."""
    start = time.monotonic()

    def loss_fn(params, batch):
        logits, values = nnx.merge(graphdef, params).policy_value(batch.obs)
        bc = behaviour_cloning_loss(logits, batch.mask, batch.action, batch.expert, batch.target)
        value = 0.5 * ((values - reward_scale * batch.ret) ** 2).mean()
        return bc + value, (bc, value)

    stats = {"demonstration_calls": int(len(demos.action))}
    if updates:
        params, parts = fit_demonstrations(loss_fn, params, demos, updates, batch_size, learning_rate, seed,
                                           progress, "cloning the teacher", learning_rate_end)
        stats.update(cross_entropy=float(parts[0]), value=float(parts[1]))
    return params, {**stats, "agreement": agreement(graphdef, params, demos), "seconds": time.monotonic() - start}
