"""Card-location inference (seed 003, issue #20): where are the cards the player to act cannot see?

From the chooser's view (its own cards, dummy's once shown, the auction, every card played and by whom, the voids
that shows, the contract) a network gives, for each unseen card, the probability of each hidden seat. Seats are
relative to the chooser: 1 left-hand opponent, 2 partner, 3 right-hand opponent. A card may sit only with a seat
that is hidden (not the chooser, not dummy once shown), has cards left and has not shown out of its suit: the
*hard constraints*, applied as a mask to the network's logits (`allowed`).

The *uniform prior* (`uniform_prior`) is the exact probability of each card's seat when every layout consistent
with the hard constraints (the hidden seats' card counts and shown voids; no auction ranges) is equally likely:
counted over the splits of each suit, not estimated by sampling.

Features (`encode`, `FEATURES` values of 0/1, int8): own remaining cards (52), dummy's remaining cards once shown
(52), the cards each relative seat has played (4 x 52), the cards of the trick in progress (52), the voids each
relative seat has shown (4 x 4), declarer's relative seat (4), strain (5), level (7), penalty (3), whether the card
is played from dummy (1), and the chooser's competitive auction observation (231: the auction and its own hand, as
the bidders read it).
"""

from __future__ import annotations

import functools
from math import comb

import numpy as np

from bridgerl.core.competitive import OBSERVATION_SIZE as AUCTION_BITS
from bridgerl.core.bridge import auction_bits
from bridgerl.core.board import is_vulnerable

HIDDEN = 3
"""Output seats per card: relative seats 1, 2, 3."""
FEATURES = 52 + 52 + 4 * 52 + 52 + 16 + 4 + 4 + 5 + 7 + 3 + 1 + AUCTION_BITS
_SUIT_OF = np.arange(52) // 13


