"""The agreements engine of the natural systems: a system is a table of rules that its bidder bids from and that the
world sampler reads back, so that what a call is read to show is what the bidder does.

A `System` names its parts:

- ``situation(history) -> Context``: the context of the next call from the auction so far ([(relative seat, call)],
  0 the player to act, 1 its left-hand opponent, 2 its partner, 3 its right-hand opponent): a ``name`` (a key of the
  table, or None where the table says nothing), the suits it binds (``p`` partner's, ``o`` theirs, ...), the last
  bid, and ``values``, numbers the auction fixes that rules may use as bounds (e.g. the HCP a penalty double needs
  beside partner's shown values);
- ``table``: situation name -> its `Rule` s in priority order;
- ``test(name, hand, ctx, x)``: the system's named conditions (a rule's ``tests``), which the sampler does not read;
- ``optional``: suit references a length may name that are allowed to be unbound (the length then tests nothing);
- ``context_tests``: the heads of the named tests that read only the auction (called with no hand): the sampler
  does not read a rule such a test rules out in that auction;
- ``negative``: whether a call's reading also drops the HCP at the ends of its range where an earlier rule of the
  situation, which fires on HCP alone, would have made another call (`sayc` reads without it).

The bidder makes the first rule's call that its hand meets (`table_call`). A rule with ``illegal="skip"`` (the
default) is passed over when its call is not legal or not at an allowed level; one with ``illegal="pass"`` fires
when the hand meets it, and the bidder then passes where the call it names cannot be made. Where no rule of the
situation applies, the system's bidder decides in code (its fallback); a situation whose fallback may make any call
lists `FALLBACK` last, and its calls are then read as showing nothing.

The sampler reads each call back as the hull of the rules of its situation that make it (`call_reading`): HCP
range, suit-length ranges and balance (a rule's ``tests`` are not read; nor is the failure of the rules before it),
folded call by call (`readings.fold`) into a seat's `HandConstraint` (`constraints`). A pass reads the rules that
name a pass and the ``illegal="pass"`` rules whose call cannot be made in that auction.

A `Rule` states:

- ``call``: a template. ``P``, ``X``, ``XX``; a level and a strain (``1N``, ``2C``, ``4p``), with ``+`` the cheapest
  bid in that strain if it is higher (``2p+``); or a strain then carets: ``x^`` the cheapest bid in x above the last
  bid, ``x^^`` one level higher (a jump). Strains: C D H S N, a reference the situation binds, or ``x``, the rule's
  free suit;
- ``hcp``: the high-card point range (with ``points``, HCP plus shortness points outside the first length's suit);
  ``total``: a range of HCP plus those shortness points, tested beside ``hcp``; ``by_level``: (level, low, high)
  HCP ranges that replace ``hcp`` for a bid at that level. A bound may name one of the context's ``values``;
- ``lengths``: (reference, low, high) suit-length ranges; ``balanced``;
- ``over``/``order``: the suits x ranges over (``any``, ``major``, ``minor``, ``new`` = named by nobody yet,
  ``unbid`` = not named by the opponents) and the order they are tried in (``long``: longest first, the higher of
  equal lengths; ``up``: longest first, four-card suits up the line; ``major``: longest first counting a major half
  a card longer; ``rank``: clubs up; ``longlow``: longest first, the lower of equal lengths);
- ``level``: the levels the resolved bid may have; ``tests``: named conditions the sampler does not read;
- ``name``: what the call shows, in words (explanations and the fidelity report).

Calls are the competitive indices (0 Pass, 1 X, 2 XX, 3 + bid, bid = (level - 1) * 5 + strain, strains C D H S NT =
0..4).

What the rules read, the hand (`TableHand`), the situation (`Context`) and the bidding arithmetic (`bid`,
`cheapest`, `legal_calls`), lives in `bridgerl.agents.bidding.table_inputs` and is re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from bridgerl.agents.bidding.readings import Shown, fold, intersect  # noqa: F401  (intersect: importable here)
from bridgerl.agents.bidding.table_inputs import (_ME, C, D, H, N, S, Bound, Context, TableHand, bid, cheapest,
                                                  legal_calls)
from bridgerl.core.auction import Auction
from bridgerl.core.calls import BID_OFFSET, DOUBLE, PASS, REDOUBLE
from bridgerl.core.constraints import HandConstraint

_LITERAL = {"P": PASS, "X": DOUBLE, "XX": REDOUBLE}


@dataclass(frozen=True)
class Rule:
    call: str
    hcp: tuple[Bound, Bound] = (0, 37)
    lengths: tuple[tuple[str, Bound, Bound], ...] = ()
    balanced: bool = False
    over: str = "any"
    order: str = "long"
    level: tuple[int, int] = (1, 7)
    tests: tuple[str, ...] = ()
    points: bool = False
    name: str = ""
    total: tuple[Bound, Bound] | None = None
    by_level: tuple[tuple[int, int, int], ...] = ()
    illegal: str = "skip"

    @property
    def free_suit(self) -> bool:
        """Whether the rule has a free suit x (in its call or its lengths)."""
        return "x" in self.call or any(ref == "x" for ref, _, _ in self.lengths) or any(
            t.endswith(":x") for t in self.tests)


def R(call: str, hcp: tuple[Bound, Bound] = (0, 37), name: str = "", *, bal: bool = False, over: str = "any",
      order: str = "long", level: tuple[int, int] = (1, 7), tests: tuple[str, ...] = (), points: bool = False,
      total: tuple[Bound, Bound] | None = None, by_level: tuple[tuple[int, int, int], ...] = (),
      illegal: str = "skip", **lengths: tuple[Bound, Bound]) -> Rule:
    """A rule; suit lengths as keywords (``x=(5, 13)``, ``H=(4, 13)``), the first one the trump suit for points."""
    if illegal not in ("skip", "pass"):
        raise ValueError(f"illegal= takes 'skip' or 'pass', got {illegal!r}")
    return Rule(call, hcp, tuple((ref, lo, hi) for ref, (lo, hi) in lengths.items()), bal, over, order, level, tests,
                points, name, total, by_level, illegal)


FALLBACK = Rule("*", name="the bidder's judgement (reads nothing)")
"""The last rule of a situation whose fallback (the bidder's code) may make any call: every call there reads as
showing nothing."""


@dataclass(frozen=True)
class System:
    """A natural system: its situations, its table and its named tests (see the module docstring)."""

    name: str
    table: Mapping[str, tuple[Rule, ...]]
    situation: Callable[[list], Context]
    test: Callable[[str, TableHand, Context, int | None], bool]
    optional: tuple[str, ...] = ()
    context_tests: frozenset[str] = frozenset()
    negative: bool = False

    def possible(self, rule: Rule, ctx: Context, x: int | None) -> bool:
        """Whether ``rule`` can fire in ``ctx`` with free suit ``x`` as far as the auction tells: its tests that read
        only the auction (``context_tests``, by head) hold; the sampler reads no rule that cannot."""
        return all(self.test(t, None, ctx, x) for t in rule.tests if t.partition(":")[0] in self.context_tests)


# -- the rules --------------------------------------------------------------------------------------------------------
def _domain(rule: Rule, ctx: Context) -> list[int | None]:
    if not rule.free_suit:
        return [None]
    over = rule.over
    if over == "major":
        return [H, S]
    if over == "minor":
        return [C, D]
    if over == "new":
        return [s for s in range(4) if s not in ctx.named]
    if over == "unbid":
        return [s for s in range(4) if s not in ctx.their_suits]
    return [C, D, H, S]


def _ordered(rule: Rule, suits: list, hand: TableHand) -> list:
    if suits == [None]:
        return suits
    if rule.order == "up":
        return sorted(suits, key=lambda s: (-hand.lengths[s], s if hand.lengths[s] <= 4 else -s))
    if rule.order == "major":
        return sorted(suits, key=lambda s: (-(hand.lengths[s] + (0.5 if s >= H else 0)), -s))
    if rule.order == "rank":
        return sorted(suits)
    if rule.order == "longlow":
        return sorted(suits, key=lambda s: (-hand.lengths[s], s))
    return sorted(suits, key=lambda s: (-hand.lengths[s], -s))


def resolve(template: str, x: int | None, ctx: Context) -> int | None:
    """The call a rule's template names in ``ctx`` with free suit ``x`` (None when a suit it needs is unbound or the
    bid would be above 7NT)."""
    if template in _LITERAL:
        return _LITERAL[template]
    if template[0].isdigit():
        level, ref = int(template[0]), template[1:]
        at_least = ref.endswith("+")
        ref = ref.rstrip("+")
        strain = x if ref == "x" else ctx.strain(ref)
        if strain is None:
            return None
        target = bid(level, strain)
        if at_least:
            target = max(target, cheapest(ctx.last_bid, strain))
        return BID_OFFSET + target if target <= 34 else None
    ref = template.rstrip("^")
    jumps = len(template) - len(ref) - 1
    strain = x if ref == "x" else ctx.strain(ref)
    if strain is None:
        return None
    target = cheapest(ctx.last_bid, strain) + 5 * jumps
    return BID_OFFSET + target if target <= 34 else None


def _level_ok(rule: Rule, call: int) -> bool:
    if call < BID_OFFSET:
        return True
    return rule.level[0] <= (call - BID_OFFSET) // 5 + 1 <= rule.level[1]


def _hcp_range(rule: Rule, ctx: Context, call: int | None) -> tuple[int, int]:
    if call is not None and call >= BID_OFFSET:
        level = (call - BID_OFFSET) // 5 + 1
        for at, low, high in rule.by_level:
            if at == level:
                return low, high
    return ctx.bound(rule.hcp[0]), ctx.bound(rule.hcp[1])


def _meets(system: System, rule: Rule, hand: TableHand, ctx: Context, x: int | None, call: int | None) -> bool:
    points = hand.hcp
    trumps = None
    if rule.lengths:
        ref = rule.lengths[0][0]
        trumps = x if ref == "x" else ctx.strain(ref)
    if rule.points and rule.lengths:
        points += hand.shortness(trumps)
    low, high = _hcp_range(rule, ctx, call)
    if not low <= points <= high:
        return False
    if rule.total is not None:
        total = hand.hcp + hand.shortness(trumps)
        if not ctx.bound(rule.total[0]) <= total <= ctx.bound(rule.total[1]):
            return False
    for ref, low, high in rule.lengths:
        strain = x if ref == "x" else ctx.strain(ref)
        if strain is None:
            if ref in system.optional:
                continue  # unbound: the situation or a test states it
            return False
        if strain < N and not ctx.bound(low) <= hand.lengths[strain] <= ctx.bound(high):
            return False
    if rule.balanced and not hand.balanced:
        return False
    return all(system.test(t, hand, ctx, x) for t in rule.tests)


def table_call(system: System, hand: TableHand, ctx: Context, mask) -> tuple[int | None, Rule | None]:
    """The first rule of the situation that ``hand`` meets and whose call is legal (an ``illegal="pass"`` rule: that
    ``hand`` meets; its call, or a pass where that call cannot be made): (call, rule); (None, None) where no rule
    applies or the situation leaves the call to the bidder's fallback."""
    for rule in system.table.get(ctx.name, ()):
        if rule is FALLBACK:
            return None, None
        for x in _ordered(rule, _domain(rule, ctx), hand):
            call = resolve(rule.call, x, ctx)
            usable = call is not None and bool(mask[call]) and _level_ok(rule, call)
            if rule.illegal == "skip" and not usable:
                continue
            if _meets(system, rule, hand, ctx, x, call):
                return (call if usable else PASS), rule
    return None, None


