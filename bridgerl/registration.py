"""Registers the Gymnasium envs with string entry points; run once by ``import bridgerl``, so nothing heavy loads
until ``gymnasium.make`` asks for an env: ``bridgerl/UncontestedBidding-v0``, ``bridgerl/CompetitiveBidding-v0``,
``bridgerl/CardPlay-v0`` and ``bridgerl/Bridge-v0`` (the whole deal: auction, then play or the double-dummy result).

OpenSpiel games register when their module is imported, as OpenSpiel's own python games do:
``import bridgerl.envs.openspiel`` registers every bridgerl game (``bridgerl_uncontested_bidding``,
``bridgerl_competitive_bidding``, ``bridgerl_card_play`` and ``bridgerl_bridge``, the whole deal). The PettingZoo
AEC envs are modules: ``bridgerl.envs.pettingzoo.competitive_bidding_v0`` and ``bridgerl.envs.pettingzoo.bridge_v0``.
"""

from __future__ import annotations

UNCONTESTED_ID = "bridgerl/UncontestedBidding-v0"
COMPETITIVE_ID = "bridgerl/CompetitiveBidding-v0"
CARD_PLAY_ID = "bridgerl/CardPlay-v0"
BRIDGE_ID = "bridgerl/Bridge-v0"

ENTRY_POINTS = {
    UNCONTESTED_ID: "bridgerl.envs.uncontested:UncontestedBiddingEnv",
    COMPETITIVE_ID: "bridgerl.envs.competitive:CompetitiveBiddingEnv",
    # the default PIMC defenders are an agent: the factory that supplies them sits in the agents layer
    CARD_PLAY_ID: "bridgerl.agents.card_play_env:make_card_play_env",
    BRIDGE_ID: "bridgerl.envs.bridge:BridgeEnv",
}


LOADERS = {
    # a learned card player by path, for the JAX bidding envs on fresh deals (`jaxenv.make(..., dataset="fresh")`)
    "card_player": "bridgerl.agents.learned.card_player:CardPlayerAgent",
}


def register_loaders() -> None:
    """The loaders of `bridgerl.core.loaders` (strings: nothing is imported until one is used)."""
    from bridgerl.core import loaders

    for name, entry_point in LOADERS.items():
        loaders.register(name, entry_point)


def register_gymnasium() -> None:
    import gymnasium

    for env_id, entry_point in ENTRY_POINTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(env_id, entry_point=entry_point)
