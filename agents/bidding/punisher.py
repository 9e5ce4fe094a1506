"""The exploitability opponent of issue #51: ``punisher:SPEC`` calls as SPEC, except that whenever its pass would end
the auction with the other side's undoubled contract failing in the tricks table in use (the deal's DD table, or
its played-tricks table), it doubles.

It reads the deal's table, which no player sees: it is an evaluation device (Pidgin's measure of how much a bidder
gives away to a partner-blind penalty double), not a bidder to seat at a table. The evaluation runners hand it the
tables of the boards it bids (`bridgerl.arena.lockstep.act_batch`: SPEC's calls first, then `Punisher.punish`);
anywhere else it refuses to call, in one line.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bridgerl.core.calls import BID_OFFSET, DOUBLE, PASS


def punishable(view, table) -> bool:
    """Whether a pass by the player to act in ``view`` (an `AuctionView` with its absolute seat) ends the auction
    on the other side's undoubled contract and that contract fails in ``table`` (tricks [declarer N E S W, strain C
    D H S NT])."""
    calls = list(view.calls)  # (relative seat, call), oldest first; relative 0 is the player to act
    bids = [i for i, (_, call) in enumerate(calls) if call >= BID_OFFSET]
    if not bids:
        return False
    last = bids[-1]
    bidder, bid = calls[last][0], calls[last][1] - BID_OFFSET
    after = [call for _, call in calls[last + 1:]]
    if bidder % 2 == 0 or after != [PASS, PASS]:  # our side's bid, a double in between, or the pass would not end it
        return False
    if view.seat is None:
        raise ValueError("punisher: the view has no absolute seat (it needs the deal's seats to read the table)")
    strain, level = bid % 5, bid // 5 + 1
    declarer = next(seat for seat, call in calls if call >= BID_OFFSET and seat % 2 == bidder % 2
                    and (call - BID_OFFSET) % 5 == strain)
    return int(np.asarray(table)[(view.seat + declarer) % 4, strain]) < level + 6


class Punisher:
    """``punisher:SPEC``: SPEC's calls, a pass that would let a failing undoubled contract of the other side stand
    turned into a double (`punishable`)."""

    def __init__(self, base, name: str = "SPEC"):
        self.base = base
        self.name = str(name)
        self.doubles = 0  # passes turned into doubles so far

    def punish(self, calls: Sequence[int], views: Sequence, tables: Sequence) -> np.ndarray:
        """SPEC's ``calls`` for ``views`` with each punishable pass (`punishable` in the deal's ``tables``) made a
        double."""
        out = np.asarray(calls, np.int64).copy()
        for i, (call, view, table) in enumerate(zip(out, views, tables)):
            if call == PASS and DOUBLE in view.legal and punishable(view, table):
                out[i] = DOUBLE
                self.doubles += 1
        return out

    def act(self, observation, action_mask):
        raise ValueError(f"punisher:{self.name} reads the deal's tricks table: it bids only in the evaluations that "
                         "give it the table (evaluate exploitability, competitive, cross, game)")

    def reseed(self, seed) -> None:
        if hasattr(self.base, "reseed"):
            self.base.reseed(seed)

    def __repr__(self) -> str:
        return f"Punisher({self.name})"


__all__ = ["Punisher", "punishable"]
