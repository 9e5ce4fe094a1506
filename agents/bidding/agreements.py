"""The rule bidders' picture of partner: what they take partner's calls to show when they place the contract in
the later rounds (thesis 3.3.4, InterpretAuction: "a database which stored meanings for bids" and "a matching
algorithm which determined what a bid was doing in sequence").

This is not what the world sampler reads. The `rules` system's agreements, which its bidders bid from and the
sampler reads back, are the table of `rules_table` on the agreements engine (`engine`, `rules_agreements`); a call's
reading there is what the bidder does. The picture below is the bidders' own, kept as it was so that no call
changes, faults included:

- "no action over their opening" reads 0-11, but the bidder also passes with 12-19 that has no overcall, double or
  notrump overcall; "takeout double" reads 12-21 with three cards in the unbid suits, but any 18+ doubles;
- `constructive_reading` tests ``mine_first`` the wrong way round for notrump at the level of the last bid, reads
  responses to partner's 1NT as responses to a suit (a 3NT response as 16-17), and reads opener's "raise to another
  level" as 19-21, which it is one time in ten (issue #35's measures);
- in a contested auction every bid of partner's is an overcall (8-17, five cards) unless our side opened and bid
  alone, and "pass before the opening" reads 0-13 where the bidder passes 0-11.

`docs/play.md` ("How faithful the agreements are") measures the picture's entries against the hands (the "before"
table) and the table's readings (the "after" table).

`AGREEMENTS` maps a context to a `Meaning` (an HCP range, suit-length ranges, a balanced flag); the matching code
names the context of each of partner's calls, in the order they were made:

- `constructive_reading`: partner's bids in an uncontested auction, as `read_partner` of the constructive rule
  bidder reads them (openings, responses, opener's rebids, later bids);
- `partner_reading`: partner's calls in any auction, as the competitive rule bidder pictures its partner
  (the constructive reading while our side bids alone after our opening; otherwise overcalls, notrump overcalls,
  takeout doubles and "no action over their opening").

`read_partner` and the competitive bidder's `_partner_picture` fold the readings into a `Picture`.

Calls use the competitive indices (0 Pass, 1 X, 2 XX, 3 + bid, bid = (level - 1) * 5 + strain, strains C D H S NT =
0..4). Histories are [(relative seat, call)] oldest first, relative to the reader: 0 the reader, 1 its left-hand
opponent, 2 its partner (the seat being read), 3 its right-hand opponent.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass, field

from bridgerl.agents.bidding.readings import Shown, fold, intersect  # noqa: F401  (fold, intersect: kept importable)
from bridgerl.core.auction import Auction
from bridgerl.core.calls import BID_OFFSET, DOUBLE, PASS

CLUBS, DIAMONDS, HEARTS, SPADES, NT = 0, 1, 2, 3, 4
_ME, _LHO, _PARTNER, _RHO = 0, 1, 2, 3
_OURS = (_ME, _PARTNER)
_ANY = (0, 13)


def bid(level: int, strain: int) -> int:
    return (level - 1) * 5 + strain


@dataclass(frozen=True)
class Meaning:
    """What a call shows. ``hcp``: (low, high), None where that end is not shown. ``own``: length range of the suit
    the call names; ``unbid``: length range of each suit the opponents have not named; ``suits``: length ranges of
    clubs, diamonds, hearts, spades (None: not shown). ``extra``: points beyond the low end shown so far."""

    hcp: tuple[int | None, int | None] = (None, None)
    own: tuple[int, int] | None = None
    unbid: tuple[int, int] | None = None
    suits: tuple[tuple[int, int] | None, ...] | None = None
    balanced: bool = False
    extra: int = 0

    @property
    def low(self) -> int | None:
        return self.hcp[0]

    @property
    def high(self) -> int | None:
        return self.hcp[1]

    @property
    def middle(self) -> float:
        """The middle of a closed HCP range (e.g. 16 for a 15-17 notrump)."""
        return (self.hcp[0] + self.hcp[1]) / 2

    def covers(self, points: int) -> bool:
        """Whether ``points`` HCP lie in the range (an open end admits any)."""
        low, high = self.hcp
        return (low is None or points >= low) and (high is None or points <= high)


def _m(low=None, high=None, **kwargs) -> Meaning:
    return Meaning((low, high), **kwargs)


AGREEMENTS: dict[str, Meaning] = {
    # -- openings (thesis 4.4.5 rule openings) ------------------------------------------------------------------
    "pass before the opening": _m(high=13),              # first to third seat: 14+ must open (thesis 4.4.5)
    "1NT opening": _m(15, 17, balanced=True),
    "2NT opening": _m(20, 21, balanced=True),
    "one-level minor opening": _m(11, 21, own=(3, 13)),
    "one-level major opening": _m(11, 21, own=(5, 13)),
    "higher opening": _m(11, 21, own=(6, 13)),             # not a thesis rule opening; a notrump one shows no suit
    # -- responder (`read_partner`) ---------------------------------------------------------------------------
    "raise": _m(own=(3, 13)),
    "jump raise": _m(own=(4, 13)),
    "raise to the two level": _m(6, 10),                  # partner's first bid: strength by level
    "raise to the three level": _m(11, 12),
    "raise to another level": _m(13, 16),                 # game (the level is 4 or more)
    "new suit at the one level": _m(6, None, own=(4, 13)),
    "jump in a new suit": _m(17, None, own=(5, 13)),
    "new suit at the two level": _m(11, None, own=(4, 13)),
    "new heart suit at the two level": _m(11, None, own=(5, 13)),
    "2NT response": _m(13, 15, balanced=True),
    "3NT response": _m(16, 17, balanced=True),
    # -- opener's rebid (`read_partner`) -----------------------------------------------------------------------
    "1NT rebid": _m(12, 14, balanced=True),
    "2NT rebid": _m(12, 16),
    "jump 2NT rebid": _m(18, 19, balanced=True),
    "notrump game rebid over a one-level response": _m(19, 21, balanced=True),
    "notrump game rebid over a two-level response": _m(12, 16),
    "opener's raise to the two level": _m(12, 15, own=(4, 13)),
    "opener's raise to the three level": _m(16, 18, own=(4, 13)),
    "opener's raise to another level": _m(19, 21, own=(4, 13)),
    "rebid of the opening suit": _m(12, 15, own=(6, 13)),
    "jump rebid of the opening suit": _m(16, 18, own=(6, 13)),
    "new suit rebid": _m(12, 16, own=(4, 13)),
    "jump new suit rebid": _m(17, 21, own=(4, 13)),
    # -- later bids (`read_partner`) ---------------------------------------------------------------------------
    "opener's later notrump at the level of the last bid": _m(6, 10, balanced=True),
    "notrump at the four level or higher": _m(extra=2),
    "other notrump bid": _m(balanced=True),
    "later rebid of a suit": _m(own=(6, 13)),
    "later new suit": _m(own=(4, 13)),
    # -- competitive (`CompetitiveRuleBidder._partner_picture`) ------------------------------------------------
    "overcall": _m(8, 17, own=(5, 13)),                   # a good five-card suit
    "rebid of the overcall suit": _m(8, 17, own=(6, 13)),
    "notrump overcall": _m(15, 18, balanced=True),
    "takeout double": _m(12, 21, unbid=(3, 13)),
    "no action over their opening": _m(0, 11),
}
"""The rule bidders' picture of partner: context -> `Meaning`."""

