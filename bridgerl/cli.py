"""The ``bridgerl`` command line: ``bridgerl data ...``, ``bridgerl train ...``, ``bridgerl evaluate ...``.

Every numeric flag is range-checked when parsed (one-line error, exit status 2); no command replaces an existing
output file without ``--force``; ``--json`` and ``--report`` files are written atomically."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from . import __version__
from .core.argtypes import (OneLineParser, dataset_arg, device_count, int_range, non_negative_float,
                            non_negative_int, positive_float, positive_int, probability)
from .core.dataset import DatasetError
from .core.files import atomic_write_text, check_output, refuse_overwrite


def _load_deals(data):
    """``load_dataset(data)``, refusing a dataset without deals (one line instead of a failure further on)."""
    from .core.dataset import load_dataset

    dataset = load_dataset(data)
    if len(dataset) == 0:
        raise DatasetError(f"{dataset.source}: the dataset holds no deals")
    return dataset


def _write_json(path, payload) -> None:
    """Strict JSON, atomically: a mean or CI that does not exist (NaN: no contract declared, one board) is null."""
    import json
    import math

    def finite(value):
        if isinstance(value, float) and not math.isfinite(value):
            return None
        if isinstance(value, dict):
            return {k: finite(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [finite(v) for v in value]
        return value

    atomic_write_text(path, json.dumps(finite(payload), indent=1, allow_nan=False))


def _data_generate(args) -> int:
    from .core.generate import generate

    refuse_overwrite(args.out, args.force, "dataset")
    path = generate(args.out, deals=args.deals, seed=args.seed, workers=args.workers,
                    progress=not args.quiet, dds_threads=args.dds_threads, ray=args.ray)
    print(f"wrote {args.deals} deals with DD tables to {path}")
    return 0


def _data_positions(args) -> int:
    from .evaluation.positions import generate_positions

    refuse_overwrite(args.out, args.force, "positions file")
    path = generate_positions(args.out, data=args.data, deals=args.deals, start=args.start, ns=args.ns, ew=args.ew,
                              seed=args.seed, workers=args.workers, progress=not args.quiet)
    from .core.positions import load_positions

    positions = load_positions(path)
    print(f"wrote {len(positions)} positions of {len(positions.deals['row'])} deals "
          f"({int((positions.positions['choices'] > 1).sum())} with a choice) to {path}")
    return 0


def _data_to_pbn(args) -> int:
    from .core.pbn import write_pbn

    refuse_overwrite(args.out, args.force, "PBN file")
    dataset = _load_deals(args.dataset)
    write_pbn(args.out, dataset)
    print(f"wrote {len(dataset)} boards to {args.out}")
    return 0


def _data_from_pbn(args) -> int:
    from .core.dataset import save_dataset
    from .core.pbn import read_pbn

    refuse_overwrite(args.out, args.force, "dataset")
    dataset = read_pbn(args.pbn)
    save_dataset(args.out, dataset)
    print(f"wrote {len(dataset)} deals with DD tables to {args.out}")
    return 0


def _data_info(args) -> int:
    import numpy as np

    dataset = _load_deals(args.dataset)
    print(f"{dataset.source}: {len(dataset)} deals, boards {int(dataset.boards.min())}..{int(dataset.boards.max())}")
    print(f"mean DD tricks (declarer x C D H S NT):\n{np.round(dataset.dd.mean(0), 2)}")
    return 0


_OVERRIDES = ("learning_rate", "batch_size", "num_envs", "updates_per_step", "target_every", "replay_size", "lr_end",
              "transitions", "eps_start", "eps_end", "eps_decay_steps", "min_replay", "huber_delta", "pool_size",
              "pool_every", "pool_prob", "demo_weight", "demo_margin", "targets", "aux_weight", "rollout", "epochs",
              "minibatches", "clip", "entropy_coef", "value_coef", "gae_lambda", "bc_weight", "pool_priority",
              "reward_scale")
_FLAGS = ("double_q", "dueling", "pool_anchor", "critic", "collect_targets")  # store_true flags of the train commands


def _train_overrides(args) -> dict:
    overrides = {name: getattr(args, name) for name in _OVERRIDES if getattr(args, name, None) is not None}
    if args.hidden:
        overrides["hidden"] = tuple(args.hidden)
    for flag in _FLAGS:  # pool_anchor is only in `train competitive`, critic and collect_targets in uncontested
        if getattr(args, flag, False):
            overrides[flag] = True
    return overrides


def _train_uncontested(args) -> int:
    from .training.run import train_uncontested

    result = train_uncontested(args.out, preset=args.preset, steps=args.steps, seed=args.seed, data=args.data,
                               eval_data=args.eval_data, resume=args.resume, overrides=_train_overrides(args),
                               eval_every_steps=args.eval_every, force=args.force,
                               progress=not args.quiet, devices=args.devices)
    where = f"the {args.eval_data} split" if args.eval_data in ("train", "valid", "test") else args.eval_data
    print(f"held-out IMPs/deal vs constructive par on {where}: {result['imps_per_deal']:.2f} +/- {result['ci95']:.2f} "
          f"(95% CI, {result['deals']} deals, {result['env_steps']} env steps, {result['updates']} updates)")
    print(f"model: {result['model']}")
    return 0


def _train_competitive(args) -> int:
    from .evaluation.competitive import rule_baseline_evaluator
    from .training.demonstrations import PretrainConfig
    from .training.run import train_competitive

    pretrain = None
    if args.pretrain_deals:
        pretrain = PretrainConfig(deals=args.pretrain_deals, updates=args.pretrain_updates, seed=args.seed)
    result = train_competitive(args.out, preset=args.preset, steps=args.steps, seed=args.seed, data=args.data,
                               eval_data=args.eval_data, resume=args.resume, overrides=_train_overrides(args),
                               eval_every_steps=args.eval_every, eval_deals=args.eval_deals,
                               progress=not args.quiet, pretrain=pretrain, constructive=args.constructive,
                               evaluate_agent=rule_baseline_evaluator(args.eval_data, args.eval_deals),
                               force=args.force, algo=args.algo, devices=args.devices)
    print(f"vs the competitive rule baseline: {result['vs_rules_imps_per_board']:+.2f} +/- {result['ci95']:.2f} "
          f"IMPs/board (95% CI, duplicate, {result['deals']} held-out boards of {args.eval_data}, "
          f"{result['env_steps']} env steps, "
          f"{result['updates']} updates)")
    print(f"model: {result['model']}")
    return 0


def _data_merge(args) -> int:
    import numpy as np

    from .core.dataset import make_dataset, save_dataset

    refuse_overwrite(args.out, args.force, "dataset")
    parts = [_load_deals(path) for path in args.datasets]
    boards = np.concatenate([part.boards for part in parts])
    merged = make_dataset(np.concatenate([p.owner for p in parts]), np.concatenate([p.dd for p in parts]), boards)
    save_dataset(args.out, merged)
    print(f"wrote {len(merged)} deals from {len(parts)} datasets to {args.out} (board numbers kept)")
    return 0


def _data_augment(args) -> int:
    from .core.dataset import save_dataset
    from .core.symmetry import augment

    refuse_overwrite(args.out, args.force, "dataset")
    dataset = _load_deals(args.dataset)
    augmented = augment(dataset, suit_permutations=args.suit_permutations, rotations=args.rotations)
    save_dataset(args.out, augmented)
    print(f"wrote {len(augmented)} deals ({len(augmented) // len(dataset)} exact variants of each of "
          f"{len(dataset)}) to {args.out}")
    return 0


def _evaluate_uncontested(args) -> int:
    from .evaluation.specs import load_agent
    from .evaluation.uncontested import evaluate_uncontested

    _check_outputs(args)
    agent = load_agent(args.agent, "uncontested_bidding", seed=args.seed)
    summary, outcomes = evaluate_uncontested(agent, args.data, deals=args.deals, side=args.side,
                                             opening_rules=not args.no_opening_rules, agent_name=args.agent)
    from .evaluation.behaviour import pass_rates

    summary["behaviour"] = pass_rates(outcomes, args.data, args.side, not args.no_opening_rules)
    shares = summary["categories"]
    print(f"{args.agent}: {summary['imps_per_deal']:.2f} IMPs/deal vs constructive par (95% CI +/- "
          f"{summary['ci95']:.2f}) on {summary['deals']} deals ({summary['skipped_nothing_makeable']} skipped)")
    print(f"  at par {shares['at_par']:.1%}, overbid {shares['overbid']:.1%}, underbid across a bonus boundary "
          f"{shares['underbid_bonus']:.1%}, wrong strain or level {shares['wrong_strain_or_level']:.1%}")
    behaviour = summary["behaviour"]
    print(f"  passes with 12-13 HCP openers: {behaviour['openings_12_13_hcp']['agent_pass_rate']:.1%}; "
          f"passes partner's one-level opening with 6+ HCP: "
          f"{behaviour['responses_6_plus_hcp']['agent_pass_rate']:.1%}")
    if args.json:
        _write_json(args.json, summary)
    if args.report:
        from .evaluation.report import write_report

        print(f"  report: {write_report(summary, outcomes, args.report)}")
    return 0


def _evaluate_compare(args) -> int:
    from .evaluation.specs import load_agent
    from .evaluation.uncontested import compare, evaluate_uncontested

    results = []
    for spec in (args.a, args.b):
        results.append(evaluate_uncontested(load_agent(spec, "uncontested_bidding", seed=args.seed), args.data,
                                            deals=args.deals, agent_name=spec))
    paired = compare(results[0][1], results[1][1])
    print(f"{args.a}: {results[0][0]['imps_per_deal']:.2f}, {args.b}: {results[1][0]['imps_per_deal']:.2f} IMPs/deal")
    print(f"paired difference (a - b): {paired['difference_imps_per_deal']:+.2f} IMPs/deal (95% CI +/- "
          f"{paired['ci95']:.2f}) on {paired['deals']} deals; a better on {paired['a_better']}, "
          f"b better on {paired['b_better']}")
    return 0


def _evaluate_competitive(args) -> int:
    from .evaluation.competitive import duplicate_match
    from .evaluation.specs import load_agent

    _check_outputs(args)
    a = load_agent(args.ns, "competitive_bidding", seed=args.seed)
    b = load_agent(args.ew, "competitive_bidding", seed=args.seed + 1)
    boards = [] if args.json or args.report else None
    result = duplicate_match(a, b, args.data, deals=args.deals, names=(args.ns, args.ew), boards=boards)
    print(f"{args.ns} vs {args.ew}: {result['imps_per_board']:+.2f} IMPs/board for {args.ns} (95% CI +/- "
          f"{result['ci95']:.2f}) over {result['boards']} boards, each played at two tables")
    if boards is not None:
        from .evaluation.game import contract_counts

        result.update(seed=args.seed, contracts=contract_counts(boards))
        _write_outputs(args, {**result, "board_results": boards}, boards, "Competitive bidding")
    return 0


def _evaluate_cross(args) -> int:
    from .evaluation.cross_table import cross_table, markdown
    from .evaluation.specs import load_agent

    _check_outputs(args)
    if len(set(args.agents)) != len(args.agents):
        raise ValueError("each agent spec may appear once in a cross table")
    agents = {spec: load_agent(spec, "competitive_bidding", seed=args.seed + i) for i, spec in enumerate(args.agents)}
    table = cross_table(agents, args.data, deals=args.deals, progress=not args.quiet)
    print(f"{table['boards']} boards of {table['data']}, duplicate, IMPs/board for the row agent (95% CI):")
    print(markdown(table))
    if args.json:
        _write_json(args.json, {**table, "seed": args.seed})
    return 0


def _write_outputs(args, summary: dict, boards: list, title: str) -> None:
    """--json (the summary and every board) and --report (Markdown + PNG) of a duplicate match."""
    if args.json:
        _write_json(args.json, summary)
    if args.report:
        from .evaluation.report import write_match_report

        print(f"  report: {write_match_report(summary, boards, args.report, title)}")


def _check_outputs(args) -> None:
    """The --json/--out/--pbn files and the --report directory a command will write, checked before it runs."""
    for flag in ("json", "out", "pbn"):
        check_output(getattr(args, flag, None), "file", f"--{flag}")
    check_output(getattr(args, "report", None), "directory", "--report")


def _evaluate_game(args) -> int:
    from .evaluation.game import game_match, summarize_game, summary_lines
    from .evaluation.specs import load_pair

    _check_outputs(args)
    if args.pbn:
        refuse_overwrite(args.pbn, args.force, "PBN file")
    a, b = load_pair(args.ns, seed=args.seed), load_pair(args.ew, seed=args.seed + 1)
    boards = game_match(a, b, args.data, deals=args.deals, start=args.start, seed=args.seed, out=args.out,
                        progress=not args.quiet)
    summary = {**summarize_game(boards, args.ns, args.ew), "data": str(args.data), "seed": args.seed}
    print("\n".join(summary_lines(summary)))
    _write_outputs(args, {**summary, "board_results": boards}, boards, "Whole deal")
    if args.pbn:
        from .evaluation.game import write_game_pbn

        write_game_pbn(args.pbn, boards, args.data, (args.ns, args.ew))
        print(f"  PBN: {args.pbn}")
    return 0


def _show(args) -> int:
    from .evaluation.game import show_table
    from .evaluation.specs import load_pair

    a, b = load_pair(args.ns, seed=args.seed), load_pair(args.ew, seed=args.seed + 1)
    print(show_table(a, b, args.data, args.index, seed=args.seed), end="")
    return 0


def _serve(args) -> int:
    try:
        import uvicorn

        from .web.app import Server, create_app
    except ImportError as exc:
        raise ValueError(f'bridgerl serve needs the web extra ({exc.name} is missing): '
                         f'pip install -e ".[web]"') from None
    import socket

    try:  # the port must be free before anything is promised
        with socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET) as probe:
            probe.bind((args.host, args.port))
    except OSError as exc:
        raise ValueError(f"cannot serve on {args.host} port {args.port}: {exc.strerror or exc}; choose another "
                         f"--port") from None
    server = Server(args.data, args.ns, args.ew, args.explain_data, args.explain_deals, args.seed)
    where = f"http://{'[' + args.host + ']' if ':' in args.host else args.host}:{args.port}/"
    print(f"bridgerl: {len(server.dataset)} boards of {args.data} at {where} (NS {args.ns}, EW {args.ew}); Ctrl-C "
          f"stops", flush=True)
    uvicorn.run(create_app(server), host=args.host, port=args.port, log_level="warning")
    return 0


def _evaluate_curve(args) -> int:
    from .evaluation.learning_curve import heldout_curve, plot_curves, read_curve

    labels = args.labels or [str(run) for run in args.runs]
    if len(labels) != len(args.runs):
        raise ValueError(f"--labels names {len(labels)} runs, {len(args.runs)} were given")
    refuse_overwrite(args.out, args.force, "plot")
    curves = {}
    if args.against:
        from .evaluation.specs import load_agent

        against = load_agent(args.against, "competitive_bidding", seed=1)
    for label, run in zip(labels, args.runs):
        curve = curves[label] = (heldout_curve(run, against, args.against, args.data, args.deals, not args.quiet)
                                 if args.against else read_curve(run))
        best = int(curve["imps"].argmax())
        print(f"{label}: {len(curve['imps'])} evaluations; last {curve['imps'][-1]:+.2f} +/- {curve['ci95'][-1]:.2f} "
              f"at {int(curve['env_steps'][-1])} steps; best {curve['imps'][best]:+.2f} at "
              f"{int(curve['env_steps'][best])}")
    print(f"plot: {plot_curves(dict(zip(labels, args.runs)), args.out, args.title, curves)}")
    return 0


def _evaluate_play(args) -> int:
    from .core.contract import Contract
    from .evaluation.play import play_match, summarize
    from .evaluation.specs import load_play_agent

    _check_outputs(args)
    contract = Contract.parse(args.contract, args.seat)
    declarer = load_play_agent(args.declarer, seed=args.seed)
    defenders = load_play_agent(args.defenders, seed=args.seed + 1)
    records = play_match(declarer, defenders, args.data, contract, deals=args.deals, start=args.start,
                         seed=args.seed, out=args.out, progress=not args.quiet,
                         names=(args.declarer, args.defenders))
    summary = {"declarer": args.declarer, "defenders": args.defenders, "contract": str(contract),
               "data": str(args.data), "seed": args.seed, **summarize(records)}
    print(f"{args.declarer} declaring {contract} against {args.defenders} on {summary['deals']} deals: "
          f"{summary['tricks']:.2f} tricks (95% CI +/- {summary['tricks_ci95']:.2f}), made "
          f"{summary['make_rate']:.1%} (+/- {summary['make_rate_ci95']:.1%}); seconds per card: declarer "
          f"{summary['declarer_seconds_per_card']:.3f}, defence {summary['defence_seconds_per_card']:.3f}")
    if args.json:
        _write_json(args.json, summary)
    return 0


def _evaluate_play_study(args) -> int:
    from .evaluation.play_study import format_study, play_study, summarize_study

    _check_outputs(args)
    runs = [name.strip() for name in args.runs.split(",")] if args.runs else None
    items = play_study(args.data, deals=args.deals, start=args.start, worlds=args.worlds, seed=args.seed,
                       info_budget=args.info_budget, out=args.out, workers=args.workers, progress=not args.quiet,
                       runs=runs)
    summary = summarize_study(items)
    print(format_study(summary, args.worlds))
    if args.json:
        _write_json(args.json, {"data": str(args.data), "start": args.start, "worlds": args.worlds,
                                "seed": args.seed, **summary})
    return 0


def _evaluate_best_defence(args) -> int:
    from .evaluation.best_defence_study import best_defence_study, format_best_defence_study
    from .evaluation.specs import load_play_agent

    _check_outputs(args)
    agents = {spec: load_play_agent(spec, seed=args.seed) for spec in args.agents}
    summary = best_defence_study(agents, positions=args.positions, data=args.data, seed=args.seed,
                                 progress=not args.quiet, max_worlds=args.max_worlds)
    print(format_best_defence_study(summary))
    if args.json:
        _write_json(args.json, {"data": str(args.data), "seed": args.seed, **summary})
    return 0


def _evaluate_records(args) -> int:
    from .evaluation.records import evaluate_records

    _check_outputs(args)
    summary, outcomes = evaluate_records(args.file)
    par, actual, shares = summary["vs_par"], summary["vs_par_actual_tricks"], summary["categories"]
    print(f"{args.file}: {summary['imps_per_board']:+.2f} IMPs/board vs constructive par (95% CI +/- "
          f"{summary['ci95']:.2f}) on {summary['boards']} boards; vs par {par['imps_per_board']:+.2f} (+/- "
          f"{par['ci95']:.2f}) with DD tricks, {actual['imps_per_board']:+.2f} with the table's tricks on "
          f"{actual['boards']} boards; {len(summary['skipped'])} skipped (auction unfinished)")
    print(f"  at par {shares['at_par']:.1%}, overbid {shares['overbid']:.1%}, underbid across a bonus boundary "
          f"{shares['underbid_bonus']:.1%}, wrong strain or level {shares['wrong_strain_or_level']:.1%}")
    if args.json:
        _write_json(args.json, {**summary, "outcomes": [o.to_json() for o in outcomes]})
    return 0


def _train_network(args) -> int:
    """`bridgerl train card-location | issn | ssn`: one supervised loop (`bridgerl.training.supervised`)."""
    from .training.supervised import SupervisedConfig, train_supervised

    kind = args.train_command
    defaults = {"card-location": {}, "issn": {"hidden": (512, 512), "learning_rate": 3e-4},
                "ssn": {"hidden": (512, 512, 512), "learning_rate": 3e-4}}[kind]
    given = {k: v for k, v in (("hidden", tuple(args.hidden) if args.hidden else None),
                               ("learning_rate", args.learning_rate), ("epochs", args.epochs),
                               ("batch_size", args.batch_size), ("weight_decay", args.weight_decay))
             if v is not None}
    config = SupervisedConfig(**{**defaults, **given})
    if kind == "card-location":
        from .training.card_location import LOCATION as task
    elif kind == "issn":
        from .training.simulation import issn_task

        task = issn_task(args.target)
    else:
        from .training.simulation import ssn_task

        task = ssn_task(not args.no_relabel)
    record = train_supervised(task, args.out, args.train, args.valid, config, seed=args.seed, resume=args.resume,
                              force=args.force, progress=not args.quiet,
                              command=" ".join(["bridgerl", *map(shlex.quote, sys.argv[1:])]))
    metric = task.metric
    print(f"{args.out}: epoch {record.get('epoch')} train {metric.replace('_', '-')} "
          f"{record.get(f'train_{metric}', float('nan')):.4f}, valid {record.get(f'valid_{metric}', float('nan')):.4f}"
          "; model.msgpack keeps the best validation epoch")
    return 0


def _evaluate_inference(args) -> int:
    from .evaluation.inference import evaluate_inference, inference_lines

    _check_outputs(args)
    result = evaluate_inference(args.model, args.positions)
    print("\n".join(inference_lines(result)))
    if args.json:
        _write_json(args.json, result)
    return 0


def _evaluate_trick_loss(args) -> int:
    from .evaluation.specs import load_play_agent
    from .evaluation.trick_loss import trick_loss_lines, trick_loss_study

    _check_outputs(args)
    agents = {spec: load_play_agent(spec, seed=args.seed) for spec in args.agents}
    result = trick_loss_study(agents, args.positions, limit=args.limit, seed=args.seed, progress=not args.quiet)
    print("\n".join(trick_loss_lines(result)))
    if args.json:
        _write_json(args.json, result)
    return 0


def _train_export(args) -> int:
    from .agents.checkpoint import CRITIC_FILE, FORMAT, PPO_FORMAT, checkpoint_file, checkpoint_kind, load_weights, \
        save_weights

    kind = checkpoint_kind(args.run)
    if kind not in ("DQN", "PPO"):
        raise ValueError(f"{args.run}: a {kind} model; train export takes DQN and PPO bidders")
    model_format = PPO_FORMAT if kind == "PPO" else FORMAT
    metadata, params = load_weights(args.run, format=model_format, what=kind)
    out = Path(args.out)
    refuse_overwrite(out / "model.msgpack", args.force, "model")
    if metadata.get("constructive"):
        refuse_overwrite(out / metadata["constructive"], args.force, "constructive bidder")
    critic = checkpoint_file(args.run).parent / CRITIC_FILE
    if critic.exists():
        refuse_overwrite(out / critic.name, args.force, "critic")
    save_weights(out / "model.msgpack", params, metadata, dtype=args.dtype, format=model_format)
    if metadata.get("constructive"):  # the uncontested DQN that bids while the opponents pass goes along
        helper, helper_params = load_weights(checkpoint_file(args.run).parent / metadata["constructive"])
        save_weights(out / metadata["constructive"], helper_params, helper, dtype=helper.get("dtype", "float32"))
    if critic.exists():  # the centralised critic of decision-time search (search:PATH) goes along, same dtype
        critic_metadata, critic_params = load_weights(critic, what="critic")
        save_weights(out / critic.name, critic_params, critic_metadata, dtype=args.dtype)
    size = (out / "model.msgpack").stat().st_size
    print(f"wrote {out / 'model.msgpack'} ({size / 1e6:.1f} MB, {args.dtype}); trained with: {metadata.get('command')}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="bridgerl", description="Contract bridge environments, agents and evaluation.")
    parser.add_argument("--version", action="version", version=f"bridgerl {__version__}",
                        help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    from .evaluation.specs import GAME_SPEC_HELP

    force_help = "replace an existing output file"
    data_help = "bundled split 'train', 'valid' or 'test', or a .npz dataset file"

    data = commands.add_parser("data", help="deal datasets with double-dummy tables")
    data_commands = data.add_subparsers(dest="data_command", required=True)

    gen = data_commands.add_parser("generate", help="random deals with DD tables (resumable)")
    gen.add_argument("--deals", type=positive_int, required=True, help="number of deals")
    gen.add_argument("--seed", type=non_negative_int, required=True, help="numpy seed for the deals")
    gen.add_argument("--out", required=True, help="output .npz (an interrupted run resumes from OUT.partial.npz)")
    gen.add_argument("--workers", type=positive_int, default=None,
                     help="processes (default 1: DDS threads over all cores itself); with --ray, Ray tasks at a time "
                          "(default: every CPU of the cluster)")
    gen.add_argument("--dds-threads", type=non_negative_int, default=0,
                     help="threads DDS uses per worker (default 0: all cores, shared among workers; with --ray, 1 per "
                          "task)")
    gen.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                     help="solve the chunks as Ray tasks: --ray alone starts Ray on this machine, --ray auto joins "
                          "the cluster `ray start --head` made, --ray HOST:PORT another one (ray://... addresses need "
                          "pip install 'ray[client]'); "
                          "the same file as without it (needs: pip install \"bridgerl[ray]\")")
    gen.add_argument("--force", action="store_true", help=force_help)
    gen.add_argument("--quiet", action="store_true", help="no progress bar")
    gen.set_defaults(func=_data_generate)

    pos = data_commands.add_parser(
        "positions", help="play positions of whole-deal games with the hidden hands and the DD value of every legal "
                          "card (resumable, parallel; format in docs/datasets.md)")
    pos.add_argument("--data", type=dataset_arg, default="train", help=data_help + " (default train)")
    pos.add_argument("--deals", type=positive_int, default=100, help="deals to bid and play (default 100)")
    pos.add_argument("--start", type=non_negative_int, default=0, help="first dataset row (default 0)")
    pos.add_argument("--ns", default="rules", help=GAME_SPEC_HELP + " for North-South (default rules)")
    pos.add_argument("--ew", default="rules", help="game spec for East-West (default rules)")
    pos.add_argument("--seed", type=non_negative_int, default=0,
                     help="seed of the players (as table 1 of `evaluate game --seed`; default 0)")
    pos.add_argument("--out", required=True, help="output .npz (an interrupted run resumes from OUT.partial/)")
    pos.add_argument("--workers", type=positive_int, default=1, help="processes (default 1)")
    pos.add_argument("--force", action="store_true", help=force_help)
    pos.add_argument("--quiet", action="store_true", help="no progress bar")
    pos.set_defaults(func=_data_positions)

    to_pbn = data_commands.add_parser("to-pbn", help="write a dataset as PBN")
    to_pbn.add_argument("dataset", type=dataset_arg, help=data_help)
    to_pbn.add_argument("out", help="output .pbn")
    to_pbn.add_argument("--force", action="store_true", help=force_help)
    to_pbn.set_defaults(func=_data_to_pbn)

    from_pbn = data_commands.add_parser("from-pbn", help="read a PBN file, compute DD tables, write .npz")
    from_pbn.add_argument("pbn", help="input .pbn")
    from_pbn.add_argument("out", help="output .npz")
    from_pbn.add_argument("--force", action="store_true", help=force_help)
    from_pbn.set_defaults(func=_data_from_pbn)

    merge = data_commands.add_parser("merge", help="concatenate datasets (each keeps its board numbers)")
    merge.add_argument("datasets", type=dataset_arg, nargs="+", help="datasets to concatenate, in order: " + data_help)
    merge.add_argument("--out", required=True, help="output .npz")
    merge.add_argument("--force", action="store_true", help=force_help)
    merge.set_defaults(func=_data_merge)

    aug = data_commands.add_parser("augment", help="exact variants of each deal: suits relabelled, table turned "
                                                   "(DD tables follow, no DDS run)")
    aug.add_argument("dataset", type=dataset_arg, help=data_help)
    aug.add_argument("--out", required=True, help="output .npz")
    aug.add_argument("--suit-permutations", type=int_range(1, 24), default=24,
                     help="1-24 relabellings of the suits (default 24)")
    aug.add_argument("--rotations", type=int, default=1, choices=(1, 2, 4), help="turns of the table (default 1)")
    aug.add_argument("--force", action="store_true", help=force_help)
    aug.set_defaults(func=_data_augment)

    info = data_commands.add_parser("info", help="validate a dataset and summarise it")
    info.add_argument("dataset", type=dataset_arg, help=data_help)
    info.set_defaults(func=_data_info)

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
        sub.add_argument("--data", type=dataset_arg, default="train", help="training deals: " + data_help)
        sub.add_argument("--eval-data", type=dataset_arg, default="valid",
                         help="held-out deals for the evaluations during training: " + data_help + " (default valid: "
                              "the test split is for final tables, `bridgerl evaluate ... --data test`)")
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
                              "--pretrain-deals)"),
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
    comp_train.add_argument("--pretrain-deals", type=non_negative_int, default=0,
                            help="start from the rule bidder's auctions on this many training deals (dqn: DQfD-style; "
                                 "ppo: the policy cloned from them)")
    comp_train.add_argument("--pretrain-updates", type=positive_int, default=20_000,
                            help="gradient updates of that pretraining (multiples of 1000)")
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
                "512 512 512", "3e-4")}
    for kind, (text, hidden, rate) in network_help.items():
        net = train_commands.add_parser(kind, help=text)
        net.add_argument("--train", required=True, nargs="+",
                         help="positions .npz file(s) to learn from (from training-split deals)")
        net.add_argument("--valid", required=True, help="positions .npz to select the epoch on (from the valid split)")
        net.add_argument("--out", required=True, help="run directory (model.msgpack, train_state.msgpack, log.jsonl)")
        net.add_argument("--epochs", type=positive_int, default=None, help="epochs (default 20)")
        net.add_argument("--hidden", type=positive_int, nargs="+", help=f"hidden layer sizes (default {hidden})")
        net.add_argument("--learning-rate", type=positive_float, default=None,
                         help=f"AdamW learning rate (default {rate})")
        net.add_argument("--batch-size", type=positive_int, default=None, help="examples per step (default 256)")
        net.add_argument("--weight-decay", type=non_negative_float, default=None,
                         help="AdamW weight decay (default 1e-4)")
        net.add_argument("--seed", type=non_negative_int, default=0, help="initialisation and shuffling (default 0)")
        net.add_argument("--resume", action="store_true", help="continue the run saved in --out")
        net.add_argument("--force", action="store_true", help="start a new run in an --out that holds one")
        net.add_argument("--quiet", action="store_true", help="no progress bar")
        if kind == "issn":
            net.add_argument("--target", choices=["recorded", "dd"], default="recorded",
                             help="learn the card each player chose (recorded, default) or the DD-best cards (dd)")
        if kind == "ssn":
            net.add_argument("--no-relabel", action="store_true", help="no random relabelling of the side suits")
        net.set_defaults(func=_train_network)
    export = train_commands.add_parser("export", help="copy a run's weights (e.g. as bfloat16) for release")
    export.add_argument("run", help="run directory or model.msgpack")
    export.add_argument("--out", required=True, help="directory for model.msgpack")
    export.add_argument("--dtype", choices=["float32", "float16", "bfloat16"], default="bfloat16",
                        help="floating-point type of the released weights (default bfloat16)")
    export.add_argument("--force", action="store_true", help=force_help)
    export.set_defaults(func=_train_export)

    from .evaluation.specs import PLAY_SPEC_HELP, SPEC_HELP

    evaluate = commands.add_parser("evaluate", help="evaluate agents")
    eval_commands = evaluate.add_subparsers(dest="evaluate_command", required=True)
    deals_help = "evaluate the first N rows (default: all)"
    ev = eval_commands.add_parser("uncontested", help="IMPs per deal against constructive par (thesis protocol)")
    ev.add_argument("--agent", required=True, help=SPEC_HELP)
    ev.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    ev.add_argument("--deals", type=positive_int, default=None, help=deals_help)
    ev.add_argument("--json", help="write all numbers as JSON (schema in docs/evaluation.md)")
    ev.add_argument("--report", help="write a Markdown report with PNG plots into this directory")
    ev.add_argument("--side", default="thesis", choices=["thesis", "NS", "EW"],
                    help="bidding side: thesis (EW unless EW can make nothing, then NS; default), NS or EW")
    ev.add_argument("--no-opening-rules", action="store_true",
                    help="let the agent open any hand (the thesis protocol forbids openings the rules do not make)")
    ev.add_argument("--seed", type=non_negative_int, default=0, help="seed of a random agent (default 0)")
    ev.set_defaults(func=_evaluate_uncontested)
    cmp_ = eval_commands.add_parser("compare", help="paired difference of two agents on the same deals")
    cmp_.add_argument("--a", required=True, help=SPEC_HELP)
    cmp_.add_argument("--b", required=True, help=SPEC_HELP)
    cmp_.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    cmp_.add_argument("--deals", type=positive_int, default=None, help=deals_help)
    cmp_.add_argument("--seed", type=non_negative_int, default=0, help="seed of a random agent (default 0)")
    cmp_.set_defaults(func=_evaluate_compare)
    cross = eval_commands.add_parser("cross", help="cross table of competitive bidders, every pair in duplicate")
    cross.add_argument("agents", nargs="+", help=SPEC_HELP)
    cross.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    cross.add_argument("--deals", type=positive_int, default=None, help="play the first N boards (default: all)")
    cross.add_argument("--json", help="write every match as JSON")
    cross.add_argument("--seed", type=non_negative_int, default=0, help="seed of random agents (default 0)")
    cross.add_argument("--quiet", action="store_true", help="no progress bar")
    cross.set_defaults(func=_evaluate_cross)
    comp = eval_commands.add_parser("competitive", help="duplicate match in competitive bidding")
    comp.add_argument("--ns", required=True, help=SPEC_HELP + " (plays NS at table 1, EW at table 2)")
    comp.add_argument("--ew", required=True, help=SPEC_HELP)
    comp.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    comp.add_argument("--deals", type=positive_int, default=None, help="play the first N boards (default: all)")
    comp.add_argument("--seed", type=non_negative_int, default=0,
                      help="seed of a random agent (--ns gets S, --ew S + 1; default 0)")
    comp.add_argument("--json", help="write the summary and every board's auctions as JSON (atomic)")
    comp.add_argument("--report", help="write a Markdown report with PNG plots into this directory")
    comp.set_defaults(func=_evaluate_competitive)

    game = eval_commands.add_parser("game", help="whole-deal duplicate match: auction and play at two tables")
    game.add_argument("--ns", required=True, help=GAME_SPEC_HELP + " (North-South at table 1, East-West at table 2)")
    game.add_argument("--ew", required=True, help="game spec of the other pair (as --ns)")
    game.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    game.add_argument("--deals", type=positive_int, default=100, help="number of boards (default 100)")
    game.add_argument("--start", type=non_negative_int, default=0, help="first dataset row (default 0)")
    game.add_argument("--seed", type=non_negative_int, default=0,
                      help="seed of the agents (--ns gets S, --ew S + 1; card players reseeded per board and table)")
    game.add_argument("--out", help="JSON lines, one per board; running again resumes")
    game.add_argument("--json", help="write the summary and every board as JSON (atomic)")
    game.add_argument("--report", help="write a Markdown report with PNG plots into this directory")
    game.add_argument("--pbn", help="write both tables of every board as PBN (auction and play)")
    game.add_argument("--force", action="store_true", help="replace an existing --pbn file")
    game.add_argument("--quiet", action="store_true", help="no progress bar")
    game.set_defaults(func=_evaluate_game)
    curve = eval_commands.add_parser("curve", help="learning curves of training runs: competitive (vs the rule "
                                                   "baseline) or uncontested (vs constructive par)")
    curve.add_argument("runs", nargs="+", help="run directories of `bridgerl train competitive` or `bridgerl train "
                                               "uncontested` (one kind per plot)")
    curve.add_argument("--labels", nargs="+", help="one legend label per run")
    curve.add_argument("--out", required=True, help="PNG file to write")
    curve.add_argument("--title", default=None, help="plot title")
    curve.add_argument("--force", action="store_true", help="replace an existing --out file")
    curve.add_argument("--against", default=None,
                       help="competitive runs: replay every snapshot in duplicate against this agent spec (e.g. a "
                            "held-out system: sayc) instead of reading the log; cached in the run directory")
    curve.add_argument("--data", type=dataset_arg, default="valid", help="with --against: " + data_help +
                       " (default valid)")
    curve.add_argument("--deals", type=positive_int, default=1000, help="with --against: boards per snapshot "
                                                                        "(default 1000)")
    curve.add_argument("--quiet", action="store_true", help="no progress bar")
    curve.set_defaults(func=_evaluate_curve)
    play = eval_commands.add_parser("play", help="card play: a declaring agent against a defending agent")
    play.add_argument("--declarer", required=True, help=PLAY_SPEC_HELP + " (plays declarer and dummy)")
    play.add_argument("--defenders", required=True, help=PLAY_SPEC_HELP)
    play.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    play.add_argument("--contract", default="3NT", help="contract for every deal, e.g. 3NT, 4S, 4SX (default 3NT)")
    play.add_argument("--seat", default="S", help="declarer's seat N, E, S or W (default S)")
    play.add_argument("--deals", type=positive_int, default=100, help="number of deals (default 100)")
    play.add_argument("--start", type=non_negative_int, default=0, help="first dataset row (default 0)")
    play.add_argument("--seed", type=non_negative_int, default=0,
                      help="agents are reseeded from (seed, row) on each deal")
    play.add_argument("--out", help="JSON lines, one per deal; running again resumes")
    play.add_argument("--json", help="write the summary as JSON")
    play.add_argument("--quiet", action="store_true", help="no progress bar")
    play.set_defaults(func=_evaluate_play)
    study = eval_commands.add_parser("play-study", help="the thesis' card-play tables (3.1, 3.4, 3.5, fig. 3.12): "
                                     "base PIMC, information-score tie-breaks and the σ goal on the same deals")
    study.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    study.add_argument("--deals", type=positive_int, default=100, help="number of deals (default 100)")
    study.add_argument("--start", type=non_negative_int, default=0, help="first dataset row (default 0)")
    study.add_argument("--worlds", type=positive_int, default=20, help="worlds per decision (default 20)")
    study.add_argument("--seed", type=non_negative_int, default=0,
                       help="agents are reseeded from (seed, row, run, side) on each deal")
    study.add_argument("--info-budget", type=non_negative_int, default=None,
                       help="search nodes per combined-defender value in the information score (default 0: the "
                            "line of sure tricks alone)")
    study.add_argument("--workers", type=positive_int, default=1, help="processes (default 1)")
    study.add_argument("--runs", default=None, help="comma-separated runs (default all: base, info, enhanced, "
                       "enhanced_declarer, enhanced_defence, sigma_declarer, sigma_defence)")
    study.add_argument("--out", help="JSON lines, one per deal; running again resumes")
    study.add_argument("--json", help="write the tables as JSON")
    study.add_argument("--quiet", action="store_true", help="no progress bar")
    study.set_defaults(func=_evaluate_play_study)
    from .evaluation.best_defence_study import DEFAULT_AGENTS

    bd = eval_commands.add_parser("best-defence", help="play agents against the exact best-defence reference "
                                  "(Frank & Basin) on small endings: share of suboptimal choices, value lost")
    bd.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS),
                    help=f"play specs (default: {' '.join(DEFAULT_AGENTS)}); " + PLAY_SPEC_HELP)
    bd.add_argument("--positions", type=positive_int, default=300, help="decisions that matter (default 300)")
    bd.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    bd.add_argument("--seed", type=non_negative_int, default=0, help="random play to the endings, agent seeds")
    bd.add_argument("--max-worlds", type=positive_int, default=150,
                    help="skip endings with more consistent worlds (default 150; the exact search allows 400)")
    bd.add_argument("--json", help="write the table as JSON")
    bd.add_argument("--quiet", action="store_true", help="no progress bar")
    bd.set_defaults(func=_evaluate_best_defence)
    inf = eval_commands.add_parser("inference", help="a card-location model against the uniform prior: per-card "
                                   "log-loss and accuracy on a positions file, overall and by trick")
    inf.add_argument("--model", required=True, help="card-location model (directory with model.msgpack, or the file)")
    inf.add_argument("--positions", required=True, help="positions .npz (bridgerl data positions)")
    inf.add_argument("--json", help="write the result as JSON (atomic)")
    inf.set_defaults(func=_evaluate_inference)
    tl = eval_commands.add_parser("trick-loss", help="play agents on the positions of a positions file: DD tricks "
                                  "lost per decision against the best card (seed 004's metric)")
    tl.add_argument("--positions", required=True, help="positions .npz (bridgerl data positions)")
    tl.add_argument("--agents", nargs="+", required=True, help="play specs; " + PLAY_SPEC_HELP)
    tl.add_argument("--limit", type=positive_int, default=None, help="the first N positions with a choice")
    tl.add_argument("--seed", type=non_negative_int, default=0, help="agent seeds per position (default 0)")
    tl.add_argument("--json", help="write the result as JSON (atomic)")
    tl.add_argument("--quiet", action="store_true", help="no progress bar")
    tl.set_defaults(func=_evaluate_trick_loss)
    rec = eval_commands.add_parser("records", help="the auctions of a PBN / LIN file of hand records against "
                                                   "constructive par and par (thesis table 4.1)")
    rec.add_argument("file", help="hand records: a .pbn or .lin (BBO) file")
    rec.add_argument("--json", help="write the summary and one outcome per board as JSON (atomic)")
    rec.set_defaults(func=_evaluate_records)
    show = commands.add_parser("show", help="watch one deal: hands, auction and play trick by trick")
    show.add_argument("--ns", required=True, help="game spec of North-South: " + GAME_SPEC_HELP)
    show.add_argument("--ew", required=True, help="game spec of East-West (as --ns)")
    show.add_argument("--index", type=non_negative_int, required=True, help="dataset row (0-based)")
    show.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    show.add_argument("--seed", type=non_negative_int, default=0, help="seed of the agents (default 0)")
    show.set_defaults(func=_show)
    serve = commands.add_parser("serve", help="a local web page: boards, the agents' auction and play with "
                                               "explanations, and a seat at the table (needs the web extra)")
    serve.add_argument("--port", type=int_range(1, 65535), default=8000, help="port (default 8000)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default 127.0.0.1: this machine only)")
    serve.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    serve.add_argument("--ns", default="rules",
                       help="default game spec of North-South: bid=BIDDER,play=PLAYER (as `bridgerl evaluate game "
                            "--help` lists them: a competitive bidder and a card player), or a bidder alone, played "
                            "by pimc:worlds=20 (default rules)")
    serve.add_argument("--ew", default="rules", help="default game spec of East-West (as --ns)")
    serve.add_argument("--explain-data", type=dataset_arg, default="valid",
                       help="held-out deals on which the bidders are replayed to explain their calls (default valid)")
    serve.add_argument("--explain-deals", type=positive_int, default=400,
                       help="deals replayed per explanation (default 400)")
    serve.add_argument("--seed", type=non_negative_int, default=0, help="seed of the agents (default 0)")
    serve.set_defaults(func=_serve)
    return parser


def _resume_hint(args, argv: list[str]) -> str:
    """What to run to continue an interrupted command."""
    command = ["bridgerl", *argv]
    if args.command == "train" and args.train_command in ("uncontested", "competitive"):
        from .training.run import STATE_FILE

        if (Path(args.out) / STATE_FILE).exists() and "--resume" not in argv:
            command = [word for word in command if word != "--force"] + ["--resume"]  # continue, do not replace
        return f"; continue with: {shlex.join(command)}"
    if args.command == "train" and args.train_command in ("card-location", "issn", "ssn"):
        if (Path(args.out) / "train_state.msgpack").exists() and "--resume" not in argv:
            command = [word for word in command if word != "--force"] + ["--resume"]
        return f"; continue with: {shlex.join(command)}"
    if (args.command == "data" and args.data_command in ("generate", "positions")) or \
            (args.command == "evaluate" and args.evaluate_command in ("play", "game", "play-study") and args.out):
        return f"; continue with: {shlex.join(command)}"
    return ""


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    return f"bridgerl: note: {message}\n"


def main(argv: list[str] | None = None) -> int:
    import warnings

    warnings.formatwarning = _one_line_warning  # notes such as "fewer boards than asked" in one line
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    if getattr(args, "devices", None) is not None:  # before JAX starts its backend
        from .devices import request_host_devices

        request_host_devices(args.devices)
    try:
        return args.func(args)
    except (DatasetError, ValueError, OSError, NotImplementedError) as exc:  # OSError: file system
        print(f"bridgerl: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"bridgerl: interrupted{_resume_hint(args, argv)}", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
