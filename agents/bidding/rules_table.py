"""The `rules` system's agreements as data: one table that the rule bidders (`constructive_rules`,
`competitive_rules`) bid from and the auction-aware world sampler (`rules_agreements.interpret_auction`, PIMC's
``auction=rules``) reads back, through the agreements engine of the natural systems (`bridgerl.agents.bidding.engine`,
which states the rule format; `sayc` is the other system on it).

`TABLE` maps a situation (named by `rules_agreements.situation` from the auction so far) to its rules in priority
order: the openings of thesis 4.4.5, the responses to a suit or notrump opening, opener's rebid, and, once the
opponents bid, direct overcalls and doubles, the advances of partner's takeout double or overcall and responder's
action over their interference. The bidder makes the first rule's call that its hand meets; elsewhere (later rounds,
and `FALLBACK` where a situation leaves the rest to it) it places the contract in code from its picture of partner
(`constructive_rules._place`, `competitive_rules._compete`), and those calls are read as showing nothing.

Bound suits: ``p`` partner's suit (its opening, response or overcall), ``m`` my opening suit, ``o`` the suit of their
last bid, ``a`` ``b`` ``c`` the other suits (over a one-level opening: the three they did not bid; advancing a
takeout double: the unbid suits). Bounds by name (``values``): ``top`` / ``top1`` the notrump opener's maximum and
one less; over their interference ``need`` / ``need1`` the support that makes eight / nine trumps with partner's
shown length, ``game`` / ``game1`` the total points for game beside partner's minimum and one less, ``ntgame`` the
HCP for 3NT, ``penalty`` the HCP for a penalty double at the three level beside partner's expected points.

Every bound below is what the bidders decided in code before the table (the calls are pinned in
`tests/test_competitive_rules.py` and the differential check of issue #35); ranges the tests imply are stated so that
the sampler reads them (a 1NT response's majors of at most four cards, a 1D opening's three diamonds, ...).
"""

from __future__ import annotations

from bridgerl.agents.bidding.engine import FALLBACK, R, Rule

_P = dict(illegal="pass")  # the bidder passes where the call this rule names cannot be made

OPENINGS = (
    R("P", (0, 9), "no opening: 0-9"),
    R("P", (0, 11), "no opening: 10-11 without the rule of 20", tests=("short20",)),
    R("2N", (20, 21), "2NT opening: 20-21 balanced", bal=True),
    R("1N", (15, 17), "1NT opening: 15-17 balanced", bal=True),
    R("1S", (10, 37), "1S opening: five+ spades, the longest suit", tests=("open:S",), S=(5, 13)),
    R("1H", (10, 37), "1H opening: five+ hearts, longer than spades, the longest suit", tests=("open:H",),
      H=(5, 13)),
    R("1D", (10, 37), "1D opening: no five-card major to open, diamonds longer than clubs", tests=("open:D",),
      D=(3, 13)),
    R("1C", (10, 37), "1C opening: no five-card major to open, clubs at least as long as diamonds", C=(3, 13)),
)


def _respond_nt(one: bool) -> tuple[Rule, ...]:
    """Responses to partner's notrump opening: by combined points, the opener counted at 16 (1NT) or 20.5 (2NT and
    higher), a six-card major to game first."""
    game, slam, grand, quantitative = (9, 17, 21, 15) if one else (5, 13, 17, 11)
    rules = [
        R("4x", (game, 37), "game in a six-card major", over="major", x=(6, 13), **_P),
        R("7N", (grand, 37), "grand slam values", **_P),
        R("6N", (slam, grand - 1), "small slam values", **_P),
        R("4N", (quantitative, slam - 1), "quantitative invitation", **_P),
        R("3x", (game, quantitative - 1), "game values, five cards in the longer major", over="major", x=(5, 5), **_P),
        R("3N", (game, quantitative - 1), "game values, no five-card major", H=(0, 4), S=(0, 4), **_P),
    ]
    if one:
        rules += [
            R("2N", (7, 8), "invitation", **_P),
            R("2x", (0, 6), "weak: five+ cards in the longer major", over="major", x=(5, 13), **_P),
        ]
    if one:  # below an invitation: no five-card major (that bids it)
        rules.append(R("P", (0, 6), "too weak to invite, no five-card major", H=(0, 4), S=(0, 4)))
    else:
        rules.append(R("P", (0, game - 1), "too weak for game"))
    return tuple(rules)


