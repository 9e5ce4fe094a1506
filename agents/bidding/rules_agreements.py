"""The `rules` system on the agreements engine: the situations its table (`rules_table.TABLE`) names, its named
tests, `RULES` (the `engine.System` both rule bidders bid from) and `interpret_auction`, the same table read back for
world sampling (PIMC's ``auction=rules``).

`situation(history)` follows the bidders' own view of the auction. While the opponents have not bid, the constructive
bidder sees only our side's bids (the 89 bits of thesis fig. 4.4) and takes them as alternating, partner's last: an
opening ("open"), the response to partner's notrump or suit opening, opener's rebid after a notrump opening, a raise,
a 1NT response or a new suit. Once the opponents bid, the competitive bidder's first decisions: a direct action over
their bidding (with a takeout double and a notrump overcall over a single one-level suit opening), the advance of
partner's takeout double or suit overcall, responder's action over their interference. Every other auction is
unnamed: the bidder places the contract in code from its picture of partner, and the sampler reads nothing there.

Histories are [(relative seat, call)] oldest first: 0 the player to act, 1 its left-hand opponent, 2 its partner, 3
its right-hand opponent. Calls are the competitive indices (0 Pass, 1 X, 2 XX, 3 + bid).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from bridgerl.agents.bidding import engine
from bridgerl.agents.bidding.agreements import Picture, partner_reading
from bridgerl.agents.bidding.engine import Context, System, TableHand, bid, cheapest
from bridgerl.agents.bidding.rules_table import TABLE
from bridgerl.core.auction import Auction
from bridgerl.core.board import parse_vul
from bridgerl.core.calls import BID_OFFSET, DOUBLE, PASS
from bridgerl.core.constraints import HandConstraint

C, D, H, S, N = 0, 1, 2, 3, 4
_ME, _LHO, _PARTNER, _RHO = 0, 1, 2, 3
_OURS = (_ME, _PARTNER)
_STRAINS = {"C": C, "D": D, "H": H, "S": S, "N": N}
_GAME_POINTS = 25
_NT_TOP = {1: 17, 2: 21}  # a notrump opener's maximum: 1NT 15-17, 2NT (and higher) 20-21


def _suit(b: int) -> int | None:
    return b % 5 if b % 5 < N else None


# -- the situation ----------------------------------------------------------------------------------------------------
def constructive_history(bids: list[int]) -> list[tuple[int, int]]:
    """The relative history the constructive bidder's view stands for: our side's ``bids`` alternating, partner's
    last, each followed by an opponent's pass (the player to act next)."""
    history = []
    for i, b in enumerate(bids):
        seat = _PARTNER if (len(bids) - 1 - i) % 2 == 0 else _ME
        history += [(seat, BID_OFFSET + int(b)), ((seat + 1) % 4, PASS)]
    return history


def situation(history) -> Context:
    """The context of the next call after ``history`` for the rule bidders."""
    ctx = Context.of(history)
    history = ctx.history
    bids = [(i, s, c - BID_OFFSET) for i, (s, c) in enumerate(history) if c >= BID_OFFSET]
    if not any(s not in _OURS for _, s, _ in bids):
        _constructive(ctx, [b for _, _, b in bids])
    elif bids[0][1] in _OURS:
        _after_our_opening(ctx, history, bids)
    else:
        _after_their_opening(ctx, history, bids)
    return ctx


def _constructive(ctx: Context, bids: list[int]) -> None:
    """Our side alone has bid: the constructive bidder's view (alternating bids, partner's last)."""
    n = len(bids)
    if n == 0:
        ctx.name = "open"
        return
    opening = bids[0]
    level, strain = opening // 5 + 1, opening % 5
    if n == 1:
        if strain == N:
            ctx.name = "respond 1N" if level == 1 else "respond 2N+"
        else:
            ctx.suits["p"] = strain
            ctx.name = "respond suit"
        return
    if n != 2:
        return
    response = bids[1]
    r_level, r_strain = response // 5 + 1, response % 5
    if strain == N:
        top = _NT_TOP[1 if level == 1 else 2]
        ctx.values.update(top=top, top1=top - 1)
        if r_strain in (H, S) and r_level == 3:
            ctx.suits["p"] = r_strain
            ctx.name = "NT-3M"
        elif response == bid(2, N):
            ctx.name = "NT-2N"
        elif response == bid(4, N):
            ctx.name = "NT-4N"
        else:
            ctx.name = "NT-other"
        return
    ctx.suits["m"] = strain
    if r_strain == strain:
        ctx.name = {2: "raised to 2", 3: "raised to 3"}.get(r_level)
    elif r_strain == N:
        ctx.name = "1x-1N" if r_level == 1 else None
    else:
        ctx.suits["p"] = r_strain
        ctx.name = "1x-1y" if r_level == 1 else "1x-2y"


def _others(ctx: Context, suits: Iterable[int]) -> None:
    for ref, suit in zip("abc", sorted(suits)):
        ctx.suits[ref] = suit


def _after_their_opening(ctx: Context, history, bids) -> None:
    ours = [(s, c) for s, c in history if s in _OURS and c != PASS]
    their_bids = [b for _, s, b in bids if s not in _OURS]
    last = ctx.last_bid
    ctx.suits["o"] = _suit(last)
    if not ours:
        if len(their_bids) == 1 and last // 5 == 0 and last % 5 < N:
            _others(ctx, (s for s in range(4) if s != last % 5))
            ctx.name = "direct over a one-level suit"
        else:
            ctx.name = "direct"
        return
    partner = [c for s, c in ours if s == _PARTNER]
    if not partner or any(s == _ME for s, _ in ours):
        return
    if partner[0] == DOUBLE:
        unbid = [s for s in range(4) if s not in ctx.their_suits]
        _others(ctx, unbid)
        ctx.name = "advance double" if unbid else "nothing to advance"
    elif partner[0] >= BID_OFFSET and (partner[0] - BID_OFFSET) % 5 < N:
        ctx.suits["p"] = (partner[0] - BID_OFFSET) % 5
        ctx.name = "advance overcall"


