"""The DQN and PPO bidders' recipe (`BiddingRecipe`) that the one training loop (`training.loop`) drives for
`training.run.train`: compiled chunks of env-step iterations, the held-out evaluations (against par; in competitive
runs each network kept as a snapshot and scored by the caller's evaluator), the model written at each checkpoint;
and the files a bidder's run directory holds."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any, Callable

import jax
import numpy as np
from flax import nnx

from bridgerl.agents.learned.checkpoint import CRITIC_FILE, FORMAT, PPO_FORMAT, save_weights
from bridgerl.core.stats import mean_ci
from bridgerl.training.greedy import evaluate_greedy
from bridgerl.training.state import COMPETITIVE_ENV_ID

STATE_FILE = "train_state.msgpack"
MODEL_FILE = "model.msgpack"
LOG_FILE = "log.jsonl"
SNAPSHOT_DIR = "snapshots"
CONSTRUCTIVE_FILE = "constructive.msgpack"
RUN_FILES = (STATE_FILE, MODEL_FILE, LOG_FILE, SNAPSHOT_DIR, CONSTRUCTIVE_FILE, CRITIC_FILE)


def starting_network(path, params: nnx.State, hidden) -> nnx.State:
    """``params`` (a fresh PPO network of ``hidden`` sizes) with the weights of the PPO checkpoint at ``path``
    (``--init``: a clone to start from); a checkpoint of another kind or size is refused in one line."""
    from bridgerl.agents.learned.checkpoint import load_weights

    metadata, weights = load_weights(path, format=PPO_FORMAT, what="PPO")
    if metadata.get("env_id") != COMPETITIVE_ENV_ID or tuple(metadata.get("hidden", ())) != tuple(hidden):
        raise ValueError(f"--init {path}: a {metadata.get('env_id')} network of hidden sizes "
                         f"{' '.join(map(str, metadata.get('hidden', ())))}, this run trains a competitive one of "
                         f"{' '.join(map(str, hidden))} (give --hidden to match)")
    params = jax.tree.map(lambda a: a, params)
    nnx.replace_by_pure_dict(params, weights)
    return params


class TrainingDiverged(ValueError):
    """The training loss became NaN or infinite; the run stopped without saving that state."""


class BiddingRecipe:
    """What the DQN and PPO bidders' recipes share, driven by `training.loop.run_loop`: compiled chunks of
    iterations (``num_envs`` calls each), the held-out evaluation (against par, or a snapshot scored by the caller's
    ``evaluate_agent`` in competitive runs), the model written at each checkpoint. Each algorithm is a subclass
    (`DQNRecipe`, `PPORecipe`, by name in `RECIPES`): its settings, trainer, pretraining, refusals, log fields and
    the model's metadata; `training.run.train` sets a run up through them and never asks which algorithm it has."""

    algo = ""
    format = FORMAT
    fresh_deals = False         # can train on deals drawn inside jit (its reward played out after each rollout)
    saves_constructive = False  # keeps the constructive DQN beside every network it saves

    # ---------------------------------------------------------------- the algorithm's part of the run's setup
    @classmethod
    def settings(cls) -> tuple[dict, dict, type]:
        """(presets, default steps by preset, config class)."""
        raise NotImplementedError

    @classmethod
    def check_env(cls, run) -> None:
        """Refuse a game this algorithm does not train (one line)."""

    @classmethod
    def check(cls, run, config) -> None:
        """Refuse settings this algorithm cannot run with (one line), before any file is touched."""

    @classmethod
    def keeps_demonstrations(cls, config) -> bool:
        """Whether its updates read the demonstrations (a resumed run rebuilds them then)."""
        return False

    @classmethod
    def make_trainer(cls, run, config, steps: int, env, data, demos, mesh):
        raise NotImplementedError

    @classmethod
    def pretrained(cls, trainer, env, demos, run, config):
        """(params, statistics) of the network pretrained on the teacher's demonstrations."""
        raise NotImplementedError

    @classmethod
    def run_fields(cls) -> dict:
        """What the run's saved settings record of the algorithm (compared on resume)."""
        return {}

    @classmethod
    def model_fields(cls, run, config, constructive_agent) -> tuple[dict, dict, dict]:
        """The model metadata's fields of the algorithm: after ``env_id``, after ``hidden``, at the end."""
        return {}, {}, {}

    def head_fields(self, metrics) -> dict:
        """A log line's fields of the algorithm, after the step counters."""
        return {}

    def tail_fields(self, metrics) -> dict:
        """A log line's fields of the algorithm, after the common ones."""
        return {}

    def __init__(self, run, trainer, env, eval_env, eval_rows, model_meta: dict, constructive_agent,
                 saved_steps: int | None):
        self.run, self.trainer, self.env, self.eval_env, self.eval_rows = run, trainer, env, eval_env, eval_rows
        self.out, self.algo = Path(run.out), run.algo
        self.competitive = run.env_id == COMPETITIVE_ENV_ID
        self.model_meta, self.constructive_agent = model_meta, constructive_agent
        self.per_iteration = trainer.steps_per_iteration
        self.saved_steps = saved_steps  # env steps of the last good checkpoint
        self.rolling: list[float] = []
        self.start_time = time.monotonic()

    def done(self, ts) -> int:
        return int(ts.env_steps) // self.per_iteration

    def _kept(self) -> str:
        return (f"the last good checkpoint (env step {self.saved_steps}) is kept in {self.out}"
                if self.saved_steps is not None else f"no checkpoint had been saved in {self.out} yet")

    def step(self, ts, n: int):
        t0 = time.monotonic()
        steps_before, updates_before = int(ts.env_steps), int(ts.updates)
        ts, metrics = self.trainer.run_steps(self.env, ts, n)
        jax.block_until_ready(ts)
        seconds = time.monotonic() - t0
        losses = np.asarray(metrics.loss)
        if not np.isfinite(losses).all():  # stop before anything of this state is saved
            bad = int(np.flatnonzero(~np.isfinite(losses))[0])
            raise TrainingDiverged(f"training loss became {float(losses[bad])} at env step "
                                   f"{steps_before + (bad + 1) * self.per_iteration}; {self._kept()}")
        if not all(np.isfinite(np.asarray(leaf)).all() for leaf in jax.tree.leaves(ts.params)):
            raise TrainingDiverged(f"the network's weights became non-finite between env steps {steps_before} and "
                                   f"{int(ts.env_steps)}; {self._kept()}")
        episodes, total = int(metrics.episodes.sum()), float(metrics.return_sum.sum())
        if episodes:
            self.rolling = (self.rolling + [total / episodes])[-20:]
        record = {"env_steps": int(ts.env_steps), "updates": int(ts.updates), **self.head_fields(metrics),
                  "loss": float(metrics.loss.mean()),
                  "train_imps": total / max(episodes, 1), "env_steps_per_s": n * self.per_iteration / seconds,
                  "episodes": episodes, "updates_per_s": (int(ts.updates) - updates_before) / seconds,
                  "wall_s": time.monotonic() - self.start_time, **self.tail_fields(metrics)}
        pool_episodes = int(metrics.pool_episodes.sum())
        if pool_episodes:
            record["pool_episodes"] = pool_episodes
            record["vs_pool_imps"] = float(metrics.pool_return_sum.sum()) / pool_episodes
        return ts, record

    def model_metadata(self, ts, evaluation) -> dict:
        return {**self.model_meta, "env_steps": int(ts.env_steps), "updates": int(ts.updates),
                "evaluation": evaluation}

    def evaluation(self, ts) -> dict:
        if self.competitive:
            return evaluate_competitive_snapshot(self.trainer, ts, self.eval_env, self.run.evaluate_agent,
                                                 self.run.eval_deals, self.out / SNAPSHOT_DIR,
                                                 self.model_metadata(ts, None), self.constructive_agent,
                                                 self.format)
        returns, finished = evaluate_greedy(self.trainer.graphdef, ts.params, self.eval_env, self.eval_rows)
        mean, ci = mean_ci(np.asarray(returns))
        return {"imps_per_deal": mean, "ci95": ci, "deals": int(len(self.eval_rows)),
                "all_finished": bool(finished.all())}

    def evaluate(self, ts, record: dict):
        return ts, {"eval": self.evaluation(ts)}

    def write_model(self, ts, evaluation) -> None:
        params = nnx.to_pure_dict(ts.params)
        params.pop("auxiliary", None)  # a training signal only: the released network is the Q-network alone
        metadata = self.model_metadata(ts, evaluation)
        if getattr(ts, "critic", None) is not None:  # the centralised critic, for decision-time search
            save_weights(self.out / CRITIC_FILE, nnx.to_pure_dict(ts.critic),
                         {**metadata, "env_id": "uncontested_bidding_critic", "role": "critic",
                          "observation_size": self.env.observation_size + 52, "evaluation": None})
        save_weights(self.out / MODEL_FILE, params, metadata, format=self.format)

    def checkpoint(self, ts, evaluation: dict | None) -> None:
        self.write_model(ts, (evaluation or {}).get("eval"))
        self.saved_steps = int(ts.env_steps)

    def postfix(self, record: dict, evaluation: dict | None) -> dict:
        postfix = {"steps/s": f"{record['env_steps_per_s']:.0f}", "upd/s": f"{record['updates_per_s']:.0f}",
                   **({"eps": f"{record['epsilon']:.3f}"} if "epsilon" in record else {}),
                   "loss": f"{record['loss']:.3f}",
                   "imps": f"{np.mean(self.rolling):.2f}" if self.rolling else "-"}
        last_eval = (evaluation or {}).get("eval")
        key = "vs_rules_imps_per_board" if self.competitive else "imps_per_deal"
        if last_eval and isinstance(last_eval.get(key), (int, float)):
            postfix["vs rules" if self.competitive else "held-out"] = f"{last_eval[key]:.2f}"
        return postfix


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