def shown(key: str, position: int, strain: int | None = None, their_suits: Iterable[int] = ()) -> Shown:
    """Table entry ``key`` read for a call at ``position`` naming ``strain`` (its ``own`` range applies to that suit;
    ``unbid`` to the suits not in ``their_suits``)."""
    meaning = AGREEMENTS[key]
    lengths = list(meaning.suits) if meaning.suits is not None else [None] * 4
    if meaning.unbid is not None:
        their_suits = set(their_suits)
        for suit in range(4):
            if suit not in their_suits:
                lengths[suit] = meaning.unbid
    if meaning.own is not None and strain is not None and strain < NT:
        lengths[strain] = meaning.own
    return Shown(key, position, meaning.low, meaning.high, tuple(lengths), meaning.balanced, meaning.extra)


@dataclass
class Picture:
    """What a partner's bids have shown: a points range and minimum lengths per suit (C, D, H, S)."""

    low: int = 0
    high: int = 37
    lengths: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    balanced: bool = False

    def show(self, low=None, high=None, suit=None, length=0, balanced=None):
        if low is not None:
            self.low = max(self.low, low)
        if high is not None:
            self.high = min(self.high, high)
        if self.high < self.low:
            self.high = self.low
        if suit is not None:
            self.lengths[suit] = max(self.lengths[suit], length)
        if balanced:
            self.balanced = True
            self.lengths = [max(x, 2) for x in self.lengths]

    @classmethod
    def of(cls, showings) -> Picture:
        """The picture the table entries read for partner's calls (`agreements.Shown`, in call order)
        draw: each narrows the range and raises the minimum lengths; a range left empty keeps its low end."""
        picture = cls()
        for entry in showings:
            if entry.extra:
                picture.show(picture.low + entry.extra)
            picture.show(entry.low, entry.high)
            for suit, bounds in enumerate(entry.lengths):
                if bounds is not None and bounds[0] > 0:
                    picture.show(suit=suit, length=bounds[0])
            if entry.balanced:
                picture.show(balanced=True)
        return picture

    @property
    def middle(self) -> float:
        """Expected points: the middle of the range, open-ended ranges read as six points wide."""
        return (self.low + min(self.high, self.low + 6)) / 2



