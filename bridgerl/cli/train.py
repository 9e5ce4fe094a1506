"""``bridgerl train ...``: the bidders (uncontested, competitive), the play networks (card-location, issn, ssn) and
export."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from .argtypes import (dataset_arg, device_count, non_negative_float, non_negative_int,
                             positive_float, positive_int, probability)
from ..core.files import refuse_overwrite
from .common import DATA_HELP, FORCE_HELP
from .train_distill import add_distill

_OVERRIDES = ("learning_rate", "batch_size", "num_envs", "updates_per_step", "target_every", "replay_size", "lr_end",
              "transitions", "eps_start", "eps_end", "eps_decay_steps", "min_replay", "huber_delta", "pool_size",
              "pool_every", "pool_prob", "demo_weight", "demo_margin", "targets", "aux_weight", "rollout", "epochs",
              "minibatches", "clip", "entropy_coef", "value_coef", "gae_lambda", "bc_weight", "bc_end", "pool_priority",
              "reward_scale", "fresh_reference", "fresh_chunk")
_FLAGS = ("double_q", "dueling", "pool_anchor", "critic", "collect_targets")  # store_true flags of the train commands


def _train_overrides(args) -> dict:
    overrides = {name: getattr(args, name) for name in _OVERRIDES if getattr(args, name, None) is not None}
    if args.hidden:
        overrides["hidden"] = tuple(args.hidden)
    for flag in _FLAGS:  # pool_anchor is only in `train competitive`, critic and collect_targets in uncontested
        if getattr(args, flag, False):
            overrides[flag] = True
    return overrides


def _tricks_options(args) -> dict | None:
    """The env options of ``--tricks`` (none for DD: the runs made before the option resume unchanged)."""
    return {"tricks": "played"} if args.tricks == "played" else None


def _train_uncontested(args) -> int:
    from ..training.run import train_uncontested

    result = train_uncontested(args.out, preset=args.preset, steps=args.steps, seed=args.seed, data=args.data,
                               eval_data=args.eval_data, resume=args.resume, overrides=_train_overrides(args),
                               eval_every_steps=args.eval_every, force=args.force,
                               progress=not args.quiet, devices=args.devices, env_options=_tricks_options(args))
    where = f"the {args.eval_data} split" if args.eval_data in ("train", "valid", "test") else args.eval_data
    print(f"held-out IMPs/deal vs constructive par on {where}: {result['imps_per_deal']:.2f} +/- {result['ci95']:.2f} "
          f"(95% CI, {result['deals']} deals, {result['env_steps']} env steps, {result['updates']} updates)")
    print(f"model: {result['model']}")
    return 0


def _train_competitive(args) -> int:
    from ..evaluation.bidding.competitive import rule_baseline_evaluator
    from ..training.demonstrations import PretrainConfig
    from ..training.run import train_competitive

    overrides = _train_overrides(args)
    if args.reward == "playout":
        if args.algo != "ppo" or args.tricks != "played":
            raise ValueError("--reward playout is for --algo ppo --tricks played (it plays contracts out with the "
                             "card player of the played tables)")
        overrides["playout"] = True
    if args.data != "fresh" and (args.fresh_reference is not None or args.fresh_chunk is not None):
        raise ValueError("--fresh-reference and --fresh-chunk set how fresh deals are scored: they go with --data fresh")
    pretrain = None
    if args.pretrain_data is not None and not args.pretrain_deals:
        raise ValueError("--pretrain-data names the deals of the teacher's demonstrations: it goes with "
                         "--pretrain-deals")
    if args.demos and args.teacher:
        raise ValueError("--teacher SPEC labels fresh deals to clone; --demos FILE clones labels made already: give "
                         "one of them")
    labelled = bool(args.demos) or args.teacher is not None  # the labelling route (`data bid-labels`)
    if labelled and args.algo != "ppo":
        raise ValueError("--demos and --teacher clone into PPO's policy (--algo ppo): labels carry no returns for "
                         "the DQN's value pretraining")
    if labelled and args.pretrain_data is not None:
        raise ValueError("--pretrain-data names the deals of the rule demonstrations (no --teacher); --teacher labels "
                         "fresh deals and --demos brings its own")
    if args.teacher == "rules" and args.constructive:  # the rule teacher with a constructive system: today's route
        labelled = False
    elif labelled and args.constructive:
        raise ValueError("--constructive is the rule teacher's constructive system: it goes only with --teacher rules "
                         "(or no --teacher)")
    if args.demos and args.pretrain_deals:
        raise ValueError("--demos holds its own deals: --pretrain-deals goes with --teacher (the fresh deals it labels)")
    if args.teacher and not args.pretrain_deals:
        raise ValueError(f"--teacher {args.teacher}: give --pretrain-deals N, the fresh deals it bids for the labels")
    if (args.init or args.pretrain_lr or args.pretrain_lr_end is not None) and not labelled:
        raise ValueError("--init, --pretrain-lr and --pretrain-lr-end set the cloning of labels: they go with --demos "
                         "or --teacher (--algo ppo)")
    if not args.pretrain_updates and not args.init:
        raise ValueError("--pretrain-updates 0 clones nothing: it goes with --init CHECKPOINT, a network cloned already")
    if args.init:
        from ..agents.learned.checkpoint import PPO_FORMAT, check_checkpoint

        check_checkpoint(args.init, PPO_FORMAT, "PPO")  # a wrong file refused before the labels are read
    schedule = {"learning_rate": args.pretrain_lr or 1e-3, "learning_rate_end": args.pretrain_lr_end,
                "init": args.init}
    if args.demos:
        from ..training.bid_labels import check_label_files

        check_label_files(args.demos)
        pretrain = PretrainConfig(deals=0, updates=args.pretrain_updates, seed=args.seed, demos=tuple(args.demos),
                                  **schedule)
    elif args.pretrain_deals:
        pretrain = PretrainConfig(deals=args.pretrain_deals, updates=args.pretrain_updates, seed=args.seed,
                                  teacher=args.teacher if labelled else None, **(schedule if labelled else {}))
    result = train_competitive(args.out, preset=args.preset, steps=args.steps, seed=args.seed, data=args.data,
                               eval_data=args.eval_data, resume=args.resume, overrides=overrides,
                               eval_every_steps=args.eval_every, eval_deals=args.eval_deals,
                               progress=not args.quiet, pretrain=pretrain, constructive=args.constructive,
                               evaluate_agent=rule_baseline_evaluator(args.eval_data, args.eval_deals,
                                                                      tricks=args.tricks),
                               force=args.force, algo=args.algo, devices=args.devices,
                               env_options=_tricks_options(args), pretrain_data=args.pretrain_data)
    print(f"vs the competitive rule baseline: {result['vs_rules_imps_per_board']:+.2f} +/- {result['ci95']:.2f} "
          f"IMPs/board (95% CI, duplicate, {result['deals']} held-out boards of {args.eval_data}, "
          f"{result['env_steps']} env steps, "
          f"{result['updates']} updates)")
    print(f"model: {result['model']}")
    return 0


def _train_network(args) -> int:
    """`bridgerl train card-location | issn | ssn | card-player`: one supervised loop
    (`bridgerl.training.supervised`)."""
    from ..training.supervised import SupervisedConfig, train_supervised

    kind = args.train_command
    defaults = {"card-location": {}, "issn": {"hidden": (512, 512), "learning_rate": 3e-4},
                "ssn": {"hidden": (512, 512, 512), "learning_rate": 3e-4},
                "card-player": {"hidden": (512, 512, 512), "learning_rate": 3e-4},
                "trick-estimator": {"hidden": (1024, 1024, 1024), "learning_rate": 3e-4, "batch_size": 512,
                                    "lr_decay": "cosine"}}[kind]
    given = {k: v for k, v in (("hidden", tuple(args.hidden) if args.hidden else None),
                               ("learning_rate", args.learning_rate), ("epochs", args.epochs),
                               ("batch_size", args.batch_size), ("weight_decay", args.weight_decay),
                               ("lr_decay", args.lr_decay))
             if v is not None}
    if getattr(args, "init", None) and "hidden" not in given:  # a fine-tune keeps its model's hidden sizes
        from ..agents.learned.card_player import FORMAT
        from ..agents.learned.checkpoint import load_weights

        given["hidden"] = tuple(load_weights(args.init, format=FORMAT, what="card-player")[0]["hidden"])
    config = SupervisedConfig(**{**defaults, **given})
    if kind == "card-location":
        from ..training.card_location import LOCATION as task
    elif kind == "issn":
        from ..training.simulation import issn_task

        task = issn_task(args.target)
    elif kind == "card-player":
        from ..training.card_player import card_player_task, check_mixed

        if args.target == "mixed":
            check_mixed(args.train)
        task = card_player_task(args.auction, not args.no_relabel, args.target, args.value_weight)
    elif kind == "trick-estimator":
        from ..training.trick_estimator import trick_estimator_task

        task = trick_estimator_task(not args.no_relabel)
    else:
        from ..training.simulation import ssn_task

        task = ssn_task(not args.no_relabel)
    record = train_supervised(task, args.out, args.train, args.valid, config, seed=args.seed, resume=args.resume,
                              force=args.force, progress=not args.quiet, init=getattr(args, "init", None),
                              command=" ".join(["bridgerl", *map(shlex.quote, sys.argv[1:])]))
    metric = task.metric
    print(f"{args.out}: epoch {record.get('epoch')} train {metric.replace('_', '-')} "
          f"{record.get(f'train_{metric}', float('nan')):.4f}, valid {record.get(f'valid_{metric}', float('nan')):.4f}"
          "; model.msgpack keeps the best validation epoch")
    return 0


def _train_selfplay(args) -> int:
    """`bridgerl train card-player-selfplay`: PPO fine-tuning of a card player in the JAX whole deal."""
    from ..training.card_player_selfplay import SelfPlayConfig, train_selfplay

    given = {k: getattr(args, k) for k in ("tables", "updates", "learning_rate", "clip", "ppo_epochs",
                                           "minibatches", "eval_every", "warmup", "entropy_weight")
             if getattr(args, k) is not None}
    record = train_selfplay(args.out, args.init, args.deals, args.valid, SelfPlayConfig(**given), seed=args.seed,
                            resume=args.resume, force=args.force, progress=not args.quiet,
                            command=" ".join(["bridgerl", *map(shlex.quote, sys.argv[1:])]))
    print(f"{args.out}: update {record.get('update')}, valid trick loss "
          f"{record.get('valid_trick_loss', float('nan')):.4f}; model.msgpack keeps the best validation update "
          "(update 0: the starting network)")
    return 0


def _play_formats() -> dict:
    """The checkpoint formats of the play models, by `checkpoint_kind`'s names (one file each, no helpers beside)."""
    from ..agents.learned.card_location import FORMAT as LOCATION_FORMAT
    from ..agents.learned.card_player import FORMAT as CARD_PLAYER_FORMAT
    from ..agents.learned.simulation import ISSN_FORMAT, SSN_FORMAT
    from ..agents.learned.trick_estimator import FORMAT as ESTIMATOR_FORMAT

    return {"card-location": LOCATION_FORMAT, "ISSN": ISSN_FORMAT, "SSN": SSN_FORMAT,
            "card-player": CARD_PLAYER_FORMAT, "trick-estimator": ESTIMATOR_FORMAT}


