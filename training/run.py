"""The training run around `DQNTrainer` or `training.ppo.PPOTrainer`: progress bar, periodic held-out evaluation,
atomic checkpoints and ``--resume`` (the same seed gives the same run on the same device, interrupted or not)."""

from __future__ import annotations

import dataclasses
import json
import math
import shlex
import shutil
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx, serialization

from bridgerl.agents.learned.checkpoint import CRITIC_FILE, FORMAT, PPO_FORMAT, checkpoint_file, save_weights
from bridgerl.core import load_dataset
from bridgerl.core.files import atomic_write_bytes
from bridgerl.core.stats import mean_ci
from bridgerl.training.dqn import PRESETS, DQNConfig, DQNTrainer
from bridgerl.training.greedy import evaluate_greedy

if TYPE_CHECKING:
    from bridgerl.training.demonstrations import PretrainConfig

STATE_FILE = "train_state.msgpack"
MODEL_FILE = "model.msgpack"
LOG_FILE = "log.jsonl"
SNAPSHOT_DIR = "snapshots"
CONSTRUCTIVE_FILE = "constructive.msgpack"
RUN_FILES = (STATE_FILE, MODEL_FILE, LOG_FILE, SNAPSHOT_DIR, CONSTRUCTIVE_FILE, CRITIC_FILE)
ENV_ID = "uncontested_bidding"
COMPETITIVE_ENV_ID = "competitive_bidding"


class TrainingDiverged(ValueError):
    """The training loss became NaN or infinite; the run stopped without saving that state."""


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


def _save_state(path: Path, ts, meta: dict) -> None:
    leaves = jax.tree.leaves(ts)
    payload = {"meta": json.dumps(meta), "leaves": {str(i): np.asarray(leaf) for i, leaf in enumerate(leaves)}}
    atomic_write_bytes(path, serialization.msgpack_serialize(payload))


# the `train` command of each supervised or self-play trainer, by the "kind" its saved env_options name
_TRAINER_COMMANDS = {"card-location": "card-location", "ISSN": "issn", "SSN": "ssn", "card-player": "card-player",
                     "card-player-selfplay": "card-player-selfplay"}


def _run_command(meta: dict) -> str | None:
    """The ``train ...`` command that makes (and resumes) a run of this saved meta: ``train uncontested``,
    ``train competitive [--algo ppo]``, ``train card-location | issn | ssn | card-player | card-player-selfplay``
    (the supervised and self-play trainers save their kind in env_options); None for a meta of none of them."""
    env_id = meta.get("env_id")
    options = meta.get("env_options") if isinstance(meta.get("env_options"), dict) else {}
    if env_id in (ENV_ID, COMPETITIVE_ENV_ID):
        name = "uncontested" if env_id == ENV_ID else "competitive"
        return f"train {name}" + (" --algo ppo" if meta.get("algo") == "ppo" else "")
    kind = options.get("kind")
    return f"train {_TRAINER_COMMANDS.get(kind, kind.lower())}" if isinstance(kind, str) and kind else None


def _read_state(path: Path) -> dict:
    """The deserialised run state at ``path`` (its "meta" and "leaves"); one line for a file that is not one."""
    try:
        payload = serialization.msgpack_restore(path.read_bytes())
        json.loads(payload["meta"])
        return payload
    except MemoryError:
        raise
    except Exception as exc:
        raise ValueError(f"{path}: not a readable saved run ({type(exc).__name__}: {exc}); choose another --out "
                         "or start afresh with --force") from None


def _check_run_kind(path: Path, saved: dict, meta: dict) -> None:
    """Refuse in one line to resume a run saved by another `train` command (naming the command that resumes it)."""
    found, wanted = _run_command(saved), _run_command(meta)
    if found == wanted:
        return
    if found is None:
        raise ValueError(f"{path}: --resume found a run of another trainer there, not a `{wanted}` one; choose "
                         "another --out")
    raise ValueError(f"{path}: --resume found a `{found}` run there, not a `{wanted}` one; resume it with "
                     f"`bridgerl {found} --resume` and its arguments, or choose another --out")


