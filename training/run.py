"""The bidders' training runs (`train uncontested`, `train competitive [--algo ppo]`): the DQN and PPO recipes
(`BiddingRecipe` around `DQNTrainer` or `training.ppo.PPOTrainer`) that the one training loop (`training.loop`)
drives, with periodic held-out evaluation, atomic checkpoints and ``--resume`` (the same seed gives the same run on
the same device, interrupted or not)."""

from __future__ import annotations

import dataclasses
import json
import math
import shlex
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

import jax
import numpy as np

from bridgerl.agents.learned.checkpoint import checkpoint_file
from bridgerl.core import load_dataset
from bridgerl.core.files import atomic_write_bytes
from bridgerl.training.bidding_recipe import (  # noqa: F401 (importable from here as before)
    CONSTRUCTIVE_FILE, DEFAULT_STEPS, LOG_FILE, MODEL_FILE, RECIPES, RUN_FILES, SNAPSHOT_DIR, STATE_FILE,
    BiddingRecipe, TrainingDiverged, evaluate_competitive_snapshot, table_card_player)
from bridgerl.training.loop import Loop, run_loop
from bridgerl.training.state import (COMPETITIVE_ENV_ID, UNCONTESTED_ENV_ID, check_run_kind, read_state,
                                     resume_state)

if TYPE_CHECKING:
    from bridgerl.training.demonstrations import PretrainConfig


ENV_ID = UNCONTESTED_ENV_ID


@dataclasses.dataclass(frozen=True)
class RunConfig:
    """One training run (`train`): what `train_uncontested` and `train_competitive` build from their arguments."""

    out: str | Path                          # run directory: model.msgpack, train_state.msgpack, log.jsonl
    env_id: str = ENV_ID                     # "uncontested_bidding" or "competitive_bidding" (self-play)
    preset: str = "small"                    # a key of training.dqn.PRESETS (training.ppo.PRESETS with algo ppo)
    steps: int | None = None                 # env steps (calls); None: the preset's default
    seed: int = 0
    data: Any = "train"                      # training deals: bundled split name, .npz path or Dataset
    eval_data: Any = "valid"                 # held-out deals of the evaluations (the validation split: the test
                                             # split is for final tables only)
    resume: bool = False                     # continue the run saved in ``out`` (it must exist)
    force: bool = False                      # start afresh in an ``out`` that holds a run, deleting that run's files
    overrides: Mapping[str, Any] | None = None   # DQNConfig fields replacing the preset's
    chunk: int = 100                         # compiled env steps per Python iteration (one log line)
    eval_every: int | None = None            # iterations (of num_envs calls) between evaluations
    eval_every_steps: int | None = None      # the same in env steps (wins over eval_every)
    checkpoint_seconds: float = 180.0        # seconds between checkpoints
    progress: bool = True                    # tqdm progress bar
    command: str | None = None               # the command recorded in the model's metadata (default: sys.argv)
    env_options: Mapping[str, Any] | None = None  # options of the JAX env (uncontested: side, opening_rules, reward)
    eval_deals: int = 1000                   # competitive: held-out deals of the self-play statistics
    pretrain: "PretrainConfig | None" = None  # competitive: start from the rule bidder's demonstrations
    constructive: str | Path | None = None   # competitive: an uncontested DQN bidding while the opponents pass
    evaluate_agent: Callable[[Any], dict] | None = None  # competitive: scores each snapshot's DQNAgent
    algo: str = "dqn"                        # "dqn", or "ppo" (competitive: training.ppo)
    devices: int | str | None = None         # data parallel over this many devices ("all": every visible one;
                                             # None: one, unsharded); num_envs and batch sizes are global
    pretrain_data: Any = None                # the deals of the teacher's demonstrations (pretrain): None for
                                             # ``data`` itself (``"train"`` with data "fresh")

    def __post_init__(self):
        for name in ("chunk", "eval_deals"):
            if not getattr(self, name) >= 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)!r}")
        for name in ("steps", "eval_every", "eval_every_steps"):
            value = getattr(self, name)
            if value is not None and not value >= 1:
                raise ValueError(f"{name} must be at least 1, got {value!r}")
        if not self.checkpoint_seconds >= 0:
            raise ValueError(f"checkpoint_seconds must be >= 0, got {self.checkpoint_seconds!r}")


