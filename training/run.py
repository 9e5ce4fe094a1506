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
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx, serialization

from bridgerl.agents.checkpoint import atomic_write_bytes, checkpoint_file, save_weights
from bridgerl.training.dqn import PRESETS, DQNConfig, DQNTrainer, evaluate_greedy

if TYPE_CHECKING:
    from bridgerl.training.demonstrations import PretrainConfig

STATE_FILE = "train_state.msgpack"
MODEL_FILE = "model.msgpack"
LOG_FILE = "log.jsonl"
SNAPSHOT_DIR = "snapshots"
CONSTRUCTIVE_FILE = "constructive.msgpack"
ENV_ID = "uncontested_bidding"
COMPETITIVE_ENV_ID = "competitive_bidding"


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
    keys = ["config", "seed", "data", "env_id", "env_options", "pretrain", "constructive"]
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
    return _train(ENV_ID, out, preset, steps, seed, data, eval_data, resume, overrides, chunk, eval_every,
                  checkpoint_seconds, progress, command, env_options, eval_every_steps, None, None, None)


def train_competitive(out: str | Path, preset: str = "small", steps: int | None = None, seed: int = 0,
                      data="train", eval_data="test", resume: bool = False, overrides: dict | None = None,
                      chunk: int = 100, eval_every: int | None = None, checkpoint_seconds: float = 180.0,
                      progress: bool = True, command: str | None = None, eval_every_steps: int | None = None,
                      eval_deals: int = 1000, pretrain: "PretrainConfig | None" = None,
                      constructive: str | Path | None = None) -> dict:
    """Self-play DQN on competitive bidding (one network for all four seats, per-seat transitions, optional pool
    of frozen past networks as opponents: ``overrides={"pool_size": K}``).

    Every evaluation plays a duplicate match of the greedy network against the competitive rule baseline on the
    first ``eval_deals`` held-out deals (the learning curve in ``log.jsonl``) and keeps the network as
    ``snapshots/model-STEPS.msgpack``; the first one is taken before any step. ``pretrain`` starts the network
    from the rule bidder's auctions on the training deals (`training.demonstrations`); with a pool, that network
    is the pool's first snapshot (kept for good with ``pool_anchor``). ``constructive`` (an uncontested DQN
    checkpoint) bids for the agent while the opponents pass: it is copied beside every saved network, named in
    its metadata, and replaces the rules' constructive system in the demonstrations. Returns the last evaluation."""
    return _train(COMPETITIVE_ENV_ID, out, preset, steps, seed, data, eval_data, resume, overrides, chunk,
                  eval_every, checkpoint_seconds, progress, command, None, eval_every_steps, eval_deals, pretrain,
                  constructive)


