"""The rule system's agreements as data (thesis 3.3.4, InterpretAuction: "a database which stored meanings for bids"
and "a matching algorithm which determined what a bid was doing in sequence").

`AGREEMENTS` is the database: what a call shows in each context, as an HCP range, suit-length ranges and a balanced
flag (`Meaning`). The matching code below names the context of each call, in the order the calls were made:

- `constructive_reading`: partner's bids in an uncontested auction, as `read_partner` of the constructive rule
  bidder reads them (openings, responses, opener's rebids, later bids);
- `partner_reading`: partner's calls in any auction, as the competitive rule bidder pictures its partner
  (the constructive reading while our side bids alone after our opening; otherwise overcalls, notrump overcalls,
  takeout doubles and "no action over their opening");
- `decision_reading`: what the bidders' own decisions guarantee where their picture of partner reads less or
  otherwise (`SAMPLER_ONLY`: passes before the opening and over partner's opening, responses to a notrump opening,
  raises and notrump responses to a suit opening, the two-level overcall, advances of a takeout double or an
  overcall, later contested bids and penalty doubles, which show no range);
- `interpret_auction`: every seat's constraint for world sampling: its partner's reading of its calls, each call
  replaced by the decision reading where there is one, intersected call by call.

The bidders read the same table: `read_partner` and the competitive bidder's `_partner_picture` fold the readings
into a `Picture`; thresholds such as the 1NT range, the notrump overcall, the overcall's strength and the takeout
double's minimum are read from here by the bidders' decisions too. Changing an entry changes the bidders.

Calls use the competitive indices (0 Pass, 1 X, 2 XX, 3 + bid, bid = (level - 1) * 5 + strain, strains C D H S NT =
0..4). Histories are [(relative seat, call)] oldest first, relative to the reader: 0 the reader, 1 its left-hand
opponent, 2 its partner (the seat being read), 3 its right-hand opponent.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass

from bridgerl.agents.bidding.engine import Shown, fold, intersect  # noqa: F401  (fold, intersect: kept importable)
from bridgerl.core.auction import Auction
from bridgerl.core.board import parse_vul
from bridgerl.core.calls import BID_OFFSET, DOUBLE, PASS
from bridgerl.core.constraints import HandConstraint

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
    # -- openings (thesis 4.4.5 rule openings; the constructive bidder's `_open`) --------------------------------
    "pass before the opening": _m(high=13),              # first to third seat: 14+ must open (thesis 4.4.5)
    "1NT opening": _m(15, 17, balanced=True),
    "2NT opening": _m(20, 21, balanced=True),
    "one-level minor opening": _m(11, 21, own=(3, 13)),
    "one-level major opening": _m(11, 21, own=(5, 13)),
    "higher opening": _m(11, 21, own=(6, 13)),             # not a thesis rule opening; a notrump one shows no suit
    # -- responder (the constructive bidder's `_respond`, `_respond_nt`; `read_partner`) ------------------------
    "pass over a one-level suit opening": _m(0, 5),       # 6+ responds
    "pass over a 1NT opening": _m(0, 6, suits=(None, None, (0, 4), (0, 4))),  # 7+ or a five-card major bids
    "pass over a 2NT opening": _m(0, 4),                   # 5+ bids game
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
    "1NT response to a suit opening": _m(6, 10),          # the catch-all: any shape
    "2NT response to a suit opening": _m(11, 15),
    "3NT response to a suit opening": _m(13, None),
    "major raise to the two level": _m(6, 10, own=(3, 13)),   # dummy points for shortness count: HCP <= total
    "major raise to the three level": _m(6, 12, own=(3, 13)),
    "major raise to game or slam": _m(6, None, own=(3, 13)),
    "minor raise to the two level": _m(6, 10, own=(5, 13)),
    "minor raise to the three level": _m(11, None, own=(4, 13)),  # 11-12, or 13+ unbalanced with four
    "minor raise to game": _m(13, None, own=(5, 13)),
    # responses to a notrump opening (`_respond_nt`: by combined points, the opener counted at the range's middle)
    "weak major response to 1NT": _m(0, 6, own=(5, 13)),
    "2NT response to 1NT": _m(7, 8),
    "3NT response to 1NT": _m(9, 14, suits=(None, None, (0, 4), (0, 4))),
    "major response to 1NT at the three level": _m(9, 14, own=(5, 5)),
    "major game response to 1NT": _m(9, None, own=(6, 13)),
    "4NT response to 1NT": _m(15, 16),
    "6NT response to 1NT": _m(17, 20),
    "7NT response to 1NT": _m(21, None),
    "3NT response to 2NT": _m(5, 10, suits=(None, None, (0, 4), (0, 4))),
    "major response to 2NT at the three level": _m(5, 10, own=(5, 5)),
    "major game response to 2NT": _m(5, None, own=(6, 13)),
    "4NT response to 2NT": _m(11, 12),
    "6NT response to 2NT": _m(13, 16),
    "7NT response to 2NT": _m(17, None),
    # -- opener's rebid (`_opener_rebid`; `read_partner`) -------------------------------------------------------
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
    # -- competitive (`CompetitiveRuleBidder`: `_direct_action`, `_advance_double`, `_partner_picture`) ---------
    "overcall": _m(8, 17, own=(5, 13)),                   # a good five-card suit
    "two-level overcall": _m(11, 17, own=(5, 13)),
    "rebid of the overcall suit": _m(8, 17, own=(6, 13)),
    "notrump overcall": _m(15, 18, balanced=True),
    "takeout double": _m(12, 21, unbid=(3, 13)),
    "no action over their opening": _m(0, 11),
    "advance of a takeout double": _m(0, 8),              # the longest unbid suit at the cheapest level
    "jump advance of a takeout double": _m(9, 11),
    "game advance of a takeout double": _m(12, None, own=(4, 13)),  # 4M with four; 3NT
    "notrump advance of a takeout double": _m(6, 10),
    "raise of partner's overcall": _m(own=(3, 13)),
    "notrump advance of an overcall": _m(11, None),
    "penalty double": _m(),                                # a trump stack, or the values: no range to state
    "contested bid": _m(),                                 # competing, raising, bidding game: no range to state
}
"""The rule system's agreements: context -> `Meaning`."""

