"""The 231-bit competitive bidding observation of thesis 4.5.2 and its inverse: re-exported from the rules module
`bridgerl.core.competitive`, where it lives (kept here because users import ``decode_auction`` from this path)."""

from bridgerl.core.competitive import (AUCTION_OFFSET, HAND_OFFSET, OBSERVATION_SIZE, bid_values, decode_auction,
                                       encode, encode_auction)

__all__ = ["OBSERVATION_SIZE", "AUCTION_OFFSET", "HAND_OFFSET", "bid_values", "encode_auction", "encode",
           "decode_auction"]
