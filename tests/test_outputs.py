"""Outputs never replace a link or a special file (issue #63): a link is written through (its target replaced
atomically, the link kept), a special file in place (`/dev/null`), ``-`` is standard output for the text outputs,
and every output path is checked before any work, in one line (a place under ``/proc`` takes no file)."""

import os
import stat
from pathlib import Path

import pytest

from bridgerl.cli import main
from bridgerl.core.files import atomic_write_text, check_output, refuse_overwrite

MATCH = ["evaluate", "competitive", "--ns", "rules", "--ew", "rules", "--data", "test", "--deals", "4"]


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Errno" not in err and ".tmp" not in err, err
    return err


def test_a_link_is_written_through_and_kept(tmp_path, capsys):
    target, link = tmp_path / "real.pbn", tmp_path / "link.pbn"
    target.write_text("mine\n")
    link.symlink_to(target.name)
    assert main(["data", "to-pbn", "test", str(link)]) == 2
    assert "a link to" in _error(capsys) and target.read_text() == "mine\n"
    assert main(["data", "to-pbn", "test", str(link), "--force"]) == 0
    assert link.is_symlink() and os.readlink(link) == target.name
    assert target.read_text().startswith("% PBN") and "[Deal " in target.read_text()
    dangling = tmp_path / "new.json"  # a link to a file not yet made: the file is made, the link stays
    dangling.symlink_to(tmp_path / "made.json")
    assert main(MATCH + ["--json", str(dangling)]) == 0
    assert dangling.is_symlink() and (tmp_path / "made.json").read_text().startswith("{")
    atomic_write_text(link, "again\n")  # the one atomic write every output goes through
    assert link.is_symlink() and target.read_text() == "again\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.pbn", "made.json", "new.json", "real.pbn"]


def test_special_files_are_written_in_place(capsys):
    before = os.stat("/dev/null")
    assert main(["data", "to-pbn", "test", "/dev/null"]) == 0  # no --force: nothing is replaced
    assert main(MATCH + ["--json", "/dev/null"]) == 0
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev and after.st_ino == before.st_ino
    refuse_overwrite("/dev/null")
    check_output("/dev/null", "file", "--json")
    with pytest.raises(ValueError, match="is a special file, not a directory"):
        check_output("/dev/null", "directory", "--report")


def test_dev_stdout_redirected_to_a_file_is_written_in_place(tmp_path):
    """``/dev/stdout`` when standard output is a file: that file is written through the open descriptor (the shell's
    file keeps the output and the command's own line after it), not replaced by a rename."""
    import subprocess
    import sys

    out = tmp_path / "out.pbn"
    with open(out, "w") as handle:
        done = subprocess.run([sys.executable, "-m", "bridgerl.cli", "data", "to-pbn", "test", "/dev/stdout"],
                              stdout=handle, stderr=subprocess.PIPE, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith("% PBN") and text.count("[Deal ") == 5000 and "wrote 5000 boards to /dev/stdout" in text


def test_standard_output_takes_the_text_outputs_alone(capsys):
    assert main(["data", "to-pbn", "test", "-"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("% PBN") and out.count("[Deal ") == 5000 and "wrote 5000 boards" in err
    assert main(MATCH + ["--json", "-"]) == 0
    out, err = capsys.readouterr()
    import json

    assert json.loads(out)["boards"] == 4 and "IMPs/board" in err  # the summary went to standard error
    assert main(["data", "merge", "test", "--out", "-"]) == 2
    assert "standard output takes only the text outputs" in _error(capsys)
    assert main(MATCH + ["--json", "-", "--report", "-"]) == 2
    assert "--report -" in _error(capsys)


@pytest.mark.parametrize("path", ["/proc/bridgerl-test.json", "/proc/self/x/y.json", "/sys/bridgerl-test.json"])
def test_an_output_nothing_can_be_written_to_is_refused_before_the_work(path, capsys):
    assert main(MATCH[:-1] + ["5000", "--json", path]) == 2  # 5,000 boards would take a while: refused first
    err = _error(capsys)
    assert err.startswith(f"bridgerl: error: --json {path}: cannot be written (") and capsys.readouterr().out == ""
    assert main(["data", "to-pbn", "test", path]) == 2
    assert f"OUT {path}: cannot be written" in _error(capsys)
    assert not Path(path).exists()


def test_a_report_folder_nothing_can_be_made_in_is_refused(capsys):
    for folder in ("/proc/bridgerl-report", "/sys/bridgerl-report/deeper"):
        assert main(MATCH + ["--report", folder]) == 2
        assert f"--report {folder}: cannot be written" in _error(capsys)
        assert not Path(folder).exists()


def test_library_warnings_are_named_as_theirs_in_one_line_without_colour():
    """The command line's notes: our own warnings as ``bridgerl: note:``, another library's named as its own (the
    colour codes some libraries add stripped); deprecation warnings are for the libraries' developers: not shown."""
    import warnings

    import jax

    import bridgerl.arena.game as ours
    from bridgerl.cli import _one_line_warning

    assert _one_line_warning("fewer boards", UserWarning, ours.__file__, 1) == "bridgerl: note: fewer boards\n"
    line = _one_line_warning("\x1b[33mWARN: os.fork()\nwas called\x1b[0m", RuntimeWarning, jax.__file__, 1)
    assert line == "bridgerl: warning from jax (RuntimeWarning): WARN: os.fork() was called\n"
    import bridgerl.cli as cli

    def noisy(args):  # a command whose work warns twice: a library's deprecation, and a note of our own
        warnings.warn("an old API", DeprecationWarning)
        warnings.warn("fewer boards than asked")
        return 0

    seen, parser = [], cli.build_parser
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, *rest: seen.append(str(message))
        try:
            cli.build_parser = lambda: _Parsed(noisy)
            assert cli.main(["models"]) == 0
        finally:
            cli.build_parser = parser
    assert seen == ["fewer boards than asked"]


class _Parsed:
    """A parser that gives a command running ``func`` (no outputs, no devices)."""

    def __init__(self, func):
        self.func = func

    def parse_args(self, argv):
        import argparse

        return argparse.Namespace(command="models", func=self.func)


def test_every_json_output_is_replaced_only_with_force(tmp_path, capsys):
    """A --json file that exists is refused before any work, in one line naming it, by every command that writes one
    (`table serve` rewrites its own, which only sums up the resumable --out); --force replaces it."""
    import argparse

    from bridgerl.cli import build_parser

    def commands(parser, name=()):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for word, sub in action.choices.items():
                    yield from commands(sub, name + (word,))
        yield name, parser

    with_json = {name: {o for a in p._actions for o in a.option_strings} for name, p in commands(build_parser())}
    with_json = {name: options for name, options in with_json.items() if "--json" in options}
    assert len(with_json) >= 15 and ("evaluate", "game") in with_json
    assert [name for name, options in with_json.items() if "--force" not in options] == []
    follows = [name for name, p in commands(build_parser()) if p.get_default("json_follows_out")]
    assert follows == [("table", "serve")]  # the one --json rewritten without --force (it sums up its --out)
    mine = tmp_path / "mine.json"
    mine.write_text("mine\n")
    assert main(MATCH[:-1] + ["5000", "--json", str(mine)]) == 2  # 5,000 boards would take a while: refused first
    assert _error(capsys) == f"bridgerl: error: {mine}: the JSON file exists; pass --force to replace it"
    assert mine.read_text() == "mine\n"
    assert main(MATCH + ["--json", str(mine), "--force"]) == 0
    assert mine.read_text().startswith("{")
