"""Named loaders that a lower layer calls and a higher layer supplies, as Gymnasium's entry points: ``import
bridgerl`` registers each as a ``"module:attribute"`` string (`bridgerl.registration`), imported only when first
used. So an env can load a learned model by path (``jaxenv.make(..., player="models/card-player")``) without
importing the agents layer.

    load("card_player", "models/card-player")  # a learned card player with ``jax_cards``
"""

from __future__ import annotations

import importlib

_LOADERS: dict[str, str] = {}


def register(name: str, entry_point: str) -> None:
    """Make ``load(name, ...)`` call the callable at ``entry_point`` (``"package.module:attr[.attr]"``)."""
    if entry_point.count(":") != 1:
        raise ValueError(f"entry point {entry_point!r} must read 'module:attribute'")
    _LOADERS[name] = entry_point


def loader(name: str):
    """The callable registered as ``name`` (imported now); a name nobody registered is refused in one line."""
    if name not in _LOADERS:
        raise ValueError(f"no loader named {name!r} is registered (import bridgerl registers {sorted(_LOADERS)})")
    module, _, attrs = _LOADERS[name].partition(":")
    target = importlib.import_module(module)
    for attr in attrs.split("."):
        target = getattr(target, attr)
    return target


def load(name: str, *args, **kwargs):
    """``loader(name)(*args, **kwargs)``."""
    return loader(name)(*args, **kwargs)


__all__ = ["load", "loader", "register"]
