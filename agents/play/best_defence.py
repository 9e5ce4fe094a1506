"""The best-defence model of Frank & Basin ("Search in games with incomplete information: a case study using bridge
card play", AI 1998), solved exactly for small endings: the reference a sampling player is measured against.

The declaring side (declarer, who also plays dummy's cards) must choose one strategy for all the worlds it cannot
tell apart; the defence knows the world (and the strategy) and plays its best against it. The value of a root card
is the largest share of the worlds consistent with the view (all of them, each counted once: uniform) that one
declarer strategy starting with that card wins. No strategy fusion: at a node of the declaring side the same card is
played in every world still possible; at a defender's node each world takes its own worst case.

The search is exhaustive strategy minimisation over the ending: a node returns every outcome vector (a bitmask
over worlds: bit w set = the declaring side reaches ``need`` tricks in world w) that some strategy of the declaring
side achieves from there, less the dominated ones; a defender's node combines one vector of each of its children
world by world (each world takes the minimum over the cards the defender holds there). Positions repeat with the same
worlds and are solved once. It is written independently of `bridgerl.agents.play.alphamu` (which searches the same model
with cuts and a depth limit), so each checks the other.
"""

from __future__ import annotations

import numpy as np

from bridgerl.core.play import cards_of, legal_mask, mask_of, trick_winner
from bridgerl.envs import PlayerView, sample_worlds

MAX_TRICKS_LEFT = 4
MAX_WORLDS = 400


def _maximal(vectors) -> list[int]:
    """The vectors no other vector covers (each once): an outcome covered by another is never needed."""
    kept: list[int] = []
    for vector in sorted(set(vectors), key=lambda v: -v.bit_count()):
        if not any(vector & ~other == 0 for other in kept):
            kept.append(vector)
    return kept


class _Ending:
    """One search: the worlds, the hands of the declaring side (known) and of the defenders (per world)."""

    def __init__(self, view: PlayerView, worlds: np.ndarray, need: int):
        self.strain = view.contract.strain
        self.declaring = view.declarer % 2
        self.need = need
        self.worlds = worlds
        self.all = (1 << len(worlds)) - 1
        # each seat's original cards in each world: the declaring side's are the same in all worlds
        self.holdings = [[mask_of(np.flatnonzero(world == seat)) for seat in range(4)] for world in worlds]
        self.table: dict = {}

    def world_bits(self, valid: int):
        w = 0
        while valid:
            if valid & 1:
                yield w
            valid >>= 1
            w += 1

    def solve(self, played: int, leader: int, trick: tuple[int, ...], won: int, tricks_left: int,
              valid: int) -> list[int]:
        """Outcome vectors the declaring side can force from this position over the worlds ``valid``."""
        if won >= self.need:
            return [valid]
        if won + tricks_left < self.need:
            return [0]
        key = (played, leader, trick, won, valid)
        found = self.table.get(key)
        if found is not None:
            return found
        seat = (leader + len(trick)) % 4
        led = trick[0] // 13 if trick else None
        first = next(self.world_bits(valid))
        if seat % 2 == self.declaring:
            hand = self.holdings[first][seat] & ~played
            result = []
            for card in cards_of(legal_mask(hand, led)):
                result += self._child(played, leader, trick, won, tricks_left, valid, card)
            result = _maximal(result)
        else:
            by_card: dict[int, int] = {}
            for w in self.world_bits(valid):
                for card in cards_of(legal_mask(self.holdings[w][seat] & ~played, led)):
                    by_card[card] = by_card.get(card, 0) | (1 << w)
            result = [valid]
            for card, worlds in by_card.items():  # each world: the worst of the cards its defender holds
                child = self._child(played, leader, trick, won, tricks_left, worlds, card)
                result = _maximal(a & (v | ~worlds) for a in result for v in child)
        self.table[key] = result
        return result

    def _child(self, played, leader, trick, won, tricks_left, valid, card) -> list[int]:
        trick = trick + (card,)
        played |= 1 << card
        if len(trick) < 4:
            return self.solve(played, leader, trick, won, tricks_left, valid)
        winner = trick_winner(leader, trick, self.strain)
        return self.solve(played, winner, (), won + (winner % 2 == self.declaring), tricks_left - 1, valid)


def random_endings(data="test", count: int | None = None, seed: int = 1, rows=None, tricks_left=(2, 3)):
    """Declaring-side decisions in small endings, for checking and timing the exact search: each row of ``data``
    (3NT by South on odd rows, 4S by South on even rows) played with random legal cards until ``tricks_left``
    (drawn from the range) tricks remain and the declaring side chooses. Yields `PlayerView`s, ``count`` at most."""
    from bridgerl.core import Contract, load_dataset
    from bridgerl.core.play import PlayState
    from bridgerl.envs import view_of

    dataset = load_dataset(data)
    rng = np.random.default_rng(seed)
    low, high = tricks_left
    for row in (range(len(dataset)) if rows is None else rows):
        if row >= len(dataset):
            return
        contract = Contract(3, 4, 0, 2) if row % 2 else Contract(4, 3, 0, 2)
        state = PlayState.start(dataset.owner[row], contract)
        left = int(rng.integers(low, high + 1))
        while not state.is_over and (len(state.tricks) < 13 - left or state.controller % 2 != 0):
            state = state.play(int(rng.choice(state.legal_cards())))
        if state.is_over:
            continue
        yield view_of(state)
        if count is not None:
            count -= 1
            if count == 0:
                return


def best_defence_values(view: PlayerView, need: int | None = None, max_worlds: int = MAX_WORLDS) -> dict[int, float]:
    """For the declaring side's player to act in ``view``: each legal card -> the largest share of the worlds
    consistent with the view (all of them, uniform) that one strategy of the declaring side starting with that card
    wins against a defence that knows the world. ``need``: the tricks to take from now on (default: what the
    contract still needs). Refuses (ValueError naming the limit) a defender to act, more than
    ``MAX_TRICKS_LEFT`` tricks to play, or more than ``max_worlds`` consistent worlds."""
    if not view.is_declaring_side:
        raise ValueError(f"best_defence_values: {'NESW'[view.player]} defends; the best-defence model values the "
                         f"declaring side's cards")
    tricks_left = 13 - len(view.tricks)
    if tricks_left > MAX_TRICKS_LEFT:
        raise ValueError(f"best_defence_values: {tricks_left} tricks left; the exact search takes at most "
                         f"{MAX_TRICKS_LEFT}")
    worlds = sample_worlds(view, max_worlds + 1, seed=0)  # every consistent layout when there are few enough
    if len(worlds) > max_worlds:
        raise ValueError(f"best_defence_values: more than {max_worlds} worlds are consistent with the view "
                         f"(the limit of the exact search)")
    need = view.contract.tricks_needed - view.declarer_tricks if need is None else int(need)
    search = _Ending(view, worlds, need)
    played = mask_of(c for t in view.all_tricks() for c in t.cards)
    trick = tuple(view.current_trick.cards)
    won = 0  # tricks won from now on; the trick in progress counts when it completes
    values = {}
    for card in view.legal:
        vectors = search._child(played, view.current_trick.leader, trick, won, tricks_left, search.all, card)
        values[int(card)] = max(v.bit_count() for v in vectors) / len(worlds)
    return values


__all__ = ["best_defence_values", "random_endings", "MAX_TRICKS_LEFT", "MAX_WORLDS"]
