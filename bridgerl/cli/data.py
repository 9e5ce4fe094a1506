"""``bridgerl data ...``: deal datasets with DD tables (generate, positions, to-pbn, from-pbn, merge, augment, info)."""

from __future__ import annotations

from .argtypes import dataset_arg, int_range, non_negative_int, positive_int
from ..core.files import refuse_overwrite
from .common import DATA_HELP, FORCE_HELP, load_deals


def _data_generate(args) -> int:
    from ..core.generate import generate

    refuse_overwrite(args.out, args.force, "dataset")
    path = generate(args.out, deals=args.deals, seed=args.seed, workers=args.workers,
                    progress=not args.quiet, dds_threads=args.dds_threads, ray=args.ray)
    print(f"wrote {args.deals} deals with DD tables to {path}")
    return 0


def _data_positions(args) -> int:
    from ..evaluation.datasets.positions import generate_positions

    refuse_overwrite(args.out, args.force, "positions file")
    if args.dealt is not None and args.data is not None:
        raise ValueError(f"--dealt {args.dealt} deals its own deals: give it or --data {args.data}, not both")
    data = f"dealt:{args.dealt}" if args.dealt is not None else (args.data or "train")
    path = generate_positions(args.out, data=data, deals=args.deals, start=args.start, ns=args.ns, ew=args.ew,
                              seed=args.seed, workers=args.workers, progress=not args.quiet,
                              label_worlds=args.label_worlds)
    from ..core.positions import load_positions

    positions = load_positions(path)
    print(f"wrote {len(positions)} positions of {len(positions.deals['row'])} deals "
          f"({int((positions.positions['choices'] > 1).sum())} with a choice) to {path}")
    return 0


def _data_merge_positions(args) -> int:
    from ..core.dataset import atomic_savez
    from ..core.positions import file_arrays, load_positions, merge_positions

    refuse_overwrite(args.out, args.force, "positions file")
    parts = [load_positions(path) for path in args.positions]
    deals, positions, meta = merge_positions(parts)
    atomic_savez(args.out, **file_arrays(deals, positions, meta))
    print(f"wrote {len(positions['deal'])} positions of {len(deals['row'])} deals from {len(parts)} files to "
          f"{args.out}" + ("" if "worlds" in positions else
                           " (no worlds labels)" if any("worlds" in p.positions for p in parts) else ""))
    return 0


def _data_to_pbn(args) -> int:
    from ..core.pbn import write_pbn

    refuse_overwrite(args.out, args.force, "PBN file")
    dataset = load_deals(args.dataset)
    write_pbn(args.out, dataset)
    print(f"wrote {len(dataset)} boards to {args.out}")
    return 0


def _data_from_pbn(args) -> int:
    from ..core.dataset import save_dataset
    from ..core.pbn import read_pbn

    refuse_overwrite(args.out, args.force, "dataset")
    refused: list = []
    dataset = read_pbn(args.pbn, refused)
    save_dataset(args.out, dataset)
    print(f"wrote {len(dataset)} deals with DD tables to {args.out}"
          + (f"; {len(refused)} boards left out (their deal could not be read)" if refused else ""))
    for problem in refused[:10]:
        print(f"  left out: {problem['reason']}")
    return 0


def _data_played(args) -> int:
    from ..core import load_dataset
    from ..evaluation.datasets.played import write_played

    refuse_overwrite(args.out, args.force, "dataset")
    path = write_played(args.data, args.out, args.player, level=args.level, progress=not args.quiet)
    dataset = load_dataset(path)
    played, dd = dataset.tables["played"].astype(float), dataset.tables["dd"].astype(float)
    print(f"wrote {len(dataset)} deals with the played table of {args.player} to {path} (mean DD - played: "
          f"{(dd - played).mean():+.3f} tricks a contract)")
    return 0


def _data_bid_labels(args) -> int:
    import shlex
    import sys
    from pathlib import Path

    import numpy as np

    from ..arena.specs import load_agent
    from ..training.bid_labels import LabelJob, check_partial, check_resume, load_teacher, partial_dir, write_labels

    spec, share = None, 0.0
    if args.dagger is not None:
        spec, _, text = args.dagger.rpartition(",")
        try:
            share = float(text)
        except ValueError:
            share = -1.0
        if not spec or not 0.0 < share <= 1.0:
            raise ValueError(f"--dagger {args.dagger}: expected STUDENT,SHARE with SHARE in (0, 1], e.g. "
                             "models/competitive-played,0.5")
    job = LabelJob(args.bidder, str(args.data), args.deals, args.seed, args.start, spec, share)
    out = Path(args.out)
    if args.force:
        import shutil

        out.unlink(missing_ok=True)
        shutil.rmtree(partial_dir(out), ignore_errors=True)
    else:  # the same command resumes it; another run's file or chunks are refused before any work
        if out.exists():
            check_resume(job, out)
        check_partial(job, out)
    teacher, identity = load_teacher(args.bidder, seed=args.seed)
    student = None if spec is None else load_agent(spec, "competitive_bidding", seed=args.seed)
    meta = write_labels(job, out, teacher, identity, student, shlex.join(["bridgerl", *sys.argv[1:]]),
                        progress=not args.quiet)
    with np.load(out) as data:
        calls, with_probs = len(data["call"]), int((~np.isnan(data["probs"][:, 0])).sum())
    print(f"wrote {calls} labelled calls of {meta['deals_done']} deals by {args.bidder} to {out} "
          f"({with_probs} with the teacher's probabilities; {meta['calls_per_second']:,.0f} calls/s)")
    return 0


