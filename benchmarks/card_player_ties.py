"""How near to a tie the learned card player's decisions come (issue #63), and whether this machine rebuilds the
bundled played tables: the gap between the two highest legal outputs at every decision of the played-tables games
(the JAX path `bridgerl data played` uses), and the played tables of whole chunks remade here against the bundled.

    python benchmarks/card_player_ties.py [--model models/card-player] [--data test] [--deals 64]
                                          [--rebuild train:8955,13099,14315]

- ``gaps``: the 20 games of each of ``--deals`` deals (the canonical start at the DD level, as `data played`),
  played greedy; the share of decisions (two or more legal cards) whose top two outputs are within 1e-6 ... 1e-2.
  A flat share per unit of gap says that a tie tolerance only moves where machines may disagree, it does not
  remove it; exact ties go to the lowest card (`card_player.masked_choice`).
- ``rebuild``: for each row named, its whole chunk of 256 deals played here exactly as `data played` plays it
  (same batch), and the entries that differ from the split's bundled table.
"""

from __future__ import annotations

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from flax import nnx

from bridgerl.agents import CardPlayer
from bridgerl.core import load_dataset
from bridgerl.core.board import dealers_for_boards, vul_codes_for_boards
from bridgerl.core.bridge import CARD_OFFSET
from bridgerl.envs import jax_play_features
from bridgerl.envs.jaxenv.bridge import Bridge
from bridgerl.evaluation.datasets.played import CHUNK, contract_levels, played_tables


def gaps(player: CardPlayer, dataset, deals: int) -> np.ndarray:
    """The top-two output gap of every decision with a choice, the games of `data played` on the first rows."""
    rows = np.arange(deals)
    dd = dataset.tables["dd"][rows] if dataset.tables is not None else dataset.dd[rows]
    bids = (contract_levels(np.asarray(dd), "dd") - 1) * 5 + np.arange(5)[None, None, :]
    network, games = nnx.merge(player._graphdef, player._params), deals * 20

    @jax.jit
    def run(owner, dd, dealer, vul, bids):
        env = Bridge(owner=jnp.repeat(owner, 20, 0), dd=jnp.repeat(dd, 20, 0), dealer=jnp.repeat(dealer, 20),
                     vul=jnp.repeat(vul, 20), par=jnp.zeros(games, jnp.int32))
        declarer = jnp.tile(jnp.repeat(jnp.arange(4), 5), deals)
        states = jax.vmap(env.opening_lead)(jnp.arange(games), bids.reshape(-1), jnp.zeros(games, jnp.int32),
                                            declarer)

        def body(states, _):
            legal = states.legal_action_mask[..., -52:]
            features = jax.vmap(lambda s: jax_play_features(s, player.auction))(states)
            logits = jnp.where(legal, network(features), -1e9)
            top = jax.lax.top_k(logits, 2)[0]
            gap = jnp.where(legal.sum(-1) >= 2, top[:, 0] - top[:, 1], jnp.inf)
            return jax.vmap(env.step)(states, CARD_OFFSET + player.jax_cards(states)), gap

        return jax.lax.scan(body, states, None, length=52)[1]

    boards = dataset.boards[rows]
    out = np.asarray(run(jnp.asarray(dataset.owner[rows]), jnp.asarray(dd), jnp.asarray(dealers_for_boards(boards)),
                         jnp.asarray(vul_codes_for_boards(boards)), jnp.asarray(bids))).ravel()
    return out[np.isfinite(out)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="models/card-player")
    parser.add_argument("--data", default="test")
    parser.add_argument("--deals", type=int, default=64)
    parser.add_argument("--rebuild", default="train:8955,13099,14315",
                        help="SPLIT:ROW,ROW,...: rows whose chunks are remade here ('' for none)")
    args = parser.parse_args()
    player = CardPlayer.load(args.model)
    print(f"jax {jax.__version__}, {jax.devices()[0].device_kind}")
    found = gaps(player, load_dataset(args.data), args.deals)
    print(f"{found.size} decisions with a choice ({args.deals} deals of {args.data}, 20 games each)")
    for limit in (1e-6, 1e-5, 1e-4, 1e-3, 1e-2):
        share = (found <= limit).mean()
        print(f"  top two within {limit:g}: {(found <= limit).sum()} ({share:.2e}; {share / limit:.1f} per unit)")
    if args.rebuild:
        split, rows = args.rebuild.split(":")
        dataset = load_dataset(split)
        for row in map(int, rows.split(",")):
            start = row // CHUNK * CHUNK
            here = played_tables(player, dataset, rows=np.arange(start, start + CHUNK), chunk=CHUNK)
            bundled = dataset.tables["played"][start:start + CHUNK]
            differ = [(start + int(a), int(b), int(c)) for a, b, c in np.argwhere(here != bundled)]
            print(f"{split} row {row} (chunk {start}-{start + CHUNK - 1}): {len(differ)} entries differ from the "
                  f"bundled table{': ' + str(differ) if differ else ''}")


if __name__ == "__main__":
    main()
