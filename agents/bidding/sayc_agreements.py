"""The `sayc` system's agreements as data: one table that the bidder (`sayc.SAYCBidder`) bids from and
the auction-aware world sampler (`bridgerl.agents.bidding.sayc.sayc_constraints`, PIMC's ``auction=sayc``) reads back.

A Standard American Yellow Card-like natural system: 1NT 15-17, five-card majors, the better minor, strong 2C, weak
twos, preempts, Stayman, Jacoby transfers (super-accepts), Jacoby 2NT, limit raises, Blackwood, simple and weak jump
overcalls, the 1NT overcall, takeout doubles and their advances, negative doubles, redoubles and Jordan 2NT over a
takeout double, cue-bid raises, reopening doubles; later rounds place the contract from the combined picture,
compete by the law of total tricks and double sacrifices (`SAYCBidder`, docs/agents.md).

`TABLE` maps a situation (named by `sayc.situation` from the auction so far) to its rules in priority
order. The bidder makes the first rule's call that is legal and that its hand meets; the sampler reads each call
back as the hull of the rules of its situation that make that call (the agreements engine,
`bridgerl.agents.bidding.engine`, which also states the fields the `rules` system uses). A `Rule` states:

- ``call``: a template. ``P``, ``X``, ``XX``; a level and a strain (``1N``, ``2C``, ``4p``); or a strain then
  carets: ``x^`` the cheapest bid in x above the last bid, ``x^^`` one level higher (a jump). Strains: C D H S N,
  or a reference bound by the situation: ``p`` partner's suit, ``o`` their suit, ``m`` my suit, ``t`` the suit a
  transfer shows, ``u`` the one unbid major, and ``x``, the rule's free suit;
- ``hcp``: the high-card point range (with ``points``, HCP plus shortness points outside the first length's suit);
- ``lengths``: (reference, low, high) suit-length ranges; ``balanced``;
- ``over``/``order``: the suits x ranges over (``any``, ``major``, ``minor``, ``new`` = named by nobody yet,
  ``unbid`` = not named by the opponents) and the order they are tried in (``long``: longest first, the higher of
  equal lengths; ``up``: longest first, four-card suits up the line);
- ``level``: the levels the resolved bid may have; ``tests``: named conditions the sampler does not read (a stopper,
  a good suit, the minor chosen for an opening, ...);
- ``name``: what the call shows, in words (explanations).
"""

from __future__ import annotations

from bridgerl.agents.bidding.engine import R, Rule  # noqa: F401  (Rule: the type of TABLE's entries)

_ANY = (0, 37)

OPENINGS = (
    R("2C", (22, 37), "strong, artificial: 22+ HCP"),
    R("2N", (20, 21), "20-21 balanced", bal=True),
    R("1N", (15, 17), "15-17 balanced", bal=True),
    R("1x", (12, 21), "12-21, five+ cards, the longest suit", over="major", tests=("opening:x",), x=(5, 13)),
    R("1x", (12, 21), "12-21, the better minor (three+), no five-card major", over="minor", tests=("opening:x",),
      x=(3, 13)),
    R("2x", (5, 10), "weak two: 5-10, a good six-card suit", over="any", tests=("good2:x", "not:C"), x=(6, 6)),
    R("4x", (5, 11), "preempt: 5-11, eight+ cards", over="major", x=(8, 13)),
    R("3x", (5, 10), "preempt: 5-10, a good seven-card suit", tests=("good2:x",), x=(7, 8)),
    R("P", (0, 11), "no opening: 0-11"),
)

_JUMP_SHIFT = R("x^^", (19, 37), "jump shift: 19+, five+ cards", over="new", level=(2, 3), x=(5, 13))