class DQNRecipe(BiddingRecipe):
    """The DQN bidder (`training.dqn`): uncontested, or competitive self-play with per-seat transitions."""

    algo = "dqn"
    format = FORMAT
    saves_constructive = True

    @classmethod
    def settings(cls):
        from bridgerl.training.dqn import PRESETS, DQNConfig

        return PRESETS, DEFAULT_STEPS, DQNConfig

    @classmethod
    def check(cls, run, config) -> None:
        if config.demo_weight and run.pretrain is None:
            raise ValueError("demo_weight > 0 needs the rule demonstrations: pass a pretraining config "
                             "(--pretrain-deals)")

    @classmethod
    def keeps_demonstrations(cls, config) -> bool:
        return bool(config.demo_weight)

    @classmethod
    def make_trainer(cls, run, config, steps, env, data, demos, mesh):
        from bridgerl.training.dqn import DQNTrainer

        return DQNTrainer(env, config, seed=run.seed, total_steps=steps, demonstrations=demos,
                          self_play=run.env_id == COMPETITIVE_ENV_ID, mesh=mesh)

    @classmethod
    def pretrained(cls, trainer, env, demos, run, config):
        from bridgerl.training.demonstrations import pretrain_on

        return pretrain_on(trainer.graphdef, trainer.init(env).params, demos, run.pretrain, config.huber_delta,
                           run.progress)

    @classmethod
    def model_fields(cls, run, config, constructive_agent):
        return {}, {"dueling": config.dueling}, ({"constructive": CONSTRUCTIVE_FILE} if constructive_agent else {})

    def head_fields(self, metrics) -> dict:
        return {"epsilon": float(metrics.epsilon[-1])}