def train_uncontested(out: str | Path, preset: str = "small", steps: int | None = None, seed: int = 0,
                      data="train", eval_data="valid", resume: bool = False, overrides: dict | None = None,
                      chunk: int = 100, eval_every: int | None = None, checkpoint_seconds: float = 180.0,
                      progress: bool = True, command: str | None = None, env_options: dict | None = None,
                      eval_every_steps: int | None = None, force: bool = False,
                      devices: int | str | None = None) -> dict:
    """Train a DQN on uncontested bidding; writes ``out``/model.msgpack, train_state.msgpack and log.jsonl.

    Returns the final held-out evaluation (IMPs/deal vs constructive par, 95% CI) on ``eval_data`` (by default the
    bundled validation split; score the test split with `bridgerl evaluate uncontested` for final tables)."""
    return train(RunConfig(out=out, env_id=ENV_ID, preset=preset, steps=steps, seed=seed, data=data,
                           eval_data=eval_data, resume=resume, overrides=overrides, chunk=chunk, eval_every=eval_every,
                           eval_every_steps=eval_every_steps, checkpoint_seconds=checkpoint_seconds,
                           progress=progress, command=command, env_options=env_options, force=force,
                           devices=devices))


def train_competitive(out: str | Path, preset: str = "small", steps: int | None = None, seed: int = 0,
                      data="train", eval_data="valid", resume: bool = False, overrides: dict | None = None,
                      chunk: int = 100, eval_every: int | None = None, checkpoint_seconds: float = 180.0,
                      progress: bool = True, command: str | None = None, eval_every_steps: int | None = None,
                      eval_deals: int = 1000, pretrain: "PretrainConfig | None" = None,
                      constructive: str | Path | None = None,
                      evaluate_agent: Callable[[Any], dict] | None = None, force: bool = False,
                      algo: str = "dqn", devices: int | str | None = None, env_options: dict | None = None,
                      pretrain_data=None) -> dict:
    """Self-play DQN (``algo="ppo"``: PPO, `training.ppo`) on competitive bidding (one network for all four seats,
    per-seat transitions, optional pool of frozen past networks as opponents: ``overrides={"pool_size": K}``).

    Every evaluation keeps the greedy network as ``snapshots/model-STEPS.msgpack`` (the first one is taken before
    any step) and scores it with ``evaluate_agent(agent) -> dict`` (required: training does not import the
    evaluation package; `bridgerl.evaluation.bidding.competitive.rule_baseline_evaluator(eval_data, eval_deals)` is the
    duplicate match against the competitive rule baseline that ``bridgerl train competitive`` uses, whose
    ``vs_rules_imps_per_board`` is the learning curve in ``log.jsonl``), plus the network's self-play distance from
    par on the first ``eval_deals`` held-out deals. ``pretrain`` starts the network from the rule bidder's
    auctions on the training deals (`training.demonstrations`); with a pool, that network is the pool's first
    snapshot (kept for good with ``pool_anchor``). ``constructive`` (an uncontested DQN
    checkpoint) bids for the agent while the opponents pass: it is copied beside every saved network, named in
    its metadata, and replaces the rules' constructive system in the demonstrations. ``env_options``
    ``{"tricks": "played"}`` trains on the played-tricks tables (rewards, par and demonstrations; the evaluator is
    the caller's to match). Returns the last evaluation."""
    return train(RunConfig(out=out, env_id=COMPETITIVE_ENV_ID, preset=preset, steps=steps, seed=seed, data=data,
                           eval_data=eval_data, resume=resume, overrides=overrides, chunk=chunk, eval_every=eval_every,
                           eval_every_steps=eval_every_steps, checkpoint_seconds=checkpoint_seconds,
                           progress=progress, command=command, eval_deals=eval_deals, pretrain=pretrain,
                           constructive=constructive, evaluate_agent=evaluate_agent, force=force, algo=algo,
                           devices=devices, env_options=env_options, pretrain_data=pretrain_data))


def _data_name(data) -> str:
    """How a run records its data: the path or split name as given, a Dataset's source."""
    return data.source if hasattr(data, "source") and hasattr(data, "owner") else str(data)