RESPONSES_1M = (
    R("2N", (13, 37), "Jacoby 2NT: 13+ points, four+ card support, game forcing", points=True, p=(4, 13)),
    _JUMP_SHIFT,
    R("4p", (0, 9), "preemptive raise to game: five+ card support, weak", p=(5, 13)),
    R("3p", (10, 12), "limit raise: 10-12 points, three+ card support", points=True, p=(3, 13)),
    R("2p", (6, 10), "simple raise: 6-10 points, three+ card support", points=True, p=(3, 13)),
    R("1S", (6, 37), "new suit: 6+, four+ spades, forcing", S=(4, 13)),
    R("x^", (11, 37), "two-level new suit: 11+, four+ cards, forcing", over="minor", level=(2, 2), x=(4, 13)),
    R("2H", (11, 37), "two-level hearts: 11+, five+ cards, forcing", H=(5, 13)),
    R("3N", (15, 17), "15-17 balanced, at most two-card support", bal=True, p=(0, 2)),
    R("1N", (6, 10), "6-10, no better bid"),
    R("x^", (11, 37), "two-level new suit: 11+, three+ cards", over="minor", level=(2, 2), x=(3, 13)),
    R("P", (0, 5), "0-5"),
)


def _responses_1m(minor: str) -> tuple[Rule, ...]:
    support = (5, 13) if minor == "C" else (4, 13)
    return (
        _JUMP_SHIFT,
        R("x^", (6, 37), "one-level major: 6+, four+ cards (up the line), forcing", over="major", order="up",
          level=(1, 1), x=(4, 13)),
        R("1D", (6, 37), "one diamond: 6+, four+ diamonds, forcing", D=(4, 13)),
        R("3N", (16, 17), "16-17 balanced, no four-card major", bal=True),
        R("2N", (13, 15), "13-15 balanced, no four-card major", bal=True),
        R("3p", (10, 12), "limit raise: 10-12, support, no four-card major", p=support),
        R("2p", (6, 10), "simple raise: 6-10, support, no four-card major", p=support),
        R("2C", (11, 37), "two clubs: 11+, four+ clubs, forcing", C=(4, 13)),
        R("1N", (6, 12), "6-10 (11-12 with no better bid), no four-card major"),
        R("P", (0, 5), "0-5"),
    )


def _responses_nt(level: int) -> tuple[Rule, ...]:
    """Responses to a notrump opening at ``level`` (1: 15-17, 2: 20-21; also 2C-2D-2NT, 22-24, as level 3)."""
    low = {1: 0, 2: 4, 3: 3}[level]      # the fewest points for game
    invite = {1: (8, 9), 2: None, 3: None}[level]
    game = {1: (10, 15), 2: (4, 10), 3: (3, 8)}[level]
    quant, small, grand = {1: ((16, 17), (18, 21), (22, 37)), 2: ((11, 12), (13, 16), (17, 37)),
                           3: ((9, 10), (11, 14), (15, 37))}[level]
    lvl = 2 if level == 1 else 3
    rules = [
        R(f"{lvl}H", _ANY, "Jacoby transfer: five+ spades", tests=("atleast:S:H",), S=(5, 13)),
        R(f"{lvl}D", _ANY, "Jacoby transfer: five+ hearts", H=(5, 13)),
        R(f"{lvl}C", (8 if level == 1 else low, 37), "Stayman: asks for a four-card major", tests=("fourmajor",)),
        R("7N", grand, "grand slam values"), R("6N", small, "small slam values"),
        R("4N", quant, "quantitative: invites 6NT"),
        R("3N", game, "game values, no four-card major"),
    ]
    if invite:
        rules.append(R("2N", invite, "invitational, no four-card major"))
    rules.append(R("P", (0, (low or 8) - 1), "too weak for game"))
    return tuple(rules)


def _stayman_answers(level: int) -> tuple[Rule, ...]:
    return (R(f"{level}H", _ANY, "four+ hearts", H=(4, 13)), R(f"{level}S", _ANY, "four+ spades, not four hearts",
                                                              S=(4, 13)),
            R(f"{level}D", _ANY, "no four-card major"))


def _transfer_answers(level: int) -> tuple[Rule, ...]:
    return (R(f"{level + 1}t", (17, 17) if level == 2 else (21, 21), "super-accept: maximum, four+ card support",
              t=(4, 13)),
            R(f"{level}t", _ANY, "completes the transfer"))