class PPORecipe(BiddingRecipe):
    """The PPO bidder (`training.ppo`): competitive self-play over the four seats, on dataset or fresh deals."""

    algo = "ppo"
    format = PPO_FORMAT
    fresh_deals = True

    @classmethod
    def settings(cls):
        from bridgerl.training import ppo

        return ppo.PRESETS, ppo.DEFAULT_STEPS, ppo.PPOConfig

    @classmethod
    def check_env(cls, run) -> None:
        if run.env_id != COMPETITIVE_ENV_ID:
            raise ValueError("PPO trains competitive bidding (self-play over the four seats): use train competitive")

    @classmethod
    def check(cls, run, config) -> None:
        if run.constructive is not None and run.pretrain is None:
            raise ValueError("with --algo ppo, --constructive is the teacher's constructive system: it needs "
                             "--pretrain-deals (PPO's own network makes every call)")
        if config.bc_weight and run.pretrain is None:
            raise ValueError("bc_weight > 0 needs the teacher's demonstrations: pass a pretraining config "
                             "(--pretrain-deals)")

    @classmethod
    def keeps_demonstrations(cls, config) -> bool:
        return bool(config.bc_weight)

    @classmethod
    def make_trainer(cls, run, config, steps, env, data, demos, mesh):
        from bridgerl.training import ppo

        card_player = data.fresh_player  # fresh deals: the held-out tables' card player plays contracts out
        if card_player is None and config.playout:  # the card player that made the played tables
            card_player = table_card_player(data.train)
        return ppo.PPOTrainer(env, config, seed=run.seed, total_steps=steps, demonstrations=demos, mesh=mesh,
                              card_player=card_player)

    @classmethod
    def pretrained(cls, trainer, env, demos, run, config):
        from bridgerl.training.demonstrations import pretrain_policy

        pretrain = run.pretrain
        params, started = trainer.init(env).params, {}
        if pretrain.init is not None:
            import hashlib

            from bridgerl.agents.learned.checkpoint import checkpoint_file

            params = starting_network(pretrain.init, params, config.hidden)
            digest = hashlib.sha256(checkpoint_file(pretrain.init).read_bytes()).hexdigest()
            started = {"init": str(pretrain.init), "init_sha256": digest}
        params, stats = pretrain_policy(trainer.graphdef, params, demos, pretrain.updates, pretrain.batch_size,
                                        pretrain.learning_rate, pretrain.seed, run.progress, config.reward_scale,
                                        pretrain.learning_rate_end)
        return params, {**started, **stats}

    @classmethod
    def run_fields(cls) -> dict:
        return {"algo": "ppo"}

    @classmethod
    def model_fields(cls, run, config, constructive_agent):
        pretrain, constructive = run.pretrain, run.constructive
        return ({"algo": "ppo"}, {}, {"teacher": {"pretrain": dataclasses.asdict(pretrain) if pretrain else None,
                                                   "constructive": str(constructive) if constructive else None}})

    def tail_fields(self, metrics) -> dict:
        from bridgerl.training import ppo

        return ppo.metrics_record(metrics)


RECIPES = {"dqn": DQNRecipe, "ppo": PPORecipe}
DEFAULT_STEPS = {"small": 2_000_000, "thesis": 4_000_000, "critic": 300_000}  # the DQN presets' env steps


def table_card_player(data):
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