# -- the matching: which entry each call reads --------------------------------------------------------------------
def constructive_reading(bids: list[int], partner_opened: bool, partner_passed: bool = False) -> list[Shown]:
    """Partner's bids (the odd positions counted back from the last bid) read with the constructive system; a
    partner who passed at the start: "pass before the opening" (position -1). Positions are indices into
    ``bids``. This is what `read_partner` folds into a `Picture`."""
    out = [shown("pass before the opening", -1)] if partner_passed else []
    mine_first = not partner_opened
    history = [(b, (i % 2 == 0) == partner_opened) for i, b in enumerate(bids)]
    for i, (b, by_partner) in enumerate(history):
        if not by_partner:
            continue
        level, strain = b // 5 + 1, b % 5
        previous = history[i - 1][0] if i > 0 else None
        partner_previous = [x for x, p in history[:i] if p]
        my_suits = {x % 5 for x, p in history[:i] if not p and x % 5 < 4}
        if i == 0:  # partner opened
            if b == bid(1, NT):
                key = "1NT opening"
            elif b == bid(2, NT):
                key = "2NT opening"
            elif level == 1:
                key = "one-level major opening" if strain in (HEARTS, SPADES) else "one-level minor opening"
            else:
                key = "higher opening"
            out.append(shown(key, i, strain))
            continue
        if partner_opened and len(partner_previous) == 1 and previous is not None:
            # opener's rebid, with our system's meanings
            jump = b - previous > 5
            opening_suit = partner_previous[0] % 5
            if strain == NT:
                if level == 1:
                    key = "1NT rebid"
                elif level == 2:
                    key = "jump 2NT rebid" if jump else "2NT rebid"
                elif previous // 5 == 0:
                    key = "notrump game rebid over a one-level response"
                else:
                    key = "notrump game rebid over a two-level response"
            elif strain in my_suits:
                key = ("opener's raise to the two level" if level == 2 else
                       "opener's raise to the three level" if level == 3 else "opener's raise to another level")
            elif strain == opening_suit:
                key = "jump rebid of the opening suit" if jump else "rebid of the opening suit"
            else:
                key = "jump new suit rebid" if jump else "new suit rebid"
            out.append(shown(key, i, strain))
            continue
        if strain == NT:
            if previous is not None and previous // 5 + 1 == level and not mine_first:
                key = "opener's later notrump at the level of the last bid"
            elif level == 2 and len(partner_previous) == 0:
                key = "2NT response"
            elif level == 3 and len(partner_previous) == 0:
                key = "3NT response"
            elif level >= 4:
                key = "notrump at the four level or higher"
            else:
                key = "other notrump bid"
            out.append(shown(key, i, strain))
            continue
        if strain in my_suits:  # support
            jump = previous is not None and b - previous > 5
            if len(partner_previous) == 0:
                out.append(shown("raise to the two level" if level == 2 else
                                 "raise to the three level" if level == 3 else "raise to another level", i))
            out.append(shown("jump raise" if jump else "raise", i, strain))
            continue
        if len(partner_previous) == 0:  # partner's first response in a new suit
            if level == 1:
                key = "new suit at the one level"
            elif previous is not None and b - previous > 5:
                key = "jump in a new suit"
            else:
                key = "new heart suit at the two level" if strain == HEARTS else "new suit at the two level"
            out.append(shown(key, i, strain))
            continue
        # partner's later bids in a suit: rebid shows length, a new suit four more
        rebid = strain in {x % 5 for x in partner_previous}
        out.append(shown("later rebid of a suit" if rebid else "later new suit", i, strain))
    return out