def _train_export(args) -> int:
    from ..agents.learned.checkpoint import (CRITIC_FILE, FORMAT, PPO_FORMAT, checkpoint_file, checkpoint_kind,
                                             load_weights, save_weights)

    kind = checkpoint_kind(args.run)
    model_format = {"DQN": FORMAT, "PPO": PPO_FORMAT, **_play_formats()}.get(kind)
    if model_format is None:
        raise ValueError(f"{args.run}: a {kind} model; train export takes the DQN and PPO bidders and the "
                         "card-location, ISSN, SSN, card-player and trick-estimator models")
    metadata, params = load_weights(args.run, format=model_format, what=kind)
    out = Path(args.out)
    bidder = kind in ("DQN", "PPO")  # a bidder's helpers go along; a play model is its one file
    constructive = metadata.get("constructive") if bidder else None
    critic = checkpoint_file(args.run).parent / CRITIC_FILE
    critic = critic if bidder and critic.exists() else None
    refuse_overwrite(out / "model.msgpack", args.force, "model")
    if constructive:
        refuse_overwrite(out / constructive, args.force, "constructive bidder")
    if critic:
        refuse_overwrite(out / critic.name, args.force, "critic")
    save_weights(out / "model.msgpack", params, metadata, dtype=args.dtype, format=model_format)
    if constructive:  # the uncontested DQN that bids while the opponents pass goes along
        helper, helper_params = load_weights(checkpoint_file(args.run).parent / constructive)
        save_weights(out / constructive, helper_params, helper, dtype=helper.get("dtype", "float32"))
    if critic:  # the centralised critic of decision-time search (search:PATH) goes along, same dtype
        critic_metadata, critic_params = load_weights(critic, what="critic")
        save_weights(out / critic.name, critic_params, critic_metadata, dtype=args.dtype)
    size = (out / "model.msgpack").stat().st_size
    print(f"wrote {out / 'model.msgpack'} ({size / 1e6:.1f} MB, {args.dtype}); trained with: {metadata.get('command')}")
    return 0


