"""Search at the table for competitive bidding (issue #65): ``bidsearch:[candidates=K,][min_prob=P,][worlds=N,]
[score=estimator|played|dd,][margin=M,]base=SPEC``.

At each call, BASE (any competitive bidder; one with call probabilities, a PPO network or ``ben:DIR``, gives the
search something to weigh) proposes its calls of probability at least P, at most K, its own greedy call first. With
one candidate BASE's call is made and nothing else runs. Otherwise:

1. **Belief by weighted sampling.** Candidate worlds (the three hidden hands) are drawn from the cards the player
   does not see, in batches of `BATCH`, up to ``draws`` of them: uniformly among the deals that meet the hidden
   seats' HCP and suit-length ranges the rule system's agreements read from the calls (``prior=rules``, the default;
   where the reading is nearly never met with the player's hand, uniform), or uniformly (``prior=uniform``). Each hidden seat's calls so far are replayed
   in every world still alive, one batch per call: the seat's model (partner: BASE; opponents: BASE, or with
   ``opponents=known`` the bidder the match seats there, `see_opponents`) gives the probability of the call seen.
   A world is dropped as soon as one call has probability under P (``belief=greedy``: as soon as one call is not the
   model's greedy call); its weight is the product of the probabilities (greedy: 1). Drawing stops once 4 N worlds
   are alive; the N heaviest are kept (``keep=resample``: N drawn by weight, equal weights after). The effective
   sample size (sum w)^2 / sum w^2 of the kept worlds is recorded; under ``min_ess`` (default `MIN_ESS`, 8) the
   search falls back on BASE's call (a fallback, counted).
2. **Rollouts.** Each candidate in each kept world is bid to the end by the models at all four seats, greedy,
   batched: one forward pass per auction step for every row whose side is to call.
3. **Scoring, with the cards played** (``score=``): ``estimator``: the trick estimator's distribution of the pinned
   card player's tricks in the world's deal (`bridgerl.agents.learned.trick_estimator`, ``models/trick-estimator``),
   each contract's expected score over it; ``played``: `models/card-player` plays every reached contract in its
   world to the end, batched in JAX (from the opening lead, as the played tables are made); ``dd``: DDS's tricks
   (double dummy, say so beside any figure).
4. **Choice.** Each candidate's IMPs against BASE's call, per world (the difference of our side's scores), averaged
   with the worlds' weights. The best candidate replaces BASE's call only when it gains at least ``margin`` IMPs.

The search reads nothing but the player's own observation (hand, vulnerability, calls): no deal table. The seed comes
from the command's ``--seed`` (`reseed`: evaluations reseed it for every call from the board, table and call). Every
decision is kept as a `Decision` in ``last`` (the page explains a searched call from it) and counted in ``stats``.
"""

from __future__ import annotations

import time

import numpy as np

from bridgerl.agents.learned.bidsearch_record import Decision, SearchStats
from bridgerl.core.auction import Auction
from bridgerl.core.calls import NUM_CALLS, PASS
from bridgerl.core.competitive import HAND_OFFSET, OBSERVATION_SIZE, AuctionEncoder, decode_auction
from bridgerl.core.imps import imps
from bridgerl.core.scoring import SCORE_TABLE

SCORES = ("estimator", "played", "dd")
BELIEFS = ("weighted", "greedy")
KEEPS = ("heaviest", "resample")
OPPONENTS = ("base", "known")
PRIORS = ("rules", "uniform")
BATCH = 256
"""Candidate worlds drawn at a time."""
MIN_ESS = 8.0
"""Fewer effective worlds than this: BASE's call stands (a fallback)."""
PRIOR_ROUNDS = 8
"""``prior=rules``: rounds of rejection before the rules' reading is given up for this call (uniform draws)."""
MAX_CALLS = 60
"""A rollout still bidding after this many calls is closed with passes (no model has come near it)."""


