"""Command-line argument types of ``bridgerl``'s commands: each rejects a bad value with a one-line argparse error,
and the parser prints its errors in one line. (In ``bridgerl.core.argtypes`` until issue #52: the core holds no
argparse.)"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from ..core.dataset import BUNDLED_SPLITS


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the usage is one ``--help`` away)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# -- argument types: each rejects a bad value with a one-line argparse error --------------------------------------
def _number(kind, check, text: str, value: str):
    try:
        number = kind(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {text}, got {value!r}") from None
    if not check(number):
        raise argparse.ArgumentTypeError(f"expected {text}, got {value!r}")
    return number


def positive_int(value: str) -> int:
    return _number(int, lambda n: n >= 1, "an integer >= 1", value)


def device_count(value: str) -> int | str:
    """``--devices``: a positive count or ``all``."""
    return "all" if value == "all" else _number(int, lambda n: n >= 1, "a device count >= 1 or 'all'", value)


def non_negative_int(value: str) -> int:
    return _number(int, lambda n: n >= 0, "an integer >= 0", value)


def finite_float(value: str) -> float:
    return _number(float, math.isfinite, "a finite number", value)


def positive_float(value: str) -> float:
    return _number(float, lambda x: math.isfinite(x) and x > 0, "a finite number > 0", value)


def non_negative_float(value: str) -> float:
    return _number(float, lambda x: math.isfinite(x) and x >= 0, "a finite number >= 0", value)


def probability(value: str) -> float:
    return _number(float, lambda x: 0.0 <= x <= 1.0, "a probability between 0 and 1", value)


def int_range(low: int, high: int):
    """An argparse type accepting integers from ``low`` to ``high``."""
    def check(value: str) -> int:
        return _number(int, lambda n: low <= n <= high, f"an integer from {low} to {high}", value)

    check.__name__ = f"integer {low}-{high}"
    return check


def _looks_like_pbn(path: Path) -> bool:
    if path.suffix.lower() == ".pbn":
        return True
    try:
        with open(path, "rb") as handle:
            head = handle.read(64).lstrip()
    except OSError:
        return False
    return head[:1] in (b"%", b"[")  # PBN is text: comments and [Tag "value"] lines; .npz is a zip archive


def dataset_arg(value: str) -> str:
    """A dataset: a bundled split ('train', 'valid', 'test') or a path; a PBN file is refused with the command converting it."""
    if value in BUNDLED_SPLITS:
        return value
    if _looks_like_pbn(Path(value)):
        raise argparse.ArgumentTypeError(f"{value} is PBN; convert it first: bridgerl data from-pbn {value} "
                                         f"{Path(value).with_suffix('.npz')}")
    return value
