"""Steps/s of jit(vmap(step)) for the JAX bidding envs at batch 1k, 8k and 64k, beside pgx's bridge_bidding in the
same run (pgx's DD lookup table is built from our dataset, since pgx's own file cannot be downloaded here).

    python benchmarks/jax_env_steps.py [--dataset train] [--batches 1024 8192 65536] [--steps 200]

Each timed call runs ``--steps`` steps inside one jitted ``lax.fori_loop``: random legal actions (categorical over
the legal mask), and terminated episodes re-initialised in place, for both envs alike.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import jax
import jax.numpy as jnp
import numpy as np

from bridgerl.core import load_dataset


def pgx_lookup_table(dataset) -> np.ndarray:
    """pgx's (keys, values) int32[2, N, 4] from our owner/dd arrays.

    pgx cards: suit S, H, D, C = 0..3 and rank A = 0, 2 = 1, ..., K = 12; key = per seat-row base-4 digits of the
    owner of each card; value = per declarer (N, E, S, W) five hex digits of tricks in C, D, H, S, NT."""
    cards = np.arange(52)
    pgx_index = (3 - cards // 13) * 13 + (cards % 13 + 1) % 13
    owner_pgx = np.zeros_like(dataset.owner, dtype=np.int64)
    owner_pgx[:, pgx_index] = dataset.owner
    digits = owner_pgx.reshape(-1, 4, 13)
    keys = (digits * (4 ** np.arange(12, -1, -1))).sum(-1)
    values = (dataset.dd.astype(np.int64) << np.array([16, 12, 8, 4, 0])).sum(-1)
    return np.stack([keys, values]).astype(np.int32)


def rollout_fn(init, step, steps):
    def run(state, key):
        def body(_, carry):
            state, key = carry
            key, act_key, reset_key = jax.random.split(key, 3)
            logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
            actions = jax.random.categorical(act_key, logits)
            state = step(state, actions)
            fresh = init(jax.random.split(reset_key, actions.shape[0]))
            state = jax.tree.map(lambda a, b: jnp.where(
                state.terminated.reshape((-1,) + (1,) * (a.ndim - 1)), b, a), state, fresh)
            return state, key
        return jax.lax.fori_loop(0, steps, body, (state, key))
    return jax.jit(run)


def measure(init, step, batch, steps, repeats=3) -> float:
    key = jax.random.key(0)
    state = init(jax.random.split(key, batch))
    run = rollout_fn(init, step, steps)
    state, key = run(state, key)  # compile
    jax.block_until_ready(state)
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        state, key = run(state, key)
        jax.block_until_ready(state)
        best = min(best, time.perf_counter() - start)
    return batch * steps / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="train")
    parser.add_argument("--batches", type=int, nargs="+", default=[1024, 8192, 65536])
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()

    from pgx.bridge_bidding import BridgeBidding

    from bridgerl.envs import jaxenv

    dataset = load_dataset(args.dataset)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "dds_results.npy")
        np.save(path, pgx_lookup_table(dataset))
        pgx_env = BridgeBidding(dds_results_table_path=path)
    envs = {"pgx bridge_bidding (anchor)": pgx_env,
            "bridgerl competitive_bidding": jaxenv.make("competitive_bidding", dataset=dataset),
            "bridgerl uncontested_bidding": jaxenv.make("uncontested_bidding", dataset=dataset)}
    print(f"device: {jax.devices()[0].device_kind} ({jax.default_backend()}), dataset {dataset.source} "
          f"({len(dataset)} deals), {args.steps} steps per call")
    print(f"{'env':32s} " + " ".join(f"{'batch ' + str(b):>14s}" for b in args.batches) + "   (steps/s; ratio to pgx)")
    results = {}
    for name, env in envs.items():
        if name.startswith("pgx"):
            init, step = jax.vmap(env.init), jax.vmap(lambda s, a: env.step(s, a))
        else:
            init = lambda keys, env=env: jax.vmap(env.init)(keys)  # noqa: E731
            step = jax.vmap(env.step)
        results[name] = [measure(init, step, b, args.steps) for b in args.batches]
    anchor = results["pgx bridge_bidding (anchor)"]
    for name, rates in results.items():
        cells = " ".join(f"{r:9.3g} {r / a:4.1f}x" for r, a in zip(rates, anchor))
        print(f"{name:32s} {cells}")


if __name__ == "__main__":
    main()