class _Model:
    """A bidder as the search reads it: ``probabilities(observations, masks)`` float32[n, 38] over the legal calls
    (a PPO network's softmax, ``call_probabilities`` of a view bidder such as ``ben:DIR``, else 1 on the bidder's
    own call) and ``greedy`` calls."""

    def __init__(self, bidder):
        self.bidder = bidder
        network = callable(getattr(bidder, "numpy_probabilities", None)) and \
            getattr(bidder, "constructive", None) is None
        self.kind = ("network" if network else
                     "views" if callable(getattr(bidder, "call_probabilities", None)) else "calls")

    @property
    def has_probabilities(self) -> bool:
        return self.kind != "calls"

    def probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks, bool)
        if self.kind == "network":  # numpy on one thread: many small batches, beside other work
            probs = self.bidder.numpy_probabilities(observations, masks)
        elif self.kind == "views":
            from bridgerl.core.competitive import AuctionView

            views = [AuctionView.from_observation(o, m) for o, m in zip(observations, masks)]
            probs = np.where(masks, np.asarray(self.bidder.call_probabilities(views), np.float64), 0.0)
            probs /= np.maximum(probs.sum(1, keepdims=True), 1e-12)
        else:
            calls = bidder_calls(self.bidder, observations, masks)
            probs = np.zeros(masks.shape, np.float64)
            probs[np.arange(len(calls)), calls] = 1.0
        return probs


