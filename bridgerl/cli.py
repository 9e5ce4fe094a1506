"""The ``bridgerl`` command line: ``bridgerl data generate|to-pbn|from-pbn|info``."""

from __future__ import annotations

import argparse
import sys

from .core.dataset import DatasetError


def _data_generate(args) -> int:
    from .core.generate import generate

    path = generate(args.out, deals=args.deals, seed=args.seed, workers=args.workers,
                    progress=not args.quiet, dds_threads=args.dds_threads)
    print(f"wrote {args.deals} deals with DD tables to {path}")
    return 0


def _data_to_pbn(args) -> int:
    from .core.dataset import load_dataset
    from .core.pbn import write_pbn

    dataset = load_dataset(args.dataset)
    write_pbn(args.out, dataset)
    print(f"wrote {len(dataset)} boards to {args.out}")
    return 0


def _data_from_pbn(args) -> int:
    from .core.dataset import save_dataset
    from .core.pbn import read_pbn

    dataset = read_pbn(args.pbn)
    save_dataset(args.out, dataset)
    print(f"wrote {len(dataset)} deals with DD tables to {args.out}")
    return 0


def _data_info(args) -> int:
    import numpy as np

    from .core.dataset import load_dataset

    dataset = load_dataset(args.dataset)
    print(f"{dataset.source}: {len(dataset)} deals, boards {int(dataset.boards.min())}..{int(dataset.boards.max())}")
    print(f"mean DD tricks (declarer x C D H S NT):\n{np.round(dataset.dd.mean(0), 2)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bridgerl", description="Contract bridge environments, agents and evaluation.")
    commands = parser.add_subparsers(dest="command", required=True)

    data = commands.add_parser("data", help="deal datasets with double-dummy tables")
    data_commands = data.add_subparsers(dest="data_command", required=True)

    gen = data_commands.add_parser("generate", help="random deals with DD tables (resumable)")
    gen.add_argument("--deals", type=int, required=True, help="number of deals")
    gen.add_argument("--seed", type=int, required=True, help="numpy seed for the deals")
    gen.add_argument("--out", required=True, help="output .npz")
    gen.add_argument("--workers", type=int, default=1,
                     help="processes; 1 lets DDS thread over all cores itself (default 1)")
    gen.add_argument("--dds-threads", type=int, default=0,
                     help="threads DDS uses per worker (default 0: all cores, shared among workers)")
    gen.add_argument("--quiet", action="store_true", help="no progress bar")
    gen.set_defaults(func=_data_generate)

    to_pbn = data_commands.add_parser("to-pbn", help="write a dataset as PBN")
    to_pbn.add_argument("dataset", help=".npz file or bundled split 'train'/'test'")
    to_pbn.add_argument("out", help="output .pbn")
    to_pbn.set_defaults(func=_data_to_pbn)

    from_pbn = data_commands.add_parser("from-pbn", help="read a PBN file, compute DD tables, write .npz")
    from_pbn.add_argument("pbn", help="input .pbn")
    from_pbn.add_argument("out", help="output .npz")
    from_pbn.set_defaults(func=_data_from_pbn)

    info = data_commands.add_parser("info", help="validate a dataset and summarise it")
    info.add_argument("dataset", help=".npz file or bundled split 'train'/'test'")
    info.set_defaults(func=_data_info)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (DatasetError, ValueError, FileNotFoundError) as exc:
        print(f"bridgerl: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bridgerl: interrupted; run the same command again to continue", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
