"""Self-play fine-tuning of the learned card player (issue #37's second stage): PPO in the JAX whole deal.

Read top to bottom: a config, the deals (dataset rows with the contracts a positions file's auctions reached, so
the contracts are those of real bidding), one jitted update (all tables played from the opening lead to the last
card by the current network, every seat sampling from its softmax over the legal cards; then clipped-PPO epochs
over the decisions), and the loop that scores the validation positions (trick loss, as `train card-player`) every
``eval_every`` updates, keeps the best network, checkpoints and resumes.

The return of a decision is what the chooser's side takes from its trick on: the tricks of that side over the rest
of the deal (13 less the tricks done before it, shared between the sides). The value head predicts it as a share
of the tricks left (the first ``warmup`` updates train it alone: it starts untrained); the advantage is the
difference in tricks, normalised over the batch. Both sides are the same
network (self-play); declarer plays dummy's cards from declarer's view, as at the table.
Same seed, data and device: the same run.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from bridgerl.agents.learned.card_player import FORMAT, WHAT, CardPlayer, build
from bridgerl.agents.learned.checkpoint import save_weights
from bridgerl.agents.learned.networks import NEG as _NEG
from bridgerl.core.bridge import CARD_OFFSET
from bridgerl.core.files import atomic_write_text
from bridgerl.core.positions import load_positions
from bridgerl.training.card_player import examples, trick_loss
from bridgerl.training.loop import Loop, run_loop
from bridgerl.training.state import resume_state
from bridgerl.training.supervised import LOG_FILE, MODEL_FILE, STATE_FILE, Task, check_run_dir, make_evaluate



@dataclass(frozen=True)
class SelfPlayConfig:
    tables: int = 256            # deals played per update
    updates: int = 100
    learning_rate: float = 1e-5
    clip: float = 0.2
    ppo_epochs: int = 2
    minibatches: int = 4
    value_weight: float = 0.5
    entropy_weight: float = 0.0
    eval_every: int = 10
    warmup: int = 5              # first updates that train the value head only (it starts untrained)

    def __post_init__(self):
        if self.warmup < 0:
            raise ValueError(f"warmup must be 0 or more, got {self.warmup}")
        for name in ("tables", "updates", "ppo_epochs", "minibatches", "eval_every"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.learning_rate > 0 or not self.clip > 0:
            raise ValueError(f"learning rate and clip must be > 0, got {self.learning_rate}, {self.clip}")
        if (self.tables * 52) % self.minibatches:
            raise ValueError(f"minibatches ({self.minibatches}) must divide the decisions of an update "
                             f"({self.tables} x 52)")


def contracts_of(paths) -> tuple[str, np.ndarray, np.ndarray]:
    """(source dataset, rows int[D], contracts int[D, 3] as (bid 0..34, penalty, declarer)) of the positions
    files' deals that were played (one source for all)."""
    sources, rows, contracts = set(), [], []
    for path in paths:
        positions = load_positions(path)
        sources.add(str(positions.meta["source"]))
        c = positions.deals["contract"].astype(np.int64)
        played = c[:, 0] > 0
        rows.append(positions.deals["row"][played].astype(np.int64))
        contracts.append(np.stack([(c[played, 0] - 1) * 5 + c[played, 1], c[played, 2], c[played, 3]], 1))
    if len(sources) != 1:
        raise ValueError(f"--deals files come from {len(sources)} datasets ({', '.join(sorted(sources))}); "
                         "give files of one dataset")
    source = sources.pop()
    if source in ("valid", "test"):
        raise ValueError(f"--deals: positions of the {source} split; fine-tune on training-split deals")
    return source, np.concatenate(rows), np.concatenate(contracts)


