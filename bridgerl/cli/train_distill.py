"""``bridgerl train distill``: expert iteration for a PPO bidder (issue #65), beside the other `train` commands
(`bridgerl.cli.train`)."""

from __future__ import annotations

import shlex
import sys

from .argtypes import non_negative_float, non_negative_int, positive_float, positive_int


def _train_distill(args) -> int:
    """`bridgerl train distill`: a PPO bidder fine-tuned toward its search's labels (`training.expert_iteration`)."""
    from ..training.expert_iteration import DistillConfig, distill

    given = {k: getattr(args, k) for k in ("updates", "batch_size", "learning_rate", "learning_rate_end",
                                           "bc_weight") if getattr(args, k) is not None}
    record = distill(args.out, args.base, args.labels, DistillConfig(**given), seed=args.seed, resume=args.resume,
                     force=args.force, progress=not args.quiet,
                     command=" ".join(["bridgerl", *map(shlex.quote, sys.argv[1:])]))
    print(f"{args.out}: {record.get('updates')} updates; agreement with the search on its "
          f"{record.get('searched_positions')} searched positions {record.get('search_agreement', float('nan')):.3f}, "
          f"with the base on all {record.get('positions')} {record.get('base_agreement', float('nan')):.3f}; "
          f"model.msgpack is ppo:{args.out}")
    return 0


def add_distill(commands) -> None:
    distil = commands.add_parser(
        "distill", help="expert iteration (issue #65): fine-tune a PPO bidder from its own weights toward the calls "
                        "its bidsearch: made on the positions it searched (label files of bridgerl data bid-labels "
                        "--bidder bidsearch:...,base=BASE), beside a cross-entropy to its own policy everywhere; "
                        "resumable")
    distil.add_argument("--base", required=True, help="the PPO model to start from (e.g. models/competitive-student)")
    distil.add_argument("--labels", required=True, nargs="+", help="label files of a bidsearch: teacher")
    distil.add_argument("--out", required=True, help="run directory (model.msgpack, train_state.msgpack, log.jsonl)")
    for name, kind, text in (("updates", positive_int, "Adam updates (default 10000)"),
                             ("batch-size", positive_int, "positions a batch (default 256)"),
                             ("learning-rate", positive_float, "Adam learning rate at the start (default 1e-4)"),
                             ("learning-rate-end", non_negative_float, "... falling linearly to this (default 0)"),
                             ("bc-weight", non_negative_float, "weight of the cross-entropy to the base's own "
                                                               "policy on every position (default 1)")):
        distil.add_argument(f"--{name}", type=kind, default=None, help=text)
    distil.add_argument("--seed", type=non_negative_int, default=0, help="batches drawn (default 0)")
    distil.add_argument("--resume", action="store_true", help="continue the run saved in --out")
    distil.add_argument("--force", action="store_true", help="start a new run in an --out that holds one")
    distil.add_argument("--quiet", action="store_true", help="no progress bar")
    distil.set_defaults(func=_train_distill)
