"""Simulation reweighing (seed 004, issue #20): an incomplete-state solver network (ISSN) and a state solver
network (SSN).

**ISSN** (`PolicyModel`): what a player would play from its own view. Input: the card-location features of the
chooser's view (`learned.card_location.encode`: own cards, dummy's, the play by relative seat, the trick,
voids shown, contract, auction); output a probability for each legal card. Trained on positions files toward the
card each player actually chose (``target="recorded"``: an imitation of the players that made the file, e.g. PIMC)
or toward the cards best double dummy in the true deal (``target="dd"``, shared equally among them).

*Reweighing* (seed 004, equation 1): a sampled world ``s_i`` is as likely as the actions actually seen would have
been in it. `PolicyModel.world_log_weights` rebuilds, in each world, the view of every other player at each of
its last ``T`` choices (its own hand in that world, what it saw then, the auction with its own hand in that world)
and sums the ISSN's log-probabilities of the cards it chose: the world's weight is ``prod_j p(a_-j | s_i,-j)``.
The player's own earlier choices (and declarer's from dummy) are left out: its view is the same in every world,
so they weigh every world alike.

**SSN** (`SolverModel`): double dummy by a network. Input: the four remaining hands (relative to the hand to
play), the cards of the trick in progress by relative seat, the trump cards and the strain (`ssn_encode`);
output, for each card, the tricks the side to play takes from here after it (a share of the tricks left, so
always in range). Trained by
regression on the DD value of every legal move of positions files, with the side suits relabelled at random (an
exact symmetry of double-dummy play). A PIMC with ``solver="ssn"`` then runs with no DDS call.

The networks, their features and loaders live here (`bridgerl.agents.learned`); their losses in
`bridgerl.training.simulation`. (Until issue #52 all of it was `bridgerl.agents.play.simulation`, which re-exports
these names for one release.)
"""

from __future__ import annotations

import numpy as np

from bridgerl.agents.learned.card_location import FEATURES as VIEW_FEATURES
from bridgerl.agents.learned.card_location import encode
from bridgerl.core.bridge import auction_bits
from bridgerl.core.board import is_vulnerable
from bridgerl.core.competitive import HAND_OFFSET

ISSN_FORMAT = "bridgerl-issn-1"
SSN_FORMAT = "bridgerl-ssn-1"
SSN_FEATURES = 4 * 52 + 3 * 52 + 52 + 5
TARGETS = ("recorded", "dd")
DEFAULT_ISSN, DEFAULT_SSN, DEFAULT_T = "models/issn", "models/ssn", 3
"""Where the released ISSN and SSN live, and seed 004's number of past choices reweighed."""
_SUIT_OF = np.arange(52) // 13
_NEG = -1e9


# -- features -------------------------------------------------------------------------------------------------------
def legal_cards(hands: np.ndarray, led: np.ndarray) -> np.ndarray:
    """bool[P, 52]: the cards of ``hands`` bool[P, 52] that may be played to a trick led in suit ``led`` int[P]
    (-1: a new trick, any card): the cards of the suit led if the hand has one, else all."""
    follow = hands & (_SUIT_OF[None, :] == np.asarray(led)[:, None])
    return np.where(follow.any(1, keepdims=True), follow, hands)


