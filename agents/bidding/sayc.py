"""`SAYCBidder` (agent spec ``sayc``): a Standard American Yellow Card-like competitive bidder, and
`sayc_constraints`, the same system read back for world sampling.

Both read one table, `sayc_agreements.TABLE`, through the agreements engine of the natural systems
(`bridgerl.agents.bidding.engine`, which the `rules` system shares). `situation` names the context of the next call
from the auction so far (an opening, a response to 1NT, an advance of partner's takeout double, ...) and binds the
suits its rules refer to. The bidder makes the first rule's call that its hand meets; where no rule of the situation
applies (later rounds, and auctions the table does not name) it places the contract from the combined picture:
partner's calls read back through the table (`seat_reading`), the game or slam the points and fits support
(Blackwood on the way to a suit slam), invitations, preference, competing to the level of the law of total tricks
with a known fit, and penalty doubles (a trump stack, the values at the three level, or their sacrifice over our
game).

`sayc_constraints(auction)` gives each seat's `HandConstraint` for world sampling: each call read as the hull of the
rules of its situation that make it (ranges and lengths only; a rule's other tests are not read), folded call by call
as `bridgerl.agents.bidding.engine.fold` does for the rule system.

Calls are the competitive indices (0 Pass, 1 X, 2 XX, 3 + bid, bid = (level - 1) * 5 + strain, strains C D H S NT =
0..4); histories are [(relative seat, call)] with 0 the player to act, 1 its left-hand opponent, 2 its partner, 3 its
right-hand opponent.
"""

from __future__ import annotations


import numpy as np

from bridgerl.agents.bidding import engine
from bridgerl.agents.bidding.constructive_rules import Picture, target_contract
from bridgerl.agents.bidding.engine import Context, Rule, Shown, System, bid, fold, resolve
from bridgerl.agents.bidding.engine import TableHand as SAYCHand
from bridgerl.agents.bidding.engine import cheapest as _cheapest
from bridgerl.agents.bidding.sayc_agreements import TABLE
from bridgerl.core.auction import Auction
from bridgerl.core.calls import BID_OFFSET, DOUBLE, PASS, REDOUBLE
from bridgerl.core.constraints import HandConstraint
from bridgerl.envs import AuctionView

C, D, H, S, N = 0, 1, 2, 3, 4
_ME, _LHO, _PARTNER, _RHO = 0, 1, 2, 3
_OURS = (_ME, _PARTNER)
_GAME_LEVEL = {C: 5, D: 5, H: 4, S: 4, N: 3}
_STRAINS = {"C": C, "D": D, "H": H, "S": S, "N": N}
_LITERAL = {"P": PASS, "X": DOUBLE, "XX": REDOUBLE}


def _suit(b: int) -> int | None:
    return b % 5 if b % 5 < N else None


def _bids(history):
    return [(i, seat, call - BID_OFFSET) for i, (seat, call) in enumerate(history) if call >= BID_OFFSET]


def situation(history) -> Context:
    """The context of the next call after ``history`` ([(relative seat, call)], oldest first)."""
    history = [(int(s), int(c)) for s, c in history]
    bids = _bids(history)
    ctx = Context(history)
    ctx.their_suits = frozenset(b % 5 for _, s, b in bids if s not in _OURS and b % 5 < N)
    ctx.named = frozenset(b % 5 for _, _, b in bids if b % 5 < N)
    if bids:
        ctx.last_bid, ctx.last_bidder = bids[-1][2], bids[-1][1]
    ctx.free = bool(history) and history[-1][1] != PASS
    if not bids:
        ctx.name = "open"
        return ctx
    _, opener, opening = bids[0]
    ctx.opening = opening
    actions = [(i, s, c) for i, (s, c) in enumerate(history) if c != PASS]
    ours = [(i, s, c) for i, s, c in actions if s in _OURS]
    if ours and ours[-1][1] == _PARTNER and ours[-1][2] == BID_OFFSET + bid(4, N) and _blackwood(ours):
        ctx.name = "Blackwood"
        return ctx
    if opener in _OURS:
        if not any(s not in _OURS for _, s, _ in actions):
            _uncontested(ctx, [c - BID_OFFSET for _, _, c in ours])
        else:
            _contested_after_our_opening(ctx, history, bids)
    else:
        _after_their_opening(ctx, history, bids, ours)
    return ctx


