"""The compiled core of the combined-defender search and the information score (`combined_defender`).

Everything here is the one copy of the search: `combined_defender.CombinedDefender` and `InformationScore` are thin
Python wrappers that keep its memories (numba typed dicts and arrays) and call these functions. Compiled with numba
(``cache=True``: the first call in a fresh checkout compiles for some seconds, later processes load the cache).

Hands and pools are 52-bit masks in int64 (bit = card index of `bridgerl.core.cards`); a trick in progress is its
cards ``t0, t1, t2`` (unused ones 0) and their count ``nt``. ``trump`` is -1 in notrump. ``st`` holds the counters:
``st[NODES]`` search nodes of the value being computed, ``st[CALLS]`` values computed, ``st[INEXACT]`` values left
short of proof, ``st[LINE_NODES]`` positions of the claim being searched, ``st[GEN]`` the claim's number (its line
memory is the slots of ``keys, vals`` whose ``stamp`` is that number).

Search results are 1 (proved), 0 (refuted) or -1 (the node budget ran out).
"""

from __future__ import annotations

import hashlib
import inspect
from pathlib import Path

import numpy as np
from numba import float64, int64, njit, types
from numba.typed import Dict

from bridgerl.core.cards import NT
from bridgerl.core.play import SUIT_BITS, winning_position

try:
    from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros
except ImportError:  # an internal module of numba: plain loops below if it ever moves
    leading_zeros = trailing_zeros = None

NODES, CALLS, INEXACT, LINE_NODES, GEN = range(5)
LINE_BUDGET = 60
"""Positions of the line search per claim: it keeps the longest line found within them."""
TABLE_SIZE = 256  # open-addressing slots of one claim's line memory (it stores at most LINE_BUDGET positions)

_SUIT = np.array(SUIT_BITS, dtype=np.int64)
_POP13 = np.array([bin(i).count("1") for i in range(1 << 13)], dtype=np.int64)
KEY = types.UniTuple(types.int64, 4)
PAIR = types.UniTuple(types.int64, 2)
_VALUES = types.DictType(KEY, types.int64)
_BOUNDS = types.DictType(KEY, PAIR)
_VEC = int64[::1]
_TABLE = (int64[:, ::1], _VEC, _VEC)
# The recursive functions carry explicit signatures: numba cannot load a cached recursive function whose type it
# inferred (numba issue #6061), and with the signature it compiles them before the first call.


def _drop_stale_cache() -> None:
    """numba checks a cached function against its own file only, but the trick winner is compiled from
    `bridgerl.core.play`: when that rule (or the suit masks) differ from those the cache was built with, this
    module's cache files are removed so that everything compiles again. A read-only install changes neither."""
    folder = Path(__file__).with_name("__pycache__")
    stamp = folder / f"{Path(__file__).stem}.rules"
    want = hashlib.sha256(f"{inspect.getsource(winning_position)}{SUIT_BITS}{NT}".encode()).hexdigest()
    try:
        if stamp.read_text() == want:
            return
    except OSError:
        pass
    try:
        for old in folder.glob(f"{Path(__file__).stem}.*.nb[ic]"):
            old.unlink()
        folder.mkdir(exist_ok=True)
        stamp.write_text(want)
    except OSError:
        pass


_drop_stale_cache()
_CACHE = [True]


def _jit(*signature, **options):
    """``numba.njit`` with the on-disk cache where numba finds a writable place for it (next to the module, or the
    user-wide cache folder); without one, compiled in each process (some seconds) instead of failing."""
    def wrap(func):
        if _CACHE[0]:
            try:
                return njit(*signature, cache=True, **options)(func)
            except RuntimeError:  # numba: "cannot cache function ...: no locator available"
                _CACHE[0] = False
        return njit(*signature, **options)(func)
    return wrap


_winner = _jit()(winning_position)


@_jit()
def new_values():
    """A value memory: packed position -> tricks * 2 + exact (made in compiled code: cached, no compile per run)."""
    return Dict.empty(key_type=KEY, value_type=types.int64)


@_jit()
def new_bounds():
    """A transposition memory of trick starts: packed position -> (proved lower bound, upper bound)."""
    return Dict.empty(key_type=KEY, value_type=PAIR)