# -- reading calls back -----------------------------------------------------------------------------------------------
def _rule_shown(rule: Rule, ctx: Context, x: int | None, position: int, call: int | None = None) -> Shown:
    low, high = _hcp_range(rule, ctx, call)
    if rule.points:
        low = max(0, low - 6)  # shortness points: at most six (two voids) beside three+ trumps
    if rule.total is not None:  # HCP at most the total, at least the total less nine (three voids)
        low, high = max(low, ctx.bound(rule.total[0]) - 9), min(high, ctx.bound(rule.total[1]))
    lengths: list = [None] * 4
    for ref, lo, hi in rule.lengths:
        strain = x if ref == "x" else ctx.strain(ref)
        if strain is not None and strain < N:
            lengths[strain] = (ctx.bound(lo), ctx.bound(hi))
    return Shown(rule.name, position, low if low > 0 else None, high if high < 37 else None, tuple(lengths),
                 rule.balanced, 0)


def call_reading(system: System, ctx: Context, call: int, position: int) -> Shown | None:
    """What ``call`` made in ``ctx`` shows: the hull of the rules of the situation that make it (None: no rule, or
    the situation's fallback may make it)."""
    found = []
    legal = legal_calls(ctx.history)
    before: list[tuple[int, int]] = []  # HCP ranges of earlier rules that fire on HCP alone, with another call
    for rule in system.table.get(ctx.name, ()):
        if rule is FALLBACK:
            return None
        for x in _domain(rule, ctx):
            if not system.possible(rule, ctx, x):
                continue
            made = resolve(rule.call, x, ctx)
            if made == call and _level_ok(rule, call):
                found.append(_cut(_rule_shown(rule, ctx, x, position, call), before))
                break
            if rule.illegal == "pass" and call == PASS:  # each free suit whose call cannot be made
                if made is None or not legal[made] or not _level_ok(rule, made):
                    found.append(_cut(_rule_shown(rule, ctx, x, position, made), before))
        if system.negative and _on_points_alone(system, rule) and system.possible(rule, ctx, None):
            made = resolve(rule.call, None, ctx)
            usable = made is not None and bool(legal[made]) and _level_ok(rule, made)
            if (usable or rule.illegal == "pass") and (made if usable else PASS) != call:
                before.append(_hcp_range(rule, ctx, made))
    if not found:
        return None
    if len(found) == 1:
        return found[0]
    lows = [s.low for s in found]
    highs = [s.high for s in found]
    lengths = []
    for suit in range(4):
        ranges = [s.lengths[suit] for s in found]
        lengths.append(None if any(r is None for r in ranges) else (min(r[0] for r in ranges),
                                                                     max(r[1] for r in ranges)))
    return Shown(" or ".join(dict.fromkeys(s.key for s in found)), position,
                 None if any(v is None for v in lows) else min(lows),
                 None if any(v is None for v in highs) else max(highs), tuple(lengths),
                 all(s.balanced for s in found), 0)


