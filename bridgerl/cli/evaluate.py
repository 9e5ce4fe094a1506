"""``bridgerl evaluate ...``: bidding, whole-deal and card-play matches, studies and hand records."""

from __future__ import annotations

from ..core.files import refuse_overwrite
from ..core.stats import ci_text
from .argtypes import dataset_arg, non_negative_int, positive_int
from .common import DATA_HELP, write_json
from .evaluate_play import add_play_parsers


def _scored_data(args):
    """The data of a bidding evaluation: as given (DD tables), or with ``--tricks played`` the dataset with its
    played-tricks table in use (a one-line error when it has none)."""
    if getattr(args, "tricks", "dd") == "dd":
        return args.data
    from ..core import load_dataset

    return load_dataset(args.data, tricks=args.tricks)


def _add_tricks(parser) -> None:
    """--tricks and --same-player, for the commands that score auctions with a tricks table."""
    parser.add_argument("--tricks", choices=["dd", "played"], default="dd",
                        help="score contracts and par with the DD tables (default) or the played-tricks tables of "
                             "datasets made by `bridgerl data played`")
    parser.add_argument("--same-player", action="store_true",
                        help="with --tricks played: refuse a learned bidder trained on the played table of another "
                             "card player than the data's (default: a note naming both checkpoints, and go on)")


def _tricks_text(args, data) -> str:
    """The tricks table in use and its card player, as printed beside every figure."""
    if args.tricks == "dd":
        return "DD tricks"
    by = data.played_by
    return f"played tricks of {by['player']}, checkpoint {by['hash'][:12]}"


def _check_tables(args, agents: dict, data) -> str | None:
    """With --tricks played: a learned bidder trained on the played table of another card player than the data's
    gets a one-line note naming both checkpoints (refused with --same-player). Returns the data's card player's
    checkpoint hash (None with DD tricks)."""
    if args.tricks != "played":
        if args.same_player:
            raise ValueError("--same-player checks played tables: it goes with --tricks played")
        return None
    import sys

    by = data.played_by
    for spec, agent in agents.items():
        trained = (getattr(agent, "metadata", None) or {}).get("played_by")
        if trained and trained.get("hash") != by["hash"]:
            message = (f"{spec} was trained on the played table of {trained.get('player')} (checkpoint "
                       f"{str(trained.get('hash'))[:12]}); this data's is by {by['player']} (checkpoint "
                       f"{by['hash'][:12]})")
            if args.same_player:
                raise ValueError(f"{message}; --same-player refuses it")
            print(f"bridgerl: note: {message}; scoring with it all the same (--same-player refuses)",
                  file=sys.stderr)
    return by["hash"]


def _evaluate_uncontested(args) -> int:
    from ..arena.specs import load_agent
    from ..evaluation.bidding.uncontested import evaluate_uncontested

    agent = load_agent(args.agent, "uncontested_bidding", seed=args.seed)
    data = _scored_data(args)  # the side rule and the replays below follow the table in use
    summary, outcomes = evaluate_uncontested(agent, data, deals=args.deals, side=args.side,
                                             opening_rules=not args.no_opening_rules, agent_name=args.agent)
    summary["tricks"] = args.tricks
    summary["tricks_player"] = _check_tables(args, {args.agent: agent}, data)
    from ..evaluation.bidding.behaviour import pass_rates

    summary["behaviour"] = pass_rates(outcomes, data, args.side, not args.no_opening_rules)
    shares = summary["categories"]
    print(f"{args.agent}: {summary['imps_per_deal']:.2f} IMPs/deal vs constructive par "
          f"({ci_text(summary['ci95'], summary['deals'])}) on {summary['deals']} deals "
          f"({summary['skipped_nothing_makeable']} skipped); "
          f"{_tricks_text(args, data)}")
    print(f"  at par {shares['at_par']:.1%}, overbid {shares['overbid']:.1%}, underbid across a bonus boundary "
          f"{shares['underbid_bonus']:.1%}, wrong strain or level {shares['wrong_strain_or_level']:.1%}")
    behaviour = summary["behaviour"]
    print(f"  passes with 12-13 HCP openers: {behaviour['openings_12_13_hcp']['agent_pass_rate']:.1%}; "
          f"passes partner's one-level opening with 6+ HCP: "
          f"{behaviour['responses_6_plus_hcp']['agent_pass_rate']:.1%}")
    if args.json:
        write_json(args.json, summary)
    if args.report:
        from ..evaluation.reports.report import write_report

        print(f"  report: {write_report(summary, outcomes, args.report)}")
    return 0