def _is_bid(call: int) -> bool:
    return call >= BID_OFFSET


def partner_reading(history) -> list[Shown]:
    """Partner's calls (relative seat 2 of ``history``) as the competitive rule bidder pictures them: after our side's
    opening, with our bids alternating between us, the constructive reading; otherwise an overcall shows 8-17 and
    five cards (six when repeated), a notrump bid 15-18 balanced, a first double a takeout double (12+, three cards
    in the suits they have not bid), and no bid or double "no action over their opening" (0-11). Positions are
    indices into ``history``. This is what `_partner_picture` folds into a `Picture`."""
    history = list(history)
    ours = [(i, seat, call) for i, (seat, call) in enumerate(history) if seat in _OURS and call != PASS]
    their_suits = {(call - BID_OFFSET) % 5 for seat, call in history if seat not in _OURS and _is_bid(call)}
    first_bid_index = next((i for i, (_, call) in enumerate(history) if _is_bid(call)), None)
    we_opened = first_bid_index is not None and history[first_bid_index][0] in _OURS
    if we_opened:
        our_bids = [(i, seat, call - BID_OFFSET) for i, seat, call in ours if _is_bid(call)]
        sides = [seat for _, seat, _ in our_bids]
        if all(a != b for a, b in itertools.pairwise(sides)):
            passes = [i for i, (seat, call) in enumerate(history[:first_bid_index])
                      if seat == _PARTNER and call == PASS]
            reading = constructive_reading([b for _, _, b in our_bids], sides[0] == _PARTNER,
                                           bool(passes) and sides[0] == _ME)
            where = [i for i, _, _ in our_bids]
            return [_at(s, passes[0] if s.position < 0 else where[s.position]) for s in reading]
    out = []
    acted, bid_suits = False, set()
    for i, seat, call in ours:
        if seat != _PARTNER:
            continue
        if call == DOUBLE and not acted:
            out.append(shown("takeout double", i, their_suits=their_suits))
            acted = True
        elif _is_bid(call):
            strain = (call - BID_OFFSET) % 5
            if strain == NT:
                out.append(shown("notrump overcall", i))
            else:
                out.append(shown("rebid of the overcall suit" if strain in bid_suits else "overcall", i, strain))
                bid_suits.add(strain)
            acted = True
    if not acted:
        out.append(shown("no action over their opening", len(history)))
    return out


def _at(entry: Shown, position: int) -> Shown:
    return Shown(entry.key, position, entry.low, entry.high, entry.lengths, entry.balanced, entry.extra)


def relative_history(auction: Auction, reader: int) -> list[tuple[int, int]]:
    """The calls of ``auction`` as [(seat relative to ``reader``, call)]: 0 the reader, 2 its partner."""
    return [((auction.dealer + i - reader) % 4, int(call)) for i, call in enumerate(auction.calls)]


__all__ = ["AGREEMENTS", "Meaning", "Picture", "Shown", "constructive_reading", "fold", "intersect",
           "partner_reading", "relative_history", "shown"]