SAMPLER_ONLY = frozenset(key for key in AGREEMENTS if key not in {
    "pass before the opening", "1NT opening", "2NT opening", "one-level minor opening", "one-level major opening",
    "higher opening", "raise", "jump raise", "raise to the two level", "raise to the three level",
    "raise to another level", "new suit at the one level", "jump in a new suit", "new suit at the two level",
    "new heart suit at the two level", "2NT response", "3NT response", "1NT rebid", "2NT rebid", "jump 2NT rebid",
    "notrump game rebid over a one-level response", "notrump game rebid over a two-level response",
    "opener's raise to the two level", "opener's raise to the three level", "opener's raise to another level",
    "rebid of the opening suit", "jump rebid of the opening suit", "new suit rebid", "jump new suit rebid",
    "opener's later notrump at the level of the last bid", "notrump at the four level or higher",
    "other notrump bid", "later rebid of a suit", "later new suit", "overcall", "rebid of the overcall suit",
    "notrump overcall", "takeout double", "no action over their opening"})
"""Entries the bidders' decisions guarantee (and some of them read as thresholds) but their picture of partner does
not read, so that the pictures, and the calls made from them, stay as they were. `interpret_auction` reads them,
and where one is read for a call it replaces the picture's reading of that call: it is what the bidder did (the
picture reads, for instance, every bid of partner's in a contested auction as an overcall, and partner's 3NT over
our 1NT as 16-17)."""
PICTURE_KEYS = frozenset(AGREEMENTS) - SAMPLER_ONLY
"""The entries the bidders' picture of partner reads (`constructive_reading`, `partner_reading`)."""


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


