"""The card-play observation vector (`docs/play.md`): re-exported from the rules module `bridgerl.core.card_play`,
where it lives (kept here because users import it from this path)."""

from bridgerl.core.card_play import LAYOUT, OBSERVATION_SIZE, OFFSETS, encode, encode_pieces

__all__ = ["LAYOUT", "OFFSETS", "OBSERVATION_SIZE", "encode", "encode_pieces"]
