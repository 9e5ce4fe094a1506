"""Fresh deals dealt inside jit (issue #51, `bridgerl.envs.jaxenv.fresh.deal`): are they uniform, and how fast?

    python benchmarks/fresh_deals.py [--deals 1000000] [--batch 100000] [--seed 0]

Chi-square tests over ``--deals`` deals of one key stream (``jax.random.split(PRNGKey(seed), deals)``):
- each card's seat: a 4-cell test per card (3 degrees of freedom, expected deals / 4), the 52 p-values summarised
  (the smallest, Bonferroni-corrected, and the share below 0.05: about 5% for a uniform deal);
- North's hand pattern (sorted suit lengths, e.g. 4-4-3-2) against the exact probabilities
  (multinomial counts of the 13-card hands), the rarest patterns pooled until each bin expects at least 5 hands;
- the board number (1..16, 15 degrees of freedom).
Speed: deals per second of the jitted, vmapped dealer on this machine (the batch above, after compiling); steps per
second of a fresh competitive env's ``jit(vmap(step))`` with its play-out in the step and without
(``play_in_step=False``, what a trainer uses).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def pattern_probabilities() -> dict[tuple[int, ...], float]:
    """{sorted suit lengths (longest first): probability} of a random 13-card hand."""
    total = math.comb(52, 13)
    out: dict[tuple[int, ...], float] = {}
    for lengths in itertools.product(range(14), repeat=4):
        if sum(lengths) == 13:
            key = tuple(sorted(lengths, reverse=True))
            out[key] = out.get(key, 0.0) + math.prod(math.comb(13, n) for n in lengths) / total
    return out


def pooled(observed: dict, expected: dict, minimum: float = 5.0) -> tuple[list[float], list[float]]:
    """Observed and expected counts with the rarest bins pooled until each expects at least ``minimum``."""
    keys = sorted(expected, key=expected.get)
    obs, exp, o, e = [], [], 0.0, 0.0
    for key in keys:
        o, e = o + observed.get(key, 0), e + expected[key]
        if e >= minimum:
            obs.append(o)
            exp.append(e)
            o = e = 0.0
    if e:
        obs[-1] += o
        exp[-1] += e
    return obs, exp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--batch", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--env-batch", type=int, default=1024, help="batch of the fresh env's step timing")
    args = parser.parse_args()

    import jax
    import jax.numpy as jnp
    import numpy as np
    from scipy.stats import chi2

    from bridgerl.envs.jaxenv.fresh import deal

    dealer = jax.jit(jax.vmap(deal))

    @jax.jit
    def summary(keys):
        owner, board, _, _ = jax.vmap(deal)(keys)
        seats = (owner[:, :, None] == jnp.arange(4)).sum(0)                       # [card, seat]
        north = (owner == 0).reshape(-1, 4, 13).sum(-1)                           # [deal, suit]
        patterns = jnp.sort(north, axis=-1)[:, ::-1]
        code = ((patterns[:, 0] * 14 + patterns[:, 1]) * 14 + patterns[:, 2]) * 14 + patterns[:, 3]
        return seats, jnp.bincount(code, length=14 ** 4), jnp.bincount(board, length=17)[1:]

    keys = jax.random.split(jax.random.PRNGKey(args.seed), args.deals)
    seats = np.zeros((52, 4), np.int64)
    codes = np.zeros(14 ** 4, np.int64)
    boards = np.zeros(16, np.int64)
    for start in range(0, args.deals, args.batch):
        # a shorter last batch compiles once more
        s, c, b = (np.asarray(x) for x in summary(keys[start:start + args.batch]))
        seats += s
        codes += c
        boards += b
    n = args.deals
    assert (seats.sum(1) == n).all() and codes.sum() == n and boards.sum() == n
    per_card = ((seats - n / 4) ** 2 / (n / 4)).sum(1)
    p_cards = chi2.sf(per_card, 3)
    observed = {}
    for code in np.flatnonzero(codes):
        lengths = (code // 14 ** 3, code // 14 ** 2 % 14, code // 14 % 14, code % 14)
        observed[tuple(int(x) for x in lengths)] = int(codes[code])
    expected = {k: v * n for k, v in pattern_probabilities().items()}
    obs, exp = pooled(observed, expected)
    pattern_stat = float(sum((o - e) ** 2 / e for o, e in zip(obs, exp)))
    board_stat = float(((boards - n / 16) ** 2 / (n / 16)).sum())

    batch = jax.random.split(jax.random.PRNGKey(args.seed + 1), args.batch)
    jax.block_until_ready(dealer(batch))
    start = time.perf_counter()
    rounds = 0
    while time.perf_counter() - start < 3.0:
        jax.block_until_ready(dealer(batch))
        rounds += 1
    rate = rounds * args.batch / (time.perf_counter() - start)

    print(f"{n:,} fresh deals (key stream PRNGKey({args.seed}) split {n:,} ways), {jax.default_backend()} "
          f"({jax.devices()[0].device_kind}), jax {jax.__version__}")
    print(f"each card's seat: chi-square 3 dof per card, smallest p {p_cards.min():.3f} "
          f"(Bonferroni x52: {min(1.0, 52 * p_cards.min()):.3f}), {np.mean(p_cards < 0.05):.1%} of the 52 below 0.05; "
          f"seat shares {seats.sum(0) / seats.sum()}")
    print(f"North's hand pattern: chi-square {pattern_stat:.1f} on {len(obs) - 1} dof ({len(observed)} patterns "
          f"seen, {len(obs)} bins), p = {chi2.sf(pattern_stat, len(obs) - 1):.3f}; 4-4-3-2 "
          f"{observed.get((4, 4, 3, 2), 0) / n:.4%} (exact {pattern_probabilities()[(4, 4, 3, 2)]:.4%})")
    print(f"board number: chi-square {board_stat:.1f} on 15 dof, p = {chi2.sf(board_stat, 15):.3f}")
    print(f"dealing speed: {rate:,.0f} deals/s (batches of {args.batch:,}, jit + vmap)")

    # a fresh competitive env's batched step, playing every auction out in the step or leaving it to a trainer
    from bridgerl.envs import jaxenv

    rates = {}
    for play_in_step in (False, True):
        env = jaxenv.make("competitive_bidding", dataset="fresh", play_in_step=play_in_step)
        states = jax.vmap(env.init)(jax.random.split(jax.random.PRNGKey(args.seed + 2), args.env_batch))
        step = jax.jit(jax.vmap(env.step))
        passes = jnp.zeros(args.env_batch, jnp.int32)
        jax.block_until_ready(step(states, passes))
        start, rounds = time.perf_counter(), 0
        while time.perf_counter() - start < 3.0:
            jax.block_until_ready(step(states, passes))
            rounds += 1
        rates[play_in_step] = rounds * args.env_batch / (time.perf_counter() - start)
    print(f"fresh competitive env, jit(vmap(step)) at a batch of {args.env_batch:,}: {rates[False]:,.0f} steps/s with "
          f"play_in_step=False, {rates[True]:,.0f} with the play-out in the step "
          f"(ratio {rates[False] / rates[True]:,.0f})")


if __name__ == "__main__":
    main()