def ssn_encode(hands: np.ndarray, to_play, leader, trick, strain) -> np.ndarray:
    """int8[P, SSN_FEATURES]: the SSN's features of P full-information positions.

    ``hands`` bool[P, 4, 52]: the remaining cards of N, E, S, W; ``to_play`` int[P]: the hand to play; ``leader``
    int[P]: the seat that led the trick in progress; ``trick`` int[P, 3]: its cards in order, -1 where none;
    ``strain`` int[P]. Blocks: the hands of the seat to play, its left-hand opponent, partner and right-hand
    opponent (4 x 52); the card each of LHO, partner and RHO has played to the trick (3 x 52); the trumps (52: the
    cards of the trump suit, none in notrump); the strain (5)."""
    hands = np.asarray(hands, bool)
    to_play, leader = np.asarray(to_play, np.int64), np.asarray(leader, np.int64)
    trick = np.asarray(trick, np.int64)
    p = len(hands)
    rows = np.arange(p)
    seats = (to_play[:, None] + np.arange(4)[None, :]) % 4
    relative = hands[rows[:, None], seats]  # [P, 4, 52]
    in_trick = np.zeros((p, 3, 52), bool)
    for j in range(3):
        has = trick[:, j] >= 0
        rel = (leader + j - to_play) % 4  # 1, 2 or 3 for a card already played
        in_trick[rows[has], rel[has] - 1, trick[has, j]] = True
    strain = np.asarray(strain, np.int64)
    strain_bits = np.zeros((p, 5), bool)
    strain_bits[rows, strain] = True
    trumps = _SUIT_OF[None, :] == strain[:, None]
    return np.concatenate([relative.reshape(p, -1), in_trick.reshape(p, -1), trumps, strain_bits],
                          1).astype(np.int8)


def _trick_of(history: np.ndarray, history_seat: np.ndarray, step: np.ndarray):
    """(leader int[P], trick int[P, 3]) of the trick in progress after ``step`` cards of ``history``."""
    p = len(step)
    start = step - step % 4
    trick = np.full((p, 3), -1, np.int64)
    for j in range(3):
        has = start + j < step
        trick[has, j] = history[np.flatnonzero(has), (start + j)[has]]
    leader = np.where(step % 4 > 0, history_seat[np.arange(p), np.minimum(start, 51)], -1)
    return leader, trick


def positions_ssn_inputs(positions, which=None):
    """(features int8[P, SSN_FEATURES], legal bool[P, 52], tricks left int[P], DD values float32[P, 52]) of a
    positions file (all positions, or the indices ``which``): the SSN's training examples."""
    from bridgerl.core.positions import play_so_far

    pos = positions.positions
    so_far = play_so_far(positions, which)
    index, step, owner, gone = so_far["index"], so_far["step"], so_far["owner"], so_far["gone"]
    history, history_seat = so_far["history"], so_far["history_seat"]
    hands = (owner[:, None, :] == np.arange(4)[None, :, None]) & ~gone[:, None, :]
    seat = pos["seat"][index].astype(np.int64)
    leader, trick = _trick_of(history, history_seat, step)
    leader = np.where(leader < 0, seat, leader)
    x = ssn_encode(hands, seat, leader, trick, so_far["contract"][:, 1])
    left = hands[np.arange(len(index)), seat].sum(1)
    return x, pos["legal"][index].astype(bool), left, pos["dd"][index].astype(np.float32)


def worlds_ssn_inputs(view, owners: np.ndarray):
    """(features, legal bool[k, 52], tricks left int[k]) of the view's position in each world (uint8[k, 52])."""
    owners = np.asarray(owners)
    played = np.zeros(52, bool)
    played[[c for t in view.all_tricks() for c in t.cards]] = True
    hands = (owners[:, None, :] == np.arange(4)[None, :, None]) & ~played[None, None, :]
    k = len(owners)
    cards = list(view.current_trick.cards)
    trick = np.array(cards + [-1] * (3 - len(cards)), np.int64)
    x = ssn_encode(hands, np.full(k, view.seat), np.full(k, view.current_trick.leader), np.tile(trick, (k, 1)),
                   np.full(k, view.contract.strain))
    led = _SUIT_OF[cards[0]] if cards else -1
    legal = legal_cards(hands[:, view.seat], np.full(k, led))
    return x, legal, hands[:, view.seat].sum(1)


