"""What the PettingZoo envs share."""

from __future__ import annotations

import warnings


def known_reset_options(options: dict | None, known: set[str], env_name: str) -> dict:
    """The reset options ``env_name`` knows. PettingZoo's api_test passes arbitrary ones: they are dropped with a
    warning naming them, not refused."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(known))
    if unknown:
        warnings.warn(f"{env_name} ignores unknown reset option(s) {unknown}", stacklevel=3)
        for key in unknown:
            options.pop(key)
    return options


AGENTS = ["north", "east", "south", "west"]


def wrapped(raw):
    """A raw AEC env with PettingZoo's usual wrappers (actions within bounds, order of calls enforced)."""
    from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw))
