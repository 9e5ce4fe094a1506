"""The ``bridgerl`` command line: ``bridgerl data ...``, ``bridgerl train ...``, ``bridgerl evaluate ...``.

Every numeric flag is range-checked when parsed (one-line error, exit status 2); no command replaces an existing
output file without ``--force``; ``--json`` and ``--report`` files are written atomically."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from .. import __version__
from .argtypes import OneLineParser
from ..core.dataset import DatasetError
from ..core.files import check_output
from . import data, evaluate, models, serve, show, table, train


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="bridgerl", description="Contract bridge environments, agents and evaluation.")
    parser.add_argument("--version", action="version", version=f"bridgerl {__version__}",
                        help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    for group in (data, train, evaluate, show, serve, table, models):  # one module per command group, each adding its parsers
        group.add_parser(commands)
    return parser


def _resume_hint(args, argv: list[str]) -> str:
    """What to run to continue an interrupted command."""
    command = ["bridgerl", *argv]
    if args.command == "train" and args.train_command in ("uncontested", "competitive"):
        from ..training.run import STATE_FILE

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


def _stdout_closed() -> bool:
    """Whether standard output is a pipe whose reader has gone (poll reports an error on its write end)."""
    import select

    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (OSError, ValueError, AttributeError):  # no file descriptor (a captured stream), no poll
        return False


def _quiet_stdout() -> None:
    """Point standard output at /dev/null so that Python's flush at exit finds no closed pipe to complain about."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a captured stream in tests)
        pass


def main(argv: list[str] | None = None) -> int:
    import warnings

    warnings.formatwarning = _one_line_warning  # notes such as "fewer boards than asked" in one line
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "devices", None) is not None:  # before JAX starts its backend
            from ..devices import request_host_devices

            request_host_devices(args.devices)
        # output paths are checked before any work: a directory where a file goes, a folder that is a file, no
        # permission (the commands still refuse to replace a file without --force)
        for flag, kind in (("json", "file"), ("pbn", "file"), ("report", "directory"), ("boards_dir", "directory"),
                           ("out", "directory" if args.command == "train" else "file")):
            check_output(getattr(args, flag, None), kind, "--" + flag.replace("_", "-"))
        code = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit
        return code
    except BrokenPipeError as exc:  # the reader went away (`bridgerl ... | head`): stop quietly, as `yes | head` does
        if not _stdout_closed():  # another pipe (a worker's) broke: that is an error
            print(f"bridgerl: error: {exc}", file=sys.stderr)
            return 2
        _quiet_stdout()
        return 141
    except (DatasetError, ValueError, OSError, NotImplementedError) as exc:  # OSError: file system
        print(f"bridgerl: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"bridgerl: interrupted{_resume_hint(args, argv)}", file=sys.stderr)
        return 130