RESPOND_SUIT = (
    R("P", (0, 5), "too weak to respond: 0-5"),
    R("2p", (6, 10), "single raise of the major", total=(0, 10), tests=("major:p",), p=(3, 13), **_P),
    R("3p", (6, 12), "limit raise of the major", total=(11, 12), tests=("major:p",), p=(3, 13), **_P),
    R("6p", (6, 37), "small slam in the major", total=(22, 37), tests=("major:p",), p=(3, 13), **_P),
    R("4p", (6, 21), "game in the major", total=(13, 21), tests=("major:p",), p=(3, 13), **_P),
    R("1H", (6, 37), "new suit at the one level: four+ hearts", tests=("below:p:H",), H=(4, 13)),
    R("1S", (6, 37), "new suit at the one level: four+ spades", tests=("below:p:S",), S=(4, 13)),
    R("1D", (6, 10), "1D over 1C: four+ diamonds", tests=("is:p:C",), D=(4, 13), **_P),
    R("1D", (6, 37), "1D over 1C: five+ diamonds", tests=("is:p:C",), D=(5, 13), **_P),
    R("2x", (11, 37), "new minor at the two level: 11+, four+ cards", over="minor", order="rank",
      tests=("below:x:p",), x=(4, 13), **_P),
    R("2H", (11, 37), "2H over 1S: 11+, five+ hearts", tests=("below:H:p",), H=(5, 13), **_P),
    R("2N", (13, 15), "2NT: 13-15 balanced", bal=True, **_P),
    R("3N", (16, 17), "3NT: 16-17 balanced", bal=True, **_P),
    R("3p", (11, 12), "minor raise: 11-12, four+ cards", tests=("minor:p",), p=(4, 13), **_P),
    R("3N", (18, 37), "3NT: 18+ balanced with four+ of partner's minor", bal=True, tests=("minor:p",), p=(4, 13),
      **_P),
    R("5p", (13, 37), "game in partner's minor: 13+, five+ cards, unbalanced", tests=("minor:p", "unbalanced"),
      p=(5, 13), **_P),
    R("3p", (13, 37), "minor raise: 13+, four cards, unbalanced", tests=("minor:p", "unbalanced"), p=(4, 4), **_P),
    R("2N", (11, 15), "2NT: 11-15", **_P),
    R("3N", (16, 37), "3NT: 16+", **_P),
    R("2p", (6, 10), "minor raise: 6-10, five+ cards", tests=("minor:p",), p=(5, 13), **_P),
    R("1N", (6, 10), "1NT: 6-10, any shape", **_P),
)

NT_THEN_MAJOR = (
    R("4p", (0, 37), "three+ card support: game in the major", p=(3, 13), **_P),
    R("3N", (0, 37), "no three-card support: 3NT", p=(0, 2), **_P),
)

NT_THEN_2N = (
    R("3N", ("top1", 37), "accepts the invitation: a maximum", **_P),
    R("P", (0, "top1"), "declines the invitation"),
)

NT_THEN_4N = (
    R("6N", ("top", 37), "accepts the quantitative invitation: a maximum", **_P),
    R("P", (0, "top1"), "declines the quantitative invitation"),
)

RAISED_TO_2 = (
    R("4m", (0, 37), "game over the single raise: 19+ total points", total=(19, 37), tests=("major:m",), m=(0, 13),
      **_P),
    R("3N", (0, 37), "3NT over the single minor raise: 19+ total points", total=(19, 37), tests=("minor:m",),
      m=(0, 13), **_P),
    R("3m", (0, 18), "invitation: 16-18 total points", total=(16, 18), m=(0, 13), **_P),
    R("P", (0, 18), "minimum: no game", total=(0, 15), m=(0, 13)),
)

RAISED_TO_3 = (
    R("4m", (0, 37), "accepts the limit raise: 14+ total points", total=(14, 37), tests=("major:m",), m=(0, 13), **_P),
    R("3N", (0, 37), "3NT over the minor limit raise: 14+ total points", total=(14, 37), tests=("minor:m",),
      m=(0, 13), **_P),
    R("P", (0, 13), "declines the limit raise", total=(0, 13), m=(0, 13)),
)

