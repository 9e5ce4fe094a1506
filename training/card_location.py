"""Training the card-location network (seed 003, issue #20): supervised, on positions files.

Read top to bottom: a config, the data (features, hard constraints and the true seat of every unseen card, from
`bridgerl.agents.card_location`), one jitted epoch (a shuffled ``lax.scan`` of Adam steps on the masked
cross-entropy), and the loop that evaluates the validation positions after each epoch, keeps the model with the
lowest validation loss, checkpoints and resumes. Same seed, data and device: the same run.
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

from bridgerl.agents.card_location import (FEATURES, FORMAT, build_network, encode, location_loss, log_uniform_prior,
                                           masked_log_probs,
                                           positions_inputs)
from bridgerl.agents.checkpoint import load_weights, save_weights
from bridgerl.core.files import atomic_write_text
from bridgerl.core.positions import load_positions
from bridgerl.training.run import _load_state, _save_state

MODEL_FILE, STATE_FILE, LOG_FILE = "model.msgpack", "train_state.msgpack", "log.jsonl"


@dataclass(frozen=True)
class LocationConfig:
    hidden: tuple[int, ...] = (256, 256)
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    batch_size: int = 256
    epochs: int = 20

    def __post_init__(self):
        for name in ("batch_size", "epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.learning_rate > 0 or not self.weight_decay >= 0:
            raise ValueError(f"learning rate must be > 0 and weight decay >= 0, got {self.learning_rate}, "
                             f"{self.weight_decay}")


def load_examples(path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features int8[P, F], allowed bool[P, 52, 3], log uniform prior float32[P, 52, 3], target int8[P, 52]) of
    every position of a positions file."""
    positions = load_positions(path)
    if len(positions) == 0:
        raise ValueError(f"{path}: no positions to learn from")
    inputs, target = positions_inputs(positions)
    x, allowed, counts = encode(**inputs)
    return x, allowed, log_uniform_prior(allowed, counts), target.astype(np.int8)


def check_splits(train, valid) -> None:
    """Honest evaluation: the model learns only from training-split deals, selects on the validation split, and
    never sees the test split (named by the positions files' ``source``)."""
    sources = {name: str(load_positions(path).meta["source"]) for name, path in (("--train", train),
                                                                                  ("--valid", valid))}
    if sources["--train"] in ("valid", "test"):
        raise ValueError(f"{train}: positions of the {sources['--train']} split; train on training-split deals "
                         "(bridgerl data positions --data train)")
    if sources["--valid"] == "test":
        raise ValueError(f"{valid}: positions of the test split; select on the valid split (--data valid)")
    if Path(train).resolve() == Path(valid).resolve():
        raise ValueError(f"{train} is both --train and --valid; select on positions of other deals")


def make_epoch(graphdef, optimizer, batch_size: int):
    """One epoch: the examples shuffled by ``key``, cut into full batches, an Adam step on each (``lax.scan``)."""

    def loss_fn(params, x, allowed, prior, target):
        return location_loss(masked_log_probs(nnx.merge(graphdef, params)(x), allowed, prior), target)

    @jax.jit
    def epoch(params, opt_state, key, x, allowed, prior, target):
        batches = x.shape[0] // batch_size
        order = jax.random.permutation(key, x.shape[0])[:batches * batch_size].reshape(batches, batch_size)

        def step(carry, idx):
            params, opt_state = carry
            loss, grads = jax.value_and_grad(loss_fn)(params, x[idx], allowed[idx], prior[idx], target[idx])
            updates, opt_state = optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), loss

        (params, opt_state), losses = jax.lax.scan(step, (params, opt_state), order)
        return params, opt_state, losses.mean()

    return epoch


def make_evaluate(graphdef):
    @jax.jit
    def total(params, x, allowed, prior, target):
        """(summed log-loss, unseen cards) of one chunk."""
        log_probs = masked_log_probs(nnx.merge(graphdef, params)(x), allowed, prior)
        picked = jnp.take_along_axis(log_probs, jnp.maximum(target, 0)[..., None], -1)[..., 0]
        known = target >= 0
        return -(picked * known).sum(), known.sum()

    def evaluate(params, x, allowed, prior, target, chunk: int = 4096) -> float:
        loss = count = 0.0
        for start in range(0, len(x), chunk):
            part = slice(start, start + chunk)
            s, n = total(params, x[part], allowed[part], prior[part], target[part])
            loss, count = loss + float(s), count + float(n)
        return loss / max(count, 1.0)

    return evaluate


