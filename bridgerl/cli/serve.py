"""``bridgerl serve``: the local web page."""

from __future__ import annotations

from .argtypes import dataset_arg, int_range, non_negative_int, positive_int
from .common import DATA_HELP


def _serve(args) -> int:
    try:
        import uvicorn

        from ..web.app import Server, create_app
    except ImportError as exc:
        raise ValueError(f'bridgerl serve needs the web extra ({exc.name} is missing): '
                         f'pip install -e ".[web]"') from None
    import socket

    # The socket is bound here, with SO_REUSEADDR, and handed to uvicorn: a server restarted on its port soon after
    # a browser was connected binds at once (the old connections' TIME_WAIT does not hold the port), while a port
    # another server listens on is still refused before anything is promised.
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        sock.close()
        raise ValueError(f"cannot serve on {args.host} port {args.port}: {exc.strerror or exc}; choose another "
                         f"--port") from None
    try:
        server = Server(args.data, args.ns, args.ew, args.explain_data, args.explain_deals, args.seed)
        where = f"http://{'[' + args.host + ']' if ':' in args.host else args.host}:{args.port}/"
        print(f"bridgerl: {len(server.dataset)} boards of {args.data} at {where} (NS {args.ns}, EW {args.ew}); "
              f"Ctrl-C stops", flush=True)
        uvicorn.Server(uvicorn.Config(create_app(server), log_level="warning")).run(sockets=[sock])
    finally:
        sock.close()
    return 0


def add_parser(commands) -> None:
    """Add ``serve`` and its commands to the top-level subparsers."""
    data_help = DATA_HELP

    serve = commands.add_parser("serve", help="a local web page: boards, the agents' auction and play with "
                                               "explanations, and a seat at the table (needs the web extra)")
    serve.add_argument("--port", type=int_range(1, 65535), default=8000, help="port (default 8000)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default 127.0.0.1: this machine only)")
    serve.add_argument("--data", type=dataset_arg, default="test", help=data_help + " (default test)")
    serve.add_argument("--ns", default="rules",
                       help="default game spec of North-South: bid=BIDDER,play=PLAYER (as `bridgerl evaluate game "
                            "--help` lists them: a competitive bidder and a card player), or a bidder alone, played "
                            "by the released learned card player models/card-player (pimc:worlds=20 where it is "
                            "missing; default rules)")
    serve.add_argument("--ew", default="rules", help="default game spec of East-West (as --ns)")
    serve.add_argument("--explain-data", type=dataset_arg, default="valid",
                       help="held-out deals on which the bidders are replayed to explain their calls (default valid)")
    serve.add_argument("--explain-deals", type=positive_int, default=400,
                       help="deals replayed per explanation (default 400)")
    serve.add_argument("--seed", type=non_negative_int, default=0, help="seed of the agents (default 0)")
    serve.set_defaults(func=_serve)
