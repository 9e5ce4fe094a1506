"""``bridgerl evaluate`` for card play: play matches, the thesis' play study, best defence, inference, trick loss
and the αμ experiment (`bridgerl.cli.evaluate` adds them with `add_play_parsers`)."""

from __future__ import annotations

import argparse

from ..core.stats import ci_text
from .argtypes import dataset_arg, int_range, non_negative_int, positive_int
from .common import write_json


def _evaluate_alphamu(args) -> int:
    """`bridgerl evaluate alphamu deals|play|report`: the αμ paper's declarer experiment
    (`bridgerl.evaluation.cardplay.alphamu_experiment`)."""
    from ..evaluation.cardplay import alphamu_experiment as experiment

    {"deals": experiment.make_deals, "play": experiment.play_declarer, "report": experiment.report}[
        args.alphamu_command](args)
    return 0


def _add_alphamu(eval_commands, play_spec_help: str) -> None:
    experiment = eval_commands.add_parser(
        "alphamu", help="the αμ paper's declarer experiment (1NT-3NT, constrained deals, αμ or PIMC declarer "
                        "against PIMC defence; resumable): deals, play, report (docs/play.md)")
    steps = experiment.add_subparsers(dest="alphamu_command", required=True)
    deals = steps.add_parser("deals", help="constrained deals, filtered to 30-70%% PIMC make rate")
    deals.add_argument("--out", required=True, help="JSON lines of the kept deals (resumes when it exists)")
    deals.add_argument("--keep", type=positive_int, default=100, help="deals to keep (default 100)")
    deals.add_argument("--candidates", type=positive_int, default=5000,
                       help="constrained deals to try at most (default 5000)")
    deals.add_argument("--start-cards", type=int_range(0, 48), default=16,
                       help="cards played before the comparison (16: 36-card rows; 0: from the opening lead)")
    deals.add_argument("--filter-runs", type=positive_int, default=6,
                       help="PIMC-vs-PIMC runs per candidate that decide its make rate (default 6)")
    deals.add_argument("--worlds", type=positive_int, default=20, help="worlds of the filtering PIMC (default 20)")
    deals.add_argument("--seed", type=non_negative_int, default=0, help="seed of the candidates (default 0)")
    deals.add_argument("--workers", type=positive_int, default=1, help="processes (each runs DDS on one thread)")
    deals.add_argument("--quiet", action="store_true", help="no progress bar")
    play = steps.add_parser("play", help="one declarer on the kept deals against PIMC defence")
    play.add_argument("--deals", required=True, help="the JSON lines written by `deals`")
    play.add_argument("--declarer", required=True, help="play agent spec, e.g. alphamu:max_moves=3,worlds=20: "
                                                        + play_spec_help)
    play.add_argument("--out", required=True, help="JSON lines, one per (deal, run); running again resumes")
    play.add_argument("--runs", type=positive_int, default=2, help="seeded runs per deal")
    play.add_argument("--limit", type=positive_int, default=None, help="only the first N kept deals")
    play.add_argument("--worlds", type=positive_int, default=20, help="PIMC defence worlds")
    play.add_argument("--seed", type=non_negative_int, default=1,
                      help="run seeds; the default 1 differs from the seeds that filtered the deals, so the filter "
                           "does not bias PIMC")
    play.add_argument("--workers", type=positive_int, default=1, help="processes (each runs DDS on one thread)")
    play.add_argument("--quiet", action="store_true", help="no progress bar")
    report = steps.add_parser("report", help="make rates, paired differences against the first file, timings")
    report.add_argument("files", nargs="+", help="JSON lines of `play` runs; the first is the reference")
    experiment.set_defaults(func=_evaluate_alphamu)


def _evaluate_play(args) -> int:
    from ..core.contract import Contract
    from ..arena.play import play_match, summarize
    from ..arena.specs import load_identified

    contract = Contract.parse(args.contract, args.seat)
    declarer, declarer_identity = load_identified(args.declarer, "player", seed=args.seed)
    defenders, defenders_identity = load_identified(args.defenders, "player", seed=args.seed + 1)
    records = play_match(declarer, defenders, args.data, contract, deals=args.deals, start=args.start,
                         seed=args.seed, out=args.out, progress=not args.quiet,
                         names=(args.declarer, args.defenders), identities=(declarer_identity, defenders_identity))
    summary = {"declarer": args.declarer, "defenders": args.defenders, "contract": str(contract),
               "data": str(args.data), "seed": args.seed, **summarize(records)}
    print(f"{args.declarer} declaring {contract} against {args.defenders} on {summary['deals']} deals: "
          f"{summary['tricks']:.2f} tricks ({ci_text(summary['tricks_ci95'], summary['deals'])}), made "
          f"{summary['make_rate']:.1%}" + (f" (+/- {summary['make_rate_ci95']:.1%})" if summary['deals'] > 1 else "")
          + f"; seconds per card: declarer {summary['declarer_seconds_per_card']:.2g}, defence "
          f"{summary['defence_seconds_per_card']:.2g}")
    if args.json:
        write_json(args.json, summary)
    return 0