def _evaluate_compare(args) -> int:
    from ..arena.specs import load_agent
    from ..evaluation.bidding.uncontested import compare, evaluate_uncontested

    agents = {spec: load_agent(spec, "uncontested_bidding", seed=args.seed) for spec in dict.fromkeys((args.a, args.b))}
    data = _scored_data(args)
    _check_tables(args, agents, data)
    results = [evaluate_uncontested(agents[spec], data, deals=args.deals, agent_name=spec) for spec in (args.a, args.b)]
    paired = compare(results[0][1], results[1][1])
    print(f"{args.a}: {results[0][0]['imps_per_deal']:.2f}, {args.b}: {results[1][0]['imps_per_deal']:.2f} IMPs/deal "
          f"vs constructive par ({_tricks_text(args, data)})")
    print(f"paired difference (a - b): {paired['difference_imps_per_deal']:+.2f} IMPs/deal "
          f"({ci_text(paired['ci95'], paired['deals'])}) on {paired['deals']} deals; a better on {paired['a_better']}, "
          f"b better on {paired['b_better']}")
    return 0


def _evaluate_agreement(args) -> int:
    """`bridgerl evaluate agreement`: how many of a teacher's labelled calls a bidder repeats (a clone's first
    measure; `data bid-labels` makes the labels)."""
    import numpy as np

    from ..arena.lockstep import act_batch
    from ..arena.specs import load_identified
    from ..training.bid_labels import check_label_files, load_labels

    check_label_files(args.labels, "--labels")
    bidder, identity = load_identified(args.bidder, "bidder", seed=0)
    demos = load_labels(args.labels)
    calls = np.concatenate([act_batch(bidder, demos.obs[i:i + 4096], demos.mask[i:i + 4096].astype(np.int8),
                                      fixed=True) for i in range(0, len(demos.action), 4096)])
    same = calls == demos.action
    share, n = float(same.mean()), len(same)
    ci = 1.96 * float(np.sqrt(share * (1 - share) / n))
    print(f"{args.bidder} repeats {share:.2%} (95% CI +/- {ci:.2%}) of the {n} labelled calls of "
          f"{', '.join(map(str, args.labels))}")
    if args.json:
        write_json(args.json, {"bidder": args.bidder, "bidder_checkpoints": identity["checkpoints"],
                               "labels": [str(f) for f in args.labels], "calls": n, "agreement": share, "ci95": ci})
    return 0


def _evaluate_competitive(args) -> int:
    from ..evaluation.bidding.competitive import duplicate_match
    from ..arena.specs import load_agent

    a = load_agent(args.ns, "competitive_bidding", seed=args.seed)
    b = load_agent(args.ew, "competitive_bidding", seed=args.seed + 1)
    boards = [] if args.json or args.report else None
    data = _scored_data(args)
    tricks_player = _check_tables(args, {args.ns: a, args.ew: b}, data)
    result = duplicate_match(a, b, data, deals=args.deals, names=(args.ns, args.ew), boards=boards)
    result["tricks"], result["tricks_player"] = args.tricks, tricks_player
    print(f"{args.ns} vs {args.ew}: {result['imps_per_board']:+.2f} IMPs/board for {args.ns} "
          f"({ci_text(result['ci95'], result['boards'])}) over {result['boards']} boards, each played at two tables; "
          f"{_tricks_text(args, data)}")
    if boards is not None:
        from ..arena.game import contract_counts

        result.update(seed=args.seed, contracts=contract_counts(boards))
        _write_outputs(args, {**result, "board_results": boards}, boards, "Competitive bidding")
    return 0