def positions_issn_inputs(positions, target: str = "recorded", which=None):
    """(features int8[P, 635], legal bool[P, 52], target distribution float32[P, 52]) of a positions file: the
    chooser's view of each position and the card chosen (``recorded``) or the DD-best cards (``dd``)."""
    from bridgerl.agents.learned.card_location import positions_inputs

    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    pos = positions.positions
    index = np.arange(len(positions)) if which is None else np.asarray(which)
    inputs, _ = positions_inputs(positions, index)
    x, _, _ = encode(**inputs)
    legal = pos["legal"][index].astype(bool)
    if target == "recorded":
        dist = np.zeros((len(index), 52), np.float32)
        dist[np.arange(len(index)), pos["card"][index].astype(np.int64)] = 1.0
    else:
        dd = pos["dd"][index].astype(np.float32)
        best = legal & (dd == np.where(legal, dd, -1).max(1, keepdims=True))
        dist = best / best.sum(1, keepdims=True)
    return x, legal, dist.astype(np.float32)


def history_inputs(view, owners: np.ndarray, T: int):
    """The ISSN's inputs for the last ``T`` choices of the other players, rebuilt in each world.

    Returns (x int8[k * m, 635], legal bool[k * m, 52], chosen int[m]) with m <= T the choices found (newest
    first; world-major rows), or None when there is none (no card yet chosen by another player)."""
    if view.auction is None:
        raise ValueError("simulation reweighing reads the auction: give a view of a whole deal (Bridge-v0, evaluate "
                         "game), not of a contract named without one")
    cards = [c for t in view.all_tricks() for c in t.cards]
    seats = [s for t in view.all_tricks() for s in t.seats]
    dummy = view.dummy
    chooser = [view.declarer if s == dummy else s for s in seats]
    picked = [j for j in range(len(cards) - 1, -1, -1) if chooser[j] != view.player][:T]
    if not picked:
        return None
    owners = np.asarray(owners).astype(np.int64)
    k, m = len(owners), len(picked)
    c = view.contract
    vul = view.vul
    base = {}
    for q in {chooser[j] for j in picked}:
        base[q] = auction_bits(view.auction, is_vulnerable(vul, q), is_vulnerable(vul, q + 1), np.zeros(52, np.int8))
    hist = np.array(cards + [-1] * (52 - len(cards)), np.int64)
    hist_seat = np.array(seats + [-1] * (52 - len(seats)), np.int64)
    rows = {name: [] for name in ("player", "seat", "own", "dummy", "shown", "history", "history_seat", "bits",
                                  "legal")}
    for j in picked:
        q, s = chooser[j], seats[j]
        before = np.zeros(52, bool)
        before[cards[:j]] = True
        history = np.where(np.arange(52) < j, hist, -1)
        history_seat = np.where(np.arange(52) < j, hist_seat, -1)
        own = (owners == q) & ~before
        dummy_hand = (owners == dummy) & ~before
        bits = np.tile(base[q], (k, 1))
        bits[:, HAND_OFFSET:] = owners == q
        led = _SUIT_OF[cards[j - j % 4]] if j % 4 else -1
        rows["legal"].append(legal_cards((owners == s) & ~before, np.full(k, led)))
        rows["player"].append(np.full(k, q))
        rows["seat"].append(np.full(k, s))
        rows["own"].append(own)
        rows["dummy"].append(dummy_hand)
        rows["shown"].append(np.full(k, j >= 1))
        rows["history"].append(np.tile(history, (k, 1)))
        rows["history_seat"].append(np.tile(history_seat, (k, 1)))
        rows["bits"].append(bits)
    stack = {name: np.stack(v, 1).reshape(k * m, *np.shape(v[0])[1:]) for name, v in rows.items()}
    x, _, _ = encode(player=stack["player"], seat=stack["seat"], dealer=np.full(k * m, view.auction.dealer),
                     contract=np.tile([c.level, c.strain, c.penalty, c.declarer], (k * m, 1)), own=stack["own"],
                     dummy=stack["dummy"], dummy_shown=stack["shown"], history=stack["history"],
                     history_seat=stack["history_seat"], auction_bits=stack["bits"])
    return x, stack["legal"], np.array([cards[j] for j in picked], np.int64)


