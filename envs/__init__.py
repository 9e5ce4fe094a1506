"""Environments over the rules core: Gymnasium, OpenSpiel and PettingZoo versions of the bidding games
(`docs/envs.md`). Importing ``bridgerl`` registers them."""

from bridgerl.envs.competitive_encoding import decode_auction

__all__ = ["decode_auction"]
