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

import functools
from dataclasses import dataclass

import numpy as np

from bridgerl.core.cards import NT
from bridgerl.core.play import SUIT_BITS, mask_of
from bridgerl.envs import PlayerView

DEFAULT_BUDGET = 20_000
"""Search nodes per value before it settles for the tricks proved so far."""
DEFAULT_INFO_BUDGET = 0
"""The search budget of each value inside an information score (many per card and world): 0, the line of sure
tricks alone, the thesis' linear-time claim; more adds the full search (slower: `benchmarks/play_speed.py`)."""


def _kernels():
    """The compiled search (`_cd_search`), imported on first use: numba loads only when a search is made."""
    from bridgerl.agents.play import _cd_search

    return _cd_search


@functools.cache
def load_search() -> None:
    """Load the compiled search now (numba's cache, or a compile of some seconds in a fresh checkout) rather than
    inside the first timed decision. Once per process."""
    CombinedDefender(NT, 0, 0).value((1, 1 << 1), 1 << 2 | 1 << 3, (1, 1), (0, 0), 0)


@dataclass(frozen=True)
class CDVector:
    """The opponents' combined assets in one suit: ``high`` their highest card (-1 if none), ``max_len`` the most
    either could hold, ``min_len`` the fewest either must hold, ``count`` how many they hold together."""

    high: int
    max_len: int
    min_len: int
    count: int


def cd_vector(pool: int, counts: tuple[int, int], voids: tuple[int, int]) -> list[CDVector]:
    """Per suit (clubs first) the `CDVector` of a pool held by two opponents with ``counts`` cards and ``voids``
    (4-bit masks of the suits each has shown out of)."""
    k = _kernels()
    out = []
    for s in range(4):
        cards = pool & SUIT_BITS[s]
        cap = [int(k.capacity(pool, s, counts[i], voids[i], voids[1 - i])) for i in range(2)]
        out.append(CDVector(high=cards.bit_length() - 1 if cards else -1, max_len=max(cap),
                            min_len=int(k.min_len(pool, s, counts[0], counts[1], voids[0], voids[1])),
                            count=cards.bit_count()))
    return out


class CombinedDefender:
    """The search for one strain and one claiming side (0 = North-South, 1 = East-West). Positions are remembered
    across calls (keyed by the whole state), so one instance serves every world and candidate of a deal.

    ``value(hands, pool, counts, voids, leader, trick)``: ``hands`` the claiming side's remaining cards (masks) for
    its two seats, side first then side + 2; ``pool`` the opponents' remaining cards together; ``counts`` and
    ``voids`` of seat side + 1 and side + 3; ``trick`` the cards of the trick in progress (led by ``leader``).
    Returns (tricks the claiming side can guarantee from now, the trick in progress included; exact).

    The search itself is compiled (`bridgerl.agents.play._cd_search`); this object holds its memories: ``values`` (every
    value computed), ``bounds`` (proved bounds of trick starts inside the full search) and the counters ``calls``,
    ``inexact`` and ``nodes`` (of the last value)."""

    def __init__(self, strain: int, side: int, budget: int = DEFAULT_BUDGET):
        if budget < 0:
            raise ValueError(f"budget must be 0 (the line of sure tricks only) or more, got {budget}")
        k = _kernels()
        self.strain = int(strain)
        self.trump = None if self.strain == NT else self.strain
        self.side = int(side) % 2
        self.budget = budget
        self.values = k.new_values()
        self.bounds = k.new_bounds()
        self.table = k.new_table()
        self.stats = np.zeros(5, np.int64)

    def __getstate__(self) -> dict:
        """Copies and pickles carry the memories as plain dicts (numba's typed dicts do not pickle)."""
        state = dict(self.__dict__)
        state["values"] = dict(self.values)
        state["bounds"] = dict(self.bounds)
        return state

    def __setstate__(self, state: dict) -> None:
        k = _kernels()
        values, bounds = k.new_values(), k.new_bounds()
        for key, value in state["values"].items():
            values[key] = value
        for key, value in state["bounds"].items():
            bounds[key] = value
        self.__dict__.update(state, values=values, bounds=bounds)

    nodes = property(lambda self: int(self.stats[_kernels().NODES]))
    calls = property(lambda self: int(self.stats[_kernels().CALLS]))
    inexact = property(lambda self: int(self.stats[_kernels().INEXACT]))

    @property
    def _args(self) -> tuple:
        return self.side, self.strain, -1 if self.trump is None else self.trump, self.budget

    def value(self, hands: tuple[int, int], pool: int, counts: tuple[int, int], voids: tuple[int, int], leader: int,
              trick: tuple[int, ...] = ()) -> tuple[int, bool]:
        ints = [int(x) for x in (hands[0], hands[1], pool, counts[0], counts[1], voids[0], voids[1], leader)]
        trick = tuple(int(c) for c in trick)
        _check_position(*ints, trick)
        t = trick + (0,) * (3 - len(trick))
        packed = _kernels().value(*ints, *t, len(trick), *self._args, self.values, self.bounds, self.stats,
                                  *self.table)
        return int(packed) >> 1, bool(packed & 1)

    def line(self, state: tuple) -> int:
        """The longest run of sure tricks the claiming side can cash from a trick start with the lead (``state``:
        hands of the side's two seats, pool, counts and voids of the two opponents, leader): a sequence of its own
        cards (leads, partner's plays, entries from one hand to the other, ruffs) each trick of which it wins
        against every layout and every card the opponents may play. Opponents are assumed to keep their highest
        cards (only the cards they must play leave the pool, the lowest first) and to throw any card they may when
        not forced to follow, so a winner of a plain suit in a trump contract counts only while both must still
        follow (M >= 1) or no trump can be left with them. At most `_cd_search.LINE_BUDGET` positions per claim."""
        ints = [int(x) for x in state]
        _check_position(*ints, ())
        side, _, trump, _ = self._args
        return int(_kernels().line(*ints, side, trump, self.stats, *self.table))


