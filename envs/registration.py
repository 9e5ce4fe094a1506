"""Registers the Gymnasium envs and OpenSpiel games; run once by ``import bridgerl``."""

from __future__ import annotations

UNCONTESTED_ID = "bridgerl/UncontestedBidding-v0"
COMPETITIVE_ID = "bridgerl/CompetitiveBidding-v0"
CARD_PLAY_ID = "bridgerl/CardPlay-v0"


def register_gymnasium() -> None:
    import gymnasium

    if UNCONTESTED_ID not in gymnasium.registry:
        gymnasium.register(UNCONTESTED_ID, entry_point="bridgerl.envs.uncontested:UncontestedBiddingEnv")
    if COMPETITIVE_ID not in gymnasium.registry:
        gymnasium.register(COMPETITIVE_ID, entry_point="bridgerl.envs.competitive:CompetitiveBiddingEnv")
    if CARD_PLAY_ID not in gymnasium.registry:
        # The default PIMC defenders are an agent, so the entry point sits in the agents layer.
        gymnasium.register(CARD_PLAY_ID, entry_point="bridgerl.agents.card_play_env:make_card_play_env",
                           max_episode_steps=26)


def register_openspiel() -> None:
    import bridgerl.envs.openspiel_competitive  # noqa: F401  (registers on import)
    import bridgerl.envs.openspiel_uncontested  # noqa: F401
    import bridgerl.envs.openspiel_card_play  # noqa: F401


def register_all() -> None:
    register_gymnasium()
    register_openspiel()
