"""``bridgerl table serve | join``: the computer-bridge table protocol (version 18; `docs/table.md`)."""

from __future__ import annotations

import sys

from .argtypes import dataset_arg, int_range, non_negative_int, positive_int
from .common import DATA_HELP

SEATS = ("north", "east", "south", "west")


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"--board-seconds {text!r} is not a number") from None
    if not value > 0:
        raise ValueError(f"--board-seconds must be positive, got {text}")
    return value


def _serve(args) -> int:
    from ..arena.table_manager import TableManager
    from .common import write_json

    manager = TableManager(args.data, args.out, args.port, args.start, args.deals, args.rooms, args.host,
                           args.board_seconds, args.log, force=args.force, timing=args.timing)
    last = args.port + 4 * args.rooms - 1
    print(f"bridgerl: table manager on {args.host} ports {args.port}-{last} (room 1: North {args.port}, East "
          f"{args.port + 1}, South {args.port + 2}, West {args.port + 3}"
          + (f"; room 2: {args.port + 4}-{last}" if args.rooms == 2 else "") + f"), {len(manager.rows)} boards of "
          f"{args.data}; {len(manager.done)} already in {args.out}", flush=True)
    results = manager.serve()
    if args.json:
        write_json(args.json, results)
    summary = results.get("summary")
    print(f"bridgerl: {results['boards_played']} of {len(manager.rows)} boards played in every room, written to "
          f"{args.out}")
    if summary and "imps_per_board" in summary:
        print(f"{summary['a']} (room 1 N/S) vs {summary['b']}: {summary['imps_per_board']:+.2f} IMPs/board "
              f"(95% CI +/- {summary['ci95']:.2f}) over {summary['boards']} boards")
    elif summary:  # one room: against par
        print(f"{summary['a']} (N/S) vs {summary['b']}: {summary['vs_par_imps_per_board']:+.2f} IMPs/board against "
              f"par for N/S (95% CI +/- {summary['ci95']:.2f}), {summary['score_ns_per_board']:+.0f} points a board, "
              f"over {summary['boards']} boards (one room: no second table to compare with)")
    if results["failure"]:
        print(f"bridgerl: error: {results['failure']}; run the same command again to resume", file=sys.stderr)
        return 1
    return 0


def _join(args) -> int:
    from ..arena.seat_client import SeatClient, SeatError

    log = None
    if args.log:
        handle = open(args.log, "a", encoding="utf-8")

        def log(text: str) -> None:
            handle.write(text + "\n")
            handle.flush()

    if args.seat is None and args.dialect != "openspiel":
        raise ValueError("table join: give --seat (only --dialect openspiel is seated where the manager says)")
    client = SeatClient(args.host, args.port, None if args.seat is None else SEATS.index(args.seat), args.agent,
                        args.team, args.seed, args.room, args.opponents, timeout=args.connect_seconds, log=log,
                        dialect=args.dialect)
    try:
        boards = client.run()
    except SeatError as exc:
        print(f"bridgerl: error: {exc}", file=sys.stderr)
        return 1
    print(f"bridgerl: {args.seat} played {boards} boards")
    return 0


def add_parser(commands) -> None:
    """Add ``table`` and its commands to the top-level subparsers."""
    table = commands.add_parser("table", help="the computer-bridge table protocol (version 18): a table manager "
                                              "and a seat for our agents (docs/table.md)")
    sub = table.add_subparsers(dest="table_command", required=True)
    serve = sub.add_parser("serve", help="a table manager: deals the rows of DATA to four seats a room, checks "
                                         "and relays every call and card, writes the boards as PBN")
    serve.add_argument("--port", type=int_range(1024, 65527), required=True,
                       help="room 1's North port; East, South, West on the next three; room 2 on PORT+4..PORT+7")
    serve.add_argument("--data", type=dataset_arg, default="test", help=DATA_HELP + " (default test)")
    serve.add_argument("--start", type=non_negative_int, default=0, help="first row (default 0)")
    serve.add_argument("--deals", type=positive_int, default=None, help="boards (default: every row from --start)")
    serve.add_argument("--rooms", type=int_range(1, 2), default=1,
                       help="1, or 2: room 2 is the closed room, the pairs' seats swapped (default 1)")
    serve.add_argument("--out", required=True, help="PBN file of the boards played (auction and play); an "
                                                     "interrupted session run again resumes after its boards")
    serve.add_argument("--json", help="write the results (every board; with two rooms IMPs/board with 95%% CI); "
                                      "replaced atomically at the end of every run")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: this machine only)")
    serve.add_argument("--board-seconds", type=_positive_seconds, default=None,
                       help="end a board that runs longer than this, and the session when a seat has not "
                            "connected this long after the first one did (default: no limit)")
    serve.add_argument("--timing", action="store_true",
                       help="send the protocol's Timing line after each board (ours and BEN's clients read it, "
                            "bridge_env's client stops on it; default: none, and a seat silent after Start of board, "
                            "as BEN's is without it, is sent it again after 2 s)")
    serve.add_argument("--log", help="append every message sent and received to this file")
    serve.add_argument("--force", action="store_true", help="start --out afresh instead of resuming from its boards")
    serve.set_defaults(func=_serve, json_follows_out=True)  # --json sums up --out: no --force asked to replace it

    join = sub.add_parser("join", help="seat one of our agents at a table manager (ours or another program's)")
    join.add_argument("--host", default="127.0.0.1", help="the table manager's address (default 127.0.0.1)")
    join.add_argument("--port", type=int_range(1, 65535), required=True, help="this seat's own port")
    join.add_argument("--seat", choices=SEATS, default=None,
                      help="the seat this port is for (needed but with --dialect openspiel, which is seated where "
                           "the manager says)")
    join.add_argument("--dialect", choices=["default", "openspiel"], default="default",
                      help="openspiel: speak as OpenSpiel's Blue Chip wrappers (bluechip_bridge.py) require: "
                           "'as ANYPL', upper-case seats and call words, lower-case cards (default: the protocol's "
                           "own words, which our manager and bridge_env's server read)")
    join.add_argument("--agent", required=True, help="game spec bid=BIDDER,play=PLAYER (e.g. "
                                                     "bid=sayc,play=models/card-player)")
    join.add_argument("--team", help="team name sent to the manager (default: the agent spec)")
    join.add_argument("--seed", type=non_negative_int, default=0,
                      help="seed of the agents that draw random numbers, as evaluate game's --seed (default 0)")
    join.add_argument("--room", type=int_range(1, 2), default=1,
                      help="the room (1 or 2) this seat is in: evaluate game's table, for the seeds (default 1)")
    join.add_argument("--opponents", help="bidder spec a card player that reads the auction assumes the "
                                          "opponents bid with (default: our own bidder)")
    join.add_argument("--connect-seconds", type=_positive_seconds, default=30.0,
                      help="keep trying to connect this long (default 30)")
    join.add_argument("--log", help="append every message sent and received to this file")
    join.set_defaults(func=_join)