# -- the networks ---------------------------------------------------------------------------------------------------
def build_issn(hidden: tuple[int, ...], seed: int = 0):
    """The ISSN: the project's MLP (`networks.QNetwork`) from the 635 view features to 52 logits."""
    from bridgerl.agents.learned.networks import QNetwork

    return QNetwork(VIEW_FEATURES, tuple(hidden), 52, seed=seed)


def build_ssn(hidden: tuple[int, ...], seed: int = 0):
    """The SSN: the project's MLP from the 421 full-information features to 52 outputs (a share of the tricks left
    through a sigmoid, `ssn_values`)."""
    from bridgerl.agents.learned.networks import QNetwork

    return QNetwork(SSN_FEATURES, tuple(hidden), 52, seed=seed)


def policy_log_probs(logits, legal):
    """log-probabilities [..., 52] of the legal cards (a softmax over them; 0 elsewhere)."""
    import jax
    import jax.numpy as jnp

    return jnp.where(legal, jax.nn.log_softmax(jnp.where(legal, logits, _NEG), -1), 0.0)


def ssn_values(outputs, left):
    """Tricks [..., 52] of the side to play after each card: sigmoid(output) x tricks left (the trick in progress
    included)."""
    import jax

    return jax.nn.sigmoid(outputs) * left[..., None]


class _Model:
    """A trained network and a jitted forward pass; ``calls`` counts batches evaluated and ``rows`` the positions in
    them (for the cost tables)."""

    FORMAT = ""
    WHAT = ""
    FEATURES = 0

    def __init__(self, network, metadata: dict):
        import jax
        from flax import nnx

        self.metadata = dict(metadata)
        self.calls = self.rows = 0
        graphdef, self._params = nnx.split(network)
        self._forward = jax.jit(lambda params, *arrays: self._output(nnx.merge(graphdef, params), *arrays))

    @classmethod
    def load(cls, path):
        from bridgerl.agents.learned.checkpoint import load_network

        network, metadata = load_network(path, cls.FORMAT, cls.WHAT, cls.FEATURES, cls._build)
        return cls(network, metadata)

    def _apply(self, *arrays) -> np.ndarray:
        from bridgerl.agents.learned.networks import apply_padded

        out, batches = apply_padded(self._forward, self._params, arrays)
        self.calls += batches
        self.rows += len(arrays[0])
        return out