def _train(env_id, out, preset, steps, seed, data, eval_data, resume, overrides, chunk, eval_every,
           checkpoint_seconds, progress, command, env_options, eval_every_steps, eval_deals, pretrain,
           constructive) -> dict:
    from bridgerl.envs import jaxenv

    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; choose one of {sorted(PRESETS)}")
    config: DQNConfig = PRESETS[preset].replace(**(overrides or {}))
    steps = int(steps if steps is not None else DEFAULT_STEPS[preset])
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    env_options = env_options or {}
    env = jaxenv.make(env_id, dataset=data, **env_options)
    eval_env = jaxenv.make(env_id, dataset=eval_data, **env_options)
    competitive = env_id == COMPETITIVE_ENV_ID
    eval_rows = np.arange(eval_env.owner.shape[0]) if competitive else eval_env.eligible
    if pretrain is not None and not competitive:
        raise ValueError("pretraining from rule demonstrations is for the competitive env")
    meta = {"env_id": env_id, "config": dataclasses.asdict(config), "seed": seed, "data": str(data),
            "preset": preset, "steps": steps, "env_options": env_options,
            "pretrain": dataclasses.asdict(pretrain) if pretrain else None,
            "constructive": str(constructive) if constructive else None}
    constructive_agent = None
    if constructive is not None:
        from bridgerl.agents.dqn import DQNAgent

        if not competitive:
            raise ValueError("a constructive bidder serves the competitive env")
        constructive_agent = DQNAgent.load(constructive, env_id="uncontested_bidding")
        for directory in (out, out / SNAPSHOT_DIR):
            atomic_write_bytes(directory / CONSTRUCTIVE_FILE, checkpoint_file(constructive).read_bytes())
    state_path = out / STATE_FILE
    if not resume and state_path.exists():
        raise ValueError(f"{state_path} exists: pass --resume to continue that run, or choose another --out")
    resuming = resume and state_path.exists()
    if config.demo_weight and pretrain is None:
        raise ValueError("demo_weight > 0 needs the rule demonstrations: pass a pretraining config (--pretrain-deals)")
    demos, pretrain_stats = None, None
    if pretrain is not None and (not resuming or config.demo_weight):
        from bridgerl.training.demonstrations import rule_demonstrations

        teacher = None
        if constructive_agent is not None:
            from bridgerl.agents import CompetitiveRuleBidder

            teacher = CompetitiveRuleBidder(constructive=constructive_agent)
        demos = rule_demonstrations(data, pretrain.deals, pretrain.random_share, pretrain.seed, progress, teacher)
    trainer = DQNTrainer(env, config, seed=seed, total_steps=steps, demonstrations=demos)
    if pretrain is not None and not resuming:
        from bridgerl.training.demonstrations import pretrain_on

        params, pretrain_stats = pretrain_on(trainer.graphdef, trainer.init(env).params, demos, pretrain,
                                             config.huber_delta, progress)
        ts = trainer.init(env, params)
    else:
        ts = trainer.init(env)
    if resuming:
        ts = _load_state(state_path, ts, meta)
    iterations = math.ceil(steps / config.num_envs)
    done_iterations = int(ts.env_steps) // config.num_envs
    if eval_every_steps:
        eval_every = max(1, eval_every_steps // config.num_envs)
    eval_every = eval_every or max(chunk, iterations // 10)
    command = command or " ".join(shlex.quote(a) for a in ["bridgerl", *sys.argv[1:]])

    def model_metadata(ts, evaluation) -> dict:
        return {"env_id": env_id, "observation_size": env.observation_size, "num_actions": env.num_actions,
                "hidden": list(config.hidden), "dueling": config.dueling, "preset": preset,
                "config": dataclasses.asdict(config), "seed": seed, "data": str(data), "env_options": env_options,
                "env_steps": int(ts.env_steps), "updates": int(ts.updates), "command": command,
                "evaluation": evaluation, "device": jax.devices()[0].device_kind,
                **({"constructive": CONSTRUCTIVE_FILE} if constructive_agent is not None else {})}

    def evaluate(ts) -> dict:
        if competitive:
            return evaluate_competitive_snapshot(trainer, ts, eval_env, eval_data, eval_deals,
                                                 out / SNAPSHOT_DIR, model_metadata(ts, None), constructive_agent)
        returns, finished = evaluate_greedy(trainer.graphdef, ts.params, eval_env, eval_rows)
        mean, ci = mean_ci(np.asarray(returns))
        return {"imps_per_deal": mean, "ci95": ci, "deals": int(len(eval_rows)), "all_finished": bool(finished.all())}

    def write_model(ts, evaluation) -> None:
        save_weights(out / MODEL_FILE, nnx.to_pure_dict(ts.params), model_metadata(ts, evaluation))

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
    if pretrain_stats is not None:
        log({"env_steps": 0, "updates": 0, "pretrain": pretrain_stats})
    if competitive and not resuming:  # the learning curve starts at the starting network
        last_eval = evaluate(ts)
        log({"env_steps": 0, "updates": 0, "eval": last_eval})
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
                      "episodes": episodes,
                      "updates_per_s": n * config.updates_per_step / seconds,
                      "wall_s": time.monotonic() - start_time}
            pool_episodes = int(metrics.pool_episodes.sum())
            if pool_episodes:
                record["pool_episodes"] = pool_episodes
                record["vs_pool_imps"] = float(metrics.pool_return_sum.sum()) / pool_episodes
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
                    key = "vs_rules_imps_per_board" if competitive else "imps_per_deal"
                    postfix["vs rules" if competitive else "held-out"] = f"{last_eval[key]:.2f}"
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


def evaluate_competitive_snapshot(trainer, ts, eval_env, eval_data, deals: int, snapshot_dir: Path,
                                  metadata: dict, constructive=None) -> dict:
    """Keep the greedy network as a snapshot, then score it: a duplicate match against the competitive rule
    baseline on the first ``deals`` held-out deals (IMPs/board, 95% CI; with ``constructive`` bidding while the
    opponents pass) and the network's own self-play distance from par."""
    from bridgerl.agents import RuleBidder
    from bridgerl.agents.dqn import DQNAgent
    from bridgerl.evaluation.competitive import duplicate_match

    snapshot = snapshot_dir / f"model-{int(ts.env_steps):010d}.msgpack"
    save_weights(snapshot, nnx.to_pure_dict(ts.params), metadata)
    agent = DQNAgent(nnx.merge(trainer.graphdef, ts.params), metadata, constructive)
    match = duplicate_match(agent, RuleBidder(competitive=True), eval_data, deals=deals, names=("dqn", "rules"))
    rows = np.arange(min(deals, eval_env.owner.shape[0]))
    returns, finished = evaluate_greedy(trainer.graphdef, ts.params, eval_env, rows, max_calls=320)
    return {"vs_rules_imps_per_board": match["imps_per_board"], "ci95": match["ci95"], "deals": match["boards"],
            "self_play_abs_par_imps": float(np.abs(np.asarray(returns)).mean()),
            "all_finished": bool(np.asarray(finished).all()), "snapshot": str(snapshot)}


DEFAULT_STEPS = {"small": 2_000_000, "thesis": 4_000_000}