def _evaluate_cross(args) -> int:
    from ..evaluation.bidding.cross_table import cross_table, markdown
    from ..arena.specs import load_agent

    if len(set(args.agents)) != len(args.agents):
        raise ValueError("each agent spec may appear once in a cross table")
    if args.play is not None:
        from ..arena.specs import load_identified

        if args.tricks != "dd":
            raise ValueError("--play plays the cards: leave out --tricks (it scores auctions without play)")
        loaded = {spec: load_identified(spec, "bidder", seed=args.seed + i) for i, spec in enumerate(args.agents)}
        player, play_identity = load_identified(args.play, "player", seed=args.seed)
        table = cross_table({spec: agent for spec, (agent, _) in loaded.items()}, args.data, deals=args.deals,
                            progress=not args.quiet, play=player, play_name=args.play, seed=args.seed,
                            out=args.boards_dir, identities={spec: ident for spec, (_, ident) in loaded.items()},
                            play_identity=play_identity)
        print(f"{table['boards']} boards of {table['data']}, whole deals with {args.play} at every seat "
              f"({table['play_resolved']}), duplicate, IMPs/board for the row agent (95% CI):")
    else:
        if args.boards_dir is not None:
            raise ValueError("--boards-dir keeps the boards of whole-deal matches: use it with --play")
        agents = {spec: load_agent(spec, "competitive_bidding", seed=args.seed + i)
                  for i, spec in enumerate(args.agents)}
        data = _scored_data(args)
        note = _check_tables(args, agents, data)
        table = cross_table(agents, data, deals=args.deals, progress=not args.quiet)
        table["tricks"] = args.tricks
        table["tricks_player"] = note
        print(f"{table['boards']} boards of {table['data']}, duplicate ({_tricks_text(args, data)}), IMPs/board for "
              "the row agent (95% CI):")
    print(markdown(table))
    if args.json:
        write_json(args.json, {**table, "seed": args.seed})
    return 0


def _evaluate_exploitability(args) -> int:
    from ..evaluation.bidding.exploitability import exploitability

    data = _scored_data(args)
    result = exploitability(args.spec, data, start=args.start, deals=args.deals, tricks=args.tricks, play=args.play,
                            seed=args.seed, progress=not args.quiet)
    scored = f"cards played by {args.play}" if args.play else f"scored with {_tricks_text(args, data)}"
    print(f"{args.spec}: exploitability {result['exploitability']:+.2f} IMPs/board "
          f"({ci_text(result['ci95'], result['boards'])}) over {result['boards']} boards of {result['data']}: "
          f"{result['vs_self_imps_per_board']:+.2f} against itself, {result['vs_punisher_imps_per_board']:+.2f} "
          f"against punisher:{args.spec} ({result['doubles']} doubles; punisher reads {_tricks_text(args, data)}; "
          f"{scored})")
    if args.json:
        write_json(args.json, result)
    return 0


def _write_outputs(args, summary: dict, boards: list, title: str) -> None:
    """--json (the summary and every board) and --report (Markdown + PNG) of a duplicate match."""
    if args.json:
        write_json(args.json, summary)
    if args.report:
        from ..evaluation.reports.report import write_match_report

        print(f"  report: {write_match_report(summary, boards, args.report, title)}")


def _evaluate_game(args) -> int:
    from ..arena.game import game_match, play_of, summarize_game, summary_lines
    from ..arena.specs import load_pair

    if args.pbn:
        refuse_overwrite(args.pbn, args.force, "PBN file")
    a, b = load_pair(args.ns, seed=args.seed), load_pair(args.ew, seed=args.seed + 1)
    boards = game_match(a, b, args.data, deals=args.deals, start=args.start, seed=args.seed, out=args.out,
                        progress=not args.quiet, batch=args.batch, workers=args.workers)
    summary = {**summarize_game(boards, args.ns, args.ew), "play": play_of(a, b), "data": str(args.data),
               "start": args.start, "seed": args.seed}
    print("\n".join(summary_lines(summary)))
    _write_outputs(args, {**summary, "board_results": boards}, boards, "Whole deal")
    if args.pbn:
        from ..arena.game import write_game_pbn

        write_game_pbn(args.pbn, boards, args.data, (args.ns, args.ew))
        print(f"  PBN: {args.pbn}")
    return 0


def _evaluate_curve(args) -> int:
    from ..evaluation.reports.learning_curve import heldout_curve, plot_curves, read_curve

    labels = args.labels or [str(run) for run in args.runs]
    if len(labels) != len(args.runs):
        raise ValueError(f"--labels names {len(labels)} runs, {len(args.runs)} were given")
    refuse_overwrite(args.out, args.force, "plot")
    curves = {}
    if args.against:
        from ..arena.specs import load_agent

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


