"""Environments over the rules core: Gymnasium, OpenSpiel and PettingZoo versions of the bidding games
(`docs/envs.md`). Importing ``bridgerl`` registers them."""

from bridgerl.envs.competitive_encoding import decode_auction
from bridgerl.envs.play_view import PlayerView, view_of
from bridgerl.envs.worlds import WorldSamplingError, sample_worlds

__all__ = ["decode_auction", "PlayerView", "view_of", "sample_worlds", "WorldSamplingError"]