def _check_position(a: int, b: int, pool: int, nx: int, ny: int, vx: int, vy: int, leader: int, trick: tuple) -> None:
    """The compiled search trusts its input (fixed buffers, packed keys): a position that cannot occur is refused
    here, in one line."""
    problem = None
    if any(x < 0 or x >> 52 for x in (a, b, pool)) or a & b or (a | b) & pool:
        problem = "hands and pool must be disjoint 52-bit card masks"
    elif len(trick) > 3 or any(not 0 <= c < 52 or (a | b | pool) >> c & 1 for c in trick):
        problem = f"the trick in progress {trick} must be at most 3 cards, none of them still held"
    elif not (0 <= nx <= 13 and 0 <= ny <= 13 and nx + ny == pool.bit_count()):
        problem = f"the opponents' counts {nx}, {ny} must be 0-13 and add up to the pool's {pool.bit_count()} cards"
    elif not (0 <= vx < 16 and 0 <= vy < 16 and 0 <= leader < 4):
        problem = f"voids ({vx}, {vy}) must be 4-bit suit masks and the leader ({leader}) a seat 0-3"
    elif max(a.bit_count(), b.bit_count()) > 13 or (a.bit_count() + b.bit_count() + pool.bit_count() + len(trick)) % 4:
        problem = "the hands, pool and trick in progress do not make whole tricks of at most 13 cards a hand"
    if problem:
        raise ValueError(f"combined-defender position: {problem}")


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
        trick = np.array(view.current_trick.cards, np.int64)
        voids = (_void_bits(view.voids, side + 1), _void_bits(view.voids, (side + 3) % 4))
        owners = np.asarray(worlds)
        if owners.size == 0:
            return np.zeros((0, len(cards)))
        if owners.ndim != 2 or owners.shape[1] != 52:
            raise ValueError(f"worlds must be int[n, 52] (the seat of each card), got shape {owners.shape}")
        bits = np.int64(1) << np.arange(52, dtype=np.int64)
        hands = np.stack([np.where(owners == seat, bits, 0).sum(1) for seat in range(4)], 1) & ~np.int64(played)
        return _kernels().information_scores(hands.astype(np.int64), voids[0], voids[1], int(view.current_trick.leader),
                                             trick, np.array(cards, np.int64).reshape(-1), *search._args,
                                             search.values, search.bounds, search.stats, *search.table)


__all__ = ["CombinedDefender", "CDVector", "cd_vector", "declarer_claim", "InformationScore", "DEFAULT_BUDGET",
           "DEFAULT_INFO_BUDGET", "load_search"]
