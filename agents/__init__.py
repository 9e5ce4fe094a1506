"""Agents that act through the environments' interfaces (`docs/agents.md`).

Bidding agents implement ``act(observation, action_mask) -> action`` and ``act_batch``; play agents implement
``act(view: PlayerView) -> card``.
JAX-dependent agents (``DQNAgent``) load on first use.
"""

from bridgerl.agents.baselines import PassAgent, RandomBidder
from bridgerl.agents.alphamu import AlphaMuAgent
from bridgerl.agents.play import DoubleDummyAgent, PIMCAgent, RandomAgent
from bridgerl.agents.competitive_rules import CompetitiveRuleBidder
from bridgerl.agents.rules import RuleBidder

__all__ = ["PassAgent", "RandomBidder", "RuleBidder", "CompetitiveRuleBidder", "DQNAgent", "RandomAgent",
           "DoubleDummyAgent", "PIMCAgent", "AlphaMuAgent"]


def __getattr__(name):
    if name == "DQNAgent":
        from bridgerl.agents.dqn import DQNAgent

        return DQNAgent
    raise AttributeError(f"module 'bridgerl.agents' has no attribute {name!r}")
