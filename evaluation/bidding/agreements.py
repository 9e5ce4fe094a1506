"""How faithful a natural system's agreements are to its own bidder (issue #35): the readings that the world
samplers use (`bridgerl.agents.bidding.rules_agreements.interpret_auction` for `rules`,
`bridgerl.agents.bidding.sayc.sayc_constraints` for `sayc`) against the hands that made the calls.

The system's bidder bids all four seats of each deal (its own `act_view`). For every call that the system's table
reads (one or more entries at that call's position in the seat's reading), the call's reading is the fold of the
seat's entries up to and including it (an entry's ``extra`` points are relative to what came before); the call is
*faithful* when the hand that made it meets that reading. A call the table does not read shows nothing and is not
counted. Reported: the share of faithful calls (goal 100%), the share of seats whose whole-auction reading (what the
sampler reads) admits the real hand, and, per table entry that a call's reading ends with, how often it failed.

    bridgerl evaluate agreements --system rules --data valid --deals 5000
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from bridgerl.core import load_dataset
from bridgerl.core.bridge import BridgeState
from bridgerl.core.competitive import CompetitiveDealSource

SYSTEMS = ("rules", "sayc")


def _system(name: str):
    """(bidder, reading): ``reading(auction, seat)`` -> the `Shown` entries the sampler reads for ``seat``'s calls,
    positions being call indices of ``auction``."""
    if name == "rules":
        from bridgerl.agents import RuleBidder
        from bridgerl.agents.bidding.rules_agreements import seat_reading

        return RuleBidder(competitive=True), seat_reading
    if name == "sayc":
        from bridgerl.agents import SAYCBidder
        from bridgerl.agents.bidding.sayc import seat_reading as sayc_seat_reading

        def reading(auction, seat):
            history = [((auction.dealer + i - seat) % 4, int(call)) for i, call in enumerate(auction.calls)]
            return sayc_seat_reading(history, 0)

        return SAYCBidder(), reading
    raise ValueError(f"system must be one of {SYSTEMS}, got {name!r}")


def reading_fidelity(system: str, data="valid", deals: int | None = None) -> dict:
    """The measures of the module docstring for ``system`` on the first ``deals`` rows of ``data`` (default all)."""
    from bridgerl.agents.bidding.engine import fold

    bidder, reading = _system(system)
    dataset = load_dataset(data)
    count = len(dataset) if deals is None else min(int(deals), len(dataset))
    if count < 1:
        raise ValueError(f"{dataset.source}: no deal to bid (deals={deals})")
    source = CompetitiveDealSource(dataset)
    calls = read = faithful = seats = seats_admitted = 0
    failures, uses = Counter(), Counter()
    for row in range(count):
        deal = source.deal_at(row)
        state = BridgeState.start(deal, "double_dummy")
        while state.phase == "auction":
            state = state.apply(bidder.act_view(state.view()))
        auction = state.auction
        owners = np.asarray(deal.owner)[None]
        calls += len(auction.calls)
        for seat in range(4):
            entries = sorted(reading(auction, seat), key=lambda e: e.position)
            seats += 1
            seats_admitted += bool(fold(entries).accepts(owners, seat)[0])
            for position in sorted({e.position for e in entries}):
                upto = [e for e in entries if e.position <= position]
                ok = bool(fold(upto).accepts(owners, seat)[0])
                read += 1
                faithful += ok
                for entry in (e for e in upto if e.position == position):
                    uses[entry.key] += 1
                    failures[entry.key] += not ok
    worst = sorted(((failures[key] / uses[key], failures[key], uses[key], key) for key in uses if failures[key]),
                   reverse=True)
    return {"system": system, "data": dataset.source, "deals": count, "calls": calls, "calls_read": read,
            "faithful_share": faithful / read if read else float("nan"),
            "seats": seats, "seat_readings_admit_hand": seats_admitted / seats,
            "failing_entries": [{"entry": key, "failed": fails, "read": used, "share": round(share, 4)}
                                for share, fails, used, key in worst]}


def format_fidelity(result: dict, top: int = 15) -> str:
    lines = [f"{result['system']} on {result['deals']} deals of {result['data']}: {result['calls']} calls, "
             f"{result['calls_read']} read by the table",
             f"  calls whose reading admits the hand that made them: {100 * result['faithful_share']:.2f}%",
             f"  seats whose whole-auction reading admits the real hand: "
             f"{100 * result['seat_readings_admit_hand']:.2f}%"]
    if result["failing_entries"]:
        lines.append(f"  entries that failed (share of their calls; top {top}):")
        for item in result["failing_entries"][:top]:
            lines.append(f"    {item['entry']:52s} {100 * item['share']:6.2f}%  ({item['failed']} of {item['read']})")
    return "\n".join(lines)