def _data_info(args) -> int:
    import numpy as np

    dataset = load_deals(args.dataset)
    if args.rows is not None:
        start, _, stop = args.rows.partition(":")
        try:
            start, stop = int(start or 0), int(stop or len(dataset))
        except ValueError:
            raise ValueError(f"--rows {args.rows!r}: give START:STOP, e.g. 0:1000") from None
        if not 0 <= start < stop <= len(dataset):
            raise ValueError(f"--rows {args.rows!r}: outside the {len(dataset)} rows of {dataset.source}")
        dataset = dataset.subset(np.arange(start, stop))
        print(f"rows {start}..{stop - 1} of", end=" ")
    print(f"{dataset.source}: {len(dataset)} deals, boards {int(dataset.boards.min())}..{int(dataset.boards.max())}")
    print(f"mean DD tricks (declarer x C D H S NT):\n{np.round(dataset.dd.mean(0), 2)}")
    if dataset.tables is not None:
        from ..evaluation.datasets.played import table_gap

        gap = table_gap(dataset)
        by = gap["played_by"]
        print(f"played table by {by['player']} (checkpoint {by['hash'][:12]}, level {by['level']}): DD - played "
              f"{gap['all']['dd_minus_played']:+.3f} +/- {gap['all']['ci95']:.3f} tricks a contract (95% CI over deals); "
              f"played below DD "
              f"{gap['all']['played_below_dd']:.1%}, equal {gap['all']['played_equal_dd']:.1%}, above "
              f"{gap['all']['played_above_dd']:.1%}")
        for title, key in (("strain", "by_strain"), ("DD level", "by_dd_level"), ("contract at the DD level",
                                                                                  "by_contract")):
            print(f"  by {title}: " + ", ".join(f"{name} {v['dd_minus_played']:+.2f}" for name, v in
                                                gap[key].items() if v["entries"]))
        if args.json:
            from .common import write_json

            write_json(args.json, gap)
    return 0


def _data_merge(args) -> int:
    import numpy as np

    from ..core.dataset import make_dataset, save_dataset

    refuse_overwrite(args.out, args.force, "dataset")
    parts = [load_deals(path) for path in args.datasets]
    boards = np.concatenate([part.boards for part in parts])
    merged = make_dataset(np.concatenate([p.owner for p in parts]), np.concatenate([p.dd for p in parts]), boards)
    save_dataset(args.out, merged)
    if any(p.tables is not None for p in parts):
        print("note: the played-tricks tables are not merged; make one for the merged file with `bridgerl data "
              "played`")
    print(f"wrote {len(merged)} deals from {len(parts)} datasets to {args.out} (board numbers kept)")
    return 0


def _data_augment(args) -> int:
    from ..core.dataset import save_dataset
    from ..core.symmetry import augment

    refuse_overwrite(args.out, args.force, "dataset")
    dataset = load_deals(args.dataset)
    augmented = augment(dataset, suit_permutations=args.suit_permutations, rotations=args.rotations)
    save_dataset(args.out, augmented)
    if dataset.tables is not None:
        print("note: the played-tricks table is not carried over (a learned player is not symmetric under these "
              "changes); make one for the variants with `bridgerl data played`")
    print(f"wrote {len(augmented)} deals ({len(augmented) // len(dataset)} exact variants of each of "
          f"{len(dataset)}) to {args.out}")
    return 0