def _blackwood(ours) -> bool:
    """Whether partner's 4NT (the last of ``ours``) asks for aces: our side's bid before it was in a suit and the 4NT
    is not a notrump opening's quantitative raise."""
    bids = [c - BID_OFFSET for _, _, c in ours if c >= BID_OFFSET]
    return len(bids) >= 2 and bids[-2] % 5 < N and not (len(bids) == 2 and bids[0] % 5 == N)


def _uncontested(ctx: Context, seq: list[int]) -> None:
    """Our side's bids ``seq`` (alternating, the opponents silent; the last by partner when len is odd)."""
    n, op = len(seq), seq[0]
    level, strain = op // 5 + 1, op % 5
    nt = strain == N and level in (1, 2)
    if n == 1:
        ctx.suits["p"] = _suit(op)
        if op in (bid(1, H), bid(1, S)):
            ctx.name = "respond 1M"
        elif op in (bid(1, C), bid(1, D), bid(1, N), bid(2, C), bid(2, N)):
            ctx.name = f"respond {level}{'CDHSN'[strain]}"
        elif level == 2 and strain < N:
            ctx.name = "respond weak two"
        elif level in (3, 4) and strain < N:
            ctx.name = "respond preempt"
        return
    ctx.suits["m"] = _suit(op)
    if n == 2:
        response = seq[1]
        r_level, r_strain = response // 5 + 1, response % 5
        if nt:
            if response == bid(level + 1, C):
                ctx.name = f"{level}N-{level + 1}C"
            elif response in (bid(level + 1, D), bid(level + 1, H)):
                ctx.suits["t"] = r_strain + 1
                ctx.name = f"{level}N-transfer"
            elif op == bid(1, N) and response == bid(2, N):
                ctx.name = "1N-2N"
            elif response == bid(4, N):
                ctx.name = "NT-4N"
        elif level == 1:
            if r_strain == strain:
                ctx.name = {2: "1x-2x", 3: "1x-3x"}.get(r_level)
            elif response == bid(1, N):
                ctx.name = "1x-1N"
            elif response == bid(2, N):
                ctx.name = "1M-2N" if strain in (H, S) else "1m-2N"
            elif r_strain < N and r_level == 1:
                ctx.suits["p"] = r_strain
                ctx.name = "1x-1y"
            elif r_strain < N and response == _cheapest(op, r_strain) and r_level == 2:
                ctx.suits["p"] = r_strain
                ctx.name = "1x-2y"
        elif op == bid(2, C) and response == bid(2, D):
            ctx.name = "2C-2D"
        return
    if n == 3:
        response, rebid = seq[1], seq[2]
        if nt and response == bid(level + 1, C):
            answers = {bid(level + 1, H): H, bid(level + 1, S): S, bid(level + 1, D): None}
            if rebid in answers:
                ctx.suits["p"] = answers[rebid]
                ctx.name = f"{level}N Stayman answered"
        elif nt and response in (bid(level + 1, D), bid(level + 1, H)) and rebid == response + 1:
            ctx.suits["t"] = response % 5 + 1
            ctx.name = f"{level}N transfer completed"
        elif seq[:3] == [bid(2, C), bid(2, D), bid(2, N)]:
            ctx.name = "respond 2C-2D-2N"
        return
    if n == 4:
        response, rebid, last = seq[1], seq[2], seq[3]
        if nt and response in (bid(level + 1, D), bid(level + 1, H)) and rebid == response + 1:
            t = response % 5 + 1
            ctx.suits["t"] = t
            ctx.name = {bid(2, N): "transfer then 2N", bid(3, N): "transfer then 3N",
                        bid(3, t): "transfer then 3t"}.get(last) if level == 1 else (
                "transfer then 3N" if last == bid(3, N) else None)
        elif nt and response == bid(level + 1, C) and rebid // 5 + 1 == level + 1:
            ctx.showed = _suit(rebid)
            if last == bid(3, N):
                ctx.name = "Stayman then 3N"
            elif level == 1 and last == bid(2, N):
                ctx.name = "Stayman then 2N"
            elif level == 1 and ctx.showed is not None and last == bid(3, ctx.showed):
                ctx.suits["p"] = ctx.showed
                ctx.name = "Stayman then 3p"
        elif seq[:3] == [bid(2, C), bid(2, D), bid(2, N)]:
            if last == bid(3, C):
                ctx.name = "2N-3C"
            elif last in (bid(3, D), bid(3, H)):
                ctx.suits["t"] = last % 5 + 1
                ctx.name = "2N-transfer"


