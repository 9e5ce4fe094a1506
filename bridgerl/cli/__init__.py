"""The ``bridgerl`` command line: ``bridgerl data ...``, ``bridgerl train ...``, ``bridgerl evaluate ...``.

Every numeric flag is range-checked when parsed (one-line error, exit status 2); no command replaces an existing
output file without ``--force``; ``--json`` and ``--report`` files are written atomically."""

from __future__ import annotations

import argparse
import functools
import re
import shlex
import sys
from pathlib import Path

from .. import __version__
from .argtypes import OneLineParser
from ..core.dataset import DatasetError
from ..core.files import check_output, is_stdout, refuse_overwrite, stdout_output
from . import data, evaluate, models, serve, show, table, train


STDOUT_FLAGS = "--json, --pbn and data to-pbn's OUT"
"""The outputs that may be ``-``, standard output: the text ones."""


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="bridgerl", description="Contract bridge environments, agents and evaluation.")
    parser.add_argument("--version", action="version", version=f"bridgerl {__version__}",
                        help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True)
    for group in (data, train, evaluate, show, serve, table, models):  # one module per command group, each adding its parsers
        group.add_parser(commands)
    _force_for_json(parser)
    return parser


def _force_for_json(parser: argparse.ArgumentParser) -> None:
    """Give every command that writes ``--json`` a ``--force`` (checked in `_check_outputs`: an existing JSON file is
    replaced only with it), but for a command whose JSON only sums up its resumable ``--out`` (``json_follows_out``:
    ``table serve``, which rewrites it at the end of every run)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                _force_for_json(sub)
    options = {option for action in parser._actions for option in action.option_strings}
    if "--json" in options and "--force" not in options and not parser.get_default("json_follows_out"):
        parser.add_argument("--force", action="store_true", help="replace an existing --json file")


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


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@functools.cache
def _our_folders() -> tuple[str, ...]:
    """The folders of bridgerl's own modules (the package and the folders pyproject maps into it), found without
    importing them."""
    import importlib.util

    folders = []
    for name in ("bridgerl", "bridgerl.envs", "bridgerl.agents", "bridgerl.training", "bridgerl.evaluation"):
        spec = importlib.util.find_spec(name)
        folders += [str(Path(p).resolve()) for p in (spec.submodule_search_locations or [])] if spec else []
    return tuple(folders)


def _one_line_warning(message, category, filename, lineno, line=None) -> str:
    """Our own notes ("fewer boards than asked") as ``bridgerl: note: ...``; another library's warning named as its
    own, in one line without colour codes (``bridgerl: warning from jax: ...``)."""
    text = " ".join(_ANSI.sub("", str(message)).split()) or category.__name__
    path = str(Path(filename).resolve())
    if any(path.startswith(folder + "/") for folder in _our_folders()):
        return f"bridgerl: note: {text}\n"
    parts = Path(path).parts
    installed = [k for k, part in enumerate(parts[:-1]) if part.endswith("-packages")]  # site- or dist-packages
    name = parts[installed[-1] + 1] if installed else Path(path).stem
    return f"bridgerl: warning from {name.removesuffix('.py')} ({category.__name__}): {text}\n"


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


def _check_outputs(args) -> list[str]:
    """Every output path checked before any work (a directory where a file goes, a folder that is a file, a place
    nothing can be written); returns the outputs that are standard output (``-``, text outputs only). The commands
    still refuse to replace a file without --force."""
    to_stdout = []
    for flag, kind in (("json", "file"), ("pbn", "file"), ("report", "directory"), ("boards_dir", "directory"),
                       ("out", "directory" if args.command == "train" else "file"), ("log", "file")):
        positional = flag == "out" and getattr(args, "data_command", None) in ("to-pbn", "from-pbn")
        name = "OUT" if positional else "--" + flag.replace("_", "-")
        value = getattr(args, flag, None)
        if is_stdout(value):
            if flag not in ("json", "pbn") and not (positional and args.data_command == "to-pbn"):
                raise ValueError(f"{name} -: standard output takes only the text outputs ({STDOUT_FLAGS})")
            to_stdout.append(name)
        check_output(value, kind, name)
    if getattr(args, "json", None) and not is_stdout(args.json) and not getattr(args, "json_follows_out", False):
        refuse_overwrite(args.json, getattr(args, "force", False), "JSON file")
    if len(to_stdout) > 1:
        raise ValueError(f"{' and '.join(to_stdout)} both ask for standard output (-); give one of them a file")
    return to_stdout


def main(argv: list[str] | None = None) -> int:
    import warnings

    formatwarning, warnings.formatwarning = warnings.formatwarning, _one_line_warning  # notes in one line
    try:
        with warnings.catch_warnings():
            for category in (DeprecationWarning, PendingDeprecationWarning):  # for the libraries' developers
                warnings.filterwarnings("ignore", category=category)
            return _main(list(sys.argv[1:] if argv is None else argv))
    finally:  # a caller's own warnings (main called in-process) keep their format
        warnings.formatwarning = formatwarning


def _main(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "devices", None) is not None:  # before JAX starts its backend
            from ..devices import request_host_devices

            request_host_devices(args.devices)
        if _check_outputs(args):  # the output alone on standard output, the command's own lines on standard error
            with stdout_output():
                code = args.func(args)
        else:
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