def new_table() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One claim's line memory: keys, values and the claim number that wrote each slot."""
    return (np.zeros((TABLE_SIZE, 4), np.int64), np.zeros(TABLE_SIZE, np.int64), np.zeros(TABLE_SIZE, np.int64))


@_jit(inline="always")
def pop(x):
    return _POP13[x & 8191] + _POP13[(x >> 13) & 8191] + _POP13[(x >> 26) & 8191] + _POP13[(x >> 39) & 8191]


if leading_zeros is not None:
    @_jit(inline="always")
    def top(x):
        """Index of the highest set bit (x's bit_length - 1); -1 for 0."""
        return 63 - leading_zeros(x) if x else -1

    @_jit(inline="always")
    def low(x):
        """Index of the lowest set bit of x > 0."""
        return trailing_zeros(x)
else:
    @_jit()
    def top(x):
        """Index of the highest set bit (x's bit_length - 1); -1 for 0."""
        t = -1
        while x:
            x >>= 1
            t += 1
        return t

    @_jit()
    def low(x):
        """Index of the lowest set bit of x > 0."""
        return top(x & -x)


@_jit()
def capacity(pool, suit, n_self, void_self, void_other):
    """Most cards of ``suit`` one opponent can hold: none if void, else the pool's cards of the suit up to its hand
    size less the cards it must hold in the suits its partner has shown out of."""
    if void_self >> suit & 1:
        return 0
    forced = 0
    for s in range(4):
        if s != suit and void_other >> s & 1:
            forced += pop(pool & _SUIT[s])
    return max(0, min(pop(pool & _SUIT[suit]), n_self - forced))


@_jit()
def min_len(pool, suit, nx, ny, vx, vy):
    """The CD vector's M: the fewest cards of ``suit`` either opponent must hold."""
    n = pop(pool & _SUIT[suit])
    cap_x = capacity(pool, suit, nx, vx, vy)
    cap_y = capacity(pool, suit, ny, vy, vx)
    return min(max(0, n - cap_y), max(0, n - cap_x))


@_jit()
def feasible(pool, nx, ny, vx, vy):
    """Is there a split of ``pool`` giving the two opponents nx and ny cards within their voids?"""
    if not vx | vy:
        return True
    both = vx & vy
    forced_y = 0
    forced_x = 0
    for s in range(4):
        bits = pool & _SUIT[s]
        if not bits:
            continue
        if both >> s & 1:
            return False
        if vx >> s & 1:
            forced_y += pop(bits)
        elif vy >> s & 1:
            forced_x += pop(bits)
    return forced_x <= nx and forced_y <= ny