def bidder_calls(bidder, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """A bidder's calls as the evaluations ask for them: ``act_fixed`` (a network in batches of one shape, so a row's
    call never depends on the rows beside it), else ``act_batch``, else ``act`` row by row."""
    masks = np.asarray(masks, bool).astype(np.int8)
    for name in ("act_fixed", "act_batch"):
        method = getattr(bidder, name, None)
        if callable(method):
            return np.asarray(method(observations, masks), np.int64)
    return np.array([int(bidder.act(o, m)) for o, m in zip(observations, masks)], np.int64)


class BidSearch:
    """``bidsearch:...,base=SPEC``: the module docstring's search over ``base``'s candidate calls."""

    def __init__(self, base, candidates: int = 3, min_prob: float = 0.05, worlds: int = 32, score: str = "estimator",
                 margin: float = 0.5, belief: str = "weighted", keep: str = "heaviest", draws: int = 2048,
                 opponents: str = "base", prior: str = "rules", min_ess: float = MIN_ESS,
                 estimator: str = "models/trick-estimator", player: str = "models/card-player",
                 punished: bool = False, seed=0, name: str | None = None):
        checks = ((candidates >= 1, f"candidates must be at least 1, got {candidates}"),
                  (0.0 <= min_prob <= 1.0, f"min_prob must be in 0..1, got {min_prob}"),
                  (worlds >= 1, f"worlds must be at least 1, got {worlds}"),
                  (draws >= worlds, f"draws must be at least worlds ({worlds}), got {draws}"),
                  (margin >= 0.0, f"margin must be at least 0 IMPs, got {margin}"),
                  (min_ess >= 1.0, f"min_ess must be at least 1, got {min_ess}"),
                  (score in SCORES, f"score must be one of {', '.join(SCORES)}, got {score!r}"),
                  (belief in BELIEFS, f"belief must be one of {', '.join(BELIEFS)}, got {belief!r}"),
                  (keep in KEEPS, f"keep must be one of {', '.join(KEEPS)}, got {keep!r}"),
                  (prior in PRIORS, f"prior must be one of {', '.join(PRIORS)}, got {prior!r}"),
                  (opponents in OPPONENTS, f"opponents must be one of {', '.join(OPPONENTS)}, got {opponents!r}"))
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        self.base, self.name = base, str(name or type(base).__name__)
        self.candidates, self.min_prob, self.worlds, self.score = int(candidates), float(min_prob), int(worlds), score
        self.margin, self.belief, self.keep, self.draws, self.opponents = float(margin), belief, keep, int(draws), \
            opponents
        self._model = _Model(base)
        self._opponent_model = self._model
        self.min_ess, self.prior = float(min_ess), prior
        self.punished = bool(punished)
        self.rng = np.random.default_rng(seed)
        self.stats = SearchStats()
        self.last: Decision | None = None
        self._estimator = self._player = None
        if score == "estimator":
            from bridgerl.agents.learned.checkpoint import cached_load
            from bridgerl.agents.learned.trick_estimator import TrickEstimator

            self._estimator = cached_load(TrickEstimator, str(estimator))
        elif score == "played":
            from bridgerl.agents.learned.card_player import CardPlayerAgent

            self._player = CardPlayerAgent(str(player))

    # -- the faces of a bidder ---------------------------------------------------------------------------------
    def reseed(self, seed) -> None:
        self.rng = np.random.default_rng(seed)

    def see_opponents(self, bidder) -> None:
        """With ``opponents=known``: the bidder the match seats on the other side models the opponents' calls."""
        if self.opponents == "known" and bidder is not None:
            while getattr(bidder, "punish", None) is not None:  # a punisher bids as its base until it doubles
                bidder = bidder.base
            self._opponent_model = _Model(bidder)

    def act(self, observation, action_mask) -> int:
        return int(self.act_batch(np.asarray(observation)[None], np.asarray(action_mask)[None])[0])

    def act_batch(self, observations, action_masks) -> np.ndarray:
        observations = np.asarray(observations)
        masks = np.asarray(action_masks).astype(bool)
        if observations.ndim != 2 or observations.shape[1] != OBSERVATION_SIZE or masks.shape != (len(observations),
                                                                                                   NUM_CALLS):
            raise ValueError(f"bidsearch bids competitive auctions: observations [n, {OBSERVATION_SIZE}] and masks "
                             f"[n, {NUM_CALLS}], got {observations.shape} and {masks.shape}")
        return np.array([self.decide(o, m).call for o, m in zip(observations, masks)], np.int64)

    def act_view(self, view) -> int:
        return self.act(view.observation(), view.legal_mask)

    # -- the search ----------------------------------------------------------------------------------------------
    def decide(self, observation, mask) -> Decision:
        """The `Decision` for one position (also kept in ``last`` and counted in ``stats``)."""
        start = time.perf_counter()
        observation = np.asarray(observation, np.int8)
        mask = np.asarray(mask, bool)
        if not mask.any():
            raise ValueError("bidsearch: no legal call in the mask: the auction is over")
        base_call = int(bidder_calls(self.base, observation[None], mask[None])[0])
        candidates = [(base_call, 1.0)]
        if self._model.has_probabilities and self.candidates > 1:
            probs = self._model.probabilities(observation[None], mask[None])[0]
            candidates = [(base_call, float(probs[base_call]))]
            for call in np.argsort(-probs, kind="stable"):
                if len(candidates) >= self.candidates or probs[call] < self.min_prob:
                    break
                if int(call) != base_call and mask[call]:
                    candidates.append((int(call), float(probs[call])))
        if len(candidates) == 1:
            decision = Decision(base_call, base_call, [(base_call, candidates[0][1], None)])
        else:
            decision = self._search(observation, mask, base_call, candidates, start)
        decision.seconds["total"] = time.perf_counter() - start
        self.last = decision
        self.stats.add(decision)
        return decision

    def _search(self, observation, mask, base_call: int, candidates: list, start: float) -> Decision:
        calls = decode_auction(observation)  # (relative seat, call): 0 = me, 1 = LHO, 2 = partner, 3 = RHO
        we, they = bool(observation[0]), bool(observation[1])
        hand = observation[HAND_OFFSET:].astype(bool)
        owners, weights, drawn = self.sample_worlds(calls, we, they, hand)
        tick = time.perf_counter()
        decision = Decision(base_call, base_call, searched=True, worlds=len(owners), drawn=drawn)
        decision.seconds["sampling"] = tick - start
        if len(owners):
            w = weights / weights.sum()
            decision.ess = float(1.0 / np.sum(w ** 2))
        if decision.ess < self.min_ess:
            decision.fallback = True
            decision.candidates = [(c, p, None) for c, p in candidates]
            return decision
        contracts = self.rollouts(calls, [c for c, _ in candidates], owners, we, they)
        after = time.perf_counter()
        scores = self.our_scores(owners, contracts, we, they)  # [K, N]
        decision.seconds.update(rollouts=after - tick, scoring=time.perf_counter() - after)
        gains = (imps(scores - scores[0:1]) * w[None, :]).sum(1)
        decision.candidates = [(c, p, float(g)) for (c, p), g in zip(candidates, gains)]
        best = int(np.argmax(gains))
        if gains[best] >= self.margin and best != 0:
            decision.call = candidates[best][0]
        return decision

    def _seat_model(self, seat: int) -> _Model:
        return self._model if seat % 2 == 0 else self._opponent_model

    def sample_worlds(self, calls, we: bool, they: bool, hand: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """(owners uint8[k, 52] in relative seats, weights float[k], worlds drawn): the kept worlds (module
        docstring, step 1)."""
        unseen = np.flatnonzero(~hand)
        target = 4 * self.worlds
        kept_owners, kept_logw, drawn = [], [], 0
        alive_total = 0
        constraints = self._prior_constraints(calls)
        while drawn < self.draws and alive_total < target:
            size = min(BATCH, self.draws - drawn)
            owners = self._propose(unseen, size, constraints)
            if len(owners) < size:  # the rules' reading is (nearly) never met with this hand: uniform from here
                constraints = {}
                owners = np.concatenate([owners, self._propose(unseen, size - len(owners), constraints)])
            drawn += size
            logw = np.zeros(size)
            alive = np.arange(size)
            encoder = AuctionEncoder()
            auction = Auction(dealer=(-len(calls)) % 4)  # relative seats: the player is seat 0
            for seat, call in calls:
                if seat != 0 and len(alive):
                    obs = np.empty((len(alive), OBSERVATION_SIZE), np.int8)
                    seat_we, seat_they = (we, they) if seat % 2 == 0 else (they, we)
                    encoder.observation(seat_we, seat_they, np.zeros(52, np.int8), out=obs[0])
                    obs[1:] = obs[0]
                    obs[:, HAND_OFFSET:] = owners[alive] == seat
                    legal = np.repeat(auction.legal_mask()[None], len(alive), axis=0)
                    probs = self._seat_model(seat).probabilities(obs, legal)
                    if self.belief == "greedy":
                        ok = probs.argmax(1) == call
                        p = np.ones(len(alive))
                    else:
                        p = probs[:, call]
                        ok = p >= max(self.min_prob, 1e-12)
                    logw[alive[ok]] += np.log(p[ok])
                    alive = alive[ok]
                encoder.add(call)
                auction = auction.add(call)
            kept_owners.append(owners[alive])
            kept_logw.append(logw[alive])
            alive_total += len(alive)
        owners = np.concatenate(kept_owners) if kept_owners else np.zeros((0, 52), np.uint8)
        logw = np.concatenate(kept_logw) if kept_logw else np.zeros(0)
        if len(owners) > self.worlds:
            if self.keep == "heaviest":
                pick = np.argsort(-logw, kind="stable")[:self.worlds]
                owners, logw = owners[pick], logw[pick]
            else:
                p = np.exp(logw - logw.max())
                pick = self.rng.choice(len(owners), size=self.worlds, replace=True, p=p / p.sum())
                owners, logw = owners[pick], np.zeros(self.worlds)
        weights = np.exp(logw - (logw.max() if len(logw) else 0.0))
        return owners, weights, drawn

    def _prior_constraints(self, calls) -> dict:
        """``prior=rules``: the hidden seats' constraints (HCP, suit lengths) the rule system's agreements read from
        the calls (`bridgerl.agents.bidding.rules_agreements.interpret_auction`, relative seats); uniform: none."""
        if self.prior != "rules":
            return {}
        from bridgerl.agents.bidding.rules_agreements import interpret_auction
        from bridgerl.core.constraints import HandConstraint

        auction = Auction(dealer=(-len(calls)) % 4)
        for _, call in calls:
            auction = auction.add(call)
        read = interpret_auction(auction, "none", (1, 2, 3))
        return {seat: c for seat, c in read.items() if c != HandConstraint()}

    def _propose(self, unseen: np.ndarray, size: int, constraints: dict) -> np.ndarray:
        """Up to ``size`` worlds drawn uniformly from the deals of the unseen cards (in relative seats 1-3) that meet
        ``constraints`` (rejection, at most `PRIOR_ROUNDS` rounds of 4 x ``size`` draws; fewer when they are rare)."""
        if size <= 0:
            return np.zeros((0, 52), np.uint8)
        found, count = [], 0
        for _ in range(PRIOR_ROUNDS if constraints else 1):
            raw = size * (4 if constraints else 1)
            order = np.argsort(self.rng.random((raw, len(unseen))), axis=1)
            owners = np.zeros((raw, 52), np.uint8)
            owners[np.arange(raw)[:, None], unseen[order]] = 1 + np.arange(len(unseen)) // 13
            for seat, constraint in constraints.items():
                owners = owners[constraint.accepts(owners, seat)]
            found.append(owners)
            count += len(owners)
            if count >= size:
                break
        return np.concatenate(found)[:size]

    def rollouts(self, calls, candidate_calls: list[int], owners: np.ndarray, we: bool, they: bool) -> list:
        """[K][N] final contracts (`Contract` with relative declarer, or None for a pass-out): each candidate in
        each world bid to the end by the models, greedy, one forward pass per step and side."""
        k, n = len(candidate_calls), len(owners)
        encoder = AuctionEncoder()
        auction = Auction(dealer=(-len(calls)) % 4)
        for _, call in calls:
            encoder.add(call)
            auction = auction.add(call)
        rows_owner = np.repeat(owners[None], k, axis=0).reshape(k * n, 52)
        auctions, encoders = [], []
        for c in candidate_calls:
            after = auction.add(c)
            for _ in range(n):
                auctions.append(after)
                if not after.is_over:
                    e = encoder.copy()
                    e.add(c)
                    encoders.append(e)
                else:
                    encoders.append(None)
        active = [i for i, a in enumerate(auctions) if not a.is_over]
        while active:
            seat = auctions[active[0]].to_act  # every active row has made as many calls: one seat to act
            seat_we, seat_they = (we, they) if seat % 2 == 0 else (they, we)
            obs = np.empty((len(active), OBSERVATION_SIZE), np.int8)
            masks = np.empty((len(active), NUM_CALLS), bool)
            for j, i in enumerate(active):
                encoders[i].observation(seat_we, seat_they, rows_owner[i] == seat, out=obs[j])
                masks[j] = auctions[i].legal_mask()
            probs = self._seat_model(seat).probabilities(obs, masks)
            chosen = np.where(masks, probs, -1.0).argmax(1)
            still = []
            for j, i in enumerate(active):
                call = int(chosen[j])
                if len(auctions[i].calls) >= MAX_CALLS + len(calls):
                    call = PASS
                a = auctions[i].add(call)
                auctions[i] = a
                if not a.is_over:
                    encoders[i].add(call)
                    still.append(i)
            active = still
        contracts = [a.contract() for a in auctions]
        return [contracts[c * n:(c + 1) * n] for c in range(k)]

    def our_scores(self, owners: np.ndarray, contracts: list, we: bool, they: bool) -> np.ndarray:
        """float[K, N]: our side's score (seats 0 and 2) of each reached contract in its world, by ``score``."""
        k, n = len(contracts), len(owners)
        flat = [(c, w, contract) for c in range(k) for w, contract in enumerate(contracts[c])]
        out = np.zeros((k, n))
        played = [(c, w, x) for c, w, x in flat if x is not None]
        if not played:
            return out
        cs = np.array([c for c, _, _ in played])
        ws = np.array([w for _, w, _ in played])
        declarer = np.array([x.declarer for _, _, x in played])
        strain = np.array([x.strain for _, _, x in played])
        bid = np.array([x.bid for _, _, x in played])
        penalty = np.array([x.penalty for _, _, x in played])
        vulnerable = np.where(declarer % 2 == 0, we, they).astype(np.int64)
        sign = np.where(declarer % 2 == 0, 1.0, -1.0)
        table = SCORE_TABLE[bid, penalty, vulnerable]  # [R, 14]: declarer's score for every trick count
        if self.punished:  # our undoubled contracts doubled where they fail: the lower of the two scores each count
            ours = (declarer % 2 == 0) & (penalty == 0)
            table = np.where(ours[:, None], np.minimum(table, SCORE_TABLE[bid, 1, vulnerable]), table)
        if self.score == "estimator":
            dist = self._estimator.distribution(owners[ws], declarer)[np.arange(len(ws)), strain]
            declarer_score = (dist * table).sum(1)
        else:
            tricks = self._tricks(owners, ws, declarer, strain, bid, penalty)
            declarer_score = table[np.arange(len(ws)), tricks]
        out[cs, ws] = sign * declarer_score
        return out

    def _tricks(self, owners, ws, declarer, strain, bid, penalty) -> np.ndarray:
        if self.score == "dd":
            from bridgerl.core.dd import solve_dd_tables

            worlds = np.unique(ws)
            tables = solve_dd_tables(owners[worlds]).astype(np.int64)
            return tables[np.searchsorted(worlds, ws), declarer, strain]
        return play_contracts(self._player, owners[ws], bid, penalty, declarer)

    def __repr__(self) -> str:
        punished = ", punished" if self.punished else ""
        return (f"BidSearch({self.name}, K={self.candidates}, P={self.min_prob}, N={self.worlds}, score={self.score}"
                f"{punished})")


_PLAY_FUNCTIONS: dict = {}


def play_contracts(player, owners, bid, penalty, declarer) -> np.ndarray:
    """int[R]: the declarer's tricks when ``player`` (a learned card player with ``jax_cards``) plays each contract
    (``bid`` 0..34, ``penalty``, ``declarer`` seat of ``owners``' deal) from its opening lead to the end, all rows in
    one jitted batch (padded to a power of two)."""
    import jax
    import jax.numpy as jnp

    from bridgerl.core.bridge import CARD_OFFSET
    from bridgerl.envs import JaxBridge as Bridge

    n = len(owners)
    size = 1 << max(n - 1, 0).bit_length()
    key = (id(player), size)
    if key not in _PLAY_FUNCTIONS:
        @jax.jit
        def play(owner, bid, penalty, declarer):
            env = Bridge(owner=owner, dd=jnp.zeros((size, 4, 5), jnp.uint8), dealer=jnp.zeros(size, jnp.int32),
                         vul=jnp.zeros(size, jnp.int32), par=jnp.zeros(size, jnp.int32))
            states = jax.vmap(env.opening_lead)(jnp.arange(size), bid, penalty, declarer)

            def body(states, _):
                return jax.vmap(env.step)(states, CARD_OFFSET + player.jax_cards(states)), None

            states, _ = jax.lax.scan(body, states, None, length=52)
            return states.tricks

        _PLAY_FUNCTIONS[key] = play
    pad = size - n
    padded = [np.concatenate([np.asarray(a), np.repeat(np.asarray(a)[:1], pad, axis=0)]) for a in
              (owners, bid, penalty, declarer)]
    tricks = _PLAY_FUNCTIONS[key](*(jnp.asarray(a) for a in padded))
    return np.asarray(tricks)[:n].astype(np.int64)


def parse_spec(text: str) -> tuple[str, str]:
    """(options, base spec) of what follows ``bidsearch:``: ``base=`` is the last option and takes the rest."""
    if text.startswith("base="):
        return "", text[5:]
    index = text.find(",base=")
    if index < 0:
        raise ValueError("bidsearch names no base: bidsearch:[candidates=K,][min_prob=P,][worlds=N,]"
                         "[score=estimator|played|dd,][margin=M,]base=SPEC")
    return text[:index], text[index + 6:]


__all__ = ["BidSearch", "Decision", "SearchStats", "SCORES", "bidder_calls", "parse_spec", "play_contracts"]