def add_parser(commands) -> None:
    """Add ``data`` and its commands to the top-level subparsers."""
    from ..arena.specs import GAME_SPEC_HELP

    force_help, data_help = FORCE_HELP, DATA_HELP
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
    pos.add_argument("--data", type=dataset_arg, default=None, help=data_help + " (default train)")
    pos.add_argument("--dealt", type=non_negative_int, default=None, metavar="SEED",
                     help="deal the deals here instead of reading a dataset: deal k (k = --start ...) of SEED's own "
                          "stream, none of them a deal of any dataset; no DD table is solved for them (the file's "
                          "source records dealt:SEED, so the deals are made again from it)")
    pos.add_argument("--deals", type=positive_int, default=100, help="deals to bid and play (default 100)")
    pos.add_argument("--start", type=non_negative_int, default=0, help="first dataset row (default 0)")
    pos.add_argument("--ns", default="rules", help=GAME_SPEC_HELP + " for North-South (default rules)")
    pos.add_argument("--ew", default="rules", help="game spec for East-West (default rules)")
    pos.add_argument("--seed", type=non_negative_int, default=0,
                     help="seed of the players (as table 1 of `evaluate game --seed`; default 0)")
    pos.add_argument("--out", required=True, help="output .npz (an interrupted run resumes from OUT.partial/)")
    pos.add_argument("--workers", type=positive_int, default=1, help="processes (default 1)")
    pos.add_argument("--label-worlds", type=non_negative_int, default=0, metavar="K",
                     help="also count, at each position with a choice, in how many of K sampled worlds each legal "
                          "card is DD-best (seed 004's target: train card-player --target worlds; about K DDS solves "
                          "a position; default 0, none)")
    pos.add_argument("--force", action="store_true", help=force_help)
    pos.add_argument("--quiet", action="store_true", help="no progress bar")
    pos.set_defaults(func=_data_positions)

    mpos = data_commands.add_parser(
        "merge-positions", help="join positions files (several runs of `data positions`) into one, in order")
    mpos.add_argument("positions", nargs="+", help="positions .npz files, in order")
    mpos.add_argument("--out", required=True, help="output .npz")
    mpos.add_argument("--force", action="store_true", help=force_help)
    mpos.set_defaults(func=_data_merge_positions)

    played = data_commands.add_parser(
        "played", help="the dataset whole with a played-tricks table: the tricks each declarer takes in each strain "
                       "with a learned card player at all four seats (batched in JAX, resumable; issue #38)")
    played.add_argument("--data", type=dataset_arg, required=True, help=data_help)
    played.add_argument("--player", default="models/card-player",
                        help="the card player (a model path or cardnet:model=PATH; default models/card-player)")
    played.add_argument("--level", default="dd",
                        help="the level each contract is bid at: dd (DD tricks - 6, at least 1; default) or 1..7")
    played.add_argument("--out", required=True, help="output .npz (an interrupted run resumes from OUT.partial/)")
    played.add_argument("--force", action="store_true", help=force_help)
    played.add_argument("--quiet", action="store_true", help="no progress bar")
    played.set_defaults(func=_data_played)

    labels = data_commands.add_parser(
        "bid-labels", help="a teacher's calls at every position of its auctions, at all four seats: observations, "
                           "legal masks, calls and the teacher's 38 call probabilities where it has them (seeded, "
                           "resumable; for train competitive --demos; the test split is never read)")
    labels.add_argument("--bidder", required=True, help="the teacher: a competitive bidder spec (sayc and anything "
                                                        "wrapping it are refused: held out)")
    labels.add_argument("--data", default="fresh",
                        help="fresh (deals drawn from --seed; default), train, valid or a dataset path")
    labels.add_argument("--deals", type=positive_int, required=True, help="deals to bid")
    labels.add_argument("--start", type=non_negative_int, default=0, help="first row of a dataset (default 0)")
    labels.add_argument("--seed", type=non_negative_int, default=0,
                        help="seed of the fresh deals and the DAgger seats (default 0)")
    labels.add_argument("--dagger", default=None, metavar="STUDENT,SHARE",
                        help="the student (a bidder spec) bids each seat with probability SHARE; the teacher labels "
                             "every position all the same")
    labels.add_argument("--out", required=True, help="output .npz, written when all deals are done (each 1,000 "
                                                     "deals kept in OUT.partial/ until then: the same command "
                                                     "resumes; more --deals extends a finished file)")
    labels.add_argument("--force", action="store_true", help=force_help)
    labels.add_argument("--quiet", action="store_true", help="no progress bar")
    labels.set_defaults(func=_data_bid_labels)

    to_pbn = data_commands.add_parser("to-pbn", help="write a dataset as PBN")
    to_pbn.add_argument("dataset", type=dataset_arg, help=data_help)
    to_pbn.add_argument("out", help="output .pbn ('-': standard output)")
    to_pbn.add_argument("--force", action="store_true", help=force_help)
    to_pbn.set_defaults(func=_data_to_pbn)

    from_pbn = data_commands.add_parser("from-pbn", help="read the deals of a PBN file (only the Deal and Board tags; a board whose deal "
                                            "cannot be read is left out and named), compute DD tables, write .npz")
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
    info.add_argument("--rows", default=None, metavar="START:STOP", help="summarise these rows only")
    info.add_argument("--json", help="with a played table: write its difference from DD (by strain, DD level and "
                                     "contract) as JSON")
    info.set_defaults(func=_data_info)