def _algorithm(run: RunConfig):
    """The run's recipe class (`RECIPES`), its config class, config and steps; settings that do not go together are
    refused here, before any file is touched."""
    if run.env_id not in (ENV_ID, COMPETITIVE_ENV_ID):
        raise ValueError(f"unknown env id {run.env_id!r}; expected {ENV_ID!r} or {COMPETITIVE_ENV_ID!r}")
    if run.algo not in RECIPES:
        raise ValueError(f"unknown algorithm {run.algo!r}; expected {' or '.join(map(repr, RECIPES))}")
    recipe = RECIPES[run.algo]
    recipe.check_env(run)
    presets, default_steps, config_class = recipe.settings()
    if run.preset not in presets:
        raise ValueError(f"unknown {run.algo} preset {run.preset!r}; choose one of {sorted(presets)}")
    unknown = sorted(set(run.overrides or {}) - {f.name for f in dataclasses.fields(config_class)})
    if unknown:
        raise ValueError(f"{', '.join(unknown)}: not a setting of {run.algo} training ({config_class.__name__})")
    config = presets[run.preset].replace(**dict(run.overrides or {}))
    steps = int(run.steps if run.steps is not None else default_steps[run.preset])
    competitive = run.env_id == COMPETITIVE_ENV_ID
    if competitive and run.evaluate_agent is None:
        raise ValueError("competitive training scores every snapshot with evaluate_agent(agent) -> dict; pass one "
                         "(e.g. bridgerl.evaluation.bidding.competitive.rule_baseline_evaluator(eval_data, eval_deals))")
    if not competitive and run.evaluate_agent is not None:
        raise ValueError("evaluate_agent is for competitive training; uncontested runs evaluate against par")
    if run.pretrain is not None and not competitive:
        raise ValueError("pretraining from rule demonstrations is for the competitive env")
    if run.constructive is not None and not competitive:
        raise ValueError("a constructive bidder serves the competitive env")
    recipe.check(run, config)
    if run.resume and run.force:
        raise ValueError("--resume continues the run in --out and --force replaces it: give one of them")
    return recipe, config_class, config, steps


def _claim_out(run: RunConfig) -> dict | None:
    """The saved state to resume (read, and checked to be this command's, before anything is touched), or None;
    a new run's ``out`` holding a run is refused without --force and cleared with it."""
    out = Path(run.out)
    state_path = out / STATE_FILE
    if run.resume and not state_path.exists():
        raise FileNotFoundError(f"{out}: no run to resume (no {STATE_FILE}); leave out --resume to start a new run")
    if run.resume:  # a run of another `train` command is refused before any data, env or file is touched
        saved_state = read_state(state_path)
        check_run_kind(state_path, json.loads(saved_state["meta"]), {"env_id": run.env_id, "algo": run.algo})
        return saved_state
    existing = [out / name for name in RUN_FILES if (out / name).exists()]
    if existing:
        if not run.force:
            what = "a run" if state_path.exists() else "the files of a run"
            raise FileExistsError(f"{out} holds {what} ({', '.join(p.name for p in existing)}): pass --resume to "
                                  f"continue it, --force to replace it, or choose another --out")
        for path in existing:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    return None


@dataclasses.dataclass
class _Data:
    """The run's deals: training (None for fresh deals without demonstrations) and held-out, as recorded."""

    train: Any
    eval: Any
    name: str
    played_by: dict | None = None
    fresh_player: Any = None  # the card player that plays fresh deals' contracts out


def _datasets(run: RunConfig, recipe, env_options: dict) -> _Data:
    data, eval_data = run.data, run.eval_data
    data_name, eval_name = _data_name(data), _data_name(eval_data)
    played_by, fresh_player = None, None
    if isinstance(data, str) and data == "fresh":  # deals drawn inside jit; evaluations read eval_data's tables
        if not recipe.fresh_deals or run.env_id != COMPETITIVE_ENV_ID:
            raise ValueError("--data fresh trains PPO on competitive bidding (train competitive --algo ppo): its "
                             "duplicate reward is played out after each rollout")
        if env_options.get("tricks") != "played":
            raise ValueError("--data fresh is scored with the cards played: give --tricks played (the held-out "
                             "evaluations read the played tables of --eval-data)")
        eval_data = load_dataset(eval_data, tricks="played")
        played_by = eval_data.played_by
        fresh_player = table_card_player(eval_data)
        data = load_dataset(run.pretrain_data or "train", tricks="played") if run.pretrain is not None else None
        data_name = ("fresh: deals drawn inside jit from the run's key stream (jax.random.PRNGKey(seed), split "
                     "once per call and auction slot); no deal repeats except by chance; played out by "
                     f"{played_by['player']} (checkpoint {played_by['hash']})")
    elif env_options.get("tricks") is not None:  # "played": rewards, par and demonstrations from the played tables
        data = load_dataset(data, tricks=env_options["tricks"])
        eval_data = load_dataset(eval_data, tricks=env_options["tricks"])
        played_by = data.played_by if env_options["tricks"] == "played" else None
        if played_by and eval_data.played_by["hash"] != played_by["hash"]:
            raise ValueError(f"the played tables of {data_name} ({played_by['player']}) and {eval_name} "
                             f"({eval_data.played_by['player']}) were made by different card players; make both "
                             "with the same `bridgerl data played --player`")
    if run.pretrain_data is not None:  # part of what the run is (checked on --resume)
        data_name = f"{data_name}; demonstrations from {_data_name(run.pretrain_data)}"
    return _Data(data, eval_data, data_name, played_by, fresh_player)


