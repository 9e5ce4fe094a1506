"""Combined-defender search (thesis 3.4.3, after Bethe 2010 on claims) and the information score built on it.

The *claiming side* knows its own two hands; of the other side it knows only the cards both hold together (the
*pool*), how many each still holds and the voids each has shown. The combined-defender value is the number of
tricks the claiming side can guarantee against every layout of the pool still possible, whatever the defence: the
best single line of play (a strategy of the claiming side, which may adapt to the cards it sees played) that wins
its tricks in every layout. It is searched as a perfect-information game in which the two opponents are one
adversary holding the pool: at an opponent's turn the adversary may play any card of the pool that opponent could
hold in some layout still consistent with the counts and voids (a card off the suit led shows a new void). The CD
vector of the thesis, per suit (H: the opponents' highest card, L: the most cards either could hold, M: the fewest
either must hold), is the summary of that state (`cd_vector`); the search uses it to count sure tricks.

Two searches share one state. The *line* (`CombinedDefender.line`, the thesis' "linear-time accept or reject of a
proposed line of play") looks only at the claiming side's own cards: the longest sequence of tricks it can cash
from the lead, each accepted when the CD vector shows no opponent can beat or ruff the winner whatever the layout
(entries from hand to hand, ruffs and cards promoted by the opponents' forced plays count; a trick given up ends
the line). The full search then plays the opponents as the adversary too (lines that give up the lead and regain
it), starting from the line's count, until the value is proved or its node budget is spent. The value is a lower
bound on the double-dummy tricks of every layout and, when ``exact``, equals the guarantee found by exhaustive
search over the layouts (`tests/test_combined_defender.py` checks endings of up to four tricks); past the budget it
is the most tricks proved (still guaranteed) with ``exact=False``; with budget 0 it is the line alone.

The *information score* of a candidate card (thesis 3.4.3) is, in one world, a one-trick minimax completing the
current trick with that world's hands (the declaring side maximising, the defence minimising) whose leaves are the
declaring side's combined-defender value after the trick: what declarer could then claim with the information the
trick has shown. A defender prefers a card that lets declarer claim less; the declaring side one that lets it claim
more (thesis 3.6.1: "the same analysis could be used by declarer for themselves").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bridgerl.core.cards import NT
from bridgerl.core.play import SUIT_BITS, mask_of, trick_winner
from bridgerl.envs import PlayerView

DEFAULT_BUDGET = 20_000
"""Search nodes per value before it settles for the tricks proved so far."""
LINE_BUDGET = 60
"""Positions of the line search per claim: it keeps the longest line found within them."""
DEFAULT_INFO_BUDGET = 0
"""The search budget of each value inside an information score (many per card and world): 0, the line of sure
tricks alone, the thesis' linear-time claim; more adds the full search (slower: `benchmarks/play_speed.py`)."""

_RUN_LOW = tuple(tuple(range(13 * s, 13 * s + 13)) for s in range(4))


class _OverBudget(Exception):
    pass


def _popcount(x: int) -> int:
    return x.bit_count()


@dataclass(frozen=True)
class CDVector:
    """The opponents' combined assets in one suit: ``high`` their highest card (-1 if none), ``max_len`` the most
    either could hold, ``min_len`` the fewest either must hold, ``count`` how many they hold together."""

    high: int
    max_len: int
    min_len: int
    count: int


def _capacity(pool: int, suit: int, n_self: int, void_self: int, void_other: int) -> int:
    """Most cards of ``suit`` one opponent can hold: none if void, else the pool's cards of the suit up to its hand
    size less the cards it must hold in the suits its partner has shown out of."""
    if void_self >> suit & 1:
        return 0
    forced = 0
    for s in range(4):
        if s != suit and void_other >> s & 1:
            forced += _popcount(pool & SUIT_BITS[s])
    return max(0, min(_popcount(pool & SUIT_BITS[suit]), n_self - forced))


