"""Agents that act through the environments' interfaces (`docs/agents.md`).

Bidding agents implement ``act(observation, action_mask) -> action`` and ``act_batch`` (competitive bidders may
also implement ``act_view(view: AuctionView)``, which evaluation prefers to ``act``; ``act_batch``, the batched
fast path, comes first); play agents implement
``act(view: PlayerView) -> card``. ``RuleBidder`` is a factory: ``RuleBidder()`` is a `ConstructiveRuleBidder`,
``RuleBidder(competitive=True)`` a `CompetitiveRuleBidder`.
JAX-dependent agents (``DQNAgent``, ``PPOAgent``, the learned card player ``CardPlayer`` and its play-spec loader
``CardPlayerAgent``, the search on top of it ``CardSearch``) load on first use.
"""

from bridgerl.agents.bidding.baselines import PassAgent, RandomBidder
from bridgerl.agents.play.alphamu import AlphaMuAgent
from bridgerl.agents.play.best_defence import best_defence_values
from bridgerl.agents.play.pimc import DoubleDummyAgent, PIMCAgent, RandomAgent
from bridgerl.agents.bidding.competitive_rules import CompetitiveRuleBidder
from bridgerl.agents.bidding.constructive_rules import ConstructiveRuleBidder
from bridgerl.agents.bidding.rules import RuleBidder
from bridgerl.agents.bidding.sayc import SAYCBidder
from bridgerl.agents.bidding.silent import SilentOpponents
from bridgerl.agents.learned.brl import BrlBidder
from bridgerl.agents.learned.simulation import PolicyAgent

__all__ = ["PassAgent", "RandomBidder", "RuleBidder", "ConstructiveRuleBidder", "CompetitiveRuleBidder",
           "SAYCBidder", "SilentOpponents", "DQNAgent", "PPOAgent", "RandomAgent", "DoubleDummyAgent", "PIMCAgent",
           "AlphaMuAgent", "PolicyAgent", "BrlBidder", "CardPlayer", "CardPlayerAgent", "CardSearch", "best_defence_values"]


def __getattr__(name):
    if name in ("DQNAgent", "PPOAgent"):
        from bridgerl.agents.learned import dqn

        return getattr(dqn, name)
    if name in ("CardPlayer", "CardPlayerAgent"):
        from bridgerl.agents.learned import card_player

        return getattr(card_player, name)
    if name == "CardSearch":
        from bridgerl.agents.play.card_search import CardSearch

        return CardSearch
    raise AttributeError(f"module 'bridgerl.agents' has no attribute {name!r}")