def _evaluate_records(args) -> int:
    from ..evaluation.reports.records import evaluate_records

    summary, outcomes = evaluate_records(args.file, strict=args.strict)
    par, actual, shares = summary["vs_par"], summary["vs_par_actual_tricks"], summary["categories"]

    def ci(part) -> str:
        return f"+/- {part['ci95']:.2f}" if part["boards"] > 1 else "no CI from one board"

    def mean(part) -> str:
        return f"{part['imps_per_board']:+.2f}" if part["boards"] else "-"

    print(f"{args.file}: {summary['imps_per_board']:+.2f} IMPs/board vs constructive par (95% CI "
          f"{ci(summary)}) on {summary['boards']} boards; vs par {mean(par)} ({ci(par)}) with DD tricks, "
          f"{mean(actual)} with the table's tricks on {actual['boards']} boards; {len(summary['skipped'])} skipped "
          f"(auction unfinished), {len(summary['refused'])} refused")
    for refused in summary["refused"][:10]:
        print(f"  refused: {refused['reason']}")
    if len(summary["refused"]) > 10:
        print(f"  ... and {len(summary['refused']) - 10} more (all of them in --json)")
    print(f"  at par {shares['at_par']:.1%}, overbid {shares['overbid']:.1%}, underbid across a bonus boundary "
          f"{shares['underbid_bonus']:.1%}, wrong strain or level {shares['wrong_strain_or_level']:.1%}")
    if args.json:
        write_json(args.json, {**summary, "outcomes": [o.to_json() for o in outcomes]})
    return 0


def _evaluate_agreements(args) -> int:
    from ..evaluation.bidding.agreements import format_fidelity, reading_fidelity

    result = reading_fidelity(args.system, args.data, args.deals)
    print(format_fidelity(result))
    if args.json:
        write_json(args.json, result)
    return 0