def encode(player, seat, dealer, contract, own, dummy, dummy_shown, history, history_seat, auction_bits):
    """Batched features and hard constraints of P positions, each from the chooser's view.

    ``player`` int[P]: the seat choosing; ``seat`` int[P]: the hand it plays from; ``dealer`` int[P] (the
    auction's first seat); ``contract`` int[P, 4]: level,
    strain, penalty, declarer; ``own``, ``dummy`` bool[P, 52]: the chooser's and dummy's remaining cards (dummy's
    ignored where ``dummy_shown`` is False); ``history`` int[P, 52]: the cards played in order, -1 after the last;
    ``history_seat`` int[P, 52]: the seat that played each; ``auction_bits`` int8[P, 231].

    Returns (features int8[P, FEATURES], allowed bool[P, 52, 3], counts int[P, 3]: the cards left with relative
    seats 1-3, 0 for a seat the chooser sees)."""
    player = np.asarray(player, np.int64)
    contract = np.asarray(contract, np.int64)
    own, dummy = np.asarray(own, bool), np.asarray(dummy, bool)
    shown = np.asarray(dummy_shown, bool)
    history, history_seat = np.asarray(history, np.int64), np.asarray(history_seat, np.int64)
    p = len(player)
    rows = np.arange(p)
    declarer = contract[:, 3]
    dummy_seat = (declarer + 2) % 4
    dummy = dummy & shown[:, None]
    played = history >= 0
    n_played = played.sum(1)
    card = np.where(played, history, 0)
    rel = (history_seat - player[:, None]) % 4
    by_seat = np.zeros((p, 4, 52), bool)
    r_idx, j_idx = np.nonzero(played)
    by_seat[r_idx, rel[r_idx, j_idx], card[r_idx, j_idx]] = True
    # the trick in progress: the last n_played % 4 cards
    in_trick = played & (np.arange(52)[None, :] >= (n_played - n_played % 4)[:, None])
    trick_cards = np.zeros((p, 52), bool)
    r_idx, j_idx = np.nonzero(in_trick)
    trick_cards[r_idx, card[r_idx, j_idx]] = True
    # voids: a card off the suit led (the suit of the trick's first card)
    led = _SUIT_OF[card[:, (np.arange(52) // 4) * 4]]
    off = played & (_SUIT_OF[card] != led)
    voids = np.zeros((p, 4, 4), bool)
    r_idx, j_idx = np.nonzero(off)
    voids[r_idx, rel[r_idx, j_idx], led[r_idx, j_idx]] = True
    rel_declarer = (declarer - player) % 4
    rel_dummy = (dummy_seat - player) % 4
    on_dummy = np.asarray(seat, np.int64) == dummy_seat
    left = 13 - np.stack([((history_seat == s) & played).sum(1) for s in range(4)], 1)
    seats_abs = (player[:, None] + np.arange(1, 4)[None, :]) % 4
    counts = left[rows[:, None], seats_abs]
    visible = np.arange(1, 4)[None, :] == rel_dummy[:, None]
    counts = np.where(visible & shown[:, None], 0, counts)
    seen = own | dummy | by_seat.any(1)
    unseen = ~seen
    allowed = unseen[:, :, None] & (counts > 0)[:, None, :]
    void_rel = voids[:, 1:, :]  # [P, 3 rel seats, 4 suits]
    allowed &= ~np.transpose(void_rel[:, :, _SUIT_OF], (0, 2, 1))
    one_hot = np.zeros((p, 4 + 4 + 5 + 7 + 3), bool)
    one_hot[rows, rel_declarer] = True
    one_hot[rows, 4 + (np.asarray(dealer, np.int64) - player) % 4] = True
    one_hot[rows, 8 + contract[:, 1]] = True
    one_hot[rows, 13 + contract[:, 0] - 1] = True
    one_hot[rows, 20 + contract[:, 2]] = True
    x = np.concatenate([own, dummy, by_seat.reshape(p, -1), trick_cards, voids.reshape(p, -1), one_hot,
                        on_dummy[:, None], np.asarray(auction_bits, bool)], 1).astype(np.int8)
    return x, allowed, counts


def uniform_prior(allowed: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """float[P, 52, 3]: the exact probability of each unseen card's relative seat when all layouts consistent with
    ``allowed`` (from `encode`: unseen, hidden, not void) and the seats' ``counts`` are equally likely; 0 where not
    allowed. A seat's share of a suit is counted over every split of every suit (multinomial weights)."""
    out = np.zeros(allowed.shape)
    for i in range(len(allowed)):
        suits = []
        for s in range(4):
            cards = allowed[i, 13 * s:13 * s + 13]
            unseen = cards.any(1)
            seats = tuple(int(r) for r in np.flatnonzero(cards[unseen].any(0))) if unseen.any() else ()
            suits.append((int(unseen.sum()), seats))
        shares = _suit_shares(tuple(suits), tuple(int(c) for c in counts[i]))
        for s in range(4):
            out[i, 13 * s:13 * s + 13] = shares[s]
    return np.where(allowed, out, 0.0)


@functools.lru_cache(maxsize=65536)
def _suit_shares(suits: tuple, counts: tuple[int, int, int]) -> np.ndarray:
    """float[4, 3]: the probability that one unseen card of each suit is with each seat, from the suits'
    (unseen cards, seats allowed) and the seats' counts (positions repeat these often: remembered)."""
    if sum(n for n, _ in suits) != sum(counts):
        raise ValueError(f"no layout fits these counts and voids: {sum(counts)} cards to place, "
                         f"{sum(n for n, _ in suits)} cards with a seat they may be with")
    out = np.zeros((4, HIDDEN))

    def splits(n: int, seats: tuple[int, ...]):
        """(cards to each seat, ways) for n cards of one suit over the seats allowed."""
        if not seats:
            if n == 0:
                yield (0, 0, 0), 1
            return
        if len(seats) == 1:
            k = [0, 0, 0]
            k[seats[0]] = n
            yield tuple(k), 1
            return
        first, rest = seats[0], seats[1:]
        for a in range(n + 1):
            for k, ways in splits(n - a, rest):
                k = list(k)
                k[first] = a
                yield tuple(k), ways * comb(n, a)

    options = [list(splits(n, seats)) for n, seats in suits]

    def ways_without(skip: int) -> dict:
        """Layouts of the other suits: remaining counts -> number of ways."""
        table = {(0, 0, 0): 1}
        for s in range(4):
            if s == skip:
                continue
            nxt: dict = {}
            for used, w in table.items():
                for k, ways in options[s]:
                    total = (used[0] + k[0], used[1] + k[1], used[2] + k[2])
                    if all(total[r] <= counts[r] for r in range(HIDDEN)):
                        nxt[total] = nxt.get(total, 0) + w * ways
            table = nxt
        return table

    for s in range(4):
        n, _ = suits[s]
        if n == 0:
            continue
        rest = ways_without(s)
        mass = np.zeros(HIDDEN)
        weight = 0
        for k, ways in options[s]:
            need = tuple(counts[r] - k[r] for r in range(HIDDEN))
            w = ways * rest.get(need, 0)
            weight += w
            mass += w * np.array(k, dtype=float)
        if weight == 0:
            raise ValueError("no layout fits these counts and voids")
        out[s] = mass / (weight * n)
    out.setflags(write=False)
    return out


def positions_inputs(positions, which=None):
    """`encode`'s inputs for positions of a `bridgerl.core.positions.Positions` file (all, or the indices
    ``which``), with the target: int[P, 52] the relative seat (0-2 for seats 1-3) of each card, -1 for cards the
    chooser sees."""
    from bridgerl.core.board import VULS
    from bridgerl.core.positions import auction_of, play_so_far

    pos, deals = positions.positions, positions.deals
    so_far = play_so_far(positions, which)
    index, d, step, owner = so_far["index"], so_far["deal"], so_far["step"], so_far["owner"]
    contract, history, history_seat, gone = (so_far[k] for k in ("contract", "history", "history_seat", "gone"))
    player = pos["player"][index].astype(np.int64)
    p = len(index)
    own = (owner == player[:, None]) & ~gone
    dummy = (owner == ((contract[:, 3] + 2) % 4)[:, None]) & ~gone
    shown = step >= 1
    bits = np.zeros((p, AUCTION_BITS), np.int8)
    cache: dict = {}
    for i in range(p):
        key = (int(d[i]), int(player[i]))
        if key not in cache:  # once per deal and chooser
            vul = VULS[int(deals["vul"][key[0]])]
            cache[key] = auction_bits(auction_of(positions, int(index[i])), is_vulnerable(vul, key[1]),
                                      is_vulnerable(vul, key[1] + 1), (owner[i] == key[1]).astype(np.int8))
        bits[i] = cache[key]
    target = np.where(gone | own | (dummy & shown[:, None]), -1, (owner - player[:, None]) % 4 - 1)
    return dict(player=player, seat=pos["seat"][index].astype(np.int64),
                dealer=deals["dealer"][d].astype(np.int64), contract=contract, own=own, dummy=dummy,
                dummy_shown=shown, history=history,
                history_seat=history_seat, auction_bits=bits), target


def view_inputs(view) -> dict:
    """`encode`'s inputs (a batch of one) for a `PlayerView` of a whole deal (its auction known)."""
    if view.auction is None:
        raise ValueError("card-location inference reads the auction: give a view of a whole deal (Bridge-v0, "
                         "evaluate game), not of a contract named without one")
    history = [c for t in view.all_tricks() for c in t.cards]
    seats = [s for t in view.all_tricks() for s in t.seats]
    own = np.zeros(52, bool)
    own[list(view.own_cards)] = True
    dummy = np.zeros(52, bool)
    if view.dummy_cards is not None:
        dummy[list(view.dummy_cards)] = True
    hand = own.copy()
    hand[view.played_by(view.player)] = True
    bits = auction_bits(view.auction, is_vulnerable(view.vul, view.player), is_vulnerable(view.vul, view.player + 1),
                        hand.astype(np.int8))
    c = view.contract
    pad = [-1] * (52 - len(history))
    return dict(player=[view.player], seat=[view.seat], dealer=[view.auction.dealer],
                contract=[(c.level, c.strain, c.penalty, c.declarer)],
                own=own[None],
                dummy=dummy[None], dummy_shown=[view.dummy_cards is not None], history=[history + pad],
                history_seat=[seats + pad], auction_bits=bits[None])


# -- the network ------------------------------------------------------------------------------------------------------
FORMAT = "bridgerl-card-location-1"
_NEG = -1e9  # the logit of a seat a card cannot be with (finite: 0 * it stays 0)


def build_network(hidden: tuple[int, ...], seed: int = 0):
    """The location network: the project's MLP (`networks.QNetwork`) from the features to 52 x 3 logits, its output
    layer zero at the start (so the untrained model is the uniform prior)."""
    import jax.numpy as jnp

    from bridgerl.agents.learned.networks import QNetwork

    network = QNetwork(FEATURES, tuple(hidden), 52 * HIDDEN, seed=seed)
    network.head.kernel[...] = jnp.zeros_like(network.head.kernel[...])  # starts as the uniform prior exactly
    return network


def masked_log_probs(logits, allowed, log_prior):
    """log P(seat | card) [..., 52, 3] from the network's logits [..., 156] added to the uniform prior's log
    (``log_prior``, `log_uniform_prior`): the network learns what the auction and the play say beyond the count of
    layouts, and with zero output it is the uniform prior. A softmax over the seats ``allowed`` for each card (0
    where a card has no allowed seat or the seat is not allowed)."""
    import jax
    import jax.numpy as jnp

    logits = logits.reshape(*logits.shape[:-1], 52, HIDDEN) + log_prior
    logits = jnp.where(allowed, logits, _NEG)
    return jnp.where(allowed, jax.nn.log_softmax(logits, -1), 0.0)


def log_uniform_prior(allowed: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """float32[P, 52, 3]: log of `uniform_prior`, 0 where a seat is not allowed (the network's offset)."""
    prior = uniform_prior(allowed, counts)
    with np.errstate(divide="ignore"):
        return np.where(allowed, np.log(np.where(allowed, prior, 1.0)), 0.0).astype(np.float32)


class LocationModel:
    """A trained location network: ``probabilities(inputs)`` -> float[P, 52, 3] for `encode`'s inputs
    (`view_inputs`, `positions_inputs`), 0 for cards the chooser sees and seats a card cannot be with."""

    def __init__(self, network, metadata: dict):
        import jax
        from flax import nnx

        self.metadata = dict(metadata)
        self.calls = 0  # network evaluations (batches), for the cost tables
        self.rows = 0  # positions evaluated
        graphdef, self._params = nnx.split(network)
        self._log_probs = jax.jit(lambda params, x, allowed, log_prior: masked_log_probs(
            nnx.merge(graphdef, params)(x), allowed, log_prior))

    @classmethod
    def load(cls, path) -> "LocationModel":
        """Load ``models/card-location`` (a directory holding model.msgpack, or the file); a checkpoint of another
        kind or for other features is refused in one line."""
        from bridgerl.agents.learned.checkpoint import load_network

        network, metadata = load_network(path, FORMAT, "card-location", FEATURES, build_network)
        return cls(network, metadata)

    def log_probabilities(self, x: np.ndarray, allowed: np.ndarray, counts: np.ndarray,
                          log_prior: np.ndarray | None = None, batch: int = 4096) -> np.ndarray:
        """float32[P, 52, 3] log-probabilities (0 where not allowed) for `encode`'s outputs; ``log_prior``
        (`log_uniform_prior`) when the caller has it."""
        from bridgerl.agents.learned.networks import apply_padded

        if log_prior is None:
            log_prior = log_uniform_prior(allowed, counts)
        out, batches = apply_padded(self._log_probs, self._params, (np.asarray(x, np.int8), np.asarray(allowed, bool),
                                                                     np.asarray(log_prior, np.float32)), batch)
        self.calls += batches
        self.rows += len(x)
        return out

    def probabilities(self, inputs: dict) -> np.ndarray:
        x, allowed, counts = encode(**inputs)
        return np.where(allowed, np.exp(self.log_probabilities(x, allowed, counts)), 0.0)


# -- worlds drawn from the model ---------------------------------------------------------------------------------------
def sample_located_worlds(view, model: LocationModel, n: int, rng: np.random.Generator, constraints=None,
                          max_tries: int = 200_000) -> np.ndarray:
    """uint8[k, 52]: worlds (owner arrays of the whole deal) drawn from ``model`` and consistent with ``view``.

    Cards only one hidden seat may hold (the others have shown out of the suit) go there; every other unseen card,
    in an order shuffled per world, goes to a seat drawn from the model's probabilities among the seats that may
    hold it and still have room. So every world keeps the known cards, the hidden seats' counts and the voids (the
    hard constraints); with a void shown only two seats are hidden, and any split of the cards both may hold fills
    them, so no draw can dead-end. ``constraints`` ({seat: HandConstraint}, e.g. auction ranges) and
    ``view.constraints`` are kept by rejection, in batches, until ``n`` worlds pass (k = n) or ``max_tries`` draws
    are spent (k < n); none passing raises `WorldSamplingError`. The draw is sequential, not an exact sample of
    the model's joint distribution (the network gives each card's marginal); worlds may repeat (PIMC solves each
    distinct one once)."""
    from bridgerl.envs import WorldSamplingError, known_owner

    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    inputs = view_inputs(view)
    x, allowed, counts = encode(**inputs)
    probs = np.where(allowed[0], np.exp(model.log_probabilities(x, allowed, counts)[0]), 0.0)
    allowed, counts = allowed[0], counts[0].astype(np.int64)
    seat_of = (view.player + 1 + np.arange(HIDDEN)) % 4
    seen = known_owner(view)
    known = np.where(seen < 0, 255, seen).astype(np.uint8)
    ways = allowed.sum(1)
    for card in np.flatnonzero(ways == 1):
        r = int(np.argmax(allowed[card]))
        known[card] = seat_of[r]
        counts[r] -= 1
    free = np.flatnonzero(ways > 1)
    constraints = {**dict(view.constraints), **dict(constraints or {})}

    def draw(size: int) -> np.ndarray:
        owners = np.tile(known, (size, 1))
        room = np.tile(counts, (size, 1))
        order = free[np.argsort(rng.random((size, len(free))), axis=1)]
        rows = np.arange(size)
        for step in range(len(free)):
            card = order[:, step]
            weight = probs[card] * (room > 0)
            fallback = allowed[card] & (room > 0)  # a seat the model gives (almost) nothing still takes it if needed
            weight = np.where(weight.sum(1, keepdims=True) > 0, weight, fallback)
            cumulative = np.cumsum(weight, 1)
            pick = np.minimum((rng.random(size)[:, None] * cumulative[:, -1:] >= cumulative).sum(1), HIDDEN - 1)
            owners[rows, card] = seat_of[pick]
            room[rows, pick] -= 1
        return owners

    if not constraints:
        return draw(n)
    found, tried = [], 0
    while sum(len(f) for f in found) < n and tried < max_tries:
        size = min(max(4 * n, 256), max_tries - tried)
        owners = draw(size)
        ok = np.ones(size, bool)
        for seat, constraint in constraints.items():
            ok &= np.asarray(constraint.accepts(owners, seat), bool)
        found.append(owners[ok])
        tried += size
    owners = np.concatenate(found)[:n]
    if len(owners) == 0:
        listed = ", ".join(f"{'NESW'[seat]}: {c}" for seat, c in constraints.items())
        raise WorldSamplingError(f"no world drawn from the card-location model meets the constraints ({listed}) "
                                 f"in {tried} draws")
    return owners


__all__ = ["FEATURES", "HIDDEN", "encode", "uniform_prior", "positions_inputs", "view_inputs", "LocationModel",
           "build_network", "masked_log_probs", "log_uniform_prior", "FORMAT", "sample_located_worlds"]