def _load_state(path: Path, template, meta: dict, config_class=DQNConfig, payload: dict | None = None):
    """The run state saved at ``path`` (``payload``: already read by `_read_state`) restored into the pytree
    ``template``; a run of another `train` command or of other settings is refused in one line."""
    payload = _read_state(path) if payload is None else payload
    saved = json.loads(payload["meta"])
    meta = json.loads(json.dumps(meta))
    _check_run_kind(path, saved, meta)
    keys = ["config", "seed", "data", "env_id", "env_options", "pretrain", "constructive", "algo", "devices"]
    if meta["config"].get("lr_end") is not None:
        keys.append("steps")  # the learning-rate schedule spans the whole run
    differences = []
    if isinstance(saved.get("config"), dict) and isinstance(meta.get("config"), dict):
        # config fields added since the run was saved hold their defaults (other trainers' configs are left alone)
        defaults = json.loads(json.dumps(dataclasses.asdict(config_class())))
        added = {key: defaults[key] for key in meta["config"] if key in defaults and key not in saved["config"]}
        saved["config"] = {**added, **saved["config"]}
    for key in keys:
        old, new = saved.get(key), meta.get(key)
        if isinstance(old, dict) and isinstance(new, dict):  # name the fields (config.learning_rate, ...)
            fields = sorted(old.keys() | new.keys())
            differences += [(f"{key}.{field}", old.get(field), new.get(field)) for field in fields
                            if old.get(field) != new.get(field)]
        elif old != new:
            differences.append((key, old, new))
    if differences:
        listed = "; ".join(f"{key}: saved {old!r}, now {new!r}" for key, old, new in differences)
        raise ValueError(f"{path}: this command differs from the saved run in {len(differences)} setting(s) "
                         f"({listed}); resume with the same arguments")
    leaves, treedef = jax.tree.flatten(template)
    if len(payload["leaves"]) != len(leaves):
        raise ValueError(f"{path}: the saved state does not match this configuration")
    restored = [jnp.asarray(payload["leaves"][str(i)], dtype=leaf.dtype) for i, leaf in enumerate(leaves)]
    return jax.tree.unflatten(treedef, restored)


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
    evaluation package; `bridgerl.evaluation.competitive.rule_baseline_evaluator(eval_data, eval_deals)` is the
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


def _table_card_player(data):
    """The learned card player that made the training data's played tables (``data.played_by``: its path and
    checkpoint hash), loaded for PPO's ``playout``; refused in one line without played tables or when the file at
    that path is no longer the one that made them (`bridgerl.core.dataset.check_played_by`)."""
    from bridgerl.agents.learned.card_player import CardPlayer
    from bridgerl.core.dataset import check_played_by

    if getattr(data, "played_by", None) is None or getattr(data, "tricks", "dd") != "played":
        raise ValueError("playout plays contracts out with the card player of the played tables: train with "
                         "--tricks played (par comes from those tables)")
    path = data.played_by["player"]
    check_played_by(data, path)
    return CardPlayer.load(path)


def _data_name(data) -> str:
    """How a run records its data: the path or split name as given, a Dataset's source."""
    return data.source if hasattr(data, "source") and hasattr(data, "owner") else str(data)