def _evaluate_play_study(args) -> int:
    from ..evaluation.cardplay.play_study import format_study, play_study, summarize_study

    runs = [name.strip() for name in args.runs.split(",")] if args.runs else None
    items = play_study(args.data, deals=args.deals, start=args.start, worlds=args.worlds, seed=args.seed,
                       info_budget=args.info_budget, out=args.out, workers=args.workers, progress=not args.quiet,
                       runs=runs)
    summary = summarize_study(items)
    print(format_study(summary, args.worlds))
    if args.json:
        write_json(args.json, {"data": str(args.data), "start": args.start, "worlds": args.worlds,
                                "seed": args.seed, **summary})
    return 0


def _evaluate_best_defence(args) -> int:
    from ..evaluation.cardplay.best_defence_study import best_defence_study, format_best_defence_study
    from ..arena.specs import load_play_agent

    if args.positions is not None:
        raise ValueError(f"--positions {args.positions}: the number of decisions is now --count (--positions names a "
                         "positions file in `evaluate trick-loss` and `evaluate inference`)")
    agents = {spec: load_play_agent(spec, seed=args.seed) for spec in args.agents}
    summary = best_defence_study(agents, positions=args.count, data=args.data, seed=args.seed,
                                 progress=not args.quiet, max_worlds=args.max_worlds)
    print(format_best_defence_study(summary))
    if args.json:
        write_json(args.json, {"data": str(args.data), "seed": args.seed, **summary})
    return 0


def _evaluate_inference(args) -> int:
    from ..evaluation.cardplay.inference import evaluate_inference, inference_lines

    result = evaluate_inference(args.model, args.positions)
    print("\n".join(inference_lines(result)))
    if args.json:
        write_json(args.json, result)
    return 0


def _evaluate_trick_loss(args) -> int:
    from ..arena.specs import load_play_agent
    from ..evaluation.cardplay.trick_loss import trick_loss_lines, trick_loss_study

    agents = {spec: load_play_agent(spec, seed=args.seed) for spec in args.agents}
    result = trick_loss_study(agents, args.positions, limit=args.limit, seed=args.seed, progress=not args.quiet)
    print("\n".join(trick_loss_lines(result)))
    if args.json:
        write_json(args.json, result)
    return 0


def _evaluate_trick_estimator(args) -> int:
    from ..evaluation.datasets.trick_estimator import estimator_lines, estimator_mae

    result = estimator_mae(args.model, args.data)
    print("\n".join(estimator_lines(result)))
    if args.json:
        write_json(args.json, result)
    return 0


def add_play_parsers(eval_commands, data_help: str, play_spec_help: str) -> None:
    """The card-play commands of ``bridgerl evaluate``."""
    play = eval_commands.add_parser("play", help="card play: a declaring agent against a defending agent")
    play.add_argument("--declarer", required=True, help=play_spec_help + " (plays declarer and dummy)")
    play.add_argument("--defenders", required=True, help=play_spec_help)
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
    from ..evaluation.cardplay.best_defence_study import DEFAULT_AGENTS

    bd = eval_commands.add_parser("best-defence", help="play agents against the exact best-defence reference "
                                  "(Frank & Basin) on small endings: share of suboptimal choices, value lost")
    bd.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS),
                    help=f"play specs (default: {' '.join(DEFAULT_AGENTS)}); " + play_spec_help)
    bd.add_argument("--count", type=positive_int, default=300, help="decisions that matter (default 300)")
    bd.add_argument("--positions", default=None, help=argparse.SUPPRESS)  # the old name of --count: refused
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
    tl.add_argument("--agents", nargs="+", required=True, help="play specs; " + play_spec_help)
    tl.add_argument("--limit", type=positive_int, default=None, help="the first N positions with a choice")
    tl.add_argument("--seed", type=non_negative_int, default=0, help="agent seeds per position (default 0)")
    tl.add_argument("--json", help="write the result as JSON (atomic)")
    tl.add_argument("--quiet", action="store_true", help="no progress bar")
    tl.set_defaults(func=_evaluate_trick_loss)
    te = eval_commands.add_parser("trick-estimator", help="the trick estimator (bidsearch's score=estimator) against "
                                  "a dataset's played table: MAE of its median tricks over every declarer and strain")
    te.add_argument("--model", default="models/trick-estimator", help="default models/trick-estimator")
    te.add_argument("--data", type=dataset_arg, default="valid", help=data_help + " with a played table (default "
                                                                                  "valid)")
    te.add_argument("--json", help="write the result as JSON (atomic)")
    te.set_defaults(func=_evaluate_trick_estimator)
    _add_alphamu(eval_commands, play_spec_help)
