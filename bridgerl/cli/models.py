"""``bridgerl models``: the released models (shipped with the package), with what made each."""

from __future__ import annotations

from .common import write_json


def _unshipped(command: str) -> list[str]:
    """The files a recorded training command read that are not here (its runs/ data): not its outputs, not the
    released models, not the bundled splits."""
    import shlex
    from pathlib import Path

    try:
        words = shlex.split(command)
    except ValueError:
        return []
    return [word for before, word in zip([""] + words, words)
            if before != "--out" and not word.startswith(("-", "models/")) and ("/" in word or word.endswith(".npz"))
            and not Path(word).exists()]


def _models(args) -> int:
    from ..core.models import released_models

    models = released_models()
    if not models:
        raise FileNotFoundError("no released models found (neither in the installed package nor beside it)")
    import functools
    import shutil
    import textwrap

    width = max(len(m["name"]) for m in models)
    kinds = max(len(m["kind"]) for m in models)
    columns = max(80, shutil.get_terminal_size((100, 24)).columns)  # long commands wrap at words (--json: whole)
    wrap = functools.partial(textwrap.fill, width=columns, initial_indent="  ", subsequent_indent="      ",
                             break_long_words=False, break_on_hyphens=False)
    for m in models:
        print(f"{m['name']:<{width}}  {m['kind']:<{kinds}}  {m['bytes'] / 1e6:5.1f} MB  {m['sha256'][:12]}")
        print(wrap(f"made by: {m['command'] or '(command unknown)'}"))
        missing = _unshipped(m["command"] or "")
        if missing:
            print(wrap(f"(it read {len(missing)} file(s) not shipped with the package, such as {missing[0]}: "
                       f"models/{m['name']}/README.md says how they were made)"))
    if args.json:
        write_json(args.json, models)
    return 0


def add_parser(commands) -> None:
    """Add ``models`` to the top-level subparsers."""
    models = commands.add_parser("models", help="list the released models: kind, size, checksum and the command "
                                                "that made each (models/NAME in any agent spec)")
    models.add_argument("--json", metavar="FILE", help="also write the list as JSON (written atomically)")
    models.set_defaults(func=_models)