def _on_points_alone(system: System, rule: Rule) -> bool:
    """Whether ``rule`` fires on every hand in its HCP range (given the auction): no suit, length, shape, points
    or test of the hand."""
    return (not rule.free_suit and not rule.lengths and not rule.balanced and not rule.points and rule.total is None
            and not rule.by_level and all(t.partition(":")[0] in system.context_tests for t in rule.tests))


def _cut(entry: Shown, ranges: list[tuple[int, int]]) -> Shown:
    """``entry`` with the ends of its HCP range that lie in ``ranges`` cut off (hands there made another call)."""
    own = (entry.low if entry.low is not None else 0, entry.high if entry.high is not None else 37)
    low, high = own
    changed = True
    while changed and low <= high:
        changed = False
        for a, b in ranges:
            if a <= low <= b:
                low, changed = b + 1, True
            if a <= high <= b:
                high, changed = a - 1, True
    if low > high or (low, high) == own:  # a rule no hand reaches keeps its own range
        return entry
    return Shown(entry.key, entry.position, low if low > 0 else None, high if high < 37 else None, entry.lengths,
                 entry.balanced, entry.extra)


def seat_reading(system: System, history, reader_seat: int) -> list[Shown]:
    """What the calls of relative seat ``reader_seat`` in ``history`` (relative to the player to act) show."""
    out = []
    for i, (seat, call) in enumerate(history):
        if seat != reader_seat:
            continue
        relative = [((s - reader_seat) % 4, c) for s, c in history[:i]]
        shown = call_reading(system, system.situation(relative), int(call), i)
        if shown is not None:
            out.append(shown)
    return out


