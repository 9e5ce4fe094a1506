"""Rewards played out by a learned card player for PPO's competitive bidding (`training.ppo`): every finished
auction of a rollout set in the JAX whole deal at the opening lead of its real auction and played to the end by the
card player (greedy, every seat).

- `played_rewards`: ``playout`` on a dataset's table (IMPs against the env's par, or points).
- `fresh_rewards`: fresh deals (issue #51): each finished auction's deal bid again at a second table by a reference
  policy (`reference_auctions`), both tables' contracts played out (`play_games`, only the games whose result is
  unknown), duplicate IMPs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from bridgerl.agents.learned.networks import NEG as _NEG

REFERENCE_CALLS = 48
"""Fresh deals: the most calls the reference bids at the second table before its auction is closed with passes."""


def played_rewards(env, rollout, card_player) -> jnp.ndarray:
    """float32[T, B, 4]: ``rollout.rewards`` with the contract of every finished auction played out by the
    card player in the JAX whole deal (the real auction; IMPs against the env's par, or points as the env
    scores). The finished auctions are gathered into one batch of the most a rollout can hold (an auction
    takes at least four calls), so nothing is ever left to the table."""
    from bridgerl.core.bridge import CARD_OFFSET
    from bridgerl.envs.jaxenv.bridge import Bridge
    from bridgerl.envs.jaxenv.competitive import score_ns
    from bridgerl.envs.jaxenv.rules import imps

    steps, slots = rollout.done.shape
    rows = steps * slots
    cap = slots * ((steps - 1) // 4 + 1)
    done = rollout.done.reshape(rows)
    position = jnp.nonzero(done, size=cap, fill_value=rows)[0]
    take = jnp.minimum(position, rows - 1)
    ended = jax.tree.map(lambda a: a.reshape((rows,) + a.shape[2:])[take], rollout.ended)
    bridge = Bridge(owner=env.owner, dd=env.dd, dealer=env.dealer, vul=env.vul, par=env.par)
    states = jax.vmap(bridge.after_auction)(ended["index"], ended["fields"], ended["next_seat"])
    player = card_player

    def card(states, _):
        return jax.vmap(bridge.step)(states, CARD_OFFSET + player.jax_cards(states)), None

    states, _ = jax.lax.scan(card, states, None, length=52)
    ns = score_ns(states.contract, states.penalty, states.declarer, states.tricks, states.vulnerable)
    ns = ns if env.reward_points else imps(ns - states._par)
    paid = jnp.array([1.0, -1.0, 1.0, -1.0]) * ns.astype(jnp.float32)[:, None]
    flat = rollout.rewards.reshape(rows, 4).at[position].set(paid, mode="drop")
    return flat.reshape(steps, slots, 4)


def fresh_rewards(env, rollout, policy, card_player, chunk: int) -> jnp.ndarray:
    """float32[T, B, 4]: each seat's duplicate IMPs for every finished auction of a fresh-deal rollout against
    the same deal bid by ``policy`` at a second table (`reference_auctions`), both tables' contracts played
    out by the card player (`play_games`). Only the games whose result is unknown are played: no game for a
    pass-out, and none for a deal whose two tables reached the same contract by the same declarer (the same
    game, when the player does not read the auction: the swing is 0)."""
    from bridgerl.envs.jaxenv.competitive import declarer_of, score_ns
    from bridgerl.envs.jaxenv.rules import imps

    steps, slots = rollout.done.shape
    rows = steps * slots
    done = rollout.done.reshape(rows)
    count = done.sum()
    order = jnp.nonzero(done, size=rows, fill_value=rows)[0]  # the finished auctions first, in order
    ended = jax.tree.map(lambda a: a.reshape((rows,) + a.shape[2:])[jnp.minimum(order, rows - 1)],
                         rollout.ended)
    second = reference_auctions(env, ended, count, policy, chunk)
    tables = {"fields": jax.tree.map(lambda a, b: jnp.concatenate([a, b]), ended["fields"], second["fields"]),
              "next_seat": jnp.concatenate([ended["next_seat"], second["next_seat"]]),
              **{k: jnp.concatenate([ended[k], ended[k]]) for k in ("owner", "dealer", "vulnerable")}}
    fields = tables["fields"]
    bid, penalty = fields["_last_bid"], fields["_penalty"]
    declarer = jax.vmap(declarer_of)(fields["_first_namer"], bid, fields["_last_bidder"])
    same = ((bid[:rows] == bid[rows:]) & (penalty[:rows] == penalty[rows:]) & (declarer[:rows] == declarer[rows:])
            & (not card_player.auction))
    finished = jnp.arange(rows) < count
    needed = jnp.concatenate([finished & ~same, finished & ~same]) & (bid >= 0)
    tricks = play_games(tables, needed, card_player, chunk)
    ns = score_ns(bid, penalty, declarer, tricks, tables["vulnerable"])
    swing = jnp.where(same, 0, imps(ns[:rows] - ns[rows:])).astype(jnp.float32)
    paid = jnp.array([1.0, -1.0, 1.0, -1.0]) * swing[:, None]
    flat = rollout.rewards.reshape(rows, 4).at[order].set(paid, mode="drop")
    return flat.reshape(steps, slots, 4)


def reference_auctions(env, ended: dict, count, policy, chunk: int) -> dict:
    """The second table of the first ``count`` deals of ``ended`` (their owner, dealer and vulnerability): each
    bid greedily by ``policy`` (observations -> logits) at all four seats (at most `REFERENCE_CALLS` calls, then
    passes), ``chunk`` deals at a time. Returns {"fields", "next_seat"} for every entry (those past
    ``count`` unset)."""
    from bridgerl.envs.jaxenv import competitive

    rows = ended["owner"].shape[0]
    # padded with a whole chunk of copies of the first deal (a valid deal), so that a slice never runs past
    deals = jax.tree.map(lambda a: jnp.concatenate([a, jnp.broadcast_to(a[:1], (chunk,) + a.shape[1:])]),
                         {k: ended[k] for k in ("owner", "dealer", "vulnerable")})

    def bid(owner, dealer, vulnerable):
        n = owner.shape[0]
        states = jax.vmap(competitive.start)(owner, jnp.zeros((n, 4, 5), owner.dtype), jnp.zeros(n, jnp.int32),
                                             dealer, vulnerable, jnp.full(n, -1, jnp.int32))

        def call(carry):
            i, states = carry
            logits = policy(states.observation)
            action = jnp.argmax(jnp.where(states.legal_action_mask, logits, _NEG), -1)
            return i + 1, jax.vmap(env.step)(states, jnp.where(states.terminated, 0, action))

        _, states = jax.lax.while_loop(lambda c: (c[0] < REFERENCE_CALLS) & ~c[1].terminated.all(), call,
                                       (jnp.int32(0), states))
        for _ in range(4):  # an auction still running is closed: three passes after a bid, four without one
            states = jax.vmap(env.step)(states, jnp.zeros(n, jnp.int32))
        return {"fields": competitive.auction_fields(states), "next_seat": states.current_player}

    template = jax.eval_shape(bid, *(jax.tree.map(lambda a: a[:chunk], deals[k])
                                     for k in ("owner", "dealer", "vulnerable")))
    buffer = jax.tree.map(lambda t: jnp.zeros((rows + chunk,) + t.shape[1:], t.dtype), template)

    def batch(carry):
        i, buffer = carry
        part = [jax.lax.dynamic_slice_in_dim(deals[k], i * chunk, chunk) for k in ("owner", "dealer",
                                                                                    "vulnerable")]
        out = bid(*part)
        return i + 1, jax.tree.map(lambda b, o: jax.lax.dynamic_update_slice_in_dim(b, o, i * chunk, 0),
                                   buffer, out)

    _, buffer = jax.lax.while_loop(lambda c: c[0] * chunk < count, batch, (jnp.int32(0), buffer))
    return jax.tree.map(lambda a: a[:rows], buffer)


def play_games(tables: dict, needed, card_player, chunk: int) -> jnp.ndarray:
    """int32[N]: declarer's tricks in each ``needed`` game of ``tables`` (auction fields, next seat, owner,
    dealer and vulnerability of N ended auctions) when the card player (greedy, every seat) plays it from the
    opening lead of its real auction; 0 where not needed. The needed games are played ``chunk`` at a
    time."""
    from bridgerl.core.bridge import CARD_OFFSET
    from bridgerl.envs.jaxenv.bridge import Bridge

    n = needed.shape[0]
    count = needed.sum()
    order = jnp.concatenate([jnp.nonzero(needed, size=n, fill_value=n)[0], jnp.full(chunk, n)])
    player = card_player

    def batch(carry):
        i, tricks = carry
        take = jax.lax.dynamic_slice(order, (i * chunk,), (chunk,))
        game = jax.tree.map(lambda a: a[jnp.minimum(take, n - 1)], tables)
        bridge = Bridge(owner=game["owner"].astype(jnp.int8), dd=jnp.zeros((chunk, 4, 5), jnp.int8),
                        dealer=game["dealer"], vul=game["vulnerable"], par=jnp.zeros(chunk, jnp.int32))
        states = jax.vmap(bridge.after_auction)(jnp.arange(chunk), game["fields"], game["next_seat"])

        def card(states, _):
            return jax.vmap(bridge.step)(states, CARD_OFFSET + player.jax_cards(states)), None

        states, _ = jax.lax.scan(card, states, None, length=52)
        return i + 1, tricks.at[take].set(states.tricks, mode="drop")

    _, tricks = jax.lax.while_loop(lambda c: c[0] * chunk < count, batch,
                                   (jnp.int32(0), jnp.zeros(n, jnp.int32)))
    return tricks


__all__ = ["REFERENCE_CALLS", "fresh_rewards", "play_games", "played_rewards", "reference_auctions"]