def cd_vector(pool: int, counts: tuple[int, int], voids: tuple[int, int]) -> list[CDVector]:
    """Per suit (clubs first) the `CDVector` of a pool held by two opponents with ``counts`` cards and ``voids``
    (4-bit masks of the suits each has shown out of)."""
    out = []
    for s in range(4):
        cards = pool & SUIT_BITS[s]
        n = _popcount(cards)
        cap = [_capacity(pool, s, counts[i], voids[i], voids[1 - i]) for i in range(2)]
        low = [max(0, n - cap[1 - i]) for i in range(2)]
        out.append(CDVector(high=cards.bit_length() - 1 if cards else -1, max_len=max(cap), min_len=min(low),
                            count=n))
    return out


def _feasible(pool: int, nx: int, ny: int, vx: int, vy: int) -> bool:
    """Is there a split of ``pool`` giving the two opponents nx and ny cards within their voids?"""
    if not vx | vy:
        return True
    both = vx & vy
    forced_y = forced_x = 0
    for s in range(4):
        bits = pool & SUIT_BITS[s]
        if not bits:
            continue
        if both >> s & 1:
            return False
        if vx >> s & 1:
            forced_y += _popcount(bits)
        elif vy >> s & 1:
            forced_x += _popcount(bits)
    return forced_x <= nx and forced_y <= ny