def _envs(run: RunConfig, data: _Data, env_options: dict):
    """The training env (fresh deals or the training data's) and the held-out one, with its evaluation rows."""
    from bridgerl.envs import jaxenv

    competitive = run.env_id == COMPETITIVE_ENV_ID
    if data.fresh_player is not None:
        env = jaxenv.make(run.env_id, dataset="fresh", player=data.fresh_player, play_in_step=False)
    else:
        env = jaxenv.make(run.env_id, dataset=data.train, **env_options)
    eval_env = jaxenv.make(run.env_id, dataset=data.eval, **env_options)
    eval_rows = np.arange(eval_env.owner.shape[0]) if competitive else eval_env.eligible
    if data.fresh_player is None and len(np.arange(env.owner.shape[0]) if competitive else env.eligible) == 0:
        raise ValueError(f"the training data {data.name} has no deal to train on")
    if len(eval_rows) == 0:
        raise ValueError(f"the evaluation data {_data_name(run.eval_data)} has no deal to evaluate on")
    return env, eval_env, eval_rows


def _teacher(run: RunConfig, recipe, config, data: _Data, env_options: dict, resuming: bool):
    """The constructive DQN (saved beside a DQN's networks) and the teacher's demonstrations, where asked for."""
    out, constructive = Path(run.out), run.constructive
    constructive_agent, teacher_constructive = None, None
    if constructive is not None:
        from bridgerl.agents.learned.dqn import DQNAgent

        teacher_constructive = DQNAgent.load(constructive, env_id="uncontested_bidding")
        if recipe.saves_constructive:  # the DQN's calls while the opponents pass: saved beside every network
            constructive_agent = teacher_constructive
            for directory in (out, out / SNAPSHOT_DIR):
                atomic_write_bytes(directory / CONSTRUCTIVE_FILE, checkpoint_file(constructive).read_bytes())
    demos = None
    needed = run.pretrain is not None and (not resuming or recipe.keeps_demonstrations(config))
    if needed and (run.pretrain.demos or run.pretrain.teacher is not None):
        demos = _labelled_demonstrations(run, out)
    elif needed:
        from bridgerl.training.demonstrations import rule_demonstrations

        teacher = None
        if teacher_constructive is not None:
            from bridgerl.agents import CompetitiveRuleBidder

            teacher = CompetitiveRuleBidder(constructive=teacher_constructive)
        demo_data = data.train
        if run.pretrain_data is not None and data.fresh_player is None:
            demo_data = load_dataset(run.pretrain_data, tricks=env_options.get("tricks"))
        demos = rule_demonstrations(demo_data, run.pretrain.deals, run.pretrain.random_share, run.pretrain.seed,
                                    run.progress, teacher)
    return constructive_agent, demos


TEACHER_LABELS = "teacher_labels.npz"  # --teacher SPEC: its labels of fresh deals, in the run's folder (resumable)


def _labelled_demonstrations(run: RunConfig, out: Path):
    """The demonstrations of ``--demos FILE ...``, or of ``--teacher SPEC``: SPEC's labels of --pretrain-deals fresh
    deals from the run's seed, written to the run's `TEACHER_LABELS` (a resumed run reads them back)."""
    from bridgerl.training.bid_labels import LabelJob, load_labels, load_teacher, write_labels

    pretrain = run.pretrain
    if pretrain.demos:
        return load_labels(pretrain.demos)
    teacher, identity = load_teacher(pretrain.teacher, seed=pretrain.seed)
    path = out / TEACHER_LABELS
    job = LabelJob(pretrain.teacher, "fresh", pretrain.deals, pretrain.seed)
    write_labels(job, path, teacher, identity, command=f"train competitive --teacher {pretrain.teacher}",
                 progress=run.progress)
    return load_labels(path)


def _trainer(run: RunConfig, recipe, config, steps: int, env, data: _Data, demos, mesh, resuming: bool):
    """The trainer and its starting state (pretrained on the demonstrations in a new run), with the pretraining's
    statistics (None when there was none)."""
    trainer = recipe.make_trainer(run, config, steps, env, data, demos, mesh)
    if run.pretrain is None or resuming:
        return trainer, trainer.init(env), None
    params, stats = recipe.pretrained(trainer, env, demos, run, config)
    return trainer, trainer.init(env, params), stats