class PolicyModel(_Model):
    """A trained ISSN (``models/issn``): `log_probs` of the legal cards from views, `world_log_weights` of
    sampled worlds."""

    FORMAT, WHAT, FEATURES = ISSN_FORMAT, "ISSN", VIEW_FEATURES
    _build = staticmethod(build_issn)

    @staticmethod
    def _output(network, x, legal):
        return policy_log_probs(network(x), legal)

    def log_probs(self, x: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """float32[P, 52]: log-probability of each legal card (0 elsewhere)."""
        return self._apply(np.asarray(x, np.int8), np.asarray(legal, bool))

    def decision_log_probs(self, views) -> np.ndarray:
        """float32[V, 52] for the players to act in ``views``, in batches of one fixed shape
        (`bridgerl.agents.learned.networks.apply_fixed`): a view's scores do not depend on the others asked with it."""
        from bridgerl.agents.learned.card_location import view_inputs
        from bridgerl.agents.learned.networks import DECISION_ROWS, apply_fixed

        x = np.concatenate([encode(**view_inputs(view))[0] for view in views]).astype(np.int8)
        legal = np.zeros((len(views), 52), bool)
        for i, view in enumerate(views):
            legal[i, list(view.legal)] = True
        self.calls += -(-len(views) // DECISION_ROWS)
        self.rows += len(views)
        return apply_fixed(self._forward, self._params, (x, legal))

    def view_log_probs(self, view) -> np.ndarray:
        """float32[52] for the player to act in ``view`` (its legal cards; `decision_log_probs` of one view)."""
        return self.decision_log_probs([view])[0]

    def world_log_weights(self, view, owners: np.ndarray, T: int) -> np.ndarray:
        """float[k]: the log-likelihood, in each world (uint8[k, 52]), of the other players' last ``T`` choices
        (seed 004's reweighing, in log space; all 0 when there is none)."""
        if T < 1:
            raise ValueError(f"T must be at least 1, got {T}")
        found = history_inputs(view, owners, T)
        if found is None:
            return np.zeros(len(owners))
        x, legal, chosen = found
        m = len(chosen)
        log_p = self.log_probs(x, legal).reshape(len(owners), m, 52)
        picked = log_p[:, np.arange(m), chosen]
        # a card the rebuilt hand could not play (a world off the hard constraints) has probability 0
        allowed = legal.reshape(len(owners), m, 52)[:, np.arange(m), chosen]
        return np.where(allowed, picked, -np.inf).sum(1).astype(np.float64)


class SolverModel(_Model):
    """A trained SSN (``models/ssn``): `values` of every legal card in sampled worlds, no DDS."""

    FORMAT, WHAT, FEATURES = SSN_FORMAT, "SSN", SSN_FEATURES
    _build = staticmethod(build_ssn)

    @staticmethod
    def _output(network, x, left):
        return ssn_values(network(x), left)

    def values(self, x: np.ndarray, legal: np.ndarray, left: np.ndarray) -> np.ndarray:
        """float32[P, 52]: the tricks the side to play takes after each legal card, -1 for the others."""
        out = self._apply(np.asarray(x, np.int8), np.asarray(left, np.float32))
        return np.where(legal, out, -1.0).astype(np.float32)

    def solve_worlds(self, view, owners: np.ndarray) -> np.ndarray:
        """float32[k, 52]: like `bridgerl.agents.play.pimc.solve_worlds` (DDS), by the network."""
        x, legal, left = worlds_ssn_inputs(view, owners)
        return self.values(x, legal, left)


class PolicyAgent:
    """The ISSN as a card player (seed 004's ``nn-baseline``): the legal card it gives the highest probability,
    one network evaluation per decision, no worlds and no DDS. Play spec ``issn[:model=PATH]``."""

    def __init__(self, model: str = DEFAULT_ISSN, seed=None):
        from bridgerl.agents.learned.checkpoint import cached_load

        self.model = str(model)
        self.network = cached_load(PolicyModel, self.model)  # a model that does not load fails here

    def network_rows(self) -> int:
        return self.network.rows

    def act(self, view) -> int:
        return int(self.act_views([view])[0])

    def act_views(self, views) -> np.ndarray:
        """The cards for many views in one network call (`evaluate game` plays tables in lockstep through this):
        the same card for a view whatever views come with it (one fixed batch shape)."""
        cards = []
        for view, log_p in zip(views, self.network.decision_log_probs(views)):
            groups = view.equivalent_groups()
            best = max(groups, key=lambda g: max(log_p[c] for c in g))
            cards.append(best[0])
        return np.array(cards, dtype=np.int64)

    def __repr__(self) -> str:
        return f"PolicyAgent(model={self.model!r})"


def normalised_weights(log_weights: np.ndarray) -> np.ndarray:
    """float[k] summing to 1 from log weights (exp shifted by the largest; uniform if every world is impossible)."""
    log_weights = np.asarray(log_weights, np.float64)
    if not np.isfinite(log_weights).any():
        return np.full(len(log_weights), 1.0 / len(log_weights))
    w = np.exp(log_weights - log_weights[np.isfinite(log_weights)].max())
    return w / w.sum()


__all__ = ["ISSN_FORMAT", "SSN_FORMAT", "DEFAULT_ISSN", "DEFAULT_SSN", "DEFAULT_T", "SSN_FEATURES", "TARGETS",
           "legal_cards", "ssn_encode", "positions_ssn_inputs", "worlds_ssn_inputs", "positions_issn_inputs",
           "history_inputs", "build_issn", "build_ssn", "policy_log_probs", "ssn_values", "PolicyModel", "SolverModel",
           "PolicyAgent", "normalised_weights"]