def make_update(env, graphdef, optimizer, config: SelfPlayConfig):
    """One update: ``tables`` deals played out by the network, then the PPO epochs (all in one jit)."""
    from bridgerl.envs import jax_play_features

    n = config.tables * 52

    def play(params, key, index, contract, penalty, declarer):
        network = nnx.merge(graphdef, params)
        states = jax.vmap(env.opening_lead)(index, contract, penalty, declarer)

        def body(carry, _):
            states, key = carry
            key, sub = jax.random.split(key)
            x = jax.vmap(jax_play_features)(states).astype(jnp.float32)
            legal = states.legal_action_mask[:, -52:]
            logits, value = network.policy_value(x)
            masked = jnp.where(legal, logits, _NEG)
            card = jax.random.categorical(sub, masked)
            logp = jnp.take_along_axis(jax.nn.log_softmax(masked), card[:, None], 1)[:, 0]
            declaring = states.current_player % 2 == states.declarer % 2
            record = (x.astype(jnp.int8), legal, card, logp, value, declaring, states.tricks, states._done)
            return (jax.vmap(env.step)(states, CARD_OFFSET + card), key), record

        (final, _), trajectory = jax.lax.scan(body, (states, key), None, length=52)
        return final, trajectory

    def loss_fn(params, batch, policy_weight):
        x, legal, card, old_logp, advantage, share = batch
        logits, value = nnx.merge(graphdef, params).policy_value(x.astype(jnp.float32))
        log_probs = jax.nn.log_softmax(jnp.where(legal, logits, _NEG))
        logp = jnp.take_along_axis(log_probs, card[:, None], 1)[:, 0]
        ratio = jnp.exp(logp - old_logp)
        policy = -jnp.minimum(ratio * advantage,
                              jnp.clip(ratio, 1 - config.clip, 1 + config.clip) * advantage).mean()
        entropy = -jnp.where(legal, jnp.exp(log_probs) * log_probs, 0.0).sum(1).mean()
        value_loss = jnp.square(value - share).mean()
        total = policy_weight * (policy - config.entropy_weight * entropy) + config.value_weight * value_loss
        return total, (policy, value_loss)

    @jax.jit
    def update(params, opt_state, key, index, contract, penalty, declarer, policy_weight):
        key, play_key = jax.random.split(key)
        final, (x, legal, card, logp, value, declaring, tricks, done) = play(params, play_key, index, contract,
                                                                              penalty, declarer)
        left = (13 - done).astype(jnp.float32)                                  # [52, T] tricks from this one on
        declarer_from = (final.tricks[None, :] - tricks).astype(jnp.float32)
        returns = jnp.where(declaring, declarer_from, left - declarer_from)
        advantage = returns - value * left
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-6)
        data = tuple(a.reshape(n, *a.shape[2:]) for a in (x, legal, card, logp, advantage, returns / left))

        def epoch(carry, k):
            params, opt_state = carry
            order = jax.random.permutation(k, n).reshape(config.minibatches, -1)

            def step(carry, idx):
                params, opt_state = carry
                (loss, parts), grads = jax.value_and_grad(loss_fn, has_aux=True)(
                    params, tuple(a[idx] for a in data), policy_weight)
                updates, opt_state = optimizer.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), parts

            return jax.lax.scan(step, (params, opt_state), order)

        (params, opt_state), (policy, value_loss) = jax.lax.scan(
            epoch, (params, opt_state), jax.random.split(key, config.ppo_epochs))
        declarer_tricks = final.tricks.astype(jnp.float32).mean()
        return params, opt_state, {"policy_loss": policy.mean(), "value_loss": value_loss.mean(),
                                   "declarer_tricks": declarer_tricks}

    return update


def train_selfplay(out, init, deals, valid, config: SelfPlayConfig = SelfPlayConfig(), seed: int = 0,
                   resume: bool = False, force: bool = False, progress: bool = True, command: str | None = None
                   ) -> dict:
    """Fine-tune the card player at ``init`` by self-play on the deals and contracts of the positions file(s)
    ``deals``; keep the network with the lowest trick loss on the ``valid`` positions (the starting network
    included, as update 0). Writes ``out``/model.msgpack, train_state.msgpack and log.jsonl."""
    from bridgerl.envs import jaxenv

    deals = [deals] if isinstance(deals, (str, Path)) else list(deals)
    out = Path(out)
    state_path = check_run_dir(out, resume, force)
    if str(load_positions(valid).meta["source"]) == "test":
        raise ValueError(f"{valid}: positions of the test split; select on the valid split (--data valid)")
    start = CardPlayer.load(init)
    if start.auction:
        raise ValueError(f"{init}: a card player that reads the auction; self-play starts at the opening lead of "
                         "the canonical auction, which would feed it calls nobody made")
    source, rows, contracts = contracts_of(deals)
    valid_data = examples(valid)
    if force and not resume:
        for name in (MODEL_FILE, STATE_FILE, LOG_FILE):
            (out / name).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    env = jaxenv.make("bridge", dataset=source)
    hidden = tuple(start.metadata["hidden"])
    network = build(start.metadata["features"], hidden)
    graphdef, params = nnx.split(network)
    params = start._params
    optimizer = optax.adam(config.learning_rate)
    opt_state = optimizer.init(params)
    meta = {"config": dataclasses.asdict(config), "seed": seed, "data": [*map(str, deals), str(valid), str(init)],
            "env_id": "bridge", "env_options": {"kind": "card-player-selfplay"}, "pretrain": None,
            "constructive": None}
    meta["config"].pop("updates")  # a resume may add updates
    select = make_evaluate(Task(kind=WHAT, format=FORMAT, features=0, build=None, examples=None, loss=trick_loss,
                                metric="trick_loss"), graphdef)
    carry = {"params": params, "opt_state": opt_state, "key": jax.random.PRNGKey(seed),
             "update": jnp.int32(0), "best": jnp.float32(np.inf)}
    if resume:
        carry = resume_state(state_path, carry, meta, SelfPlayConfig, None, out / LOG_FILE, "update",
                             lambda c: int(c["update"]))
    recipe = _SelfPlayRecipe(make_update(env, graphdef, optimizer, config), select, valid_data, rows, contracts,
                             config, seed, out, start.metadata, {
                                 "init": str(init), "seed": seed, "config": dataclasses.asdict(config),
                                 "deals": [*map(str, deals)], "valid": str(valid),
                                 "command": command or " ".join(["bridgerl", *sys.argv[1:]])})
    first = int(carry["update"]) == 0 and not np.isfinite(float(carry["best"]))  # the starting network, update 0
    loop = Loop(out=out, state_file=state_path, meta=meta, total=config.updates, unit="update",
                desc=f"self-play -> {out}", eval_every=config.eval_every, checkpoint_seconds=None,
                evaluate_first=first, first_record={"update": 0}, progress=progress, log_file=LOG_FILE)
    carry, record, _ = run_loop(recipe, carry, loop)
    atomic_write_text(out / "config.json", json.dumps(meta, indent=1))
    return record


