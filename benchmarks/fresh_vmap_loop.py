"""Fresh deals in a user's own JAX loop (issue #67): the pgx-style loop of `docs/jax_envs.md`, over
``jaxenv.make(ENV, dataset="fresh")`` and over the bundled deals, steps per second of each and their ratio.

    python benchmarks/fresh_vmap_loop.py [--env competitive_bidding] [--batch 256] [--steps 200] [--repeats 3]

The loop, as a user writes it (nothing of the env's own trainers): ``jax.vmap(env.init)`` over split keys; a
``jax.lax.scan`` of random legal actions drawn from ``state.legal_action_mask``; ``jax.vmap(env.step)``; an
auto-reset by ``lax.cond`` on ``state.terminated | state.truncated`` under ``vmap``; ``state.rewards`` summed. The
anchor is the same loop over the bundled ``train`` split in the same run. The goal: fresh at least 1/100 of the
bundled loop's steps/s (it was 1/1,400 while a vmapped step played every auction out at every call).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def user_loop(env, batch: int, steps: int):
    """The jitted loop: (key) -> (summed rewards, finished auctions)."""
    import jax
    import jax.numpy as jnp

    def reset_if_done(state, key):
        return jax.lax.cond(state.terminated | state.truncated, lambda: env.init(key), lambda: state)

    def body(carry, _):
        state, key, total, finished = carry
        key, act_key, step_key, reset_key = jax.random.split(key, 4)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(act_key, logits)
        state = jax.vmap(env.step)(state, action, jax.random.split(step_key, batch))
        total = total + state.rewards.sum()
        finished = finished + state.terminated.sum()
        state = jax.vmap(reset_if_done)(state, jax.random.split(reset_key, batch))
        return (state, key, total, finished), None

    @jax.jit
    def run(key):
        key, init_key = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(init_key, batch))
        (_, _, total, finished), _ = jax.lax.scan(body, (state, key, jnp.float32(0), jnp.int32(0)), None,
                                                  length=steps)
        return total, finished

    return run


def measure(env, batch: int, steps: int, repeats: int) -> tuple[float, int]:
    import jax

    run = user_loop(env, batch, steps)
    jax.block_until_ready(run(jax.random.PRNGKey(0)))  # compile
    best = float("inf")
    for repeat in range(repeats):
        began = time.perf_counter()
        _, finished = jax.block_until_ready(run(jax.random.PRNGKey(repeat + 1)))
        best = min(best, time.perf_counter() - began)
    return batch * steps / best, int(finished)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default="competitive_bidding", choices=["competitive_bidding", "uncontested_bidding"])
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    from bridgerl.envs import jaxenv

    bundled = jaxenv.make(args.env, dataset="train")
    fresh = jaxenv.make(args.env, dataset="fresh")
    anchor, _ = measure(bundled, args.batch, args.steps, args.repeats)
    speed, finished = measure(fresh, args.batch, args.steps, args.repeats)
    print(f"{args.env}, batch {args.batch}, {args.steps} steps a run, best of {args.repeats}, CPU "
          f"({os.cpu_count()} cores)")
    print(f"  bundled deals (anchor): {anchor:,.0f} steps/s")
    print(f"  fresh deals:            {speed:,.0f} steps/s ({finished} auctions finished in a run)")
    print(f"  ratio fresh / bundled:  1/{anchor / speed:,.0f} (goal: at least 1/100)")


if __name__ == "__main__":
    main()