def train_location(out, train, valid, config: LocationConfig = LocationConfig(), seed: int = 0, resume: bool = False,
                   force: bool = False, progress: bool = True, command: str | None = None) -> dict:
    """Train on the positions file ``train``, select on ``valid``; writes ``out``/model.msgpack (the epoch with the
    lowest validation log-loss), train_state.msgpack and log.jsonl. Returns the last log record."""
    out = Path(out)
    state_path = out / STATE_FILE
    if out.exists() and any(out.iterdir()) and not (resume or force):
        raise FileExistsError(f"{out}: holds a run; pass --resume to continue it or --force to start over")
    if resume and not state_path.exists():
        raise FileNotFoundError(f"{out}: no saved run to resume ({STATE_FILE} missing)")
    check_splits(train, valid)
    x, allowed, prior, target = load_examples(train)  # read (and checked) before anything in --out is touched
    vx, vallowed, vprior, vtarget = load_examples(valid)
    if force and not resume:
        model = out / MODEL_FILE
        if model.exists():
            try:
                load_weights(model, format=FORMAT, what="card-location")
            except ValueError:
                raise FileExistsError(f"{model} is not a card-location model; --force replaces only a "
                                      "card-location run: choose another --out") from None
        for name in (MODEL_FILE, STATE_FILE, LOG_FILE):
            (out / name).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    if len(x) < config.batch_size:
        raise ValueError(f"{train}: {len(x)} positions, fewer than one batch of {config.batch_size}")
    network = build_network(config.hidden, seed=seed)
    graphdef, params = nnx.split(network)
    optimizer = optax.adamw(config.learning_rate, weight_decay=config.weight_decay)
    opt_state = optimizer.init(params)
    key = jax.random.PRNGKey(seed)
    settings = {k: v for k, v in dataclasses.asdict(config).items() if k != "epochs"}  # a resume may add epochs
    meta = {"config": settings, "seed": seed, "data": [str(train), str(valid)], "env_id": None,
            "env_options": None, "pretrain": None, "constructive": None}
    carry = {"params": params, "opt_state": opt_state, "key": key, "epoch": jnp.int32(0),
             "best": jnp.float32(np.inf)}
    if resume:
        carry = _load_state(state_path, carry, meta)
        log = out / LOG_FILE  # lines of epochs past the saved state (cut short by an interruption) go
        kept = [line for line in (log.read_text().splitlines() if log.exists() else [])
                if line.strip() and json.loads(line)["epoch"] <= int(carry["epoch"])]
        atomic_write_text(log, "".join(line + "\n" for line in kept))
    epoch_fn, evaluate = make_epoch(graphdef, optimizer, config.batch_size), make_evaluate(graphdef)
    data = (jnp.asarray(x), jnp.asarray(allowed), jnp.asarray(prior), jnp.asarray(target))
    record: dict = {}
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=config.epochs, initial=int(carry["epoch"]), unit="epoch", desc=f"card-location -> {out}")
    try:
        while int(carry["epoch"]) < config.epochs:
            key, sub = jax.random.split(carry["key"])
            params, opt_state, train_loss = epoch_fn(carry["params"], carry["opt_state"], sub, *data)
            if not np.isfinite(float(train_loss)):
                raise ValueError(f"training loss became {float(train_loss)} at epoch {int(carry['epoch']) + 1}; "
                                 "lower --learning-rate")
            valid_loss = evaluate(params, vx, vallowed, vprior, vtarget)
            epoch = int(carry["epoch"]) + 1
            best = float(carry["best"])
            record = {"epoch": epoch, "train_log_loss": float(train_loss), "valid_log_loss": valid_loss,
                      "train_positions": len(x), "valid_positions": len(vx)}
            if np.float32(valid_loss) < np.float32(best):  # the saved best is float32
                best = valid_loss
                metadata = {"kind": "card-location", "features": FEATURES, "hidden": list(config.hidden),
                            "epoch": epoch, "valid_log_loss": valid_loss, "seed": seed,
                            "config": dataclasses.asdict(config), "data": [str(train), str(valid)],
                            "command": command or " ".join(["bridgerl", *sys.argv[1:]])}
                save_weights(out / MODEL_FILE, nnx.to_pure_dict(params), metadata, format=FORMAT)
                record["kept"] = True
            carry = {"params": params, "opt_state": opt_state, "key": key, "epoch": jnp.int32(epoch),
                     "best": jnp.float32(best)}
            with open(out / LOG_FILE, "a") as handle:  # a line past the saved state is dropped by --resume
                handle.write(json.dumps(record) + "\n")
            _save_state(state_path, carry, meta)
            if bar is not None:
                bar.update(1)
                bar.set_postfix(train=f"{record['train_log_loss']:.4f}", valid=f"{valid_loss:.4f}")
    finally:
        if bar is not None:
            bar.close()
    atomic_write_text(out / "config.json", json.dumps(meta, indent=1))
    return record


__all__ = ["LocationConfig", "train_location", "load_examples"]