OVER_1NT_RESPONSE = (
    R("3N", (19, 37), "3NT: 19+ balanced", bal=True, **_P),
    R("2N", (18, 18), "2NT: 18 balanced", bal=True, **_P),
    R("P", (0, 17), "balanced minimum", bal=True),
    R("3m", (16, 37), "jump rebid: 16+, six+ cards", m=(6, 13), **_P),
    R("2m", (0, 15), "rebid: six+ cards", m=(6, 13), **_P),
    R("2x", (0, 37), "a lower four-card suit", order="longlow", tests=("below:x:m",), x=(4, 13), **_P),
    R("P", (0, 37), "nothing more to show"),
)

_RAISE_NEW_MAJOR = (
    R("2p+", (0, 15), "raise of partner's major: 15- total points, four+ cards", total=(0, 15), tests=("major:p",),
      p=(4, 13), **_P),
    R("3p+", (0, 18), "raise of partner's major: 16-18 total points, four+ cards", total=(16, 18), tests=("major:p",),
      p=(4, 13), **_P),
    R("4p+", (0, 37), "game in partner's major: 19+ total points, four+ cards", total=(19, 37), tests=("major:p",),
      p=(4, 13), **_P),
)

OVER_ONE_LEVEL_NEW_SUIT = _RAISE_NEW_MAJOR + (
    R("1x", (0, 37), "a four-card major up the line", over="major", order="rank", tests=("above:x:p", "not:x:m"),
      x=(4, 13)),
    R("1N", (0, 14), "1NT rebid: 14- balanced", bal=True, **_P),
    R("2N", (18, 19), "jump 2NT rebid: 18-19 balanced", bal=True, **_P),
    R("3N", (20, 37), "3NT rebid: 20+ balanced", bal=True, **_P),
    R("3m", (16, 37), "jump rebid of the opening suit: 16+, six+ cards", m=(6, 13), **_P),
    R("2m", (0, 15), "rebid of the opening suit: six+ cards", m=(6, 13), **_P),
    R("2x", (0, 37), "a lower four-card suit", order="rank", tests=("below:x:m",), x=(4, 13), **_P),
    R("2m", (0, 37), "rebid of the opening suit: nothing else to show", **_P),
)

OVER_TWO_LEVEL_NEW_SUIT = _RAISE_NEW_MAJOR + (FALLBACK,)

# -- they bid ---------------------------------------------------------------------------------------------------------
_OVERCALL = R("x^", (8, 17), "overcall: a good five+ card suit, 8-17 (11-17 at the two level)", over="unbid",
              level=(1, 2), by_level=((2, 11, 17),), tests=("good:x",), x=(5, 13))
_PENALTY = (
    R("X", (23, 37), "penalty double at the three level: 23+ HCP", tests=("level:3",)),
    R("X", (10, 37), "penalty double: five+ trumps with two top honours, 10+", tests=("level:2", "top2:o"),
      o=(5, 13)),
)

DIRECT_OVER_ONE_LEVEL_SUIT = (
    R("1N", (15, 18), "1NT overcall: 15-18 balanced, a stopper", bal=True, tests=("stop:o",)),
    _OVERCALL,
    R("X", (12, 37), "takeout double: 12+, short in their suit, three+ in the others", o=(0, 2), a=(3, 13),
      b=(3, 13), c=(3, 13)),
    R("X", (18, 37), "takeout double: any 18+"),
    R("P", (0, 37), "no action"),
)

DIRECT = (_OVERCALL,) + _PENALTY + (R("P", (0, 37), "no action"),)

ADVANCE_DOUBLE = (
    R("P", (0, 5), "no free bid: 0-5", tests=("free",)),
    R("4x", (12, 37), "game in a four+ card major", over="unbid", order="major", tests=("top:x", "major:x"),
      x=(4, 13), **_P),
    R("3N", (12, 37), "3NT: 12+, their suits stopped", tests=("stopped",), **_P),
    R("N^", (6, 10), "notrump: 6-10, their suits stopped, no four-card suit", level=(1, 2),
      tests=("stopped", "topshort"), a=(0, 3), b=(0, 3), c=(0, 3), **_P),
    R("x^^", (9, 11), "jump in the longest unbid suit: 9-11", over="unbid", order="major", level=(2, 3),
      tests=("top:x", "cheap2:x"), **_P),
    R("x^", (0, 37), "the longest unbid suit", over="unbid", order="major", level=(1, 3), tests=("top:x",), **_P),
)

