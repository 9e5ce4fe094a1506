"""Environments over the rules core (`docs/envs.md`): Gymnasium envs (``bridgerl.envs.uncontested``,
``competitive``, ``card_play``), OpenSpiel games (``import bridgerl.envs.openspiel`` registers them), the PettingZoo
AEC env (``bridgerl.envs.pettingzoo``) and the pure-JAX envs (``bridgerl.envs.jaxenv``); importing this package
loads none of those frameworks.

What agents read is exported here: the `AuctionView` of a bidding seat (and ``decode_auction`` for the 231 bits),
the `PlayerView` of a card player (``view_of``), world sampling for play agents (``sample_worlds``), the JAX
twin of the play features over the whole deal's JAX state (``jax_play_features``), the JAX whole deal itself
(``JaxBridge``: a search playing contracts out in its sampled worlds) and its play from a given position
(``jax_play_position``, ``jax_play_card``, ``jax_auction_fields``: `cardsearch`'s batched play-outs), all loaded
on first use (JAX).
"""

from bridgerl.core.card_play import PlayerView, view_of
from bridgerl.core.competitive import AuctionView, decode_auction
from bridgerl.envs.worlds import WorldSamplingError, known_owner, sample_worlds

__all__ = ["AuctionView", "decode_auction", "PlayerView", "view_of", "sample_worlds", "WorldSamplingError",
           "known_owner", "jax_play_features", "JaxBridge", "jax_play_position", "jax_play_card",
           "jax_auction_fields"]

_JAX_PLAY = {"jax_play_position": "play_position", "jax_play_card": "play_card",
             "jax_auction_fields": "auction_fields_after"}


def __getattr__(name):
    if name == "jax_play_features":
        from bridgerl.envs.jaxenv.bridge import play_features

        return play_features
    if name in _JAX_PLAY:
        from bridgerl.envs.jaxenv import bridge

        return getattr(bridge, _JAX_PLAY[name])
    if name == "JaxBridge":
        from bridgerl.envs.jaxenv.bridge import Bridge

        return Bridge
    raise AttributeError(f"module 'bridgerl.envs' has no attribute {name!r}")