@_jit()
def runs(cards, live, out):
    """One card (the lowest) of each run of ``cards`` (cards of one suit with no other ``live`` card between), lowest
    first, into ``out``; returns how many."""
    n = 0
    rest = cards
    while rest:
        bit = rest & -rest
        c = low(bit)
        rest ^= bit
        below = live & (bit - 1) & _SUIT[c // 13]
        if not below or not (cards >> top(below)) & 1:
            out[n] = c
            n += 1
    return n


@_jit()
def _sort_desc(cards, keys, extra, n):
    """Stable sort of the first ``n`` cards by ``keys``, highest first (Python's ``sorted(reverse=True)``);
    ``extra`` moves with them."""
    for i in range(1, n):
        c, k, e = cards[i], keys[i], extra[i]
        j = i - 1
        while j >= 0 and keys[j] < k:
            cards[j + 1], keys[j + 1], extra[j + 1] = cards[j], keys[j], extra[j]
            j -= 1
        cards[j + 1], keys[j + 1], extra[j + 1] = c, k, e


@_jit()
def _replies(hand, suit, led, trump, out):
    """Partner's plays worth trying in a sure trick: following, the lowest card and the lowest and highest that beat
    the card led (to take the lead over, or unblock); discarding, the lowest card of each suit (and the highest
    trump, which may ruff)."""
    follow = hand & _SUIT[suit]
    n = 0
    if follow:
        first = low(follow)
        out[0] = first
        n = 1
        above = follow & ~((np.int64(1) << (led + 1)) - 1)
        if above:
            lo, hi = low(above), top(above)
            if lo > out[n - 1]:
                out[n] = lo
                n += 1
            if hi > out[n - 1]:
                out[n] = hi
                n += 1
        return n
    for s in range(4):
        bits = hand & _SUIT[s]
        if bits:
            out[n] = low(bits)
            n += 1
            if s == trump:
                out[n] = top(bits)
                n += 1
    return n


# -- the line of sure tricks ------------------------------------------------------------------------------------------
@_jit()
def line(a, b, pool, nx, ny, vx, vy, leader, side, trump, st, keys, vals, stamp):
    """The longest run of sure tricks the claiming side can cash from a trick start with the lead (see
    `combined_defender.CombinedDefender.line`). A fresh line memory per claim."""
    if leader % 2 != side:
        return 0
    lows = 0
    for s in range(4):
        lows |= pop(pool & _SUIT[s]) << (4 * s)
    st[LINE_NODES] = 0
    st[GEN] += 1
    return _line(a, b, pool, lows, nx, ny, vx, vy, leader, side, trump, st, keys, vals, stamp)


@_jit(int64(*(int64,) * 11, _VEC, *_TABLE))
def _line(a, b, high, lows, nx, ny, vx, vy, leader, side, trump, st, keys, vals, stamp):
    """``high``: the pool cards that may still be out (only surely played ones removed); ``lows``: per suit (4 bits
    each), the fewest cards the opponents may still hold."""
    k3 = lows | nx << 16 | ny << 20 | (vx | vy << 4) << 24 | leader << 32
    h = (a * 0x9E3779B1 + b * 0x85EBCA77 + high * 0xC2B2AE3D + k3 * 0x27D4EB2F) & 0x7FFFFFFFFFFFFFFF
    slot = (h ^ (h >> 29)) & (TABLE_SIZE - 1)
    gen = st[GEN]
    while stamp[slot] == gen:
        if keys[slot, 0] == a and keys[slot, 1] == b and keys[slot, 2] == high and keys[slot, 3] == k3:
            return vals[slot]
        slot = (slot + 1) & (TABLE_SIZE - 1)
    st[LINE_NODES] += 1
    if st[LINE_NODES] > LINE_BUDGET:
        return 0  # the lines tried so far stand: still a sure-trick line, perhaps not the longest
    if leader == side:
        lead_hand, other = a, b
    else:
        lead_hand, other = b, a
    partner = (leader + 2) % 4
    live = a | b | high
    high_trumps = high & _SUIT[trump] if trump >= 0 else 0
    best = 0
    left = pop(lead_hand)
    leads = np.empty(13, np.int64)
    replies = np.empty(8, np.int64)
    for i in range(runs(lead_hand, live, leads)):
        if best == left:
            break  # every trick left is sure
        card = leads[i]
        s = card // 13
        n_s = (lows >> (4 * s)) & 15
        # the fewest cards of the suit each opponent must still hold (from the fewest cards left)
        cap_x = 0 if vx >> s & 1 else min(n_s, nx)
        cap_y = 0 if vy >> s & 1 else min(n_s, ny)
        must_x, must_y = n_s - cap_y >= 1, n_s - cap_x >= 1
        out = high & _SUIT[s]
        # the opponents' plays: those that must follow play their lowest cards of the suit
        forced = int(must_x) + int(must_y)
        rest = high
        for _ in range(min(forced, pop(out))):
            bits = rest & _SUIT[s]
            rest ^= bits & -bits
        new_lows = 0
        for t in range(4):
            n_t = (lows >> (4 * t)) & 15
            new_lows |= max(0, n_t - (2 if t == s else 2 - forced)) << (4 * t)
        both_follow = must_x and must_y
        out_top = top(out)
        for j in range(_replies(other, s, card, trump, replies)):
            reply = replies[j]
            win_card, win_seat = card, leader
            if reply // 13 == s and reply > card or (trump >= 0 and reply // 13 == trump and trump != s):
                win_card, win_seat = reply, partner
            if win_card // 13 == s:
                if out_top > win_card:
                    continue  # an opponent may hold a higher card of the suit
                if trump >= 0 and s != trump and high_trumps and not both_follow:
                    continue  # an opponent may be void and ruff
            elif not both_follow and high_trumps and top(high_trumps) > win_card:
                continue  # partner ruffed: an opponent void too could overruff
            if leader == side:
                na, nb = a & ~(np.int64(1) << card), b & ~(np.int64(1) << reply)
            else:
                na, nb = a & ~(np.int64(1) << reply), b & ~(np.int64(1) << card)
            value = 1 + _line(na, nb, rest, new_lows, nx - 1, ny - 1, vx, vy, win_seat, side, trump, st, keys, vals,
                              stamp)
            if value > best:
                best = value
    while stamp[slot] == gen:  # the recursion may have filled the slot found above
        slot = (slot + 1) & (TABLE_SIZE - 1)
    keys[slot, 0], keys[slot, 1], keys[slot, 2], keys[slot, 3] = a, b, high, k3
    vals[slot] = best
    stamp[slot] = gen
    return best


# -- bounds -----------------------------------------------------------------------------------------------------------
@_jit()
def quick(a, b, pool, nx, ny, vx, vy, leader, side, trump):
    """Sure tricks when the claiming side is on lead: the leader's top run in each suit (cards above every other
    live card of the suit), all of it in notrump, in trumps and when the pool holds no trump, else as many rounds as
    both opponents must follow (the CD vector's M)."""
    if leader % 2 != side:
        return 0
    hand = a if leader == side else b
    live = a | b | pool
    pool_trumps = trump >= 0 and pool & _SUIT[trump] != 0
    sure = 0
    for s in range(4):
        bits = live & _SUIT[s]
        run = 0
        while bits:
            t = top(bits)
            if not hand >> t & 1:
                break
            run += 1
            bits ^= np.int64(1) << t
        if run and pool_trumps and s != trump:
            run = min(run, min_len(pool, s, nx, ny, vx, vy))
        sure += run
    return sure


@_jit()
def cap(a, b, pool, nx, ny, vx, vy, leader, side, trump):
    """Most tricks the claiming side can still take: all of them unless an opponent is on lead, when the
    adversary's top run in one suit (pool cards above every card of the claiming side in it, as many as the leader
    could hold, and in a trump contract no more rounds than each hand of the claiming side holding trumps can
    follow) is lost for sure."""
    left = (pop(a) + pop(b) + pop(pool)) // 4
    if leader % 2 == side:
        return left
    if leader == (side + 1) % 4:
        n_self, v_self, v_other = nx, vx, vy
    else:
        n_self, v_self, v_other = ny, vy, vx
    ours = a | b
    best = 0
    for s in range(4):
        bits = pool & _SUIT[s]
        if not bits or v_self >> s & 1:
            continue
        top_ours = top(ours & _SUIT[s])
        run = 0
        while bits:
            t = top(bits)
            if t < top_ours:
                break
            run += 1
            bits ^= np.int64(1) << t
        if not run:
            continue
        run = min(run, capacity(pool, s, n_self, v_self, v_other))
        if trump >= 0 and s != trump:
            if a & _SUIT[trump]:
                run = min(run, pop(a & _SUIT[s]))
            if b & _SUIT[trump]:
                run = min(run, pop(b & _SUIT[s]))
        best = max(best, run)
    return left - best


# -- the search against the pooled adversary --------------------------------------------------------------------------
@_jit(int64(*(int64,) * 17, _BOUNDS, _VEC))
def search(a, b, pool, nx, ny, vx, vy, leader, t0, t1, t2, nt, k, side, strain, trump, budget, bounds, st):
    """Can the claiming side take at least ``k`` more tricks (the one in progress included)? 1, 0, or -1 when the
    node budget ran out."""
    if k <= 0:
        return 1
    left = (pop(a) + pop(b) + pop(pool) + nt) // 4
    if k > left:
        return 0
    st[NODES] += 1
    if st[NODES] > budget:
        return -1
    key = (a, b, pool, nx | ny << 4 | vx << 8 | vy << 12 | leader << 16)
    if nt == 0:
        if key in bounds:
            lo, hi = bounds[key]
            if k <= lo:
                return 1
            if k > hi:
                return 0
        if k <= quick(a, b, pool, nx, ny, vx, vy, leader, side, trump):
            return 1
        if k > cap(a, b, pool, nx, ny, vx, vy, leader, side, trump):
            return 0
    seat = (leader + nt) % 4
    led = t0 // 13 if nt else -1
    live = a | b | pool
    if nt > 0:
        live |= np.int64(1) << t0
    if nt > 1:
        live |= np.int64(1) << t1
    if nt > 2:
        live |= np.int64(1) << t2
    moves = np.empty(26, np.int64)
    order = np.empty(26, np.int64)
    shown = np.zeros(26, np.int64)
    own = seat % 2 == side
    first = seat == (side + 1) % 4
    if own:
        hand = a if seat == side else b
        legal = hand & _SUIT[led] if led >= 0 and hand & _SUIT[led] else hand
        n = runs(legal, live, moves)
        for i in range(n):  # lead high cards first; following, cards of the suit led or trumps, high first
            c = moves[i]
            order[i] = c % 13 if led < 0 else (c // 13 == led or c // 13 == trump) * 16 + c % 13
    else:
        n_self, v_self = (nx, vx) if first else (ny, vy)
        found = runs(pool, live, moves)
        n = 0
        for i in range(found):
            c = moves[i]
            s = c // 13
            if v_self >> s & 1:
                continue
            voids = v_self if led < 0 or s == led else v_self | (1 << led)
            rest = pool & ~(np.int64(1) << c)
            if first:
                ok = feasible(rest, nx - 1, ny, voids, vy)
            else:
                ok = feasible(rest, nx, ny - 1, vx, voids)
            if ok:
                moves[n] = c
                shown[n] = voids
                # strongest first: a trump or a high card of the suit led refutes soonest
                if led >= 0 and s != led:
                    order[n] = (1 if s == trump else -1) * 16 + c % 13
                else:
                    order[n] = (1 if s == trump else 0) * 16 + c % 13
                n += 1
    _sort_desc(moves, order, shown, n)
    result = 0 if own else 1
    for i in range(n):
        card = moves[i]
        bit = np.int64(1) << card
        ca, cb, cp, cnx, cny, cvx, cvy = a, b, pool, nx, ny, vx, vy
        if own:
            if seat == side:
                ca = a & ~bit
            else:
                cb = b & ~bit
        else:
            cp = pool & ~bit
            if first:
                cnx, cvx = nx - 1, shown[i]
            else:
                cny, cvy = ny - 1, shown[i]
        if nt < 3:
            r = search(ca, cb, cp, cnx, cny, cvx, cvy, leader, card if nt == 0 else t0, card if nt == 1 else t1,
                       card if nt == 2 else t2, nt + 1, k, side, strain, trump, budget, bounds, st)
        else:
            winner = (leader + _winner((t0, t1, t2, card), strain)) % 4
            none = np.int64(0)  # not the literal 0: a typed recursive call (numba #6061)
            r = search(ca, cb, cp, cnx, cny, cvx, cvy, winner, none, none, none, none, k - (winner % 2 == side), side,
                       strain, trump, budget, bounds, st)
        if r < 0:
            return r
        if own and r == 1 or not own and r == 0:
            result = r
            break
    if nt == 0:
        lo, hi = bounds[key] if key in bounds else (0, left)
        if result:
            lo = max(lo, k)
        else:
            hi = min(hi, k - 1)
        bounds[key] = (lo, hi)
    return result


@_jit()
def value(a, b, pool, nx, ny, vx, vy, leader, t0, t1, t2, nt, side, strain, trump, budget, values, bounds, st,
          keys, vals, stamp):
    """Tricks the claiming side can guarantee from now (the trick in progress included) * 2 + 1 if exact: the line,
    then the search raising it one trick at a time until refuted, proved at the cap, or out of budget."""
    key = (a, b, pool, nx | ny << 4 | vx << 8 | vy << 12 | leader << 16 | nt << 18 | t0 << 20 | t1 << 26 | t2 << 32)
    if key in values:
        return values[key]
    st[CALLS] += 1
    left = (pop(a) + pop(b) + pop(pool) + nt) // 4
    best = line(a, b, pool, nx, ny, vx, vy, leader, side, trump, st, keys, vals, stamp) if nt == 0 else 0
    most = cap(a, b, pool, nx, ny, vx, vy, leader, side, trump) if nt == 0 else left
    st[NODES] = 0
    exact = best >= most
    if budget > 0:
        exact = True
        while best < most:
            r = search(a, b, pool, nx, ny, vx, vy, leader, t0, t1, t2, nt, best + 1, side, strain, trump, budget,
                       bounds, st)
            if r < 0:
                exact = False
                break
            if r == 0:
                break
            best += 1
    st[INEXACT] += not exact
    packed = best * 2 + exact
    values[key] = packed
    return packed


# -- the information score --------------------------------------------------------------------------------------------
@_jit(float64(_VEC, *(int64,) * 3, _VEC, *(int64,) * 5, _VALUES, _BOUNDS, _VEC, *_TABLE, float64, float64))
def _complete(hands, v0, v1, leader, trick, nt, side, strain, trump, budget, values, bounds, st, keys, vals, stamp,
              alpha, beta):
    """Minimax over the rest of the trick with alpha-beta cuts (the declaring side maximising), valued at its end by
    the declaring side's combined-defender claim plus the trick if it won it."""
    if nt == 4:
        winner = (leader + _winner((trick[0], trick[1], trick[2], trick[3]), strain)) % 4
        x, y = (side + 1) % 4, (side + 3) % 4
        packed = value(hands[side], hands[(side + 2) % 4], hands[x] | hands[y], pop(hands[x]), pop(hands[y]), v0, v1,
                       winner, 0, 0, 0, 0, side, strain, trump, budget, values, bounds, st, keys, vals, stamp)
        return float((packed >> 1) + (winner % 2 == side))
    seat = (leader + nt) % 4
    led = trick[0] // 13
    hand = hands[seat]
    legal = hand & _SUIT[led] if hand & _SUIT[led] else hand
    live = hands[0] | hands[1] | hands[2] | hands[3]
    for i in range(nt):
        live |= np.int64(1) << trick[i]
    maximise = seat % 2 == side
    # equal cards of one hand give the same trick: one of each run, trumps and high cards first
    cards = np.empty(13, np.int64)
    order = np.empty(13, np.int64)
    spare = np.empty(13, np.int64)
    n = runs(legal, live, cards)
    for i in range(n):
        c = cards[i]
        order[i] = (c // 13 == trump) * 32 + (c // 13 == led) * 16 + c % 13
    _sort_desc(cards, order, spare, n)
    best = -1.0 if maximise else 99.0
    for i in range(n):
        card = cards[i]
        child = hands.copy()
        child[seat] = hand & ~(np.int64(1) << card)
        c0, c1 = v0, v1
        if not maximise and card // 13 != led:
            if seat == (side + 1) % 4:
                c0 = v0 | 1 << led
            else:
                c1 = v1 | 1 << led
        played = trick.copy()
        played[nt] = card
        v = _complete(child, c0, c1, leader, played, nt + 1, side, strain, trump, budget, values, bounds, st, keys,
                      vals, stamp, alpha, beta)
        if maximise:
            best = max(best, v)
            alpha = max(alpha, v)
        else:
            best = min(best, v)
            beta = min(beta, v)
        if alpha >= beta:
            break
    return best


@_jit()
def information_scores(worlds, v0, v1, leader, trick, cards, side, strain, trump, budget, values, bounds, st, keys,
                       vals, stamp):
    """float[worlds, cards]: for each world (int64[w, 4] remaining hands) and candidate card, the one-trick minimax
    after playing the card (``trick``: the cards already in the trick, led by ``leader``; ``v0, v1`` the shown voids
    of seats side + 1 and side + 3)."""
    nt = len(trick)
    out = np.zeros((len(worlds), len(cards)))
    seat = (leader + nt) % 4
    for w in range(len(worlds)):
        for j in range(len(cards)):
            card = cards[j]
            led = trick[0] // 13 if nt else card // 13
            c0, c1 = v0, v1
            if seat % 2 != side and card // 13 != led:
                if seat == (side + 1) % 4:
                    c0 = v0 | 1 << led
                else:
                    c1 = v1 | 1 << led
            hands = worlds[w].copy()
            hands[seat] &= ~(np.int64(1) << card)
            played = np.zeros(4, np.int64)
            played[:nt] = trick
            played[nt] = card
            out[w, j] = _complete(hands, c0, c1, leader, played, nt + 1, side, strain, trump, budget, values, bounds,
                                  st, keys, vals, stamp, -1.0, 14.0)
    return out