def _after_our_opening(ctx: Context, history, bids) -> None:
    _, opener, opening = bids[0]
    if opener != _PARTNER or any(s == _ME for _, s, _ in bids):
        return
    ctx.suits["o"] = _suit(ctx.last_bid)
    picture = Picture.of(partner_reading(history))
    if opening % 5 < N:
        ctx.suits["p"] = opening % 5
        need = 8 - picture.lengths[opening % 5]
        ctx.values.update(need=need, need1=need + 1)
    game = _GAME_POINTS - picture.low
    ctx.values.update(game=game, game1=game - 1, ntgame=max(8, game),
                      penalty=math.ceil(23 - picture.middle))
    ctx.name = "respond over interference"


# -- the tests --------------------------------------------------------------------------------------------------------
def _test(name: str, hand: TableHand, ctx: Context, x: int | None) -> bool:
    """A rule's named condition (the sampler does not read these)."""
    head, _, arg = name.partition(":")
    refs = arg.split(":") if arg else []

    def strain(ref: str) -> int | None:
        return x if ref == "x" else ctx.strain(ref)

    if head == "major":
        return strain(arg) in (H, S)
    if head == "minor":
        return strain(arg) in (C, D)
    if head == "is":
        return strain(refs[0]) == strain(refs[1])
    if head == "below":
        first, second = strain(refs[0]), strain(refs[1])
        return first is not None and second is not None and first < second
    if head == "above":
        first, second = strain(refs[0]), strain(refs[1])
        return first is not None and second is not None and first > second
    if head == "not":
        return strain(refs[0]) != strain(refs[1])
    if head == "level":  # the last bid is at this level or higher
        return ctx.last_bid // 5 + 1 >= int(arg)
    if head == "theirs":  # the last bid is the opponents'
        return ctx.last_bidder not in _OURS
    if head == "free":
        return ctx.free
    if head == "cheap2":  # the cheapest bid in x is at the one or two level
        return cheapest(ctx.last_bid, x) // 5 < 2
    # the tests below read the hand
    lengths = hand.lengths
    if head == "short20":  # 10-11 HCP without the rule of 20
        return hand.hcp + int(np.sort(lengths)[-2:].sum()) < 20
    if head == "open":  # thesis 4.4.5: the suit a one-level rule opening names
        clubs, diamonds, hearts, spades = (int(v) for v in lengths)
        return {"S": spades >= lengths.max(), "H": hearts >= max(diamonds, clubs) and hearts > spades,
                "D": diamonds > clubs}[arg]
    if head == "unbalanced":
        return not hand.balanced
    if head == "good":
        return hand.good_suit(x)
    if head == "stop":
        return hand.stopper(strain(arg))
    if head == "stopped":  # every suit they bid
        return all(hand.stopper(s) for s in ctx.their_suits)
    if head == "top2":  # two of the top three honours in that suit
        suit = strain(arg)
        return suit is not None and suit < N and int(hand.honours[suit, :3].sum()) >= 2
    if head == "top":  # x is the longest unbid suit (a major counted half a card longer; the higher of equals)
        unbid = [s for s in range(4) if s not in ctx.their_suits]
        return x == max(unbid, key=lambda s: (lengths[s] + (0.5 if s >= H else 0), s))
    if head == "topshort":
        unbid = [s for s in range(4) if s not in ctx.their_suits]
        return int(lengths[max(unbid, key=lambda s: (lengths[s] + (0.5 if s >= H else 0), s))]) < 4
    raise ValueError(f"unknown rules test {name!r}")


RULES = System("rules", TABLE, situation, _test, optional=("a", "b", "c"),
               context_tests=frozenset({"major", "minor", "is", "below", "above", "not", "level", "theirs", "free",
                                        "cheap2"}), negative=True)
"""The `rules` system for the agreements engine."""


# -- reading the auction back -----------------------------------------------------------------------------------------
def seat_reading(auction: Auction, seat: int):
    """Every table rule read for ``seat``'s calls (`engine.Shown`, positions are call indices in ``auction``)."""
    history = [((auction.dealer + i - seat) % 4, int(call)) for i, call in enumerate(auction.calls)]
    return engine.seat_reading(RULES, history, _ME)


def interpret_auction(auction: Auction, vul: str = "none", seats: Iterable[int] | None = None
                      ) -> dict[int, HandConstraint]:
    """Each seat's constraint (HCP range, suit-length ranges, balanced) from its calls read back through the table
    the rule bidders bid from: each call as the hull of the rules of its situation that make it, intersected call by
    call (`readings.fold`). A call the table does not name (the later rounds, where the bidders place the contract in
    code) adds nothing.

    Contradictory ranges are widened to the later call's own range rather than producing an empty set, so each
    seat's constraint admits some hand and sampling with it alone never dead-ends (with the viewer's own cards it
    still may: `bridgerl.agents.play.auction_worlds` then samples without the auction and counts it).

    ``auction``: a `bridgerl.core.auction.Auction` (finished or not). ``vul``: the board's vulnerability ('none',
    'NS', 'EW', 'both'); the rule system does not depend on it. ``seats``: the seats wanted (default all four, N=0 ..
    W=3)."""
    parse_vul(vul)
    return engine.constraints(RULES, auction, seats)


__all__ = ["RULES", "constructive_history", "interpret_auction", "seat_reading", "situation"]