def table_checks(system: System, auction: Auction, seat: int) -> list[tuple[Context, int, np.ndarray]]:
    """The calls of ``seat`` (N=0 .. W=3) in ``auction`` that ``system``'s table decides (a named situation), each
    with its context and the calls legal there: what `makes_calls` replays on a candidate hand."""
    history = [((auction.dealer + i - seat) % 4, int(call)) for i, call in enumerate(auction.calls)]
    out = []
    for i, (who, call) in enumerate(history):
        if who != _ME:
            continue
        ctx = system.situation(history[:i])
        if system.table.get(ctx.name):
            out.append((ctx, call, legal_calls(ctx.history)))
    return out


def makes_calls(system: System, checks: list[tuple[Context, int, np.ndarray]], hand_bits) -> bool:
    """Whether a hand (its 52 bits) would have made every call of ``checks`` by the table: each situation's first rule
    it meets names that call (where no rule applies the bidder's fallback decided, which is not checked)."""
    hand = TableHand.of(hand_bits)
    for ctx, call, legal in checks:
        made, rule = table_call(system, hand, ctx, legal)
        if rule is not None and made != call:
            return False
    return True


def constraints(system: System, auction: Auction, seats=None) -> dict[int, HandConstraint]:
    """Each seat's constraint from its calls read with ``system``'s table (seats N=0 .. W=3; default all four)."""
    seats = range(4) if seats is None else [int(s) for s in seats]
    out = {}
    for seat in seats:
        if not 0 <= seat <= 3:
            raise ValueError(f"seat {seat} is outside 0..3 (N, E, S, W)")
        history = [((auction.dealer + i - seat) % 4, int(call)) for i, call in enumerate(auction.calls)]
        out[seat] = fold(seat_reading(system, history, _ME))
    return out


__all__ = ["FALLBACK", "Context", "R", "Rule", "Shown", "System", "TableHand", "bid", "call_reading", "cheapest",
           "constraints", "fold", "intersect", "legal_calls", "makes_calls", "resolve", "seat_reading", "table_call",
           "table_checks"]