def train(run: RunConfig) -> dict:
    """The training run ``run`` describes; returns the last evaluation with env_steps, updates and the model path.

    A NaN or infinite loss stops it with `TrainingDiverged` before anything of that state is saved."""
    from bridgerl.envs import jaxenv

    env_id, preset, seed, data, eval_data = run.env_id, run.preset, run.seed, run.data, run.eval_data
    chunk, eval_every, progress = run.chunk, run.eval_every, run.progress
    pretrain, constructive = run.pretrain, run.constructive
    if env_id not in (ENV_ID, COMPETITIVE_ENV_ID):
        raise ValueError(f"unknown env id {env_id!r}; expected {ENV_ID!r} or {COMPETITIVE_ENV_ID!r}")
    algo = run.algo
    if algo not in ("dqn", "ppo"):
        raise ValueError(f"unknown algorithm {algo!r}; expected 'dqn' or 'ppo'")
    if algo == "ppo" and env_id != COMPETITIVE_ENV_ID:
        raise ValueError("PPO trains competitive bidding (self-play over the four seats): use train competitive")
    if algo == "ppo":
        from bridgerl.training import ppo

        presets, default_steps, config_class = ppo.PRESETS, ppo.DEFAULT_STEPS, ppo.PPOConfig
    else:
        presets, default_steps, config_class = PRESETS, DEFAULT_STEPS, DQNConfig
    if preset not in presets:
        raise ValueError(f"unknown {algo} preset {preset!r}; choose one of {sorted(presets)}")
    unknown = sorted(set(run.overrides or {}) - {f.name for f in dataclasses.fields(config_class)})
    if unknown:
        raise ValueError(f"{', '.join(unknown)}: not a setting of {algo} training ({config_class.__name__})")
    config = presets[preset].replace(**dict(run.overrides or {}))
    steps = int(run.steps if run.steps is not None else default_steps[preset])
    out = Path(run.out)
    competitive = env_id == COMPETITIVE_ENV_ID
    if competitive and run.evaluate_agent is None:
        raise ValueError("competitive training scores every snapshot with evaluate_agent(agent) -> dict; pass one "
                         "(e.g. bridgerl.evaluation.competitive.rule_baseline_evaluator(eval_data, eval_deals))")
    if not competitive and run.evaluate_agent is not None:
        raise ValueError("evaluate_agent is for competitive training; uncontested runs evaluate against par")
    if pretrain is not None and not competitive:
        raise ValueError("pretraining from rule demonstrations is for the competitive env")
    if constructive is not None and not competitive:
        raise ValueError("a constructive bidder serves the competitive env")
    state_path = out / STATE_FILE
    if run.resume and run.force:
        raise ValueError("--resume continues the run in --out and --force replaces it: give one of them")
    if run.resume and not state_path.exists():
        raise FileNotFoundError(f"{out}: no run to resume (no {STATE_FILE}); leave out --resume to start a new run")
    saved_state = None
    if run.resume:  # a run of another `train` command is refused before any data, env or file is touched
        saved_state = _read_state(state_path)
        _check_run_kind(state_path, json.loads(saved_state["meta"]), {"env_id": env_id, "algo": algo})
    existing = [out / name for name in RUN_FILES if (out / name).exists()]
    if not run.resume and existing:
        if not run.force:
            what = "a run" if state_path.exists() else "the files of a run"
            raise FileExistsError(f"{out} holds {what} ({', '.join(p.name for p in existing)}): pass --resume to "
                                  f"continue it, --force to replace it, or choose another --out")
        for path in existing:
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    resuming = run.resume
    from bridgerl.training.sharding import data_mesh, resolve_devices

    devices = resolve_devices(run.devices)
    mesh = data_mesh(devices)
    env_options = dict(run.env_options or {})
    data_name, eval_name = _data_name(data), _data_name(eval_data)
    played_by = None
    fresh = isinstance(data, str) and data == "fresh"
    fresh_player = None
    if fresh:  # deals drawn inside jit; the held-out evaluations read the played tables of eval_data
        if algo != "ppo" or not competitive:
            raise ValueError("--data fresh trains PPO on competitive bidding (train competitive --algo ppo): its "
                             "duplicate reward is played out after each rollout")
        if env_options.get("tricks") != "played":
            raise ValueError("--data fresh is scored with the cards played: give --tricks played (the held-out "
                             "evaluations read the played tables of --eval-data)")
        eval_data = load_dataset(eval_data, tricks="played")
        played_by = eval_data.played_by
        fresh_player = _table_card_player(eval_data)
        data = load_dataset(run.pretrain_data or "train", tricks="played") if pretrain is not None else None
    elif env_options.get("tricks") is not None:  # "played": rewards, par and demonstrations from the played tables
        data = load_dataset(data, tricks=env_options["tricks"])
        eval_data = load_dataset(eval_data, tricks=env_options["tricks"])
        played_by = data.played_by if env_options["tricks"] == "played" else None
        if played_by and eval_data.played_by["hash"] != played_by["hash"]:
            raise ValueError(f"the played tables of {data_name} ({played_by['player']}) and {eval_name} "
                             f"({eval_data.played_by['player']}) were made by different card players; make both "
                             "with the same `bridgerl data played --player`")
    if fresh:
        env = jaxenv.make(env_id, dataset="fresh", player=fresh_player, play_in_step=False)
    else:
        env = jaxenv.make(env_id, dataset=data, **env_options)
    eval_env = jaxenv.make(env_id, dataset=eval_data, **env_options)
    eval_rows = np.arange(eval_env.owner.shape[0]) if competitive else eval_env.eligible
    if not fresh and len(np.arange(env.owner.shape[0]) if competitive else env.eligible) == 0:
        raise ValueError(f"the training data {data_name} has no deal to train on")
    if len(eval_rows) == 0:
        raise ValueError(f"the evaluation data {eval_name} has no deal to evaluate on")
    out.mkdir(parents=True, exist_ok=True)
    if fresh:  # what a fresh run's deals are: recorded with the run and in the model
        data_name = ("fresh: deals drawn inside jit from the run's key stream (jax.random.PRNGKey(seed), split "
                     "once per call and auction slot); no deal repeats except by chance; played out by "
                     f"{played_by['player']} (checkpoint {played_by['hash']})")
    if run.pretrain_data is not None:  # part of what the run is (checked on --resume)
        data_name = f"{data_name}; demonstrations from {_data_name(run.pretrain_data)}"
    meta = {"env_id": env_id, "config": dataclasses.asdict(config), "seed": seed, "data": data_name,
            "preset": preset, "steps": steps, "env_options": env_options,
            "pretrain": dataclasses.asdict(pretrain) if pretrain else None,
            "constructive": str(constructive) if constructive else None, **({"algo": algo} if algo != "dqn" else {}),
            **({"devices": devices} if devices > 1 else {})}  # a resumed run is bit-identical on as many devices
    constructive_agent, teacher_constructive = None, None
    if algo == "ppo" and constructive is not None and pretrain is None:
        raise ValueError("with --algo ppo, --constructive is the teacher's constructive system: it needs "
                         "--pretrain-deals (PPO's own network makes every call)")
    if constructive is not None:
        from bridgerl.agents.learned.dqn import DQNAgent

        teacher_constructive = DQNAgent.load(constructive, env_id="uncontested_bidding")
        if algo == "dqn":  # the DQN's calls while the opponents pass: saved beside every network
            constructive_agent = teacher_constructive
            for directory in (out, out / SNAPSHOT_DIR):
                atomic_write_bytes(directory / CONSTRUCTIVE_FILE, checkpoint_file(constructive).read_bytes())
    if algo == "dqn" and config.demo_weight and pretrain is None:
        raise ValueError("demo_weight > 0 needs the rule demonstrations: pass a pretraining config (--pretrain-deals)")
    keeps_demos = config.bc_weight if algo == "ppo" else config.demo_weight
    if algo == "ppo" and config.bc_weight and pretrain is None:
        raise ValueError("bc_weight > 0 needs the teacher's demonstrations: pass a pretraining config "
                         "(--pretrain-deals)")
    demos, pretrain_stats = None, None
    if pretrain is not None and (not resuming or keeps_demos):
        from bridgerl.training.demonstrations import rule_demonstrations

        teacher = None
        if teacher_constructive is not None:
            from bridgerl.agents import CompetitiveRuleBidder

            teacher = CompetitiveRuleBidder(constructive=teacher_constructive)
        demo_data = data
        if run.pretrain_data is not None and not fresh:
            demo_data = load_dataset(run.pretrain_data, tricks=env_options.get("tricks"))
        demos = rule_demonstrations(demo_data, pretrain.deals, pretrain.random_share, pretrain.seed, progress,
                                    teacher)
    if algo == "ppo":
        card_player = None
        if fresh:  # the card player of the held-out played tables plays every fresh contract out
            card_player = fresh_player
        elif config.playout:  # the card player that made the played tables plays every contract out
            card_player = _table_card_player(data)
        trainer = ppo.PPOTrainer(env, config, seed=seed, total_steps=steps, demonstrations=demos, mesh=mesh,
                                 card_player=card_player)
    else:
        trainer = DQNTrainer(env, config, seed=seed, total_steps=steps, demonstrations=demos, self_play=competitive,
                             mesh=mesh)
    per_iteration = trainer.steps_per_iteration
    if pretrain is not None and not resuming:
        if algo == "ppo":
            params, pretrain_stats = ppo.pretrain_policy(trainer.graphdef, trainer.init(env).params, demos,
                                                         pretrain.updates, pretrain.batch_size,
                                                         pretrain.learning_rate, pretrain.seed, progress,
                                                         config.reward_scale)
        else:
            from bridgerl.training.demonstrations import pretrain_on

            params, pretrain_stats = pretrain_on(trainer.graphdef, trainer.init(env).params, demos, pretrain,
                                                 config.huber_delta, progress)
        ts = trainer.init(env, params)
    else:
        ts = trainer.init(env)
    if resuming:
        ts = _load_state(state_path, ts, meta, config_class, payload=saved_state)
        saved_state = None
    ts = trainer.place(ts)
    iterations = math.ceil(steps / per_iteration)
    done_iterations = int(ts.env_steps) // per_iteration
    if run.eval_every_steps:
        eval_every = max(1, run.eval_every_steps // per_iteration)
    eval_every = eval_every or max(chunk, iterations // 10)
    command = run.command or " ".join(shlex.quote(a) for a in ["bridgerl", *sys.argv[1:]])

    model_format = PPO_FORMAT if algo == "ppo" else FORMAT

    def model_metadata(ts, evaluation) -> dict:
        return {"env_id": env_id, **({"algo": algo} if algo != "dqn" else {}),
                "observation_size": env.observation_size, "num_actions": env.num_actions,
                "hidden": list(config.hidden), **({"dueling": config.dueling} if algo == "dqn" else {}),
                "preset": preset,
                "config": dataclasses.asdict(config), "seed": seed, "data": data_name, "env_options": env_options,
                **({"played_by": played_by} if played_by else {}),
                "env_steps": int(ts.env_steps), "updates": int(ts.updates), "command": command,
                "evaluation": evaluation, "device": jax.devices()[0].device_kind,
                **({"devices": devices} if devices > 1 else {}),
                **({"constructive": CONSTRUCTIVE_FILE} if constructive_agent is not None else {}),
                **({"teacher": {"pretrain": dataclasses.asdict(pretrain) if pretrain else None,
                                "constructive": str(constructive) if constructive else None}}
                   if algo == "ppo" else {})}

    def evaluate(ts) -> dict:
        if competitive:
            return evaluate_competitive_snapshot(trainer, ts, eval_env, run.evaluate_agent, run.eval_deals,
                                                 out / SNAPSHOT_DIR, model_metadata(ts, None), constructive_agent,
                                                 model_format)
        returns, finished = evaluate_greedy(trainer.graphdef, ts.params, eval_env, eval_rows)
        mean, ci = mean_ci(np.asarray(returns))
        return {"imps_per_deal": mean, "ci95": ci, "deals": int(len(eval_rows)), "all_finished": bool(finished.all())}

    def write_model(ts, evaluation) -> None:
        params = nnx.to_pure_dict(ts.params)
        params.pop("auxiliary", None)  # a training signal only: the released network is the Q-network alone
        metadata = model_metadata(ts, evaluation)
        if getattr(ts, "critic", None) is not None:  # the centralised critic, for decision-time search
            save_weights(out / CRITIC_FILE, nnx.to_pure_dict(ts.critic),
                         {**metadata, "env_id": "uncontested_bidding_critic", "role": "critic",
                          "observation_size": env.observation_size + 52, "evaluation": None})
        save_weights(out / MODEL_FILE, params, metadata, format=model_format)

    def log(record: dict) -> None:
        with open(out / LOG_FILE, "a") as handle:
            handle.write(json.dumps(record) + "\n")

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=iterations * per_iteration, initial=done_iterations * per_iteration, unit="step",
                   desc=f"{algo.upper()} {preset}", smoothing=0.1)
    rolling: list[float] = []
    last_save, start_time = time.monotonic(), time.monotonic()
    saved_steps = int(ts.env_steps) if resuming else None  # env steps of the last good checkpoint
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
            steps_before = int(ts.env_steps)
            updates_before = int(ts.updates)
            ts, metrics = trainer.run_steps(env, ts, n)
            jax.block_until_ready(ts)
            seconds = time.monotonic() - t0
            losses = np.asarray(metrics.loss)
            if not np.isfinite(losses).all():  # stop before anything of this state is saved
                bad = int(np.flatnonzero(~np.isfinite(losses))[0])
                kept = (f"the last good checkpoint (env step {saved_steps}) is kept in {out}" if saved_steps is not None
                        else f"no checkpoint had been saved in {out} yet")
                raise TrainingDiverged(f"training loss became {float(losses[bad])} at env step "
                                       f"{steps_before + (bad + 1) * per_iteration}; {kept}")
            if not all(np.isfinite(np.asarray(leaf)).all() for leaf in jax.tree.leaves(ts.params)):
                kept = (f"the last good checkpoint (env step {saved_steps}) is kept in {out}" if saved_steps is not None
                        else f"no checkpoint had been saved in {out} yet")
                raise TrainingDiverged(f"the network's weights became non-finite between env steps {steps_before} and "
                                       f"{int(ts.env_steps)}; {kept}")
            done_iterations += n
            episodes, total = int(metrics.episodes.sum()), float(metrics.return_sum.sum())
            if episodes:
                rolling = (rolling + [total / episodes])[-20:]
            record = {"env_steps": int(ts.env_steps), "updates": int(ts.updates),
                      **({"epsilon": float(metrics.epsilon[-1])} if algo == "dqn" else {}),
                      "loss": float(metrics.loss.mean()),
                      "train_imps": total / max(episodes, 1), "env_steps_per_s": n * per_iteration / seconds,
                      "episodes": episodes,
                      "updates_per_s": (int(ts.updates) - updates_before) / seconds,
                      "wall_s": time.monotonic() - start_time,
                      **(ppo.metrics_record(metrics) if algo == "ppo" else {})}
            pool_episodes = int(metrics.pool_episodes.sum())
            if pool_episodes:
                record["pool_episodes"] = pool_episodes
                record["vs_pool_imps"] = float(metrics.pool_return_sum.sum()) / pool_episodes
            if done_iterations % eval_every < n or done_iterations >= iterations:
                last_eval = evaluate(ts)
                record["eval"] = last_eval
            log(record)
            if bar is not None:
                bar.update(n * per_iteration)
                postfix = {"steps/s": f"{record['env_steps_per_s']:.0f}", "upd/s": f"{record['updates_per_s']:.0f}",
                           **({"eps": f"{record['epsilon']:.3f}"} if "epsilon" in record else {}),
                           "loss": f"{record['loss']:.3f}",
                           "imps": f"{np.mean(rolling):.2f}" if rolling else "-"}
                key = "vs_rules_imps_per_board" if competitive else "imps_per_deal"
                if last_eval and isinstance(last_eval.get(key), (int, float)):
                    postfix["vs rules" if competitive else "held-out"] = f"{last_eval[key]:.2f}"
                bar.set_postfix(postfix)
            if time.monotonic() - last_save >= run.checkpoint_seconds or done_iterations >= iterations:
                _save_state(state_path, ts, meta)
                write_model(ts, last_eval)
                last_save, saved_steps = time.monotonic(), int(ts.env_steps)
    except KeyboardInterrupt:
        _save_state(state_path, ts, meta)
        raise
    finally:
        if bar is not None:
            bar.close()
    final = last_eval or evaluate(ts)
    write_model(ts, final)
    return {**final, "env_steps": int(ts.env_steps), "updates": int(ts.updates), "model": str(out / MODEL_FILE)}


def evaluate_competitive_snapshot(trainer, ts, eval_env, evaluate_agent: Callable[[Any], dict], deals: int,
                                  snapshot_dir: Path, metadata: dict, constructive=None, format: str = FORMAT) -> dict:
    """Keep the greedy network as a snapshot, then score it: ``evaluate_agent`` on the network as a `DQNAgent`
    (with ``constructive`` bidding while the opponents pass; e.g. a duplicate match against the rule baseline) and
    the network's own self-play distance from par on the first ``deals`` held-out deals."""
    from bridgerl.agents.learned.dqn import DQNAgent

    snapshot = snapshot_dir / f"model-{int(ts.env_steps):010d}.msgpack"
    save_weights(snapshot, nnx.to_pure_dict(ts.params), metadata, format=format)
    agent = DQNAgent(nnx.merge(trainer.graphdef, ts.params), metadata, constructive)  # greedy over its outputs
    scores = dict(evaluate_agent(agent))
    rows = np.arange(min(deals, eval_env.owner.shape[0]))
    returns, finished = evaluate_greedy(trainer.graphdef, ts.params, eval_env, rows, max_calls=320)
    return {**scores, "self_play_abs_par_imps": float(np.abs(np.asarray(returns)).mean()),
            "all_finished": bool(np.asarray(finished).all()), "snapshot": str(snapshot)}


DEFAULT_STEPS = {"small": 2_000_000, "thesis": 4_000_000, "critic": 300_000}
