"""Supervised training of the play networks on positions files (issue #20): the card-location network (seed 003),
the ISSN and the SSN (seed 004). One loop for all three; each is a `Task` (its network, its examples, its loss).

Read top to bottom: a config, the task, one jitted epoch (a shuffled ``lax.scan`` of AdamW steps, each batch
optionally augmented), and the loop that scores the validation positions after each epoch, keeps the model with the
lowest validation loss, checkpoints and resumes. Same seed, data and device: the same run.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import jax
import numpy as np
import optax
from flax import nnx

from bridgerl.agents.learned.checkpoint import load_weights, save_weights, weights_fit
from bridgerl.core.files import atomic_write_text
from bridgerl.core.positions import load_positions
from bridgerl.training.loop import Loop, run_loop
from bridgerl.training.state import resume_state

MODEL_FILE, STATE_FILE, LOG_FILE = "model.msgpack", "train_state.msgpack", "log.jsonl"


LR_DECAYS = ("constant", "cosine")


@dataclass(frozen=True)
class SupervisedConfig:
    hidden: tuple[int, ...] = (256, 256)
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    batch_size: int = 256
    epochs: int = 20
    lr_decay: str = "constant"  # or "cosine": from learning_rate to 0 over every step of the epochs

    def __post_init__(self):
        if self.lr_decay not in LR_DECAYS:
            raise ValueError(f"learning-rate decay must be one of {', '.join(LR_DECAYS)}, got {self.lr_decay!r}")
        for name in ("batch_size", "epochs"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")
        if not self.learning_rate > 0 or not self.weight_decay >= 0:
            raise ValueError(f"learning rate must be > 0 and weight decay >= 0, got {self.learning_rate}, "
                             f"{self.weight_decay}")
        if not self.hidden or min(self.hidden) < 1:
            raise ValueError(f"hidden sizes must be at least 1, got {self.hidden}")


@dataclass(frozen=True)
class Task:
    """What one kind of network learns: ``examples(path)`` -> a tuple of arrays (features first) of a positions
    file; ``loss(outputs, *rest)`` -> (summed loss, count) of a batch; ``augment(key, batch)`` -> batch, applied to
    training batches only (None: no augmentation); ``metric`` names the loss in the logs and metadata; ``settings``
    are saved in the metadata and must match on resume. ``select(outputs, *rest)`` -> (summed, count), named
    ``select_metric``: when given, the epoch kept is the one lowest on it over the validation examples (e.g. the
    card player's trick loss) rather than on the loss. ``valid_examples``: how the validation file is read, when
    not as the training files (e.g. a target the validation positions do not carry). ``check(train, valid)``: the
    split check of files that are not positions files (default `check_splits`)."""

    kind: str
    format: str
    features: int
    build: Callable
    examples: Callable
    loss: Callable
    metric: str
    augment: Callable | None = None
    settings: dict = field(default_factory=dict)
    select: Callable | None = None
    select_metric: str = ""
    valid_examples: Callable | None = None
    check: Callable | None = None


def check_splits(train: list, valid) -> None:
    """Honest evaluation: models learn only from training-split deals, select on the validation split, and never
    see the test split (named by the positions files' ``source``)."""
    for path in train:
        source = str(load_positions(path).meta["source"])
        if source in ("valid", "test"):
            raise ValueError(f"{path}: positions of the {source} split; train on training-split deals "
                             "(bridgerl data positions --data train)")
        if Path(path).resolve() == Path(valid).resolve():
            raise ValueError(f"{path} is both --train and --valid; select on positions of other deals")
    if str(load_positions(valid).meta["source"]) == "test":
        raise ValueError(f"{valid}: positions of the test split; select on the valid split (--data valid)")


def check_run_dir(out: Path, resume: bool, force: bool) -> Path:
    """The run state's path in ``out``; a run there without --resume or --force, or --resume with no saved run,
    is refused in one line."""
    state_path = Path(out) / STATE_FILE
    if Path(out).exists() and any(Path(out).iterdir()) and not (resume or force):
        raise FileExistsError(f"{out}: holds a run; pass --resume to continue it or --force to start over")
    if resume and not state_path.exists():
        raise FileNotFoundError(f"{out}: no saved run to resume ({STATE_FILE} missing)")
    return state_path


def load_examples(task: Task, paths: list, valid: bool = False) -> tuple:
    """The task's examples of every positions file in ``paths`` (read as validation files with ``valid``), joined."""
    read = task.valid_examples if valid and task.valid_examples is not None else task.examples
    parts = []
    for path in paths:
        part = read(path)
        if len(part[0]) == 0:
            raise ValueError(f"{path}: no positions to learn from")
        parts.append(part)
    return tuple(np.concatenate(arrays) for arrays in zip(*parts))


def make_epoch(task: Task, graphdef, optimizer, batch_size: int):
    """One epoch: the examples shuffled by ``key``, cut into full batches, an AdamW step on each (``lax.scan``)."""

    def loss_fn(params, batch):
        total, count = task.loss(nnx.merge(graphdef, params)(batch[0]), *batch[1:])
        return total / jax.numpy.maximum(count, 1)

    @jax.jit
    def epoch(params, opt_state, key, data):
        n = data[0].shape[0]
        batches = n // batch_size
        if task.augment is None:  # the key shuffles (so runs without augmentation keep their results)
            shuffle, keys = key, jax.numpy.zeros((batches, 2), jax.numpy.uint32)
        else:
            key, shuffle = jax.random.split(key)
            keys = jax.random.split(key, batches)
        order = jax.random.permutation(shuffle, n)[:batches * batch_size].reshape(batches, batch_size)

        def step(carry, inputs):
            params, opt_state = carry
            idx, k = inputs
            batch = tuple(a[idx] for a in data)
            if task.augment is not None:
                batch = task.augment(k, batch)
            loss, grads = jax.value_and_grad(loss_fn)(params, batch)
            updates, opt_state = optimizer.update(grads, opt_state, params)
            return (optax.apply_updates(params, updates), opt_state), loss

        (params, opt_state), losses = jax.lax.scan(step, (params, opt_state), (order, keys))
        return params, opt_state, losses.mean()

    return epoch


def make_evaluate(task: Task, graphdef, loss=None):
    loss = task.loss if loss is None else loss

    @jax.jit
    def total(params, batch):
        return loss(nnx.merge(graphdef, params)(batch[0]), *batch[1:])

    def evaluate(params, data, chunk: int = 4096) -> float:
        loss = count = 0.0
        for start in range(0, len(data[0]), chunk):
            s, c = total(params, tuple(a[start:start + chunk] for a in data))
            loss, count = loss + float(s), count + float(c)
        return loss / max(count, 1.0)

    return evaluate


def train_supervised(task: Task, out, train, valid, config: SupervisedConfig = SupervisedConfig(), seed: int = 0,
                     resume: bool = False, force: bool = False, progress: bool = True,
                     command: str | None = None, init: str | None = None) -> dict:
    """Train ``task`` on the positions file(s) ``train``, select on ``valid``; writes ``out``/model.msgpack (the
    epoch with the lowest validation loss), train_state.msgpack and log.jsonl. Returns the last log record.
    ``init``: a model of the same kind, features, settings and hidden sizes whose weights the run starts from (a
    fine-tune) instead of the seed's initialisation; the seed still shuffles."""
    train = [train] if isinstance(train, (str, Path)) else list(train)
    out = Path(out)
    state_path = check_run_dir(out, resume, force)
    (task.check or check_splits)(train, valid)
    start = _initial_weights(task, config, init) if init is not None else None  # a wrong --init refused first
    data = load_examples(task, train)  # read (and checked) before anything in --out is touched
    valid_data = load_examples(task, [valid], valid=True)
    graphdef, params = nnx.split(task.build(config.hidden, seed=seed))
    if start is not None:  # a fine-tune: the run starts from the model's weights
        if not weights_fit(params, start[0]):
            raise ValueError(f"--init {init}: its weights do not fit this run's network (a damaged or edited "
                             "checkpoint)")
        nnx.replace_by_pure_dict(params, start[0])
    if force and not resume:
        model = out / MODEL_FILE
        if model.exists():
            try:
                load_weights(model, format=task.format, what=task.kind)
            except ValueError:
                raise FileExistsError(f"{model} is not a {task.kind} model; --force replaces only a {task.kind} "
                                      "run: choose another --out") from None
        for name in (MODEL_FILE, STATE_FILE, LOG_FILE):
            (out / name).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    if len(data[0]) < config.batch_size:
        raise ValueError(f"{', '.join(map(str, train))}: {len(data[0])} positions, fewer than one batch of "
                         f"{config.batch_size}")
    rate = config.learning_rate
    if config.lr_decay == "cosine":  # the schedule spans the run's steps: a resume may not add epochs then
        rate = optax.cosine_decay_schedule(config.learning_rate, config.epochs * (len(data[0]) // config.batch_size))
    optimizer = optax.adamw(rate, weight_decay=config.weight_decay)
    opt_state = optimizer.init(params)
    settings = {k: v for k, v in dataclasses.asdict(config).items()
                if k != "epochs" or config.lr_decay == "cosine"}  # a resume may add epochs at a constant rate
    meta = {"config": settings, "seed": seed, "data": [*map(str, train), str(valid)], "env_id": None,
            "env_options": {"kind": task.kind, "features": task.features, **task.settings},
            "pretrain": None if init is None else {"init": str(init), "init_sha256": start[1]},
            "constructive": None}  # what load_state compares on --resume
    carry = {"params": params, "opt_state": opt_state, "key": jax.random.PRNGKey(seed),
             "epoch": jax.numpy.int32(0), "best": jax.numpy.float32(np.inf)}
    if resume:
        carry = resume_state(state_path, carry, meta, SupervisedConfig, None, out / LOG_FILE, "epoch",
                             lambda c: int(c["epoch"]))
    recipe = _SupervisedRecipe(task, graphdef, optimizer, config, data, valid_data, out, seed,
                               [*map(str, train), str(valid)], command, meta["pretrain"])
    loop = Loop(out=out, state_file=state_path, meta=meta, total=config.epochs, unit="epoch",
                desc=f"{task.kind} -> {out}", progress=progress, log_file=LOG_FILE)
    carry, record, _ = run_loop(recipe, carry, loop)
    atomic_write_text(out / "config.json", json.dumps(meta, indent=1))
    return record


def _initial_weights(task: Task, config: SupervisedConfig, init) -> tuple[dict, str]:
    """(weights, SHA-256 of the file) of the model at ``init``, refused in one line unless it is a model of
    ``task``'s kind over the same features and hidden sizes (and, for a card player, the same auction bits and card
    values); the training settings (target, relabelling) may differ."""
    from bridgerl.agents.learned.checkpoint import recording_checkpoints

    with recording_checkpoints() as seen:  # the one record of a checkpoint read: {file: sha256}
        metadata, weights = load_weights(init, format=task.format, what=task.kind)
    shape = [k for k in ("auction", "card_values") if k in task.settings or k in metadata]  # what the inputs and
    given = {"features": metadata.get("features"), "hidden": tuple(metadata.get("hidden", ())),  # outputs hold
             **{k: bool(metadata.get(k, False)) for k in shape}}
    wanted = {"features": task.features, "hidden": tuple(config.hidden),
              **{k: bool(task.settings.get(k, False)) for k in shape}}
    differ = [f"{k} {given[k]!r} (this run: {wanted[k]!r})" for k in wanted if given[k] != wanted[k]]
    if differ:
        raise ValueError(f"--init {init}: the model differs from this run in {', '.join(differ)}")
    [digest] = seen.values()
    return weights, digest


__all__ = ["SupervisedConfig", "Task", "check_run_dir", "check_splits", "load_examples", "train_supervised"]


class _SupervisedRecipe:
    """One epoch a unit (`training.loop`): an AdamW pass over the shuffled examples, then the validation loss (and
    the task's selection metric), the epoch with the best one kept as the model."""

    def __init__(self, task: Task, graphdef, optimizer, config: SupervisedConfig, data, valid_data, out: Path,
                 seed: int, files: list[str], command: str | None, started: dict | None = None):
        self.task, self.graphdef, self.config, self.valid_data, self.out = task, graphdef, config, valid_data, out
        self.seed, self.files, self.command, self.started = seed, files, command, started
        self.train_positions = len(data[0])
        self.device_data = tuple(jax.numpy.asarray(a) for a in data)
        self.epoch_fn = make_epoch(task, graphdef, optimizer, config.batch_size)
        self.validate = make_evaluate(task, graphdef)
        self.select = make_evaluate(task, graphdef, task.select) if task.select is not None else None

    def done(self, carry) -> int:
        return int(carry["epoch"])

    def step(self, carry, n: int):
        key, sub = jax.random.split(carry["key"])
        params, opt_state, train_loss = self.epoch_fn(carry["params"], carry["opt_state"], sub, self.device_data)
        epoch = int(carry["epoch"]) + 1
        if not np.isfinite(float(train_loss)):
            raise ValueError(f"training loss became {float(train_loss)} at epoch {epoch}; lower --learning-rate")
        carry = {**carry, "params": params, "opt_state": opt_state, "key": key, "epoch": jax.numpy.int32(epoch)}
        return carry, {"epoch": epoch, f"train_{self.task.metric}": float(train_loss)}

    def evaluate(self, carry, record: dict):
        task, params, metric = self.task, carry["params"], self.task.metric
        valid_loss = self.validate(params, self.valid_data)
        fields = {f"valid_{metric}": valid_loss, "train_positions": self.train_positions,
                  "valid_positions": len(self.valid_data[0])}
        selected = {f"valid_{task.select_metric}": self.select(params, self.valid_data)} if self.select else {}
        fields.update(selected)
        score = selected[f"valid_{task.select_metric}"] if selected else valid_loss
        if np.float32(score) < np.float32(carry["best"]):  # the saved best is float32
            config = self.config
            metadata = {"kind": task.kind, "features": task.features, "hidden": list(config.hidden),
                        "epoch": record["epoch"], f"valid_{metric}": valid_loss, **selected, "seed": self.seed,
                        **task.settings, "config": dataclasses.asdict(config), "data": self.files,
                        "command": self.command or " ".join(["bridgerl", *sys.argv[1:]]),
                        **({"init": self.started} if self.started else {})}
            save_weights(self.out / MODEL_FILE, nnx.to_pure_dict(params), metadata, format=task.format)
            fields["kept"] = True
            carry = {**carry, "best": jax.numpy.float32(score)}
        return carry, fields

    def checkpoint(self, carry, evaluation) -> None:
        pass  # the best epoch's model is written when it is found

    def postfix(self, record: dict, evaluation) -> dict:
        metric = self.task.metric
        return {"train": f"{record[f'train_{metric}']:.4f}", "valid": f"{record[f'valid_{metric}']:.4f}",
                **{k.removeprefix("valid_"): f"{v:.4f}" for k, v in record.items()
                   if self.task.select_metric and k == f"valid_{self.task.select_metric}"}}