def decision_reading(history) -> list[Shown]:
    """The `SAMPLER_ONLY` entries (and "pass before the opening") for partner's calls (relative seat 2) in
    ``history``: what the rule bidders' decisions guarantee beyond their picture of partner. Positions are indices
    into ``history``."""
    history = list(history)
    out = []
    first_bid_index = next((i for i, (_, call) in enumerate(history) if _is_bid(call)), len(history))
    for i, (seat, call) in enumerate(history[:first_bid_index]):
        if seat == _PARTNER:  # the constructive bidder opens every hand of 12+ (thesis 4.4.5: 14+ must)
            out.append(shown("pass before the opening", i))
    if first_bid_index == len(history):
        return out
    opener, opening = history[first_bid_index][0], history[first_bid_index][1] - BID_OFFSET
    if opener == _ME:  # partner is the responder: its first call after our opening, the opponents silent
        first = next((i for i in range(first_bid_index + 1, len(history)) if history[i][0] == _PARTNER), None)
        if first is not None and not any(_is_bid(call) for _, call in history[first_bid_index + 1:first]):
            entry = _response(opening, history[first][1], first)
            if entry is not None:
                out.append(entry)
        return out
    if opener == _PARTNER:
        return out
    # they opened: partner's direct action, its answer to our takeout double or overcall, later bids
    our_calls = [(i, seat, call) for i, (seat, call) in enumerate(history) if seat in _OURS and call != PASS]
    first_of_partner = next((k for k, (_, seat, _) in enumerate(our_calls) if seat == _PARTNER), None)
    for k, (i, seat, call) in enumerate(our_calls):
        if seat != _PARTNER:
            continue
        if k == 0:  # our side's first action: `_direct_action`
            their = [c - BID_OFFSET for s, c in history[:i] if s not in _OURS and _is_bid(c)]
            if call == DOUBLE and not (len(their) == 1 and their[0] // 5 == 0 and their[0] % 5 < NT):
                out.append(shown("penalty double", i))
            elif _is_bid(call) and (call - BID_OFFSET) % 5 < NT and (call - BID_OFFSET) // 5 == 1:
                out.append(shown("two-level overcall", i, (call - BID_OFFSET) % 5))
            continue
        if k == first_of_partner and our_calls[0][1] == _ME and _is_bid(call):
            entries = []
            if our_calls[0][2] == DOUBLE:
                entries = _advance(history, i, call)
            elif _is_bid(our_calls[0][2]) and (our_calls[0][2] - BID_OFFSET) % 5 < NT:
                suit, strain = (our_calls[0][2] - BID_OFFSET) % 5, (call - BID_OFFSET) % 5
                if strain == suit:
                    entries = [shown("raise of partner's overcall", i, strain)]
                elif strain == NT:
                    entries = [shown("notrump advance of an overcall", i)]
            out.extend(entries or [shown("contested bid", i)])
            continue
        out.append(shown("penalty double" if call == DOUBLE else "contested bid", i))
    return out


def _response(opening: int, call: int, at: int) -> Shown | None:
    """The responder's first call over our opening with the opponents silent (`_respond`, `_respond_nt`)."""
    if call == PASS:
        key = ("pass over a 1NT opening" if opening == bid(1, NT) else
               "pass over a 2NT opening" if opening == bid(2, NT) else
               "pass over a one-level suit opening" if opening // 5 == 0 else None)
        return shown(key, at) if key else None
    if not _is_bid(call):
        return None
    response = call - BID_OFFSET
    level, strain = response // 5 + 1, response % 5
    if opening in (bid(1, NT), bid(2, NT)):
        name = "1NT" if opening == bid(1, NT) else "2NT"
        if strain == NT:
            key = f"{level}NT response to {name}"
        elif strain in (HEARTS, SPADES):
            key = {2: "weak major response to 1NT" if name == "1NT" else None,
                   3: f"major response to {name} at the three level", 4: f"major game response to {name}"}.get(level)
        else:
            key = None
        return shown(key, at, strain) if key in AGREEMENTS else None
    if opening // 5 != 0 or opening % 5 == NT:
        return None
    suit = opening % 5
    if strain == NT:
        key = {1: "1NT response to a suit opening", 2: "2NT response to a suit opening",
               3: "3NT response to a suit opening"}.get(level)
    elif strain == suit and suit in (HEARTS, SPADES):
        key = {2: "major raise to the two level", 3: "major raise to the three level"}.get(level,
                                                                                          "major raise to game or slam")
    elif strain == suit:
        key = {2: "minor raise to the two level", 3: "minor raise to the three level",
               5: "minor raise to game"}.get(level)
    else:
        key = None
    return shown(key, at, strain) if key is not None else None


def _advance(history, at: int, call: int) -> list[Shown]:
    """Partner's first bid after our takeout double (`_advance_double`): game in a major or 3NT with 12+, the
    cheapest notrump with 6-10, a jump with 9-11, else the cheapest bid in the suit (0-8 by the agreement; the
    bidder also bids it with 12+ and no major fit or stoppers)."""
    advance = call - BID_OFFSET
    last_bid = max(c - BID_OFFSET for _, c in history[:at] if _is_bid(c))
    level, strain = advance // 5 + 1, advance % 5
    cheapest = _cheapest(last_bid, strain)
    if advance == bid(3, NT) or (strain in (HEARTS, SPADES) and level == 4):
        return [shown("game advance of a takeout double", at, strain)]
    if strain == NT:
        return [shown("notrump advance of a takeout double", at)] if level <= 2 else []
    if cheapest // 5 < 2 and advance == cheapest + 5:
        return [shown("jump advance of a takeout double", at, strain)]
    if cheapest // 5 < 2 and advance == cheapest:
        return [shown("advance of a takeout double", at, strain)]
    return []


def _cheapest(last_bid: int, strain: int) -> int:
    """The lowest bid in ``strain`` above ``last_bid``."""
    candidate = (last_bid // 5) * 5 + strain
    return candidate if candidate > last_bid else candidate + 5


def relative_history(auction: Auction, reader: int) -> list[tuple[int, int]]:
    """The calls of ``auction`` as [(seat relative to ``reader``, call)]: 0 the reader, 2 its partner."""
    return [((auction.dealer + i - reader) % 4, int(call)) for i, call in enumerate(auction.calls)]


def seat_reading(auction: Auction, seat: int) -> list[Shown]:
    """Every table entry read for ``seat``'s calls: its partner's picture of it and the decision entries; positions
    are call indices in ``auction``."""
    history = relative_history(auction, (seat + 2) % 4)
    decided = decision_reading(history)
    replaced = {entry.position for entry in decided}
    return [entry for entry in partner_reading(history) if entry.position not in replaced] + decided


def interpret_auction(auction: Auction, vul: str = "none", seats: Iterable[int] | None = None
                      ) -> dict[int, HandConstraint]:
    """Each seat's constraint (HCP range, suit-length ranges, balanced) from its calls read with the agreements: the
    rule bidders' picture of the seat as its partner reads it (`partner_reading`) and what their decisions
    guarantee (`decision_reading`), intersected call by call.

    A call the table does not cover adds nothing. Contradictory ranges (a seat whose calls show 15-17 and then 6-10,
    or more length than 13 cards hold) are widened to the later call's own range rather than producing an empty set,
    so each seat's constraint admits some hand and sampling with it alone never dead-ends (with the viewer's own
    cards it still may: `bridgerl.agents.play.auction_worlds` then samples without the auction and counts it).

    ``auction``: a `bridgerl.core.auction.Auction` (finished or not). ``vul``: the board's vulnerability ('none',
    'NS', 'EW', 'both'); the rule system's agreements do not depend on it. ``seats``: the seats wanted (default all
    four, N=0 .. W=3)."""
    parse_vul(vul)
    seats = range(4) if seats is None else [int(s) for s in seats]
    out = {}
    for seat in seats:
        if not 0 <= seat <= 3:
            raise ValueError(f"seat {seat} is outside 0..3 (N, E, S, W)")
        out[seat] = fold(seat_reading(auction, seat))
    return out


__all__ = ["AGREEMENTS", "PICTURE_KEYS", "SAMPLER_ONLY", "Meaning", "Shown", "constructive_reading",
           "decision_reading", "fold", "interpret_auction", "intersect", "partner_reading", "relative_history",
           "seat_reading", "shown"]