__all__ = ["SelfPlayConfig", "contracts_of", "make_update", "train_selfplay"]


class _SelfPlayRecipe:
    """One update a unit (`training.loop`): ``tables`` deals of the positions files' deals and contracts played out
    by the network at every seat, a PPO step on the declaring side's tricks; every ``eval_every`` updates the trick
    loss on the valid positions, the best network kept (the state is saved with each evaluation)."""

    def __init__(self, update, select, valid_data, rows, contracts, config: SelfPlayConfig, seed: int, out: Path,
                 start_metadata: dict, selfplay: dict):
        self.update, self.select, self.valid_data, self.rows, self.contracts = update, select, valid_data, rows, \
            contracts
        self.config, self.seed, self.out, self.start_metadata, self.selfplay = config, seed, out, start_metadata, \
            selfplay

    def done(self, carry) -> int:
        return int(carry["update"])

    def step(self, carry, n: int):
        u = int(carry["update"]) + 1
        rng = np.random.default_rng([self.seed, u])  # the deals of update u, whatever was resumed
        pick = rng.choice(len(self.rows), self.config.tables, replace=len(self.rows) < self.config.tables)
        c = self.contracts[pick]
        key, sub = jax.random.split(carry["key"])
        params, opt_state, stats = self.update(carry["params"], carry["opt_state"], sub, jnp.asarray(self.rows[pick]),
                                               jnp.asarray(c[:, 0]), jnp.asarray(c[:, 1]), jnp.asarray(c[:, 2]),
                                               jnp.float32(u > self.config.warmup))
        stats = {k: float(v) for k, v in stats.items()}
        if not all(np.isfinite(list(stats.values()))):
            raise ValueError(f"self-play loss became {stats} at update {u}; lower --learning-rate")
        carry = {**carry, "params": params, "opt_state": opt_state, "key": key, "update": jnp.int32(u)}
        return carry, {"update": u, **stats}

    def evaluate(self, carry, record: dict):
        loss = self.select(carry["params"], self.valid_data)
        fields = {"valid_trick_loss": loss}
        if np.float32(loss) < np.float32(carry["best"]):
            metadata = {**self.start_metadata, "epoch": None, "valid_trick_loss": loss,
                        "selfplay": {**self.selfplay, "update": int(carry["update"])}}
            metadata["selfplay"] = {key: metadata["selfplay"][key]
                                    for key in ("init", "update", "seed", "config", "deals", "valid", "command")}
            save_weights(self.out / MODEL_FILE, nnx.to_pure_dict(carry["params"]), metadata, format=FORMAT)
            fields["kept"] = True
            carry = {**carry, "best": jnp.float32(loss)}
        return carry, fields

    def checkpoint(self, carry, evaluation) -> None:
        pass  # the best network is written when it is found

    def postfix(self, record: dict, evaluation) -> dict:
        return {k: f"{v:.4f}" for k, v in record.items() if isinstance(v, float)}
