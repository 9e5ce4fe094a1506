"""Importing this module registers every bridgerl OpenSpiel game with ``pyspiel`` (as OpenSpiel's own python games
register on import): ``bridgerl_uncontested_bidding``, ``bridgerl_competitive_bidding``, ``bridgerl_card_play`` and
``bridgerl_bridge`` (the whole deal: auction, then play or the double-dummy result).

    import pyspiel
    import bridgerl.envs.openspiel  # noqa: F401
    game = pyspiel.load_game("bridgerl_competitive_bidding")
"""

from bridgerl.envs import openspiel_card_play, openspiel_competitive, openspiel_uncontested  # noqa: F401  (register)
from bridgerl.envs import openspiel_bridge  # noqa: F401  (register)

GAMES = ("bridgerl_uncontested_bidding", "bridgerl_competitive_bidding", "bridgerl_card_play", "bridgerl_bridge")
