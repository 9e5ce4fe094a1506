"""Gymnasium entry point of ``bridgerl/CardPlay-v0``: the card-play env with PIMC defenders unless given
(the env layer knows no agent, so the default lives here)."""

from __future__ import annotations

from bridgerl.agents.play.pimc import PIMCAgent
from bridgerl.envs.card_play import CardPlayEnv

DEFAULT_DEFENDER_WORLDS = 8


def make_card_play_env(defenders=None, defender_worlds: int = DEFAULT_DEFENDER_WORLDS, **kwargs) -> CardPlayEnv:
    """``CardPlayEnv``; ``defenders`` defaults to ``PIMCAgent(worlds=defender_worlds)`` (reseeded on each
    seeded reset)."""
    if defenders is None:
        defenders = PIMCAgent(worlds=defender_worlds)
    return CardPlayEnv(defenders=defenders, **kwargs)
