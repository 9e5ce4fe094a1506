"""Evaluation against constructive par and in duplicate matches (`docs/evaluation.md`), by subject: `bidding`,
`cardplay`, `datasets` (the data commands' engines) and `reports`; the table engine they play boards with is
`bridgerl.arena`.

Issue #52 moved the flat modules of this package. For one release the old names still import, as the same module
objects as the new ones, with a ``DeprecationWarning`` (``MOVED`` lists them; `docs/architecture.md` too)."""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings

MOVED = {
    **{name: f"bridgerl.arena.{name}" for name in ("game", "specs", "lockstep", "jsonlines", "play", "explain")},
    **{name: f"bridgerl.evaluation.bidding.{name}"
       for name in ("uncontested", "competitive", "cross_table", "exploitability", "agreements", "behaviour")},
    **{name: f"bridgerl.evaluation.cardplay.{name}"
       for name in ("trick_loss", "play_study", "best_defence_study", "alphamu_experiment", "inference")},
    **{name: f"bridgerl.evaluation.datasets.{name}" for name in ("played", "positions")},
    **{name: f"bridgerl.evaluation.reports.{name}" for name in ("report", "records", "learning_curve")},
}


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import bridgerl.evaluation.game`` gives `bridgerl.arena.game` itself (one module, so state and patches are
    shared), after a ``DeprecationWarning`` naming the new place."""

    def __init__(self):
        self._real_specs: dict = {}  # alias name -> the real module's spec, between create_module and exec_module

    def find_spec(self, fullname, path=None, target=None):
        prefix, _, name = fullname.rpartition(".")
        if prefix != __name__ or name not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        name = spec.name.rpartition(".")[2]
        warnings.warn(f"{spec.name} moved to {MOVED[name]} (issue #52); the old name goes in the next release",
                      DeprecationWarning, stacklevel=2)
        module = importlib.import_module(MOVED[name])
        self._real_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        for alias, real in list(self._real_specs.items()):  # the import system gave it the alias' spec
            if real.name == module.__name__:
                module.__spec__ = real
                del self._real_specs[alias]


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __getattr__(name: str):
    """``from bridgerl.evaluation import game`` (the attribute form of the same alias)."""
    if name in MOVED:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            module = importlib.import_module(f"{__name__}.{name}")
        warnings.warn(f"{__name__}.{name} moved to {MOVED[name]} (issue #52); the old name goes in the next release",
                      DeprecationWarning, stacklevel=2)
        return module
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
