"""`sayc` is held out: never a teacher, never a model inside a search in a headline figure. It is told by what
loads, not by its name: `wraps_sayc` finds a `SAYCBidder` among an agent's attributes (a punisher's base, a search's
model, a module's wrapper), and `watching_sayc` counts the SAYC bidders made and the calls they chose inside a block
(a wrapper that makes one only when it is asked to bid). `sayc.py` itself is frozen: the watch instruments its class
for the block's length only."""

from __future__ import annotations

import contextlib

import numpy as np

from bridgerl.agents.bidding.sayc import SAYCBidder


@contextlib.contextmanager
def watching_sayc():
    """``with watching_sayc() as seen:`` {"made": SAYC bidders made, "decisions": calls they chose} in the block."""
    seen = {"made": 0, "decisions": 0}
    explain = SAYCBidder.explain
    had_init = "__init__" in vars(SAYCBidder)
    init = SAYCBidder.__init__

    def counted_init(self, *args, **kwargs):
        seen["made"] += 1
        init(self, *args, **kwargs)

    def counted_explain(self, view):
        seen["decisions"] += 1
        return explain(self, view)

    SAYCBidder.__init__, SAYCBidder.explain = counted_init, counted_explain
    try:
        yield seen
    finally:
        SAYCBidder.explain = explain
        if had_init:
            SAYCBidder.__init__ = init
        else:
            del SAYCBidder.__init__


def wraps_sayc(agent, depth: int = 6) -> bool:
    """Whether ``agent`` is or holds a `SAYCBidder`, looked for ``depth`` levels deep among its attributes, slots,
    lists and dicts."""
    seen, frontier = set(), [agent]
    for _ in range(depth):
        found = []
        for item in frontier:
            if item is None or id(item) in seen or isinstance(item, (str, bytes, int, float, bool, np.ndarray)):
                continue
            seen.add(id(item))
            if isinstance(item, SAYCBidder):
                return True
            if isinstance(item, dict):
                found.extend(item.values())
            elif isinstance(item, (list, tuple, set, frozenset)):
                found.extend(item)
            else:
                found.extend(getattr(item, "__dict__", {}).values())
                found.extend(getattr(item, name) for name in getattr(type(item), "__slots__", ())
                             if isinstance(name, str) and hasattr(item, name))
        frontier = found
    return False