def add_parser(commands) -> None:
    """Add ``evaluate`` and its commands to the top-level subparsers."""
    from ..arena.specs import GAME_SPEC_HELP, PLAY_SPEC_HELP, SPEC_HELP

    data_help = DATA_HELP
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
    _add_tricks(ev)
    ev.set_defaults(func=_evaluate_uncontested)
    cmp_ = eval_commands.add_parser("compare", help="paired difference of two agents on the same deals")
    cmp_.add_argument("--a", required=True, help=SPEC_HELP)
    cmp_.add_argument("--b", required=True, help=SPEC_HELP)
    cmp_.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    cmp_.add_argument("--deals", type=positive_int, default=None, help=deals_help)
    cmp_.add_argument("--seed", type=non_negative_int, default=0, help="seed of a random agent (default 0)")
    _add_tricks(cmp_)
    cmp_.set_defaults(func=_evaluate_compare)
    cross = eval_commands.add_parser("cross", help="cross table of competitive bidders, every pair in duplicate")
    cross.add_argument("agents", nargs="+", help=SPEC_HELP)
    cross.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    cross.add_argument("--deals", type=positive_int, default=None, help="play the first N boards (default: all)")
    cross.add_argument("--json", help="write every match as JSON")
    cross.add_argument("--seed", type=non_negative_int, default=0, help="seed of random agents (default 0)")
    cross.add_argument("--play", default=None, metavar="PLAY_SPEC",
                       help="play every auction out with this card player at all four seats (whole-deal duplicate; "
                            "e.g. models/card-player) instead of scoring the contracts with a tricks table")
    cross.add_argument("--boards-dir", default=None, metavar="DIR",
                       help="with --play: keep each match's boards as JSON lines in DIR; a rerun resumes them")
    cross.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_tricks(cross)
    cross.set_defaults(func=_evaluate_cross)
    expl = eval_commands.add_parser("exploitability", help="IMPs/board a competitive bidder gives away to "
                                    "punisher:SPEC (itself, doubling every failing undoubled contract it could pass "
                                    "out, read from the tricks table): against itself minus against the punisher")
    expl.add_argument("spec", help=SPEC_HELP)
    expl.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    expl.add_argument("--start", type=non_negative_int, default=0, help="first dataset row (default 0)")
    expl.add_argument("--deals", type=positive_int, default=None, help="number of boards (default: all from --start)")
    expl.add_argument("--play", default=None, metavar="PLAY_SPEC",
                      help="play every auction out with this card player at all four seats (whole deals) instead "
                           "of scoring the contracts with the tricks table (the punisher reads the table either way)")
    expl.add_argument("--seed", type=non_negative_int, default=0, help="seed of random agents (default 0)")
    expl.add_argument("--json", help="write exploitability, ci95 and the two matches' means as JSON (atomic)")
    expl.add_argument("--force", action="store_true", help="replace an existing --json file")
    expl.add_argument("--quiet", action="store_true", help="no progress bar")
    expl.add_argument("--tricks", choices=["dd", "played"], default="dd",
                      help="the tricks table the punisher reads and (without --play) scores with: DD (default) or "
                           "the played-tricks table of a dataset made by `bridgerl data played`")
    expl.set_defaults(func=_evaluate_exploitability, same_player=False)
    agree = eval_commands.add_parser("agreement", help="the share of a teacher's labelled calls a bidder repeats "
                                                       "(label files of `bridgerl data bid-labels`)")
    agree.add_argument("--bidder", required=True, help=SPEC_HELP)
    agree.add_argument("--labels", nargs="+", required=True, help="label files (.npz)")
    agree.add_argument("--json", help="write the figure as JSON (atomic)")
    agree.set_defaults(func=_evaluate_agreement)
    comp = eval_commands.add_parser("competitive", help="duplicate match in competitive bidding")
    comp.add_argument("--ns", required=True, help=SPEC_HELP + " (plays NS at table 1, EW at table 2)")
    comp.add_argument("--ew", required=True, help=SPEC_HELP)
    comp.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    comp.add_argument("--deals", type=positive_int, default=None, help="play the first N boards (default: all)")
    comp.add_argument("--seed", type=non_negative_int, default=0,
                      help="seed of a random agent (--ns gets S, --ew S + 1; default 0)")
    comp.add_argument("--json", help="write the summary and every board's auctions as JSON (atomic)")
    comp.add_argument("--report", help="write a Markdown report with PNG plots into this directory")
    _add_tricks(comp)
    comp.set_defaults(func=_evaluate_competitive)

    game = eval_commands.add_parser("game", help="whole-deal duplicate match: auction and play at two tables")
    game.add_argument("--ns", required=True, help=GAME_SPEC_HELP + " (North-South at table 1, East-West at table 2)")
    game.add_argument("--ew", required=True, help="game spec of the other pair (as --ns)")
    game.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    game.add_argument("--deals", type=positive_int, default=100, help="number of boards (default 100)")
    game.add_argument("--start", type=non_negative_int, default=0, help="first dataset row (default 0)")
    game.add_argument("--seed", type=non_negative_int, default=0,
                      help="seed of the agents (--ns gets S, --ew S + 1; card players reseeded per board and table)")
    game.add_argument("--batch", type=positive_int, default=64,
                      help="boards played at once where both card players are networks (act_views): their "
                           "decisions at all those tables go to one call; the boards are the same for any value "
                           "(default 64)")
    game.add_argument("--workers", type=positive_int, default=1,
                      help="processes over disjoint boards, each loading both pairs (the same boards as one "
                           "worker; default 1)")
    game.add_argument("--out", help="JSON lines, one per board, after a first line that records the match (specs "
                                    "as given and resolved, data hash, first row, seed, checkpoint hashes); running "
                                    "the same match again resumes it, more --deals extend it, and a file of another "
                                    "match is refused")
    game.add_argument("--json", help="write the summary and every board as JSON (atomic)")
    game.add_argument("--report", help="write a Markdown report with PNG plots into this directory")
    game.add_argument("--pbn", help="write both tables of every board as PBN (auction and play)")
    game.add_argument("--force", action="store_true", help="replace an existing --pbn or --json file")
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
    add_play_parsers(eval_commands, data_help, PLAY_SPEC_HELP)
    agr = eval_commands.add_parser("agreements", help="a natural system's readings (what the world samplers read) "
                                   "against the hands that made its calls: the share of calls they admit")
    agr.add_argument("--system", choices=["rules", "sayc"], required=True, help="the system, bidding all four seats")
    agr.add_argument("--data", type=dataset_arg, default="valid", help=data_help + " (default valid)")
    agr.add_argument("--deals", type=positive_int, default=None, help=deals_help)
    agr.add_argument("--json", help="write the result as JSON (atomic)")
    agr.add_argument("--force", action="store_true", help="replace an existing --json file")
    agr.set_defaults(func=_evaluate_agreements)
    rec = eval_commands.add_parser("records", help="the auctions of a PBN / LIN file of hand records against "
                                                   "constructive par and par (thesis table 4.1)")
    rec.add_argument("file", help="hand records: a .pbn or .lin (BBO) file")
    rec.add_argument("--strict", action="store_true",
                     help="refuse the whole file at its first bad board (default: bad boards are refused one by one, "
                          "listed with their reason, and the others scored)")
    rec.add_argument("--json", help="write the summary and one outcome per board as JSON (atomic)")
    rec.set_defaults(func=_evaluate_records)
