"""PettingZoo AEC versions of the bridgerl envs (``from bridgerl.envs.pettingzoo import competitive_bidding_v0``)."""
