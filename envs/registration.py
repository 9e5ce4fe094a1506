"""Registers the Gymnasium envs and OpenSpiel games; run once by ``import bridgerl``."""

from __future__ import annotations

UNCONTESTED_ID = "bridgerl/UncontestedBidding-v0"
COMPETITIVE_ID = "bridgerl/CompetitiveBidding-v0"


def register_gymnasium() -> None:
    import gymnasium

    if UNCONTESTED_ID not in gymnasium.registry:
        gymnasium.register(UNCONTESTED_ID, entry_point="bridgerl.envs.uncontested:UncontestedBiddingEnv")
    if COMPETITIVE_ID not in gymnasium.registry:
        gymnasium.register(COMPETITIVE_ID, entry_point="bridgerl.envs.competitive:CompetitiveBiddingEnv")


def register_openspiel() -> None:
    import bridgerl.envs.openspiel_competitive  # noqa: F401  (registers on import)
    import bridgerl.envs.openspiel_uncontested  # noqa: F401


def register_all() -> None:
    register_gymnasium()
    register_openspiel()