def _after_stayman(nt_level: int) -> tuple[Rule, ...]:
    """Responder after opener's answer to Stayman (p: the major opener showed, if any)."""
    invite, game = ((8, 9), (10, 15)) if nt_level == 1 else (None, (4, 10))
    rules = [R("4p", game, "game in the major fit", p=(4, 13))]
    if invite:
        rules.append(R("3p", invite, "invites game in the major fit", p=(4, 13)))
    rules.append(R("3N", game, "game, no major fit"))
    if invite:
        rules.append(R("2N", invite, "invites 3NT, no major fit"))
    return tuple(rules)


def _after_transfer(nt_level: int) -> tuple[Rule, ...]:
    """Responder after opener completed the transfer to t."""
    invite, game = ((8, 9), (10, 15)) if nt_level == 1 else (None, (4, 10))
    rules = [R("P", (0, 7 if nt_level == 1 else 3), "weak: to play"),
             R("4t", game, "game, six+ cards", t=(6, 13)),
             R("3N", game, "game values, exactly five cards: choice of games", t=(5, 5))]
    if invite:
        rules += [R("3t", invite, "invites game, six+ cards", t=(6, 13)),
                  R("2N", invite, "invites game, exactly five cards", t=(5, 5))]
    return tuple(rules)


TABLE: dict[str, tuple[Rule, ...]] = {
    # -- opening --------------------------------------------------------------------------------------------------
    "open": OPENINGS,
    # -- responses, the opponents silent ------------------------------------------------------------------------
    "respond 1M": RESPONSES_1M,
    "respond 1C": _responses_1m("C"),
    "respond 1D": _responses_1m("D"),
    "respond 1N": _responses_nt(1),
    "respond 2N": _responses_nt(2),
    "respond 2C-2D-2N": _responses_nt(3),
    "respond 2C": (
        R("2N", (8, 37), "positive: 8+ balanced", bal=True),
        R("2H", (8, 37), "positive: 8+, five+ hearts", tests=("good2:H",), H=(5, 13)),
        R("2S", (8, 37), "positive: 8+, five+ spades", tests=("good2:S",), S=(5, 13)),
        R("3C", (8, 37), "positive: 8+, five+ clubs", tests=("good2:C",), C=(5, 13)),
        R("3D", (8, 37), "positive: 8+, five+ diamonds", tests=("good2:D",), D=(5, 13)),
        R("2D", _ANY, "waiting"),
    ),
    "respond weak two": (
        R("4p", (16, 37), "game: 16+ and support", over="major", tests=("major:p",), p=(3, 13)),
        R("4p", (0, 37), "preemptive raise to game: four+ card support", tests=("major:p",), p=(4, 13)),
        R("3N", (16, 37), "to play: 16+ with stoppers", bal=True, tests=("stoppers",)),
        R("3p", (0, 15), "preemptive raise: three+ card support", p=(3, 13)),
        R("P", _ANY, "no game"),
    ),
    "respond preempt": (
        R("4p", (15, 37), "game: 15+ and two+ card support", tests=("major:p",), p=(2, 13)),
        R("3N", (16, 37), "to play: 16+ with stoppers", tests=("stoppers",)),
        R("P", _ANY, "no game"),
    ),
    # -- opener's rebid ------------------------------------------------------------------------------------------
    "1N-2C": _stayman_answers(2),
    "2N-3C": _stayman_answers(3),
    "1N-transfer": _transfer_answers(2),
    "2N-transfer": _transfer_answers(3),
    "1N-2N": (R("3N", (16, 17), "accepts: 16-17"), R("P", _ANY, "declines: 15")),
    "NT-4N": (R("6N", (16, 37), "accepts the invitation: a maximum", tests=("maximum",)),
              R("P", _ANY, "declines: a minimum")),
    "1x-2x": (
        R("4m", (19, 21), "game: 19+ points", over="major", tests=("major:m",), points=True, m=(5, 13)),
        R("3N", (18, 21), "18+ balanced: to play", bal=True, tests=("minor:m",)),
        R("3m", (16, 18), "invites game: 16-18 points", points=True, m=(3, 13)),
        R("P", _ANY, "minimum: 12-15"),
    ),
    "1x-3x": (
        R("4m", (14, 21), "accepts the limit raise", tests=("major:m",), points=True, m=(5, 13)),
        R("3N", (14, 21), "accepts the limit raise: 3NT", tests=("minor:m",)),
        R("P", _ANY, "declines: a minimum"),
    ),
    "1M-2N": (
        R("3m", (15, 21), "Jacoby 2NT answered: extra values, slam interest"),
        R("4m", _ANY, "Jacoby 2NT answered: a minimum, to play"),
    ),
    "1x-1N": (
        R("P", (12, 14), "minimum balanced: to play", bal=True),
        R("2N", (18, 19), "18-19 balanced", bal=True),
        R("3m", (16, 18), "16-18, six+ cards", m=(6, 13)),
        R("2m", (12, 15), "12-15, six+ cards", m=(6, 13)),
        R("x^", (12, 18), "a second suit: four+ cards, lower-ranking", over="new", level=(2, 2),
          tests=("below:x:m",), x=(4, 13)),
        R("x^", (17, 21), "reverse: 17+, four+ cards", over="new", level=(2, 2), x=(4, 13)),
        R("P", _ANY, "minimum: to play"),
    ),
    "1x-1y": (
        R("4p", (19, 21), "raise to game: 19+ points, four+ card support", tests=("major:p",), points=True,
          p=(4, 13)),
        R("3p", (16, 18), "invitational raise: 16-18 points, four+ card support", points=True, p=(4, 13)),
        R("2p", (12, 15), "raise: 12-15 points, four+ card support", points=True, p=(4, 13)),
        R("1N", (12, 14), "12-14 balanced", bal=True),
        R("2N", (18, 19), "18-19 balanced", bal=True),
        R("x^", (12, 18), "a new suit at the one level: four+ cards", over="new", order="up", level=(1, 1),
          x=(4, 13)),
        R("3m", (16, 18), "jump rebid: 16-18, six+ cards", m=(6, 13)),
        R("2m", (12, 15), "rebid: 12-15, six+ cards", m=(6, 13)),
        R("x^", (12, 18), "a new lower suit at the two level: four+ cards", over="new", level=(2, 2),
          tests=("below:x:m",), x=(4, 13)),
        R("x^", (17, 21), "reverse: 17+, four+ cards", over="new", level=(2, 2), m=(5, 13), x=(4, 13)),
        R("2m", (12, 17), "rebid: five+ cards, no better bid", m=(5, 13)),
    ),
    "1x-2y": (
        R("3p", (12, 21), "raise: four+ card support", p=(4, 13)),
        R("2N", (12, 14), "12-14 balanced", bal=True),
        R("3N", (18, 19), "18-19 balanced", bal=True),
        R("2m", (12, 17), "rebid: six+ cards", m=(6, 13)),
        R("x^", (12, 21), "a new suit at the two level: four+ cards", over="new", level=(2, 2), x=(4, 13)),
        R("2m", (12, 21), "rebid: five+ cards, no better bid", m=(5, 13)),
    ),
    "1m-2N": (R("3N", _ANY, "to play"),),
    "2C-2D": (
        R("2N", (22, 24), "22-24 balanced", bal=True),
        R("3N", (25, 27), "25-27 balanced", bal=True),
        R("x^", (22, 37), "natural: five+ cards, forcing to game", x=(5, 13)),
        R("x^", (22, 37), "natural: four+ cards, forcing to game", x=(4, 13)),
    ),
    # -- responder's and opener's continuations after Stayman and transfers --------------------------------------
    "1N Stayman answered": _after_stayman(1),
    "2N Stayman answered": _after_stayman(2),
    "1N transfer completed": _after_transfer(1),
    "2N transfer completed": _after_transfer(2),
    "transfer then 2N": (
        R("4t", (16, 37), "accepts, three+ card support", t=(3, 13)),
        R("3N", (16, 37), "accepts, two-card support"),
        R("3t", _ANY, "declines, three+ card support", t=(3, 13)),
        R("P", _ANY, "declines"),
    ),
    "transfer then 3N": (R("4t", _ANY, "three+ card support: the major game", t=(3, 13)),
                         R("P", _ANY, "two-card support: 3NT")),
    "transfer then 3t": (R("4t", (16, 37), "accepts the invitation"), R("P", _ANY, "declines")),
    "Stayman then 2N": (
        R("4S", (16, 37), "accepts, four spades (responder has them)", tests=("showed:H",), S=(4, 13)),
        R("3S", _ANY, "declines, four spades (responder has them)", tests=("showed:H",), S=(4, 13)),
        R("3N", (16, 37), "accepts"),
        R("P", _ANY, "declines"),
    ),
    "Stayman then 3N": (R("4S", _ANY, "four spades: the major game (responder has them)", tests=("showed:H",),
                          S=(4, 13)),
                        R("P", _ANY, "to play")),
    "Stayman then 3p": (R("4p", (16, 37), "accepts the invitation"), R("P", _ANY, "declines")),
    # -- Blackwood ------------------------------------------------------------------------------------------------
    "Blackwood": (
        R("5C", _ANY, "Blackwood answer: zero or four aces", tests=("aces:0:4",)),
        R("5D", _ANY, "Blackwood answer: one ace", tests=("aces:1",)),
        R("5H", _ANY, "Blackwood answer: two aces", tests=("aces:2",)),
        R("5S", _ANY, "Blackwood answer: three aces", tests=("aces:3",)),
    ),
    # -- the opponents act over our opening ----------------------------------------------------------------------
    "respond over their overcall": (
        R("o^", (11, 37), "cue-bid: limit raise or better, three+ card support", level=(2, 3), points=True,
          p=(3, 13)),
        R("p^^", (0, 9), "preemptive jump raise: four+ card support", level=(2, 3), tests=("major:p",), p=(4, 13)),
        R("p^", (6, 10), "raise: 6-10 points, three+ card support", points=True, tests=("major:p",), p=(3, 13)),
        R("p^", (6, 10), "raise: 6-10 points, five+ card support", points=True, p=(5, 13)),
        R("x^", (6, 37), "new suit at the one level: 6+, five+ cards", over="new", level=(1, 1), x=(5, 13)),
        R("X", (6, 37), "negative double: 6+, four+ cards in the unbid major(s)", tests=("negative", "level:1"),
          u=(4, 13)),
        R("X", (8, 37), "negative double: 8+, four+ cards in the unbid major(s)", tests=("negative", "level:2"),
          u=(4, 13)),
        R("x^", (11, 37), "new suit at the two level: 11+, five+ cards", over="new", level=(2, 2), x=(5, 13)),
        R("N^", (8, 10), "8-10 with a stopper", level=(1, 1), tests=("stop:o",)),
        R("2N", (11, 12), "11-12 with a stopper", tests=("stop:o",)),
        R("3N", (13, 16), "13-16 with a stopper", tests=("stop:o",)),
        R("P", _ANY, "no suitable call"),
    ),
    "respond over their double": (
        R("2N", (10, 37), "Jordan 2NT: limit raise or better, four+ card support", points=True, tests=("suit:p",),
          p=(4, 13)),
        R("XX", (10, 37), "redouble: 10+"),
        R("p^^", (0, 9), "preemptive jump raise: four+ card support", level=(2, 3), tests=("suit:p",),
          p=(4, 13)),
        R("p^", (6, 9), "raise: 6-9 points, three+ card support", points=True, tests=("suit:p",), p=(3, 13)),
        R("x^", (6, 9), "new suit: 6-9, five+ cards", over="new", level=(1, 2), x=(5, 13)),
        R("P", _ANY, "weak"),
    ),
    "reopen": (
        R("X", (12, 37), "reopening double: short in their suit", o=(0, 2)),
        R("m^", (12, 37), "rebid: six+ cards", level=(2, 2), m=(6, 13)),
        R("P", _ANY, "no suitable call"),
    ),
    # -- they opened ----------------------------------------------------------------------------------------------
    "over their one-level opening": (
        R("1N", (15, 18), "1NT overcall: 15-18 balanced, a stopper", bal=True, tests=("stop:o",)),
        R("x^^", (5, 10), "weak jump overcall: 5-10, a good six-card suit", over="unbid", level=(2, 2),
          tests=("good2:x",), x=(6, 7)),
        R("x^", (8, 16), "overcall: 8-16, a good five+ card suit", over="unbid", level=(1, 1), tests=("good:x",),
          x=(5, 13)),
        R("X", (12, 21), "takeout double: 12+, short in their suit, three+ in each other suit",
          tests=("takeout",), o=(0, 2)),
        R("x^", (11, 16), "two-level overcall: 11-16, a good five+ card suit", over="unbid", level=(2, 2),
          tests=("good:x",), x=(5, 13)),
        R("X", (17, 37), "takeout double: 17+, any shape"),
        R("P", _ANY, "no suitable call"),
    ),
    "over their 1N": (
        R("X", (15, 37), "penalty double: 15+"),
        R("x^", (8, 14), "natural overcall: 8-14, a good five+ card suit", over="any", level=(2, 2),
          tests=("good:x",), x=(5, 13)),
        R("P", _ANY, "no suitable call"),
    ),
    "over their preempt": (
        R("3N", (16, 20), "to play: 16-20 with a stopper", tests=("stop:o",)),
        R("X", (13, 37), "takeout double: 13+, short in their suit", tests=("takeout",), o=(0, 2)),
        R("x^", (12, 18), "overcall: 12-18, a good five+ card suit", over="unbid", level=(2, 3),
          tests=("good:x",), x=(5, 13)),
        R("X", (18, 37), "takeout double: 18+, any shape"),
        R("P", _ANY, "no suitable call"),
    ),
    "advance their overcall": (
        R("o^", (11, 37), "cue-bid raise: 11+ points, three+ card support", level=(2, 3), points=True,
          p=(3, 13)),
        R("p^^", (0, 9), "preemptive jump raise: four+ card support", level=(2, 3), p=(4, 13)),
        R("p^", (7, 10), "raise: 7-10 points, three+ card support", points=True, p=(3, 13)),
        R("3N", (15, 37), "15+ with a stopper", tests=("stop:o",)),
        R("2N", (12, 14), "12-14 with a stopper", tests=("stop:o",)),
        R("N^", (8, 11), "8-11 with a stopper", level=(1, 1), tests=("stop:o",)),
        R("x^", (10, 37), "new suit: 10+, five+ cards", over="new", level=(1, 2), tests=("good:x",), x=(5, 13)),
        R("P", _ANY, "no suitable call"),
    ),
    "advance their takeout double": (
        R("P", (6, 37), "penalty pass: a long strong holding in their suit", tests=("good:o",), o=(5, 13)),
        R("P", (0, 5), "weak: their side acted, no need to bid", tests=("free",)),
        R("o^", (13, 37), "cue-bid: 13+, forcing", level=(2, 3)),
        R("4x", (10, 37), "game: 10+, five+ card major", over="major", tests=("unbid:x",), x=(5, 13)),
        R("3N", (12, 37), "game: 12+ with a stopper", tests=("stop:o",)),
        R("x^^", (9, 12), "jump: 9-12, four+ cards", over="unbid", level=(2, 3), x=(4, 13)),
        R("N^", (6, 10), "6-10 with a stopper", level=(1, 1), tests=("stop:o",)),
        R("x^", (0, 8), "the longest unbid suit (majors first): 0-8", over="unbid", order="major", level=(1, 3),
          x=(3, 13)),
        R("x^", (0, 37), "forced: the longest unbid suit", over="unbid", level=(1, 3)),
    ),
}
"""Situation -> rules in priority order (module docstring)."""

__all__ = ["OPENINGS", "R", "Rule", "TABLE"]
