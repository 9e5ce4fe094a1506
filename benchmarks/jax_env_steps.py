"""Steps/s of jit(vmap(step)) for the JAX envs at batch 1k, 8k and 64k, each beside an anchor in the same run:

- ``bidding``: the two bidding envs beside pgx's ``bridge_bidding`` (pgx's DD lookup table is built from our
  dataset, since pgx's own file cannot be downloaded here);
- ``deal``: the whole deal (``jaxenv.make("bridge")``, ``play="agents"`` and ``"double_dummy"``) beside OpenSpiel's
  C++ ``bridge`` (``use_double_dummy_result=False``: the auction and the 52 cards) stepped from Python on one core,
  dealing by its 52 chance moves included and not counted, as ``benchmarks/game_steps.py`` measures it.

    python benchmarks/jax_env_steps.py [--tables bidding deal] [--dataset train] [--batches 1024 8192 65536]
                                       [--steps 200] [--anchor-seconds 3]

Each timed call runs ``--steps`` steps inside one jitted ``lax.fori_loop``: uniformly random legal actions
(bidding: a categorical draw over the legal mask, as pgx's examples; the deal: the k-th legal action for one uniform
integer k, as the anchor draws from its list, `uniform_legal`), and terminated episodes re-initialised in place, for
every JAX env alike (the observation, 802
bits for the whole deal, is worked out on every step). The anchor is measured between the JAX rows, so a slow
moment of a shared machine hits both.
"""

from __future__ import annotations

import argparse
import os
import sys
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


def categorical_legal(key, mask):
    """A uniformly random legal action per row: a categorical draw over the legal mask (one Gumbel draw per action;
    the bidding table's sampler, as pgx's examples draw)."""
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf))


def uniform_legal(key, mask):
    """A uniformly random legal action per row from one integer draw: the k-th legal action, k uniform below the
    number of legal actions (the deal table's sampler: the same distribution as `categorical_legal`, and the same
    draw as the anchor's loop makes from its list of legal actions, at 1/90 of the random numbers)."""
    count = mask.sum(-1)
    k = jax.random.randint(key, count.shape, 0, count)
    return jnp.argmax(mask & (jnp.cumsum(mask, -1) - 1 == k[..., None]), -1)


def rollout_fn(init, step, steps, sample=categorical_legal):
    def run(state, key):
        def body(_, carry):
            state, key = carry
            key, act_key, reset_key = jax.random.split(key, 3)
            actions = sample(act_key, state.legal_action_mask)
            state = step(state, actions)
            fresh = init(jax.random.split(reset_key, actions.shape[0]))
            state = jax.tree.map(lambda a, b: jnp.where(
                state.terminated.reshape((-1,) + (1,) * (a.ndim - 1)), b, a), state, fresh)
            return state, key
        return jax.lax.fori_loop(0, steps, body, (state, key))
    return jax.jit(run)


def measure(init, step, batch, steps, repeats=3, sample=categorical_legal) -> float:
    key = jax.random.key(0)
    state = init(jax.random.split(key, batch))
    run = rollout_fn(init, step, steps, sample)
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
    parser.add_argument("--tables", nargs="+", choices=("bidding", "deal"), default=["bidding", "deal"])
    parser.add_argument("--anchor-seconds", type=float, default=3.0,
                        help="seconds of OpenSpiel's C++ bridge per measurement (the deal table's anchor)")
    args = parser.parse_args()
    dataset = load_dataset(args.dataset)
    print(f"device: {jax.devices()[0].device_kind} ({jax.default_backend()}), {len(jax.devices())} device(s), "
          f"{os.cpu_count()} CPU core(s), XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r}; dataset {dataset.source} "
          f"({len(dataset)} deals), {args.steps} steps per call")
    if "bidding" in args.tables:
        bidding_table(dataset, args)
    if "deal" in args.tables:
        deal_table(dataset, args)


def openspiel_bridge_steps(seconds: float) -> float:
    """Random legal steps/s of OpenSpiel's C++ ``bridge`` (the whole deal, played out), one Python loop."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from env_steps import openspiel_steps

    return openspiel_steps("bridge", seconds, {"use_double_dummy_result": False})


def deal_table(dataset, args) -> None:
    from bridgerl.envs import jaxenv

    envs = {f"bridgerl bridge, play={play}": jaxenv.make("bridge", dataset=dataset, play=play)
            for play in ("agents", "double_dummy")}
    anchors, results = [], {}
    for name, env in envs.items():
        anchors.append(openspiel_bridge_steps(args.anchor_seconds))
        init = lambda keys, env=env: jax.vmap(env.init)(keys)  # noqa: E731
        results[name] = [measure(init, jax.vmap(env.step), b, args.steps, sample=uniform_legal)
                          for b in args.batches]
    anchors.append(openspiel_bridge_steps(args.anchor_seconds))
    anchor = float(np.median(anchors))
    print(f"\nthe whole deal: anchor OpenSpiel C++ bridge (use_double_dummy_result=False), one core from Python: "
          f"{anchor:.3g} steps/s (median of {len(anchors)}: {', '.join(f'{a:.3g}' for a in anchors)})")
    print(f"{'env':32s} " + " ".join(f"{'batch ' + str(b):>14s}" for b in args.batches)
          + "   (steps/s; ratio to the anchor)")
    for name, rates in results.items():
        print(f"{name:32s} " + " ".join(f"{r:9.3g} {r / anchor:4.1f}x" for r in rates))


def bidding_table(dataset, args) -> None:
    from pgx.bridge_bidding import BridgeBidding

    from bridgerl.envs import jaxenv

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "dds_results.npy")
        np.save(path, pgx_lookup_table(dataset))
        pgx_env = BridgeBidding(dds_results_table_path=path)
    envs = {"pgx bridge_bidding (anchor)": pgx_env,
            "bridgerl competitive_bidding": jaxenv.make("competitive_bidding", dataset=dataset),
            "bridgerl uncontested_bidding": jaxenv.make("uncontested_bidding", dataset=dataset)}
    print("\nbidding: anchor pgx bridge_bidding at the same batch")
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