def add_parser(commands) -> None:
    """Add ``train`` and its commands to the top-level subparsers."""
    force_help, data_help = FORCE_HELP, DATA_HELP
    train = commands.add_parser("train", help="train agents")
    train_commands = train.add_subparsers(dest="train_command", required=True)
    unc = train_commands.add_parser("uncontested", help="DQN on uncontested bidding (thesis 4.4), fully jitted JAX")
    comp_train = train_commands.add_parser(
        "competitive",
        help="self-play DQN or PPO (--algo ppo) on competitive bidding (thesis 4.5.2), pool of past networks")
    for sub in (unc, comp_train):
        critic = sub is unc  # all-call targets need the uncontested env
        sub.add_argument("--preset", choices=["thesis", "small"] + (["critic"] if critic else ["gpu"]),
                         default="small",
                         help="network and hyperparameters: thesis (4 x 1024) or small (2 x 256, a few CPU minutes)"
                              + ("; critic: small with all-call targets, a centralised critic, squared loss, dueling "
                                 "head and learning-rate decay (300k calls by default, the README's main job)"
                                 if critic else "; with --algo ppo: small (2 x 256, 64 auctions, a pool of 8) or gpu "
                                 "(4 x 1024, 1024 auctions, a pool of 16)") + "; default small")
        sub.add_argument("--steps", type=positive_int, default=None, help="env steps (calls); default per preset")
        sub.add_argument("--out", required=True,
                         help="run directory (model.msgpack, train_state.msgpack, log.jsonl)")
        sub.add_argument("--seed", type=non_negative_int, default=0,
                         help="seed of the network, exploration and deal order (default 0)")
        sub.add_argument("--data", type=dataset_arg, default="train",
                         help="training deals: " + data_help + ("" if sub is unc else "; or fresh (ppo with "
                                                                 "--tricks played: a new deal for every auction, "
                                                                 "dealt inside jit and played out by the card "
                                                                 "player of --eval-data's played tables)"))
        sub.add_argument("--eval-data", type=dataset_arg, default="valid",
                         help="held-out deals for the evaluations during training: " + data_help + " (default valid: "
                              "the test split is for final tables, `bridgerl evaluate ... --data test`)")
        sub.add_argument("--tricks", choices=["dd", "played"], default="dd",
                         help="score contracts (and par) with the deals' DD tables (default) or their played-tricks "
                              "tables (datasets made by `bridgerl data played`), in training and its evaluations")
        sub.add_argument("--resume", action="store_true",
                         help="continue the run saved in --out (with the same settings)")
        sub.add_argument("--force", action="store_true",
                         help="start a new run in an --out that holds one, deleting its model, state, log and "
                              "snapshots")
        sub.add_argument("--eval-every", type=positive_int, default=None,
                         help="env steps between held-out evaluations (default: a tenth of the run)")
        sub.add_argument("--quiet", action="store_true", help="no progress bar")
        sub.add_argument("--devices", type=device_count, default=None, metavar="N|all",
                         help="data parallel over N devices (all: every visible one) with jax.sharding: the auctions "
                              "and each update's batch split over them, parameters replicated; --num-envs and "
                              "--batch-size are global and must divide by N. On a CPU it asks XLA for N host devices "
                              "unless XLA_FLAGS sets a count (default: one device, unsharded)")
        for name, kind in (("learning-rate", positive_float), ("batch-size", positive_int),
                           ("num-envs", positive_int), ("updates-per-step", positive_int),
                           ("target-every", positive_int), ("replay-size", positive_int),
                           ("lr-end", non_negative_float), ("eps-start", probability), ("eps-end", probability),
                           ("eps-decay-steps", positive_int), ("min-replay", positive_int),
                           ("huber-delta", positive_float)):
            sub.add_argument(f"--{name}", type=kind, default=None,
                             help=f"override the preset's {name.replace('-', '_')} (training.dqn.DQNConfig)")
        sub.add_argument("--hidden", type=positive_int, nargs="+", help="hidden layer sizes (override the preset)")
        sub.add_argument("--double-q", action="store_true",
                         help="double Q-learning: the online network picks the next call, the target values it")
        sub.add_argument("--dueling", action="store_true", help="dueling network head (value + advantages)")
    unc.add_argument("--transitions", choices=["seat", "team"], default=None,
                     help="next state of a call: the same seat's next turn (seat, the preset's) or the partner's "
                          "next call (team)")
    unc.add_argument("--targets", choices=["sampled", "all"], default=None,
                     help="sampled: the TD target of the call taken (the preset's); all: regress every legal call at "
                          "once, a call the partner passes to its exact DD value, else bootstrapped")
    unc.add_argument("--critic", action="store_true",
                     help="with --targets all: bootstrap from a centralised critic that also sees the partner's "
                          "cards (used in training only; the released network sees one hand)")
    unc.add_argument("--collect-targets", action="store_true",
                     help="with --targets all: compute each call's targets once when it is stored, not at every "
                          "replay (about 4x fewer network evaluations, targets up to a replay buffer old)")
    unc.add_argument("--aux-weight", type=non_negative_float, default=None,
                     help="with --targets all: weight of auxiliary heads predicting the partner's HCP and suit "
                          "lengths and the side's DD tricks per strain from the shared torso (default 0: none)")
    unc.set_defaults(func=_train_uncontested)
    comp_train.add_argument("--algo", choices=["dqn", "ppo"], default="dqn",
                            help="dqn (the default) or ppo: PPO with a value head, fully jitted, per-seat GAE, a pool "
                                 "of past networks (training.ppo, docs/training.md)")
    for name, kind, what in (("rollout", positive_int, "calls per auction slot per iteration"),
                             ("epochs", positive_int, "passes over each rollout"),
                             ("minibatches", positive_int, "minibatches per pass"),
                             ("clip", positive_float, "the clipping range of the probability ratio"),
                             ("entropy-coef", non_negative_float, "weight of the entropy bonus"),
                             ("value-coef", non_negative_float, "weight of the value loss"),
                             ("gae-lambda", probability, "GAE's lambda"),
                             ("reward-scale", positive_float, "IMPs x this are the value head's rewards"),
                             ("bc-weight", non_negative_float,
                              "weight of the cross-entropy on the teacher's demonstrations in every update (needs "
                              "--pretrain-deals, --teacher or --demos; soft targets where the labels hold them)"),
                             ("bc-end", non_negative_float,
                              "the --bc-weight reached at the end of the run, decaying linearly (default: constant)"),
                             ("pool-priority", non_negative_float,
                              "0: pool snapshots drawn uniformly; > 0: those the learner scores worst against more "
                              "often")):
        comp_train.add_argument(f"--{name}", type=kind, default=None, help=f"ppo: {what} (override the preset)")
    comp_train.add_argument("--pool-size", type=non_negative_int, default=None,
                            help="frozen past networks kept as opponents (0: plain self-play)")
    comp_train.add_argument("--pool-every", type=positive_int, default=None,
                            help="updates (ppo: iterations) between pool snapshots")
    comp_train.add_argument("--pool-prob", type=probability, default=None,
                            help="share of auctions played against a pool snapshot")
    comp_train.add_argument("--pool-anchor", action="store_true",
                            help="keep the starting (e.g. pretrained) network in the pool for the whole run")
    comp_train.add_argument("--reward", choices=["table", "playout"], default="table",
                            help="ppo with --tricks played: score each contract reached by reading the played table "
                                 "(default) or by playing it out online with the card player that made the table "
                                 "(the real auction in every player's view; about 3x slower)")
    comp_train.add_argument("--fresh-reference", choices=["self", "anchor"], default=None,
                            help="ppo with --data fresh: who bids each deal at the second table the learner's result "
                                 "is scored against (duplicate IMPs): self (the network as it stands, greedy; the "
                                 "default) or anchor (the pool's starting network; needs --pool-anchor)")
    comp_train.add_argument("--fresh-chunk", type=positive_int, default=None,
                            help="ppo with --data fresh: second-table auctions bid, and games played out, per batch "
                                 "(default 128)")
    comp_train.add_argument("--teacher", default=None, metavar="SPEC",
                            help="the bidder cloned before RL: SPEC (e.g. rules, ben:DIR) bids --pretrain-deals fresh "
                                 "deals whose labels `data bid-labels` writes to the run's teacher_labels.npz, then "
                                 "cloned (--algo ppo; sayc and its wrappers are refused: held out). Without it: the "
                                 "rule bidder's auctions of --pretrain-deals deals of --data (5%% random calls), as "
                                 "before; --constructive keeps that route")
    comp_train.add_argument("--demos", nargs="+", default=None, metavar="FILE",
                            help="clone from these label files of `bridgerl data bid-labels` (--algo ppo; the "
                                 "teacher's probabilities as soft targets where the files hold them)")
    comp_train.add_argument("--pretrain-deals", type=non_negative_int, default=0,
                            help="start from the rule bidder's auctions on this many training deals (dqn: DQfD-style; "
                                 "ppo: the policy cloned from them)")
    comp_train.add_argument("--pretrain-data", type=dataset_arg, default=None,
                            help="the deals of the teacher's demonstrations (default: --data; with --data fresh: the "
                                 "bundled train split), read with --tricks")
    comp_train.add_argument("--pretrain-updates", type=non_negative_int, default=20_000,
                            help="gradient updates of that pretraining (multiples of 1000; 0 only with --init)")
    comp_train.add_argument("--pretrain-lr", type=positive_float, default=None,
                            help="ppo: Adam's learning rate of the cloning (default 1e-3)")
    comp_train.add_argument("--pretrain-lr-end", type=non_negative_float, default=None,
                            help="ppo: the cloning's rate falls linearly to this over its updates (default: constant)")
    comp_train.add_argument("--init", default=None, metavar="CHECKPOINT",
                            help="ppo with --demos or --teacher: start from this PPO network of the same --hidden "
                                 "(e.g. a clone's snapshots/model-0000000000.msgpack) instead of a fresh one; "
                                 "--pretrain-updates go on cloning from it (0: none), the labels stay for "
                                 "--bc-weight and --pool-anchor keeps it in the pool")
    comp_train.add_argument("--demo-weight", type=non_negative_float, default=None,
                            help="DQfD: weight of the large-margin loss on the demonstrations during RL "
                                 "(needs --pretrain-deals)")
    comp_train.add_argument("--demo-margin", type=non_negative_float, default=None,
                            help="its margin in IMPs (default 1)")
    comp_train.add_argument("--constructive", default=None,
                            help="an uncontested DQN checkpoint that bids for the agent while the opponents pass "
                                 "(and in the demonstrations); saved beside the model. With --algo ppo: the "
                                 "teacher's constructive system in the demonstrations only")
    comp_train.add_argument("--eval-deals", type=positive_int, default=1000,
                            help="held-out deals of each duplicate match against the rule baseline (default 1000)")
    comp_train.set_defaults(func=_train_competitive)
    network_help = {
        "card-location": ("the card-location network (seed 003) on positions files (bridgerl data positions); keeps "
                          "the best validation epoch; resumable", "256 256", "1e-3"),
        "issn": ("the ISSN (seed 004): a policy from the player's view imitating the cards chosen (or the DD-best "
                 "cards) in positions files; keeps the best validation epoch; resumable", "512 512", "3e-4"),
        "ssn": ("the SSN (seed 004): double-dummy values of every legal card from the full position, by regression "
                "on positions files, side suits relabelled at random; keeps the best validation epoch; resumable",
                "512 512 512", "3e-4"),
        "card-player": ("the learned card player (issue #37): a policy from the play features of the player's own "
                        "view toward the DD-best cards of positions files, suits relabelled at random; keeps the "
                        "best validation epoch; resumable; released as models/card-player", "512 512 512", "3e-4"),
        "trick-estimator": ("the trick estimator (issue #65): the card player's played tricks of every strain from "
                            "the full deal and declarer, a distribution over 0-13, learned from datasets with a "
                            "played table (bridgerl data played; the bundled train split has one); keeps the epoch "
                            "of lowest valid MAE; resumable; released as models/trick-estimator; bidsearch's "
                            "score=estimator", "1024 1024 1024", "3e-4")}
    for kind, (text, hidden, rate) in network_help.items():
        net = train_commands.add_parser(kind, help=text)
        if kind == "trick-estimator":
            net.add_argument("--train", required=True, nargs="+",
                             help="datasets with a played table to learn from: train, or .npz files of other deals "
                                  "(bridgerl data played); never valid or test deals")
            net.add_argument("--valid", default="valid",
                             help="dataset with a played table to select the epoch on (default: the valid split)")
        else:
            net.add_argument("--train", required=True, nargs="+",
                             help="positions .npz file(s) to learn from (from training-split deals)")
            net.add_argument("--valid", required=True,
                             help="positions .npz to select the epoch on (from the valid split)")
        net.add_argument("--out", required=True, help="run directory (model.msgpack, train_state.msgpack, log.jsonl)")
        net.add_argument("--epochs", type=positive_int, default=None, help="epochs (default 20)")
        net.add_argument("--hidden", type=positive_int, nargs="+", help=f"hidden layer sizes (default {hidden})")
        net.add_argument("--learning-rate", type=positive_float, default=None,
                         help=f"AdamW learning rate (default {rate})")
        net.add_argument("--batch-size", type=positive_int, default=None,
                         help="examples per step (default 256; trick-estimator 512)")
        net.add_argument("--weight-decay", type=non_negative_float, default=None,
                         help="AdamW weight decay (default 1e-4)")
        net.add_argument("--lr-decay", choices=["constant", "cosine"], default=None,
                         help="the learning rate constant (default, but cosine for trick-estimator; a resume may "
                              "add epochs) or decayed to 0 by a "
                              "cosine over every step of --epochs (a resume keeps --epochs)")
        net.add_argument("--seed", type=non_negative_int, default=0, help="initialisation and shuffling (default 0)")
        net.add_argument("--resume", action="store_true", help="continue the run saved in --out")
        net.add_argument("--force", action="store_true", help="start a new run in an --out that holds one")
        net.add_argument("--quiet", action="store_true", help="no progress bar")
        if kind == "issn":
            net.add_argument("--target", choices=["recorded", "dd"], default="recorded",
                             help="learn the card each player chose (recorded, default) or the DD-best cards (dd)")
        if kind in ("ssn", "card-player", "trick-estimator"):
            net.add_argument("--no-relabel", action="store_true", help="no random relabelling of the side suits")
        if kind == "card-player":
            net.add_argument("--init", metavar="MODEL", help="start from this card player's weights (a fine-tune: "
                             "the same features and heads; its hidden sizes unless --hidden is given) instead of the "
                             "seed's initialisation")
            net.add_argument("--auction", action="store_true",
                             help="the features carry the auction's 231 bits (then pass --no-relabel: relabelling "
                                  "is exact only without the auction)")
            net.add_argument("--target", choices=["best", "worlds", "mixed", "tricks", "both"], default="best",
                             help="learn the DD-best cards of the true deal by cross-entropy (best, default), the "
                                  "cards best in the sampled worlds of files made with data positions "
                                  "--label-worlds (worlds: seed 004's target; mixed: those where a file has them, "
                                  "the true deal's elsewhere), regress every legal card's DD "
                                  "tricks less the best card's (tricks: the card of highest expected tricks given "
                                  "the view), or both heads together (both: best for the policy and a value for "
                                  "every card, each card's DD tricks, weighted by --value-weight; cardsearch reads "
                                  "the values); the epoch kept has the lowest valid trick loss")
            net.add_argument("--value-weight", type=float, default=0.25,
                             help="with --target both: weight of the card values' squared error (tricks^2) beside "
                                  "the policy's cross-entropy (default 0.25)")
        net.set_defaults(func=_train_network)
    add_distill(train_commands)
    selfplay = train_commands.add_parser(
        "card-player-selfplay", help="fine-tune a card player by self-play (PPO on the side's tricks) in the JAX "
                                     "whole deal, from the opening lead of the contracts positions files reached; "
                                     "keeps the update with the lowest valid trick loss; resumable")
    selfplay.add_argument("--init", default="models/card-player", help="the card player to start from "
                                                                       "(default models/card-player)")
    selfplay.add_argument("--deals", required=True, nargs="+",
                          help="positions .npz file(s) of one training-split dataset: their deals and contracts")
    selfplay.add_argument("--valid", required=True, help="positions .npz to select on (from the valid split)")
    selfplay.add_argument("--out", required=True, help="run directory (model.msgpack, train_state.msgpack, "
                                                       "log.jsonl)")
    for name, kind, text in (("tables", positive_int, "deals per update (default 256)"),
                             ("updates", positive_int, "updates (default 100)"),
                             ("learning-rate", positive_float, "Adam learning rate (default 1e-5)"),
                             ("clip", positive_float, "PPO ratio clip (default 0.2)"),
                             ("ppo-epochs", positive_int, "passes over each update's decisions (default 2)"),
                             ("minibatches", positive_int, "minibatches a pass (default 4)"),
                             ("eval-every", positive_int, "updates between validations (default 10)"),
                             ("warmup", non_negative_int, "first updates training the value head alone (default 5)"),
                             ("entropy-weight", non_negative_float, "entropy bonus (default 0)")):
        selfplay.add_argument(f"--{name}", type=kind, default=None, help=text)
    selfplay.add_argument("--seed", type=non_negative_int, default=0, help="deals drawn and cards sampled (default 0)")
    selfplay.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    selfplay.add_argument("--force", action="store_true", help="start a new run in an --out that holds one")
    selfplay.add_argument("--quiet", action="store_true", help="no progress bar")
    selfplay.set_defaults(func=_train_selfplay)
    export = train_commands.add_parser(
        "export", help="copy a run's weights (e.g. as bfloat16) for release: a DQN or PPO bidder (with its "
                       "constructive bidder and critic, if any) or a card-location, ISSN, SSN or card-player model")
    export.add_argument("run", help="run directory or model.msgpack (of any train command)")
    export.add_argument("--out", required=True, help="directory for model.msgpack")
    export.add_argument("--dtype", choices=["float32", "float16", "bfloat16"], default="bfloat16",
                        help="floating-point type of the released weights (default bfloat16)")
    export.add_argument("--force", action="store_true", help=force_help)
    export.set_defaults(func=_train_export)