def _contested_after_our_opening(ctx: Context, history, bids) -> None:
    first_i, opener, opening = bids[0]
    after = history[first_i + 1:]
    their_bids = [b for _, s, b in bids if s not in _OURS]
    if opener == _PARTNER and len(after) == 1 and opening // 5 == 0 and opening % 5 < N:
        ctx.suits["p"] = opening % 5
        if after[0][1] == DOUBLE:
            ctx.name = "respond over their double"
        elif after[0][1] >= BID_OFFSET:
            ctx.suits["o"] = _suit(their_bids[-1])
            unbid = [s for s in (H, S) if s not in ctx.named]
            if len(unbid) == 1:
                ctx.suits["u"] = unbid[0]
            ctx.name = "respond over their overcall"
    elif (opener == _ME and len(after) == 3 and after[0][1] >= BID_OFFSET and after[1][1] == PASS
          and after[2][1] == PASS and opening // 5 == 0 and opening % 5 < N):
        ctx.suits["m"] = opening % 5
        ctx.suits["o"] = _suit(their_bids[-1])
        ctx.name = "reopen"


def _after_their_opening(ctx: Context, history, bids, ours) -> None:
    their = [(i, b) for i, s, b in bids if s not in _OURS]
    if not ours:
        last = their[-1][1]
        level, strain = last // 5 + 1, last % 5
        ctx.suits["o"] = _suit(last)
        if strain == N:
            ctx.name = "over their 1N" if level == 1 and len(their) == 1 else None
        elif level == 1:
            ctx.name = "over their one-level opening"
        elif level <= 4:
            ctx.name = "over their preempt"
        return
    if any(s == _ME for _, s, _ in ours) or len(ours) != 1:
        return
    i, _, call = ours[0]
    before = [b for j, b in their if j < i]
    ctx.suits["o"] = _suit(before[-1])
    if call == DOUBLE:
        if before[-1] % 5 < N and before[-1] // 5 + 1 <= 3:
            ctx.name = "advance their takeout double"
        return
    overcall = call - BID_OFFSET
    if overcall % 5 < N:
        ctx.suits["p"] = overcall % 5
        ctx.name = "advance their overcall"


# -- rules ------------------------------------------------------------------------------------------------------------
def _test(name: str, hand: SAYCHand | None, ctx: Context, x: int | None) -> bool:
    """A rule's named condition (the sampler does not read these)."""
    head, _, arg = name.partition(":")
    suit = x if arg == "x" else ctx.strain(arg.split(":")[0]) if arg else None
    if head == "opening":
        return hand.opening_suit() == suit
    if head == "rule20":
        return hand.hcp + int(np.sort(hand.lengths)[-2:].sum()) >= 20
    if head == "good2":
        return suit is not None and hand.decent_suit(suit)
    if head == "good":
        return suit is not None and suit < N and hand.good_suit(suit)
    if head == "not":
        return x != _STRAINS[arg]
    if head == "atleast":
        first, second = arg.split(":")
        return hand.lengths[_STRAINS[first]] >= hand.lengths[_STRAINS[second]]
    if head == "fourmajor":
        return max(hand.lengths[H], hand.lengths[S]) >= 4
    if head == "major":
        return suit in (H, S)
    if head == "minor":
        return suit in (C, D)
    if head == "suit":
        return suit is not None and suit < N
    if head == "stoppers":
        partner = ctx.strain("p")
        return all(hand.stopper(s) for s in range(4) if s != partner)
    if head == "stop":
        return hand.stopper(suit)
    if head == "below":
        first, second = arg.split(":")
        mine = ctx.strain(second)
        return mine is not None and (x if first == "x" else ctx.strain(first)) < mine
    if head == "maximum":
        return hand.hcp >= (21 if ctx.opening == bid(2, N) else 16)
    if head == "showed":
        return ctx.showed == _STRAINS[arg]
    if head == "aces":
        return hand.aces in {int(a) for a in arg.split(":")}
    if head == "negative":
        return any(hand.lengths[s] >= 4 for s in (H, S) if s not in ctx.named)
    if head == "level":
        return ctx.last_bid // 5 + 1 == int(arg)
    if head == "takeout":
        return all(hand.lengths[s] >= 3 for s in range(4) if s not in ctx.their_suits)
    if head == "free":
        return ctx.free
    if head == "unbid":
        return suit not in ctx.their_suits
    raise ValueError(f"unknown sayc test {name!r}")


SAYC = System("sayc", TABLE, situation, _test, optional=("u",))
"""The `sayc` system for the agreements engine (`bridgerl.agents.bidding.engine`)."""


def table_call(hand: SAYCHand, ctx: Context, mask) -> tuple[int | None, Rule | None]:
    """The first rule of the situation that ``hand`` meets and whose call is legal: (call, rule), else (None, None)."""
    return engine.table_call(SAYC, hand, ctx, mask)


# -- reading calls back -----------------------------------------------------------------------------------------------
def call_reading(ctx: Context, call: int, position: int) -> Shown | None:
    """What ``call`` made in ``ctx`` shows: the hull of the rules of the situation that make it (None: no rule)."""
    return engine.call_reading(SAYC, ctx, call, position)


def seat_reading(history, reader_seat: int) -> list[Shown]:
    """What the calls of relative seat ``reader_seat`` in ``history`` (relative to the player to act) show."""
    return engine.seat_reading(SAYC, history, reader_seat)


def picture_of(showings: list[Shown]) -> Picture:
    """A `Picture` (points range, minimum lengths, balanced) from the readings of one seat's calls."""
    constraint = fold(showings)
    return Picture(constraint.hcp[0], constraint.hcp[1], [lo for lo, _ in constraint.lengths], constraint.balanced)


def sayc_constraints(auction: Auction, seats=None) -> dict[int, HandConstraint]:
    """Each seat's constraint from its calls read with the `sayc` table (seats N=0 .. W=3; default all four)."""
    return engine.constraints(SAYC, auction, seats)


class SAYCBidder:
    """The `sayc` system (38 calls, 231-bit observations, or an `AuctionView` through ``act_view``)."""

    def act(self, observation, action_mask) -> int:
        return self.act_view(AuctionView.from_observation(observation, action_mask))

    def act_batch(self, observations, action_masks) -> np.ndarray:
        return np.array([self.act(o, m) for o, m in zip(observations, action_masks)], dtype=np.int64)

    def act_view(self, view: AuctionView) -> int:
        return self.explain(view)[0]

    def explain(self, view: AuctionView) -> tuple[int, str]:
        """(call, what it shows in words): the table rule it follows, or the later-round judgement."""
        mask = view.legal_mask
        if not mask.any():
            raise ValueError("no legal action in the mask: the auction is over")
        hand = SAYCHand.of(view.hand_bits)
        history = list(view.calls)
        ctx = situation(history)
        call, rule = table_call(hand, ctx, mask)
        if call is None:
            call, why = _judge(hand, ctx, mask)
        else:
            why = rule.name
        if not mask[call]:
            call, why = (PASS, why) if mask[PASS] else (int(np.flatnonzero(mask)[0]), why)
        return int(call), why


def _judge(hand: SAYCHand, ctx: Context, mask) -> tuple[int, str]:
    """Later rounds: the call from the combined picture (module docstring)."""
    history = ctx.history
    partner = picture_of(seat_reading(history, _PARTNER))
    last, last_bidder = ctx.last_bid, ctx.last_bidder
    ours = [(i, s, c) for i, (s, c) in enumerate(history) if s in _OURS and c != PASS]
    our_bids = [(s, c - BID_OFFSET) for _, s, c in ours if c >= BID_OFFSET]

    def legal(target: int | None) -> bool:
        return target is not None and 0 <= target <= 34 and target > last and bool(mask[BID_OFFSET + target])

    # Blackwood asked: place the slam by the aces held
    if (len(ours) >= 2 and ours[-2][1] == _ME and ours[-2][2] == BID_OFFSET + bid(4, N)
            and ours[-1][1] == _PARTNER and BID_OFFSET + bid(5, C) <= ours[-1][2] <= BID_OFFSET + bid(5, S)
            and history[-1][1] == PASS):
        shown = ours[-1][2] - BID_OFFSET - bid(5, C)
        aces = hand.aces + (4 if shown == 0 and hand.aces == 0 else shown)
        trumps = _best_fit(hand, partner) or max(range(4), key=lambda s: (hand.lengths[s], s))
        combined = hand.hcp + partner.middle + hand.shortness(trumps)
        level = 7 if aces == 4 and combined >= 36 else 6 if aces >= 3 else 5
        target = bid(level, trumps)
        return (BID_OFFSET + target, "Blackwood: the slam the aces allow") if legal(target) else (
            PASS, "Blackwood: signs off")

    fit = _best_fit(hand, partner)
    target = _target(hand, partner)
    if target is not None and legal(target):
        if target // 5 + 1 >= 6 and target % 5 < N and legal(bid(4, N)) and not _asked_aces(our_bids):
            return BID_OFFSET + bid(4, N), "Blackwood: asks for aces on the way to a slam"
        return BID_OFFSET + target, "the game or slam our combined values support"
    their_last = last_bidder is not None and last_bidder not in _OURS
    if not their_last:
        if last_bidder == _PARTNER:
            return _partscore(hand, ctx, partner, fit, our_bids, legal)
        return PASS, "to play"
    # the opponents bid last
    level, strain = last // 5 + 1, last % 5
    partner_doubled = any(s == _PARTNER and c == DOUBLE for _, s, c in ours[-1:]) and history[-1][1] == PASS
    if our_bids and our_bids[-1][1] // 5 + 1 >= _GAME_LEVEL[our_bids[-1][1] % 5] and mask[DOUBLE] and \
            hand.hcp + partner.middle >= 25:
        return DOUBLE, "penalty double: their sacrifice over our game"
    if fit is not None:
        trumps = int(hand.lengths[fit] + partner.lengths[fit])
        cheapest = _cheapest(last, fit)
        if cheapest // 5 + 1 <= min(trumps - 6, 4) and legal(cheapest):
            return BID_OFFSET + cheapest, "competes to the level of our total trumps"
    if mask[DOUBLE] and level >= 3 and hand.hcp + partner.middle >= 25 + 2 * (level - 3) and fit is None and (
            strain == N or hand.lengths[strain] >= 3):
        return DOUBLE, "penalty double: our side holds the values"
    if mask[DOUBLE] and strain < N and level >= 2 and hand.lengths[strain] >= 4 and \
            int(hand.honours[strain, :3].sum()) >= 2 and hand.hcp >= 10:
        return DOUBLE, "penalty double: a trump stack"
    if partner_doubled and mask[PASS] and _takeout(history):
        # answer partner's double: the suit we hold best together, else notrump with a stopper, else pass it out
        suits = [s for s in range(4) if s not in ctx.their_suits]
        if hand.lengths[strain if strain < N else 0] >= 5 and strain < N and hand.good_suit(strain):
            return PASS, "converts partner's double to penalties: a long strong holding in their suit"
        if suits:
            best = max(suits, key=lambda s: (hand.lengths[s] + partner.lengths[s], s))
            cheapest = _cheapest(last, best)
            if hand.lengths[best] >= 3 and cheapest // 5 + 1 <= 3 and legal(cheapest):
                return BID_OFFSET + cheapest, "answers partner's double in our best suit"
        cheapest = _cheapest(last, N)
        if hand.stopper(strain) and cheapest // 5 + 1 <= 2 and legal(cheapest):
            return BID_OFFSET + cheapest, "answers partner's double in notrump: a stopper"
    return PASS, "no call to make"


def _target(hand: SAYCHand, partner: Picture) -> int | None:
    """`target_contract`, bidding a slam only when partner's minimum would still reach it (else the game)."""
    target = target_contract(hand, partner)
    if target is None or target // 5 + 1 < 6:
        return target
    cautious = target_contract(hand, Picture(partner.low, partner.low + 2, partner.lengths, partner.balanced))
    if cautious is not None and cautious // 5 + 1 >= 6:
        return target
    strain = target % 5
    return bid(3, N) if strain == N else bid(_GAME_LEVEL[strain], strain)


def _takeout(history) -> bool:
    """Whether partner's last double (the last non-pass call of our side) was one of the table's takeout doubles
    (a takeout, negative or reopening double): the general doubles of later rounds are for penalties."""
    index = max(i for i, (s, c) in enumerate(history) if s == _PARTNER and c == DOUBLE)
    relative = [((s - _PARTNER) % 4, c) for s, c in history[:index]]
    shown = call_reading(situation(relative), DOUBLE, index)
    return shown is not None and any(word in shown.key for word in ("takeout", "negative", "reopening"))


def _asked_aces(our_bids) -> bool:
    return any(b == bid(4, N) for _, b in our_bids[1:])


def _best_fit(hand: SAYCHand, partner: Picture) -> int | None:
    """Our best known eight-card fit (a major first, then the longest), else None."""
    fits = [s for s in range(4) if hand.lengths[s] + partner.lengths[s] >= 8]
    if not fits:
        return None
    majors = [s for s in fits if s in (H, S)]
    return max(majors or fits, key=lambda s: (hand.lengths[s] + partner.lengths[s], s))


def _partscore(hand: SAYCHand, ctx: Context, partner: Picture, fit, our_bids, legal) -> tuple[int, str]:
    """Partner bid last and no game is in view: accept an invitation, invite, give preference, or pass."""
    last = ctx.last_bid
    level, strain = last // 5 + 1, last % 5
    mine = picture_of(seat_reading(ctx.history, _ME))
    combined = hand.hcp + partner.middle
    if strain < N:
        combined += hand.shortness(strain) if hand.lengths[strain] + partner.lengths[strain] >= 8 else 0
    if strain < N and strain in ctx.their_suits:
        # partner's bid in their suit is a cue-bid: forcing, never passed
        suits = [s for s in range(4) if s not in ctx.their_suits]
        best = fit if fit is not None else max(suits, key=lambda s: (hand.lengths[s] + partner.lengths[s], s))
        game = bid(_GAME_LEVEL[best], best)
        target = game if combined >= 25 and legal(game) else _cheapest(last, best)
        if legal(target):
            return BID_OFFSET + target, "answers partner's cue-bid in our suit"
    invited = (level == 3 and strain in (H, S, N) and last < bid(_GAME_LEVEL[strain], strain)) or last == bid(2, N)
    if invited and len(our_bids) >= 3 and hand.hcp > mine.middle:
        game = bid(3, N) if strain == N else bid(_GAME_LEVEL[strain], strain)
        if legal(game):
            return BID_OFFSET + game, "accepts the invitation: the top of what we showed"
    partner_fit = hand.lengths[strain] + partner.lengths[strain] >= 8 if strain < N else True
    if fit is not None and not partner_fit and (strain == N or hand.lengths[strain] < 3):
        cheapest = _cheapest(last, fit)
        if cheapest // 5 + 1 <= 3 and legal(cheapest):
            return BID_OFFSET + cheapest, "prefers our fit"
    if 23 <= combined < 25 and len(our_bids) <= 3 and level <= 2:
        if fit is not None and legal(bid(3, fit)) and fit in (H, S):
            return BID_OFFSET + bid(3, fit), "invites game in our fit"
        if hand.balanced and legal(bid(2, N)):
            return BID_OFFSET + bid(2, N), "invites 3NT"
    if strain < N and not partner_fit and hand.lengths[strain] < 2 and fit is None:
        first = next((b % 5 for s, b in our_bids if s == _PARTNER and b % 5 < N), None)
        if first is not None and first != strain and hand.lengths[first] > hand.lengths[strain]:
            cheapest = _cheapest(last, first)
            if cheapest // 5 + 1 <= 3 and legal(cheapest):
                return BID_OFFSET + cheapest, "preference for partner's first suit"
    return PASS, "to play: no game in view"


__all__ = ["Context", "SAYCBidder", "SAYCHand", "call_reading", "picture_of", "resolve", "sayc_constraints",
           "seat_reading", "situation", "table_call"]
