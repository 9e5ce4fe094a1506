"""The rule-based bidders: ``RuleBidder()`` (the constructive system of `constructive_rules`, uncontested bidding,
89 bits, 36 actions) and ``RuleBidder(competitive=True)`` (the competitive baseline of `competitive_rules`, 231 bits,
38 calls). `docs/agents.md` describes both systems."""

from __future__ import annotations

from bridgerl.agents.bidding.competitive_rules import CompetitiveRuleBidder
from bridgerl.agents.bidding.constructive_rules import ConstructiveRuleBidder


def RuleBidder(competitive: bool = False, constructive=None):  # noqa: N802  (the public name users call)
    """The rule bidder for uncontested bidding, or with ``competitive=True`` the competitive baseline (whose
    constructive system while the opponents pass can be replaced by ``constructive``, an uncontested bidder)."""
    if competitive:
        return CompetitiveRuleBidder(constructive=constructive)
    if constructive is not None:
        raise ValueError("constructive= replaces the constructive system of the competitive rule bidder: "
                         "pass competitive=True")
    return ConstructiveRuleBidder()
