"""Environments over the rules core (`docs/envs.md`): Gymnasium envs (``bridgerl.envs.uncontested``,
``competitive``, ``card_play``), OpenSpiel games (``import bridgerl.envs.openspiel`` registers them), the PettingZoo
AEC env (``bridgerl.envs.pettingzoo``) and the pure-JAX envs (``bridgerl.envs.jaxenv``); importing this package
loads none of those frameworks.

What agents read is exported here: the `AuctionView` of a bidding seat (and ``decode_auction`` for the 231 bits),
the `PlayerView` of a card player (``view_of``), and world sampling for play agents (``sample_worlds``).
"""

from bridgerl.core.card_play import PlayerView, view_of
from bridgerl.core.competitive import AuctionView, decode_auction
from bridgerl.envs.worlds import WorldSamplingError, known_owner, sample_worlds

__all__ = ["AuctionView", "decode_auction", "PlayerView", "view_of", "sample_worlds", "WorldSamplingError",
           "known_owner"]
