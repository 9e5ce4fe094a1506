"""``bridgerl show``: one deal, its auction and play trick by trick."""

from __future__ import annotations

from .argtypes import dataset_arg, non_negative_int
from .common import DATA_HELP


def _show(args) -> int:
    from ..arena.game import show_table
    from ..arena.specs import load_pair

    a, b = load_pair(args.ns, seed=args.seed), load_pair(args.ew, seed=args.seed + 1)
    print(show_table(a, b, args.data, args.index, seed=args.seed), end="")
    return 0


def add_parser(commands) -> None:
    """Add ``show`` and its commands to the top-level subparsers."""
    from ..arena.specs import GAME_SPEC_HELP

    data_help = DATA_HELP
    show = commands.add_parser("show", help="watch one deal: hands, auction and play trick by trick")
    show.add_argument("--ns", required=True, help="game spec of North-South: " + GAME_SPEC_HELP)
    show.add_argument("--ew", required=True, help="game spec of East-West (as --ns)")
    show.add_argument("--index", type=non_negative_int, required=True, help="dataset row (0-based)")
    show.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    show.add_argument("--seed", type=non_negative_int, default=0, help="seed of the agents (default 0)")
    show.set_defaults(func=_show)