def _runs(cards: int, live: int) -> list[int]:
    """One card (the lowest) of each run of ``cards``: cards of one suit with no other ``live`` card between."""
    out = []
    rest = cards
    while rest:
        low = rest & -rest
        c = low.bit_length() - 1
        rest ^= low
        below = live & (low - 1) & SUIT_BITS[c // 13]
        if not below or not cards >> (below.bit_length() - 1) & 1:
            out.append(c)
    return out


def _replies(hand: int, suit: int, led: int, live: int, trump: int | None) -> list[int]:
    """Partner's plays worth trying in a sure trick: following, the lowest card and the lowest and highest that beat
    the card led (to take the lead over, or unblock); discarding, the lowest card of each suit (a trump may ruff)."""
    follow = hand & SUIT_BITS[suit]
    if follow:
        low = (follow & -follow).bit_length() - 1
        above = follow & ~((1 << (led + 1)) - 1)
        out = {low}
        if above:
            out.add((above & -above).bit_length() - 1)
            out.add(above.bit_length() - 1)
        return sorted(out)
    out = []
    for s in range(4):
        bits = hand & SUIT_BITS[s]
        if bits:
            out.append((bits & -bits).bit_length() - 1)
            if s == trump:
                out.append(bits.bit_length() - 1)
    return out


class CombinedDefender:
    """The search for one strain and one claiming side (0 = North-South, 1 = East-West). Positions are remembered
    across calls (keyed by the whole state), so one instance serves every world and candidate of a deal.

    ``value(hands, pool, counts, voids, leader, trick)``: ``hands`` the claiming side's remaining cards (masks) for
    its two seats, side first then side + 2; ``pool`` the opponents' remaining cards together; ``counts`` and
    ``voids`` of seat side + 1 and side + 3; ``trick`` the cards of the trick in progress (led by ``leader``).
    Returns (tricks the claiming side can guarantee from now, the trick in progress included; exact)."""

    def __init__(self, strain: int, side: int, budget: int = DEFAULT_BUDGET):
        if budget < 0:
            raise ValueError(f"budget must be 0 (the line of sure tricks only) or more, got {budget}")
        self.strain = strain
        self.trump = None if strain == NT else strain
        self.side = side % 2
        self.budget = budget
        self.bounds: dict[tuple, list[int]] = {}  # trick-start state -> [lo, hi]
        self.values: dict[tuple, tuple[int, bool]] = {}
        self.lines: dict[tuple, int] = {}
        self.nodes = 0
        self.calls = 0
        self.inexact = 0

    # -- the public entry ----------------------------------------------------------------------------------------
    def value(self, hands: tuple[int, int], pool: int, counts: tuple[int, int], voids: tuple[int, int], leader: int,
              trick: tuple[int, ...] = ()) -> tuple[int, bool]:
        key = (hands[0], hands[1], pool, counts[0], counts[1], voids[0], voids[1], leader, trick)
        found = self.values.get(key)
        if found is not None:
            return found
        self.calls += 1
        a, b = hands
        left = (_popcount(a) + _popcount(b) + _popcount(pool) + len(trick)) // 4
        state = (a, b, pool, counts[0], counts[1], voids[0], voids[1], leader)
        best = self.line(state) if not trick else 0
        top = self._cap(state) if not trick else left
        self.nodes = 0
        exact = best >= top
        if self.budget == 0:
            self.inexact += not exact
            self.values[key] = (best, exact)
            return best, exact
        exact = True
        try:
            while best < top and self._search(state, trick, best + 1):
                best += 1
        except _OverBudget:
            exact = False
            self.inexact += 1
        self.values[key] = (best, exact)
        return best, exact

    # -- the line of sure tricks (thesis: a line accepted or rejected in linear time with the CD vector) ----------
    def line(self, state) -> int:
        """The longest run of sure tricks the claiming side can cash from a trick start with the lead: a sequence
        of its own cards (leads, partner's plays, entries from one hand to the other, ruffs) each trick of which it
        wins against every layout and every card the opponents may play. Opponents are assumed to keep their
        highest cards (only the cards they must play leave the pool, the lowest first) and to throw any card they
        may when not forced to follow, so a winner of a plain suit in a trump contract counts only while both must
        still follow (M >= 1) or no trump can be left with them."""
        a, b, pool, nx, ny, vx, vy, leader = state
        if leader % 2 != self.side:
            return 0
        lows = tuple(_popcount(pool & SUIT_BITS[s]) for s in range(4))
        self.line_nodes = 0
        self.lines = {}  # one claim's memory: a claim cut short by the budget never leaks into the next one
        return self._line(a, b, pool, lows, nx, ny, vx, vy, leader)

    def _line(self, a, b, high, lows, nx, ny, vx, vy, leader) -> int:
        """``high``: the pool cards that may still be out (only surely played ones removed); ``lows``: per suit,
        the fewest cards the opponents may still hold."""
        key = (a, b, high, lows, nx, ny, vx | vy << 4, leader)
        found = self.lines.get(key)
        if found is not None:
            return found
        self.line_nodes += 1
        if self.line_nodes > LINE_BUDGET:
            return 0  # the lines tried so far stand: still a sure-trick line, perhaps not the longest
        lead_hand, other = (a, b) if leader == self.side else (b, a)
        partner = (leader + 2) % 4
        live = a | b | high
        trump = self.trump
        high_trumps = high & SUIT_BITS[trump] if trump is not None else 0
        best = 0
        left = _popcount(lead_hand)
        suits: dict[int, tuple] = {}
        for card in _runs(lead_hand, live):
            if best == left:
                break  # every trick left is sure
            s = card // 13
            known = suits.get(s)
            if known is None:
                # the fewest cards of the suit each opponent must still hold (from the fewest cards left)
                cap_x = 0 if vx >> s & 1 else min(lows[s], nx)
                cap_y = 0 if vy >> s & 1 else min(lows[s], ny)
                must_x, must_y = lows[s] - cap_y >= 1, lows[s] - cap_x >= 1
                out = high & SUIT_BITS[s]
                # the opponents' plays: those that must follow play their lowest cards of the suit
                forced = must_x + must_y
                rest = high
                for _ in range(min(forced, _popcount(out))):
                    bits = rest & SUIT_BITS[s]
                    rest ^= bits & -bits
                new_lows = tuple(max(0, n - (2 if t == s else 2 - forced)) for t, n in enumerate(lows))
                known = suits[s] = (must_x and must_y, out.bit_length() - 1, rest, new_lows)
            both_follow, out_top, rest, new_lows = known
            for reply in _replies(other, s, card, live, trump):
                win_card, win_seat = card, leader
                if reply // 13 == s and reply > card or (trump is not None and reply // 13 == trump != s):
                    win_card, win_seat = reply, partner
                if win_card // 13 == s:
                    if out_top > win_card:
                        continue  # an opponent may hold a higher card of the suit
                    if trump is not None and s != trump and high_trumps and not both_follow:
                        continue  # an opponent may be void and ruff
                elif not both_follow and high_trumps and high_trumps.bit_length() - 1 > win_card:
                    continue  # partner ruffed: an opponent void too could overruff
                na, nb = (a & ~(1 << card), b & ~(1 << reply)) if leader == self.side else \
                    (a & ~(1 << reply), b & ~(1 << card))
                value = 1 + self._line(na, nb, rest, new_lows, nx - 1, ny - 1, vx, vy, win_seat)
                if value > best:
                    best = value
        self.lines[key] = best
        return best

    # -- bounds --------------------------------------------------------------------------------------------------
    def _quick(self, state) -> int:
        """Sure tricks when the claiming side is on lead: the leader's top run in each suit (cards above every other
        live card of the suit), all of it in notrump, in trumps and when the pool holds no trump, else as many
        rounds as both opponents must follow (the CD vector's M)."""
        a, b, pool, nx, ny, vx, vy, leader = state
        if leader % 2 != self.side:
            return 0
        hand = a if leader == self.side else b
        live = a | b | pool
        pool_trumps = self.trump is not None and pool & SUIT_BITS[self.trump]
        vectors = cd_vector(pool, (nx, ny), (vx, vy)) if pool_trumps else None
        sure = 0
        for s in range(4):
            bits = live & SUIT_BITS[s]
            run = 0
            while bits:
                top = bits.bit_length() - 1
                if not hand >> top & 1:
                    break
                run += 1
                bits ^= 1 << top
            if run and pool_trumps and s != self.trump:
                run = min(run, vectors[s].min_len)
            sure += run
        return sure

    def _cap(self, state) -> int:
        """Most tricks the claiming side can still take: all of them unless an opponent is on lead, when the
        adversary's top run in one suit (pool cards above every card of the claiming side in it, as many as the leader
        could hold, and in a trump contract no more rounds than each hand of the claiming side holding trumps can
        follow) is lost for sure."""
        a, b, pool, nx, ny, vx, vy, leader = state
        left = (_popcount(a) + _popcount(b) + _popcount(pool)) // 4
        if leader % 2 == self.side:
            return left
        first = leader == (self.side + 1) % 4
        n_self, v_self, v_other = (nx, vx, vy) if first else (ny, vy, vx)
        ours = a | b
        best = 0
        for s in range(4):
            bits = pool & SUIT_BITS[s]
            if not bits or v_self >> s & 1:
                continue
            top_ours = (ours & SUIT_BITS[s]).bit_length() - 1
            run = 0
            while bits:
                top = bits.bit_length() - 1
                if top < top_ours:
                    break
                run += 1
                bits ^= 1 << top
            if not run:
                continue
            run = min(run, _capacity(pool, s, n_self, v_self, v_other))
            if self.trump is not None and s != self.trump:
                for hand in (a, b):
                    if hand & SUIT_BITS[self.trump]:
                        run = min(run, _popcount(hand & SUIT_BITS[s]))
            best = max(best, run)
        return left - best

    # -- the search ----------------------------------------------------------------------------------------------
    def _search(self, state, trick: tuple[int, ...], k: int) -> bool:
        """Can the claiming side take at least ``k`` more tricks (the one in progress included)?"""
        if k <= 0:
            return True
        a, b, pool, nx, ny, vx, vy, leader = state
        left = (_popcount(a) + _popcount(b) + _popcount(pool) + len(trick)) // 4
        if k > left:
            return False
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OverBudget
        if not trick:
            bound = self.bounds.get(state)
            if bound is not None:
                if k <= bound[0]:
                    return True
                if k > bound[1]:
                    return False
            if k <= self._quick(state):
                return True
            if k > self._cap(state):
                return False
            result = self._turn(state, trick, k)
            bound = self.bounds.setdefault(state, [0, left])
            if result:
                bound[0] = max(bound[0], k)
            else:
                bound[1] = min(bound[1], k - 1)
            return result
        return self._turn(state, trick, k)

    def _turn(self, state, trick, k) -> bool:
        a, b, pool, nx, ny, vx, vy, leader = state
        seat = (leader + len(trick)) % 4
        led = trick[0] // 13 if trick else None
        live = a | b | pool | mask_of(trick)
        if seat % 2 == self.side:
            hand = a if seat == self.side else b
            legal = hand & SUIT_BITS[led] if led is not None and hand & SUIT_BITS[led] else hand
            for card in self._order_own(_runs(legal, live), trick, led):
                bit = 1 << card
                child = (a & ~bit, b, pool, nx, ny, vx, vy, leader) if seat == self.side else \
                    (a, b & ~bit, pool, nx, ny, vx, vy, leader)
                if self._play(child, trick, card, k):
                    return True
            return False
        first = seat == (self.side + 1) % 4
        n_self, v_self = (nx, vx) if first else (ny, vy)
        for card, voids in self._adversary_moves(pool, live, led, n_self, v_self, nx, ny, vx, vy, first):
            rest = pool & ~(1 << card)
            child = (a, b, rest, nx - 1, ny, voids, vy, leader) if first else (a, b, rest, nx, ny - 1, vx, voids, leader)
            if not self._play(child, trick, card, k):
                return False
        return True

    def _adversary_moves(self, pool, live, led, n_self, v_self, nx, ny, vx, vy, first):
        moves = []
        for card in _runs(pool, live):
            s = card // 13
            if v_self >> s & 1:
                continue
            voids = v_self if led is None or s == led else v_self | (1 << led)
            rest = pool & ~(1 << card)
            if first:
                ok = _feasible(rest, nx - 1, ny, voids, vy)
            else:
                ok = _feasible(rest, nx, ny - 1, vx, voids)
            if ok:
                moves.append((card, voids))
        # strongest first: a trump or a high card of the suit led refutes soonest
        trump = self.trump

        def strength(move):
            c = move[0]
            if led is not None and c // 13 != led:
                return (1 if c // 13 == trump else -1, c % 13)
            return (0 if c // 13 != trump else 1, c % 13)
        moves.sort(key=strength, reverse=True)
        return moves

    def _order_own(self, cards, trick, led):
        if led is None:  # lead high cards first: winners prove a claim soonest
            return sorted(cards, key=lambda c: -(c % 13))
        return sorted(cards, key=lambda c: (c // 13 == led or c // 13 == self.trump, c % 13), reverse=True)

    def _play(self, child, trick, card, k) -> bool:
        trick = trick + (card,)
        if len(trick) < 4:
            return self._search(child, trick, k)
        leader = child[7]
        winner = trick_winner(leader, trick, self.strain)
        won = winner % 2 == self.side
        return self._search(child[:7] + (winner,), (), k - won)


# -- from views and worlds -----------------------------------------------------------------------------------------
def _void_bits(voids: np.ndarray, seat: int) -> int:
    return int(sum(1 << s for s in range(4) if voids[seat, s]))


def declarer_claim(view: PlayerView, budget: int = DEFAULT_BUDGET) -> tuple[int, bool]:
    """The tricks the declaring side can guarantee from ``view`` (declarer's or dummy's turn: both hands known),
    the trick in progress included: (tricks, exact)."""
    if not view.is_declaring_side:
        raise ValueError("declarer_claim: the combined-defender claim is the declaring side's; "
                         f"{'NESW'[view.player]} defends")
    side = view.declarer % 2
    hands = {view.player: mask_of(view.own_cards), view.dummy: mask_of(view.dummy_cards or ())}
    pool = mask_of(view.unseen_cards())
    counts = tuple(_remaining(view, seat) for seat in (side + 1, side + 3))
    voids = (_void_bits(view.voids, side + 1), _void_bits(view.voids, (side + 3) % 4))
    search = CombinedDefender(view.contract.strain, side, budget)
    return search.value((hands[side], hands[(side + 2) % 4]), pool, counts, voids, view.current_trick.leader,
                        tuple(view.current_trick.cards))


def _remaining(view: PlayerView, seat: int) -> int:
    return 13 - len(view.played_by(seat % 4))


class InformationScore:
    """Information scores (thesis 3.4.3) for one deal's play: ``scores(view, worlds, cards)`` -> float[k, n], the
    declaring side's combined-defender tricks after the trick each card starts or continues, by one-trick minimax
    over each world's hands. The search's memory is kept across calls while the strain is the same."""

    def __init__(self, budget: int = DEFAULT_INFO_BUDGET, max_positions: int = 200_000):
        if budget < 0:
            raise ValueError(f"budget must be 0 (the line of sure tricks only) or more, got {budget}")
        self.budget = budget
        self.max_positions = max_positions
        self.search: CombinedDefender | None = None
        self._played = -1

    def _search_for(self, view: PlayerView) -> CombinedDefender:
        """The search of this deal: a new one when the strain or side changes, the play goes back (a new deal) or
        the memory holds more than ``max_positions`` positions."""
        strain, side = view.contract.strain, view.declarer % 2
        played = sum(len(t.cards) for t in view.all_tricks())
        search = self.search
        if (search is None or search.strain != strain or search.side != side or played < self._played
                or len(search.values) + len(search.bounds) > self.max_positions):
            self.search = search = CombinedDefender(strain, side, self.budget)
        self._played = played
        return search

    def scores(self, view: PlayerView, worlds: np.ndarray, cards) -> np.ndarray:
        side = view.declarer % 2
        search = self._search_for(view)
        played = mask_of(c for t in view.all_tricks() for c in t.cards)
        trick = tuple(view.current_trick.cards)
        leader = view.current_trick.leader
        voids = (_void_bits(view.voids, side + 1), _void_bits(view.voids, (side + 3) % 4))
        out = np.zeros((len(worlds), len(cards)))
        for w, owner in enumerate(np.asarray(worlds)):
            hands = [mask_of(np.flatnonzero(owner == seat)) & ~played for seat in range(4)]
            for j, card in enumerate(cards):
                out[w, j] = _trick_minimax(search, hands, voids, leader, trick, int(card), side)
        return out


def _trick_minimax(search: CombinedDefender, hands, voids, leader, trick, card, side) -> float:
    """Play ``card``, complete the trick with the hands' best cards (the declaring side maximising), and value the
    end by the declaring side's combined-defender claim (plus the trick if it won it)."""
    hands = list(hands)
    seat = (leader + len(trick)) % 4
    led = trick[0] // 13 if trick else card // 13
    voids = list(voids)
    if seat % 2 != side and card // 13 != led:
        voids[0 if seat == (side + 1) % 4 else 1] |= 1 << led
    hands[seat] &= ~(1 << card)
    trick = trick + (card,)
    return _complete(search, hands, voids, leader, trick, side)


def _complete(search: CombinedDefender, hands, voids, leader, trick, side, alpha: float = -1.0,
              beta: float = 14.0) -> float:
    """Minimax over the rest of the trick, with alpha-beta cuts (the values are whole tricks: a defender's card
    that wins the trick usually leaves declarer no claim, and refutes at once)."""
    if len(trick) == 4:
        winner = trick_winner(leader, trick, search.strain)
        x, y = (side + 1) % 4, (side + 3) % 4
        value, _ = search.value((hands[side], hands[(side + 2) % 4]), hands[x] | hands[y],
                                (_popcount(hands[x]), _popcount(hands[y])), (voids[0], voids[1]), winner)
        return value + (winner % 2 == side)
    seat = (leader + len(trick)) % 4
    led = trick[0] // 13
    hand = hands[seat]
    legal = hand & SUIT_BITS[led] if hand & SUIT_BITS[led] else hand
    live = hands[0] | hands[1] | hands[2] | hands[3] | mask_of(trick)
    maximise = seat % 2 == side
    # equal cards of one hand give the same trick: one of each run, trumps and high cards first
    trump = search.trump
    cards = sorted(_runs(legal, live), key=lambda c: (c // 13 == trump, c // 13 == led, c % 13), reverse=True)
    best = -1.0 if maximise else 99.0
    for card in cards:
        child = list(hands)
        child[seat] = hand & ~(1 << card)
        child_voids = list(voids)
        if not maximise and card // 13 != led:
            child_voids[0 if seat == (side + 1) % 4 else 1] |= 1 << led
        value = _complete(search, child, child_voids, leader, trick + (card,), side, alpha, beta)
        if maximise:
            best = max(best, value)
            alpha = max(alpha, value)
        else:
            best = min(best, value)
            beta = min(beta, value)
        if alpha >= beta:
            break
    return best


__all__ = ["CombinedDefender", "CDVector", "cd_vector", "declarer_claim", "InformationScore", "DEFAULT_BUDGET",
           "DEFAULT_INFO_BUDGET"]
