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


def _train_uncontested(args) -> int:
    from .training.run import train_uncontested

    overrides = {}
    for name in ("learning_rate", "batch_size", "num_envs", "updates_per_step", "target_every", "replay_size",
                 "lr_end", "transitions"):
        value = getattr(args, name)
        if value is not None:
            overrides[name] = value
    if args.hidden:
        overrides["hidden"] = tuple(args.hidden)
    for flag in ("double_q", "dueling"):
        if getattr(args, flag):
            overrides[flag] = True
    result = train_uncontested(args.out, preset=args.preset, steps=args.steps, seed=args.seed, data=args.data,
                               eval_data=args.eval_data, resume=args.resume, overrides=overrides,
                               progress=not args.quiet)
    print(f"held-out IMPs/deal vs constructive par: {result['imps_per_deal']:.2f} +/- {result['ci95']:.2f} "
          f"(95% CI, {result['deals']} deals, {result['env_steps']} env steps, {result['updates']} updates)")
    print(f"model: {result['model']}")
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

    train = commands.add_parser("train", help="train agents")
    train_commands = train.add_subparsers(dest="train_command", required=True)
    unc = train_commands.add_parser("uncontested", help="DQN on uncontested bidding (thesis 4.4), fully jitted JAX")
    unc.add_argument("--preset", choices=["thesis", "small"], default="small")
    unc.add_argument("--steps", type=int, default=None, help="env steps (calls); default per preset")
    unc.add_argument("--out", required=True, help="run directory (model.msgpack, train_state.msgpack, log.jsonl)")
    unc.add_argument("--seed", type=int, default=0)
    unc.add_argument("--data", default="train", help="training deals (.npz or 'train')")
    unc.add_argument("--eval-data", default="test", help="held-out deals for evaluation (.npz or 'test')")
    unc.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    unc.add_argument("--quiet", action="store_true")
    for name, kind in (("learning-rate", float), ("batch-size", int), ("num-envs", int), ("updates-per-step", int),
                       ("target-every", int), ("replay-size", int), ("lr-end", float)):
        unc.add_argument(f"--{name}", type=kind, default=None, help="override the preset")
    unc.add_argument("--hidden", type=int, nargs="+", help="hidden layer sizes (override the preset)")
    unc.add_argument("--transitions", choices=["seat", "team"], default=None)
    unc.add_argument("--double-q", action="store_true")
    unc.add_argument("--dueling", action="store_true")
    unc.set_defaults(func=_train_uncontested)
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