ADVANCE_OVERCALL = (
    R("4p", (0, 37), "game in partner's major: 16+ total points, three+ cards", total=(16, 37),
      tests=("major:p",), p=(3, 13), **_P),
    R("5p", (0, 37), "game in partner's minor: 16+ total points, three+ cards", total=(16, 37),
      tests=("minor:p",), p=(3, 13), **_P),
    R("2p", (0, 15), "raise: 10-15 total points, three cards", total=(10, 15), p=(3, 3), **_P),
    R("3p", (0, 15), "raise to the three level: 10-15 total points, four+ cards", total=(10, 15), p=(4, 13), **_P),
    R("2p", (0, 9), "raise: 9- total points, three+ cards", total=(0, 9), p=(3, 13), **_P),
    R("3N", (13, 37), "3NT: 13+, their suits stopped", tests=("stopped",), p=(0, 2), **_P),
    R("N^", (11, 12), "notrump: 11-12, their suits stopped", tests=("stopped",), p=(0, 2), **_P),
    R("X", (12, 37), "penalty double at the three level: 12+ HCP", tests=("level:3", "theirs"), p=(0, 2)),
    R("X", (10, 37), "penalty double: five+ trumps with two top honours, 10+", tests=("level:2", "top2:o", "theirs"),
      o=(5, 13), p=(0, 2)),
    R("P", (0, 37), "no action"),
)

RESPOND_OVER_INTERFERENCE = (
    R("4p", (6, 37), "game in partner's major with eight+ trumps", total=("game", 37), tests=("major:p",),
      p=("need", 13), **_P),
    R("5p", (6, 37), "game in partner's minor with eight+ trumps", total=("game", 37), tests=("minor:p",),
      p=("need", 13), **_P),
    R("3p", (6, 37), "raise to the three level: nine+ trumps, 11+ total points", total=(11, "game1"),
      p=("need1", 13), **_P),
    R("2p", (6, 37), "raise to the two level: eight trumps, 11+ total points", total=(11, "game1"),
      p=("need", "need"), **_P),
    R("p^", (6, 37), "cheapest raise: eight+ trumps, 10- total points", total=(0, 10), level=(1, 2),
      p=("need", 13), **_P),
    R("X", ("penalty", 37), "penalty double at the three level", tests=("level:3", "theirs")),
    R("X", (10, 37), "penalty double: five+ trumps with two top honours, 10+", tests=("level:2", "top2:o", "theirs"),
      o=(5, 13)),
    R("3N", ("ntgame", 37), "3NT: balanced, their suits stopped, game values", bal=True, tests=("stopped",), **_P),
    R("N^", (8, 37), "notrump: 8+ balanced, their suits stopped", bal=True, level=(1, 2), tests=("stopped",), **_P),
    R("x^", (10, 37), "a new five+ card suit: 10+", over="unbid", level=(1, 3), tests=("not:x:p",), x=(5, 13), **_P),
    R("P", (0, 37), "no action"),
)

TABLE: dict[str, tuple[Rule, ...]] = {
    "open": OPENINGS,
    "respond 1N": _respond_nt(True),
    "respond 2N+": _respond_nt(False),
    "respond suit": RESPOND_SUIT,
    "NT-3M": NT_THEN_MAJOR,
    "NT-2N": NT_THEN_2N,
    "NT-4N": NT_THEN_4N,
    "NT-other": (R("P", (0, 37), "the notrump opener passes"),),
    "raised to 2": RAISED_TO_2,
    "raised to 3": RAISED_TO_3,
    "1x-1N": OVER_1NT_RESPONSE,
    "1x-1y": OVER_ONE_LEVEL_NEW_SUIT,
    "1x-2y": OVER_TWO_LEVEL_NEW_SUIT,
    "direct over a one-level suit": DIRECT_OVER_ONE_LEVEL_SUIT,
    "direct": DIRECT,
    "advance double": ADVANCE_DOUBLE,
    "nothing to advance": (R("P", (0, 37), "no unbid suit to advance in"),),
    "advance overcall": ADVANCE_OVERCALL,
    "respond over interference": RESPOND_OVER_INTERFERENCE,
}
"""situation -> its rules in priority order."""