def _model_meta(run: RunConfig, recipe, config, env, data: _Data, env_options: dict, devices: int,
                constructive_agent, command: str) -> dict:
    """What every saved network of the run records (its steps, updates and evaluation are added when saved)."""
    after_id, after_hidden, tail = recipe.model_fields(run, config, constructive_agent)
    return {"env_id": run.env_id, **after_id,
            "observation_size": env.observation_size, "num_actions": env.num_actions,
            "hidden": list(config.hidden), **after_hidden,
            "preset": run.preset,
            "config": dataclasses.asdict(config), "seed": run.seed, "data": data.name, "env_options": env_options,
            **({"played_by": data.played_by} if data.played_by else {}),
            "env_steps": 0, "updates": 0, "command": command,
            "evaluation": None, "device": jax.devices()[0].device_kind,
            **({"devices": devices} if devices > 1 else {}), **tail}


def train(run: RunConfig) -> dict:
    """The training run ``run`` describes; returns the last evaluation with env_steps, updates and the model path.

    A NaN or infinite loss stops it with `TrainingDiverged` before anything of that state is saved."""
    from bridgerl.training.sharding import data_mesh, resolve_devices

    recipe_class, config_class, config, steps = _algorithm(run)
    saved_state = _claim_out(run)
    out, resuming = Path(run.out), run.resume
    devices = resolve_devices(run.devices)
    mesh = data_mesh(devices)
    env_options = dict(run.env_options or {})
    data = _datasets(run, recipe_class, env_options)
    env, eval_env, eval_rows = _envs(run, data, env_options)
    out.mkdir(parents=True, exist_ok=True)
    meta = {"env_id": run.env_id, "config": dataclasses.asdict(config), "seed": run.seed, "data": data.name,
            "preset": run.preset, "steps": steps, "env_options": env_options,
            "pretrain": dataclasses.asdict(run.pretrain) if run.pretrain else None,
            "constructive": str(run.constructive) if run.constructive else None,
            **recipe_class.run_fields(),
            **({"devices": devices} if devices > 1 else {})}  # a resumed run is bit-identical on as many devices
    constructive_agent, demos = _teacher(run, recipe_class, config, data, env_options, resuming)
    trainer, ts, pretrain_stats = _trainer(run, recipe_class, config, steps, env, data, demos, mesh, resuming)
    if resuming:
        ts = resume_state(out / STATE_FILE, ts, meta, config_class, saved_state, out / LOG_FILE, "env_steps",
                          lambda carry: int(carry.env_steps))
    del saved_state  # every leaf of the saved state, the replay buffer included: not kept for the whole run
    ts = trainer.place(ts)
    per_iteration = trainer.steps_per_iteration
    iterations = math.ceil(steps / per_iteration)
    eval_every = run.eval_every
    if run.eval_every_steps:
        eval_every = max(1, run.eval_every_steps // per_iteration)
    eval_every = eval_every or max(run.chunk, iterations // 10)
    command = run.command or " ".join(shlex.quote(a) for a in ["bridgerl", *sys.argv[1:]])
    recipe = recipe_class(run, trainer, env, eval_env, eval_rows,
                          _model_meta(run, recipe_class, config, env, data, env_options, devices, constructive_agent,
                                      command), constructive_agent, int(ts.env_steps) if resuming else None)
    if pretrain_stats is not None:
        with open(out / LOG_FILE, "a") as handle:
            handle.write(json.dumps({"env_steps": 0, "updates": 0, "pretrain": pretrain_stats}) + "\n")
    competitive_start = recipe.competitive and not resuming  # the learning curve starts at the starting network
    loop = Loop(out=out, state_file=out / STATE_FILE, meta=meta, total=iterations, unit="step",
                desc=f"{run.algo.upper()} {run.preset}", chunk=run.chunk, scale=per_iteration, eval_every=eval_every,
                checkpoint_seconds=run.checkpoint_seconds, evaluate_first=competitive_start,
                first_record={"env_steps": 0, "updates": 0}, save_on_interrupt=True, progress=run.progress,
                log_file=LOG_FILE)
    ts, _, evaluation = run_loop(recipe, ts, loop)
    final = (evaluation or {}).get("eval") or recipe.evaluation(ts)
    recipe.write_model(ts, final)
    return {**final, "env_steps": int(ts.env_steps), "updates": int(ts.updates), "model": str(out / MODEL_FILE)}

