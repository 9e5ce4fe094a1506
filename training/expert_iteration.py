"""Expert iteration for competitive bidders (issue #65): a PPO network fine-tuned from its base toward the calls of
its own search at the table (``bridgerl train distill``).

One round: ``bridgerl data bid-labels --bidder bidsearch:...,base=BASE --data fresh`` bids fresh deals with the
search at all four seats and marks the decisions it searched (at least two candidates, no fallback); then this
trainer starts from BASE's weights and minimises, over batches drawn uniformly from every labelled position,

    cross-entropy(network, the search's call)            on the searched positions
  + bc_weight x cross-entropy(network, BASE's own policy) on every position (its own behaviour-cloning term)

so the network moves toward the search where the search decided and stays itself elsewhere. The base's policy is
computed once, from the base's weights, before the first update. The next round labels with the new network as
BASE (Anthony et al. 2017's expert iteration; DeepMind's policy iteration for bridge bidding).

Read top to bottom: the config, the losses, one jitted chunk of Adam updates (a ``lax.scan``), the recipe the one
training loop drives (resumable: the state is saved after every chunk; the log reports the agreement with the search
on its searched positions and with the base everywhere, and the share of searched positions where the search's call
is not the base's greedy call: ``search_changed_base``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import nnx

from bridgerl.agents.learned.checkpoint import PPO_FORMAT, checkpoint_file, load_weights, save_weights
from bridgerl.agents.learned.networks import masked_log_softmax
from bridgerl.core.competitive import OBSERVATION_SIZE
from bridgerl.training.loop import Loop, run_loop
from bridgerl.training.state import resume_state

MODEL_FILE, STATE_FILE, LOG_FILE = "model.msgpack", "train_state.msgpack", "log.jsonl"


@dataclass(frozen=True)
class DistillConfig:
    updates: int = 10_000
    batch_size: int = 256
    learning_rate: float = 1e-4
    learning_rate_end: float = 0.0   # linear decay to this over the updates
    bc_weight: float = 1.0           # weight of the cross-entropy to the base's own policy
    chunk: int = 500                 # updates between saved states and log lines

    def __post_init__(self):
        for name in ("updates", "batch_size", "chunk"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.learning_rate > 0 or self.learning_rate_end < 0 or self.bc_weight < 0:
            raise ValueError(f"learning rate must be > 0, its end and bc_weight >= 0, got {self.learning_rate}, "
                             f"{self.learning_rate_end}, {self.bc_weight}")


def search_labels(paths) -> dict:
    """{"obs" int8[n, 231], "mask" bool[n, 38], "call" int32[n], "searched" bool[n]} of one or more label files of
    `data bid-labels` (the searched flags of a search teacher; a file without any searched position is refused)."""
    from bridgerl.training.bid_labels import LabelError, _read, check_label_files

    paths = [paths] if isinstance(paths, (str, Path)) else list(paths)
    check_label_files(paths, "--labels")
    parts = []
    for path in paths:
        _, arrays = _read(Path(path))
        if not arrays["searched"].any():
            raise LabelError(f"--labels {path}: no searched position (label with a bidsearch: teacher)")
        parts.append(arrays)
    return {"obs": np.concatenate([np.unpackbits(p["obs_bits"], axis=1, count=OBSERVATION_SIZE).astype(np.int8)
                                   for p in parts]),
            "mask": np.concatenate([p["mask"].astype(bool) for p in parts]),
            "call": np.concatenate([p["call"].astype(np.int32) for p in parts]),
            "searched": np.concatenate([p["searched"].astype(bool) for p in parts])}


def losses(logits, mask, call, searched, base_probs):
    """(search cross-entropy on the searched rows, cross-entropy to the base's policy on every row)."""
    logps = masked_log_softmax(logits, mask)
    chosen = jnp.take_along_axis(logps, call[:, None], 1)[:, 0]
    search = -jnp.where(searched, chosen, 0.0).sum() / jnp.maximum(searched.sum(), 1)
    own = -jnp.where(mask, base_probs * logps, 0.0).sum(1).mean()
    return search, own


def _file_sha(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def distill(out, base, labels, config: DistillConfig = DistillConfig(), seed: int = 0, resume: bool = False,
            force: bool = False, progress: bool = True, command: str | None = None) -> dict:
    """Fine-tune the PPO network ``base`` on the search ``labels`` (module docstring); writes ``out``/model.msgpack
    (a PPO model, loadable as ``ppo:OUT``), train_state.msgpack and log.jsonl. Returns the last log record."""
    from bridgerl.agents import PPOAgent
    from bridgerl.training.supervised import check_run_dir

    out = Path(out)
    state_path = check_run_dir(out, resume, force)
    files = [labels] if isinstance(labels, (str, Path)) else list(labels)
    data = search_labels(files)  # read and checked before anything in --out is touched
    agent = PPOAgent.load(base, env_id="competitive_bidding")
    if agent.constructive is not None:
        raise ValueError(f"--base {base}: a PPO model with a constructive bidder; distil a network that makes all "
                         "its own calls")
    base_file = checkpoint_file(base)
    metadata, _ = load_weights(base_file, format=PPO_FORMAT, what="PPO")
    base_probs = np.concatenate([agent.policy_probabilities(data["obs"][s:s + 4096], data["mask"][s:s + 4096])
                                 for s in range(0, len(data["call"]), 4096)]).astype(np.float32)
    if force and not resume:
        for name in (MODEL_FILE, STATE_FILE, LOG_FILE):
            (out / name).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    graphdef, params = agent._graphdef, agent._params
    schedule = optax.linear_schedule(config.learning_rate, config.learning_rate_end, config.updates)
    optimizer = optax.adam(schedule)
    meta = {"config": dataclasses.asdict(config), "seed": seed,
            "data": [f"{f} sha256 {_file_sha(f)}" for f in files], "env_id": None,
            "env_options": {"kind": "distill", "base": str(base), "base_sha256": _file_sha(base_file)},
            "pretrain": None, "constructive": None}
    carry = {"params": params, "opt_state": optimizer.init(params), "key": jax.random.PRNGKey(seed),
             "updates": jnp.int32(0)}
    if resume:
        carry = resume_state(state_path, carry, meta, DistillConfig, None, out / LOG_FILE, "updates",
                             lambda c: int(c["updates"]))
    recipe = _DistillRecipe(graphdef, optimizer, config, data, base_probs, out, metadata, meta,
                            command or " ".join(["bridgerl", *sys.argv[1:]]))
    loop = Loop(out=out, state_file=state_path, meta=meta, total=config.updates, unit="update",
                desc=f"distil -> {out}", chunk=config.chunk, progress=progress, log_file=LOG_FILE)
    carry, record, _ = run_loop(recipe, carry, loop)
    return record


class _DistillRecipe:
    def __init__(self, graphdef, optimizer, config: DistillConfig, data: dict, base_probs, out: Path,
                 base_metadata: dict, meta: dict, command: str):
        self.graphdef, self.config, self.out, self.command = graphdef, config, out, command
        self.base_metadata, self.meta = base_metadata, meta
        self.data = {**{k: jnp.asarray(v) for k, v in data.items()}, "base": jnp.asarray(base_probs)}
        self.rows = len(data["call"])
        self.searched = int(data["searched"].sum())
        batch, weight = config.batch_size, config.bc_weight

        def loss_fn(params, rows):
            logits = nnx.merge(graphdef, params)(self.data["obs"][rows])
            search, own = losses(logits, self.data["mask"][rows], self.data["call"][rows],
                                 self.data["searched"][rows], self.data["base"][rows])
            return search + weight * own, (search, own)

        def chunk(params, opt_state, key, n):
            def body(carry, key):
                params, opt_state = carry
                rows = jax.random.randint(key, (batch,), 0, self.rows)
                (_, parts), grads = jax.value_and_grad(loss_fn, has_aux=True)(params, rows)
                updates, opt_state = optimizer.update(grads, opt_state, params)
                return (optax.apply_updates(params, updates), opt_state), parts

            (params, opt_state), parts = jax.lax.scan(body, (params, opt_state), jax.random.split(key, n))
            return params, opt_state, jax.tree.map(jnp.mean, parts)

        self._chunk = jax.jit(chunk, static_argnums=3)

        def greedy(params, obs, mask):
            return jnp.argmax(jnp.where(mask, nnx.merge(graphdef, params)(obs), -jnp.inf), -1)

        self._greedy = jax.jit(greedy)

    def done(self, carry) -> int:
        return int(carry["updates"])

    def step(self, carry, n: int):
        key, sub = jax.random.split(carry["key"])
        params, opt_state, (search, own) = self._chunk(carry["params"], carry["opt_state"], sub, n)
        done = int(carry["updates"]) + n
        if not (np.isfinite(float(search)) and np.isfinite(float(own))):
            raise ValueError(f"distillation loss became {float(search)}, {float(own)} at update {done}; lower "
                             "--learning-rate")
        carry = {**carry, "params": params, "opt_state": opt_state, "key": key, "updates": jnp.int32(done)}
        return carry, {"updates": done, "search_cross_entropy": float(search), "own_cross_entropy": float(own)}

    def agreement(self, params) -> dict:
        calls = np.concatenate([np.asarray(self._greedy(params, self.data["obs"][s:s + 4096],
                                                        self.data["mask"][s:s + 4096]))
                                for s in range(0, self.rows, 4096)])
        searched = np.asarray(self.data["searched"])
        base = np.asarray(jnp.argmax(jnp.where(self.data["mask"], self.data["base"], -1.0), -1))
        labels = np.asarray(self.data["call"])
        return {"search_agreement": float((calls == labels)[searched].mean()),
                "base_agreement": float((calls == base).mean()), "positions": self.rows,
                "searched_positions": self.searched,
                "search_changed_base": float((base != labels)[searched].mean())}  # the labels' own share

    def evaluate(self, carry, record: dict):
        return carry, self.agreement(carry["params"])

    def checkpoint(self, carry, evaluation) -> None:
        metadata = {**self.base_metadata, "distilled": {"from": self.meta["env_options"]["base"],
                                                        "from_sha256": self.meta["env_options"]["base_sha256"],
                                                        "labels": self.meta["data"],
                                                        "updates": int(carry["updates"]),
                                                        "config": self.meta["config"], "seed": self.meta["seed"]},
                    "command": self.command}
        metadata.pop("dtype", None)
        save_weights(self.out / MODEL_FILE, nnx.to_pure_dict(carry["params"]), metadata, format=PPO_FORMAT)

    def postfix(self, record: dict, evaluation) -> dict:
        shown = {"search": f"{record['search_cross_entropy']:.3f}", "own": f"{record['own_cross_entropy']:.3f}"}
        if evaluation:
            shown["agree"] = f"{evaluation['search_agreement']:.3f}"
        return shown


__all__ = ["DistillConfig", "distill", "losses", "search_labels"]
