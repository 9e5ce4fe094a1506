"""The one illegal-action policy of every env (issue #49; `docs/envs.md`, "Illegal actions").

``illegal="penalty"`` (the default everywhere, as pgx and PettingZoo's classic games do): an action outside the
legal mask ends the episode at once; the side that chose it gets ``-penalty`` in the reward's unit and, where the
rewards are zero-sum (competitive bidding, the whole deal), the other side ``+penalty``; the step's
``info["illegal_action"]`` is True (False on every other step). ``illegal="raise"``: the env raises its one-line
error naming the action and nothing changes. Card play (`CardPlay-v0`) keeps ``"forfeit"`` as the name of its
penalty: the defence takes every trick still to play, and the reward is counted from there."""

from __future__ import annotations

ILLEGAL_PENALTY = {"imps": 25.0, "points": 7700.0}
"""The default penalty of an illegal action, per reward unit, worse than any legal result: 25 IMPs (a legal board
costs at most 24) for ``imps`` and ``par_imps``; 7,700 points (the largest score in the table is 7,600, what pgx's
``bridge_bidding`` charges) for ``points`` and ``score``. Every env takes ``illegal_penalty=`` to set another."""
ILLEGAL_MODES = ("penalty", "raise")
_UNITS = {"imps": "imps", "par_imps": "imps", "points": "points", "score": "points"}


def check_illegal(illegal: str, aliases: dict | None = None) -> str:
    """``illegal`` as one of `ILLEGAL_MODES` (``aliases`` maps other accepted names to them); else a one-line
    ValueError naming the choices."""
    aliases = aliases or {}
    if illegal in aliases:
        return aliases[illegal]
    if illegal not in ILLEGAL_MODES:
        names = ", ".join(repr(name) for name in (*ILLEGAL_MODES, *aliases))
        raise ValueError(f"illegal must be one of {names}, got {illegal!r}")
    return illegal


def check_penalty(penalty) -> float | None:
    """``illegal_penalty=`` of an env: None (the default of its reward unit) or a finite number >= 0 (the size of
    the penalty: the chooser's side gets minus it); else a one-line ValueError."""
    if penalty is None:
        return None
    try:
        value = float(penalty)
    except (TypeError, ValueError):
        raise ValueError(f"illegal_penalty must be a number >= 0 (the chooser's side gets minus it), got "
                         f"{penalty!r}") from None
    if not (value >= 0 and value != float("inf")):
        raise ValueError(f"illegal_penalty must be a finite number >= 0 (the chooser's side gets minus it), got "
                         f"{penalty!r}")
    return value


def illegal_penalty(reward_mode: str, penalty: float | None = None) -> float:
    """The penalty in the unit of a reward mode (``imps``, ``par_imps``, ``points``, ``score``): ``penalty`` when
    given, else `ILLEGAL_PENALTY`'s."""
    return ILLEGAL_PENALTY[_UNITS[reward_mode]] if penalty is None else float(penalty)


def penalty_returns(side: int, reward_mode: str, zero_sum: bool = True, penalty: float | None = None) -> list[float]:
    """Returns N, E, S, W when ``side`` (0 NS, 1 EW) chose an illegal action: ``-penalty`` for its seats, ``+penalty``
    (zero-sum) or 0 for the others (``penalty`` None: the default of ``reward_mode``)."""
    penalty = illegal_penalty(reward_mode, penalty)
    return [-penalty if seat % 2 == side else (penalty if zero_sum else 0.0) for seat in range(4)]


__all__ = ["ILLEGAL_MODES", "ILLEGAL_PENALTY", "check_illegal", "check_penalty", "illegal_penalty", "penalty_returns"]
