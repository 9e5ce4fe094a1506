"""The training run around `DQNTrainer`: progress bar, periodic held-out evaluation, atomic checkpoints and
``--resume`` (the same seed gives the same run on the same device, interrupted or not)."""

from __future__ import annotations

import dataclasses
import json
import math
import shlex
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx, serialization

from bridgerl.agents.checkpoint import atomic_write_bytes, save_weights
from bridgerl.training.dqn import PRESETS, DQNConfig, DQNTrainer, evaluate_greedy

STATE_FILE = "train_state.msgpack"
MODEL_FILE = "model.msgpack"
LOG_FILE = "log.jsonl"
ENV_ID = "uncontested_bidding"


def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and the half-width of its normal 95% confidence interval."""
    values = np.asarray(values, dtype=np.float64)
    if len(values) < 2:
        return float(values.mean()) if len(values) else float("nan"), float("nan")
    return float(values.mean()), float(1.96 * values.std(ddof=1) / math.sqrt(len(values)))


def _save_state(path: Path, ts, meta: dict) -> None:
    leaves = jax.tree.leaves(ts)
    payload = {"meta": json.dumps(meta), "leaves": {str(i): np.asarray(leaf) for i, leaf in enumerate(leaves)}}
    atomic_write_bytes(path, serialization.msgpack_serialize(payload))


def _load_state(path: Path, template, meta: dict):
    payload = serialization.msgpack_restore(path.read_bytes())
    saved = json.loads(payload["meta"])
    meta = json.loads(json.dumps(meta))
    keys = ["config", "seed", "data", "env_id", "env_options"]
    if meta["config"].get("lr_end") is not None:
        keys.append("steps")  # the learning-rate schedule spans the whole run
    for key in keys:
        if saved.get(key) != meta.get(key):
            raise ValueError(f"{path}: the saved run has {key}={saved.get(key)!r}, this command has "
                             f"{meta.get(key)!r}; resume with the same arguments")
    leaves, treedef = jax.tree.flatten(template)
    if len(payload["leaves"]) != len(leaves):
        raise ValueError(f"{path}: the saved state does not match this configuration")
    restored = [jnp.asarray(payload["leaves"][str(i)], dtype=leaf.dtype) for i, leaf in enumerate(leaves)]
    return jax.tree.unflatten(treedef, restored)


def train_uncontested(out: str | Path, preset: str = "small", steps: int | None = None, seed: int = 0,
                      data="train", eval_data="test", resume: bool = False, overrides: dict | None = None,
                      chunk: int = 100, eval_every: int | None = None, checkpoint_seconds: float = 180.0,
                      progress: bool = True, command: str | None = None, env_options: dict | None = None,
                      eval_every_steps: int | None = None) -> dict:
    """Train a DQN on uncontested bidding; writes ``out``/model.msgpack, train_state.msgpack and log.jsonl.

    Returns the final held-out evaluation (IMPs/deal vs constructive par, 95% CI)."""
    from bridgerl.envs import jaxenv

    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose one of {sorted(PRESETS)}")
    config: DQNConfig = PRESETS[preset].replace(**(overrides or {}))
    steps = int(steps if steps is not None else DEFAULT_STEPS[preset])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env_options = env_options or {}
    env = jaxenv.make(ENV_ID, dataset=data, **env_options)
    eval_env = jaxenv.make(ENV_ID, dataset=eval_data, **env_options)
    eval_rows = eval_env.eligible
    trainer = DQNTrainer(env, config, seed=seed, total_steps=steps)
    meta = {"env_id": ENV_ID, "config": dataclasses.asdict(config), "seed": seed, "data": str(data),
            "preset": preset, "steps": steps, "env_options": env_options}
    ts = trainer.init(env)
    state_path = out / STATE_FILE
    if resume and state_path.exists():
        ts = _load_state(state_path, ts, meta)
    elif not resume and state_path.exists():
        raise ValueError(f"{state_path} exists: pass --resume to continue that run, or choose another --out")
    iterations = math.ceil(steps / config.num_envs)
    done_iterations = int(ts.env_steps) // config.num_envs
    if eval_every_steps:
        eval_every = max(1, eval_every_steps // config.num_envs)
    eval_every = eval_every or max(chunk, iterations // 10)
    command = command or " ".join(shlex.quote(a) for a in ["bridgerl", *sys.argv[1:]])

    def evaluate(ts) -> dict:
        returns, finished = evaluate_greedy(trainer.graphdef, ts.params, eval_env, eval_rows)
        mean, ci = mean_ci(np.asarray(returns))
        return {"imps_per_deal": mean, "ci95": ci, "deals": int(len(eval_rows)), "all_finished": bool(finished.all())}

    def write_model(ts, evaluation) -> None:
        params = nnx.to_pure_dict(ts.params)
        save_weights(out / MODEL_FILE, params, {
            "env_id": ENV_ID, "observation_size": env.observation_size, "num_actions": env.num_actions,
            "hidden": list(config.hidden), "dueling": config.dueling, "preset": preset,
            "config": dataclasses.asdict(config), "seed": seed, "data": str(data), "env_options": env_options,
            "env_steps": int(ts.env_steps), "updates": int(ts.updates), "command": command,
            "evaluation": evaluation, "device": jax.devices()[0].device_kind})

    def log(record: dict) -> None:
        with open(out / LOG_FILE, "a") as handle:
            handle.write(json.dumps(record) + "\n")

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=iterations * config.num_envs, initial=done_iterations * config.num_envs, unit="step",
                   desc=f"DQN {preset}", smoothing=0.1)
    rolling: list[float] = []
    last_save, start_time = time.monotonic(), time.monotonic()
    last_eval = None
    try:
        while done_iterations < iterations:
            n = min(chunk, iterations - done_iterations)
            t0 = time.monotonic()
            ts, metrics = trainer.run_steps(env, ts, n)
            jax.block_until_ready(ts)
            seconds = time.monotonic() - t0
            done_iterations += n
            episodes, total = int(metrics.episodes.sum()), float(metrics.return_sum.sum())
            if episodes:
                rolling = (rolling + [total / episodes])[-20:]
            record = {"env_steps": int(ts.env_steps), "updates": int(ts.updates),
                      "epsilon": float(metrics.epsilon[-1]), "loss": float(metrics.loss.mean()),
                      "train_imps": total / max(episodes, 1), "env_steps_per_s": n * config.num_envs / seconds,
                      "updates_per_s": n * config.updates_per_step / seconds,
                      "wall_s": time.monotonic() - start_time}
            if done_iterations % eval_every < n or done_iterations >= iterations:
                last_eval = evaluate(ts)
                record["eval"] = last_eval
            log(record)
            if bar is not None:
                bar.update(n * config.num_envs)
                postfix = {"steps/s": f"{record['env_steps_per_s']:.0f}", "upd/s": f"{record['updates_per_s']:.0f}",
                           "eps": f"{record['epsilon']:.3f}", "loss": f"{record['loss']:.3f}",
                           "imps": f"{np.mean(rolling):.2f}" if rolling else "-"}
                if last_eval:
                    postfix["held-out"] = f"{last_eval['imps_per_deal']:.2f}"
                bar.set_postfix(postfix)
            if time.monotonic() - last_save >= checkpoint_seconds or done_iterations >= iterations:
                _save_state(state_path, ts, meta)
                write_model(ts, last_eval)
                last_save = time.monotonic()
    except KeyboardInterrupt:
        _save_state(state_path, ts, meta)
        raise
    finally:
        if bar is not None:
            bar.close()
    final = last_eval or evaluate(ts)
    write_model(ts, final)
    return {**final, "env_steps": int(ts.env_steps), "updates": int(ts.updates), "model": str(out / MODEL_FILE)}


DEFAULT_STEPS = {"small": 2_000_000, "thesis": 4_000_000}
